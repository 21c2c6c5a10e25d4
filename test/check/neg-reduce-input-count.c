// Issue 15: how many values each rank contributes comes from the command
// line, which the ranks need not agree on. Refused by input-independence,
// naming the value.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXV 8

int main(int argc, char **argv) {
  int rank, size, p, k, n;
  long mine[MAXV], sums[MAXV], theirs[MAXV];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  n = argc > 1 ? atoi(argv[1]) : 3;
  if (n > MAXV)
    n = MAXV;
  for (k = 0; k < n; k++)
    mine[k] = rank + k;
  if (rank == 0) {
    for (k = 0; k < n; k++)
      sums[k] = mine[k];
    for (p = 1; p < size; p++) {
      // CHECK: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: input-independence refused [mpilift-manual-reduce]
      // CHECK: :[[@LINE-10]]:3: note: input-independence: 'n' is not proven the same on every rank (the condition 'argc > 1' cannot be evaluated: 'argc' is written by a call of 'MPI_Init')
      MPI_Recv(theirs, n, MPI_LONG, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (k = 0; k < n; k++)
        sums[k] += theirs[k];
    }
    for (k = 0; k < n; k++)
      printf("sum[%d] = %ld\n", k, sums[k]);
  } else {
    MPI_Send(mine, n, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
