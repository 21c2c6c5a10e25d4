// The receivers listen on a duplicate of the communicator the root sends
// on (and it happens to work because the ranks agree); no single
// collective call can replace it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, data = 5;
  MPI_Comm dup;
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(&data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: matching-arguments refused [mpilift-manual-bcast]
  } else {
    MPI_Recv(&data, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
    // CHECK: :[[@LINE-1]]:39: note: matching-arguments: at 4 processes, rank 0 communicates on 'MPI_COMM_WORLD' and rank 1 on 'dup'; one collective call has one communicator
  }
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
