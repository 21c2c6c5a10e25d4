// --fallback cdag on a loop bound read from the command line: not scale
// independent, but at run time the graph is a broadcast over the ranks it
// reaches, and libcdag runs it as one.
// RUN: %check-rewrite rewrite %s %t --trace --args 100 --check-args="--fallback cdag" --new-build-args="%cdag_flags" --report 5 | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size;
  double x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : size;
  if (n > size)
    n = size;
  if (rank == 0)
    x = 2.5;
  if (rank == 0) {
    for (int i = 1; i < n; i++)
      MPI_Send(&x, 1, MPI_DOUBLE, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); not proven: input-independence refused; run it through libcdag instead
    // CHECK: :[[@LINE-9]]:7: note: input-independence: 'n' is not proven the same on every rank (the condition 'argc > 1' cannot be evaluated: 'argc' is written by a call of 'MPI_Init')
  } else if (rank < n) {
    MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("rank %d x %.1f\n", rank, x);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK: report: cdag: bcast root 0 on all 5 processes
