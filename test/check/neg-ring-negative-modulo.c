// Listing 2 of the paper as printed: `(rank - 1) % numtasks` is -1 on rank
// 0 in C, so the ring is broken whatever the root. The simulation of the
// neighbour arithmetic refuses it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, numtasks, master_task = 0, x = 0, tag = 1;
  MPI_Status stat;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  if (rank == master_task) {
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, (rank - 1) % numtasks, tag, MPI_COMM_WORLD, &stat);
    // CHECK: :[[@LINE-2]]:5: warning: ring of point-to-point messages implements a broadcast (static analysis); not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-2]]:30: note: scale-independence: rank 0 receives from rank -1, which does not exist; the region forms this collective only if a negative remainder wrapped around
  } else {
    MPI_Recv(&x, 1, MPI_INT, (rank - 1) % numtasks, tag, MPI_COMM_WORLD, &stat);
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
