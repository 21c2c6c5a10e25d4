// Issue 14: a star broadcast whose senders and receivers disagree on the
// root: the root sends from rank 'leader', the others wait for rank 0.
// At one process count the two agree, at others the program hangs or
// reads the wrong data; MPI_Bcast has one root for all. Refused.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define LEN 4

int main(int argc, char **argv) {
  int rank, size, ierr;
  int buf[LEN] = {0, 0, 0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int leader = size / 2;
  if (rank == leader) {
    for (int i = 0; i < LEN; i++)
      buf[i] = 100 + i;
    for (int p = 0; p < size; p++)
      if (p != leader)
        ierr = MPI_Send(buf, LEN, MPI_INT, p, 3, MPI_COMM_WORLD);
  } else {
    ierr = MPI_Recv(buf, LEN, MPI_INT, 0, 3, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  // CHECK: warning: {{.*}}not rewritten: matching-arguments refused [mpilift-manual-bcast]
  // CHECK: :[[@LINE-4]]:12: note: matching-arguments: at 3 processes, rank 0 waits for a message from rank 0 (source '0', tag 3), and the one sent to it comes from rank 1; the ranks do not agree on who sends to whom
  printf("%d: %d %d\n", rank, buf[0], buf[LEN - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
