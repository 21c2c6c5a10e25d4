// The loop bound is a literal: at any other scale it is not a broadcast.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, data[4] = {1, 2, 3, 4};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (int i = 1; i < 4; i++)
      MPI_Send(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-2]]:34: note: scale-independence: at 3 processes, rank 0 sends to rank 3, which does not exist
  } else if (rank < 4) {
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
