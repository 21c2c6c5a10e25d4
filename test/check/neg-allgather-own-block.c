// The loop never fills the rank's own block and nothing copies it: an
// MPI_Allgather would write data there that the original never has.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, mine, all[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mine = 3 * rank;
  all[rank] = -1;
  for (int p = 0; p < size; p++)
    if (p != rank)
      MPI_Sendrecv(&mine, 1, MPI_INT, p, 0, &all[p], 1, MPI_INT, p, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-4]]:3: warning: loop of point-to-point exchanges implements an allgather (static analysis); not rewritten: message-integrity refused [mpilift-manual-allgather]
  // CHECK: :[[@LINE-5]]:3: note: message-integrity: at 3 processes, rank 0 leaves its own block alone and copies nothing there; the collective would write it
  printf("%d %d\n", rank, all[rank]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
