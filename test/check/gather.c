// A star gather into rank 1 (rank 0 when alone): the root receives block i
// from rank i at &results[i * 2] and fills its own block itself.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double results[16];
  double local[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = size > 1 ? 1 : 0;
  local[0] = rank * 1.5;
  local[1] = rank * 2.5;
  if (rank == root) {
    results[2 * root] = local[0];
    results[2 * root + 1] = local[1];
    for (int src = 0; src < size; src++) {
      if (src == root)
        continue;
      MPI_Recv(&results[src * 2], 2, MPI_DOUBLE, src, 4, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    // CHECK-MESSAGES: :[[@LINE-6]]:5: warning: loop of point-to-point receives implements a gather (static analysis and the trace); replace it with MPI_Gather [mpilift-manual-gather]
    for (int k = 0; k < 2 * size; k++)
      printf("results[%d] = %.1f\n", k, results[k]);
  } else {
    MPI_Send(local, 2, MPI_DOUBLE, root, 4, MPI_COMM_WORLD);
  }
  // CHECK-FIXES: MPI_Gather(MPI_IN_PLACE, 2, MPI_DOUBLE, results, 2, MPI_DOUBLE, root,
  // CHECK-FIXES: MPI_Gather(local, 2, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, root, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
