// A ring whose root, alone, sends itself a message nobody receives: an
// erroneous program at one process, so the ring is not proven.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, x = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: chain of point-to-point messages implements a broadcast (static analysis); not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-2]]:5: note: scale-independence: at 1 process, rank 0 sends to rank 0 (tag 0, 4 bytes), and no receive takes the message
  } else {
    MPI_Recv(&x, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank + 1 < size)
      MPI_Send(&x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
