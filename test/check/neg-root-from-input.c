// The root is read from the command line.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size, data = 5;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = argc > 1 ? atoi(argv[1]) : 0;
  if (rank == root) {
    for (int i = 0; i < size; i++)
      if (i != root)
        MPI_Send(&data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-3]]:5: warning: {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-6]]:7: note: input-independence: 'root' is not proven the same on every rank (the condition 'argc > 1' cannot be evaluated: 'argc' is written by a call of 'MPI_Init')
  } else {
    MPI_Recv(&data, 1, MPI_INT, root, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
