// `size` is changed after MPI_Comm_size wrote it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, data[4] = {1, 2, 3, 4};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size = size > 2 ? size - 1 : size;
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-4]]:3: note: scale-independence: at 3 processes the messages form a broadcast over 2 of them; rank 2 takes no part
  } else if (rank < size) {
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
