// The loop bound comes from the command line. Taken as the same on every
// rank, the loop would broadcast (to the ranks below it); it is not proven
// so, and input independence refuses it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, data[4] = {1, 2, 3, 4};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = argc > 1 ? atoi(argv[1]) : 1;
  if (rank == 0) {
    for (int i = 1; i < n; i++)
      MPI_Send(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-5]]:7: note: input-independence: 'n' is not proven the same on every rank (the condition 'argc > 1' cannot be evaluated: 'argc' is written by a call of 'MPI_Init')
  } else if (rank < n) {
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
