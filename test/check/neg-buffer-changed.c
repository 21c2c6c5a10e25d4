// Listing 4 of the paper: the message changes between sends, so every rank
// gets a different value; not a broadcast.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, buf = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int dest = 1; dest < size; dest++) {
      MPI_Send(&buf, 1, MPI_INT, dest, 0, MPI_COMM_WORLD);
      buf++;
    }
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}not rewritten: message-integrity refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-3]]:7: note: message-integrity: this statement changes 'buf' after it was sent and before it is sent again, so the messages do not all carry the same data
  } else {
    MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("rank %d buf %d\n", rank, buf);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
