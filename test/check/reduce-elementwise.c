// Issue 15: per-bin totals reduced element by element in a loop over an
// array (`sums[k] += theirs[k]`), the root's own bins copied first by a
// loop; counts behind a macro. Rewritten to one MPI_Reduce of the array;
// the count is the one the calls spell.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define NBINS 5

int main(int argc, char **argv) {
  int rank, size, p, k;
  long mine[NBINS], sums[NBINS], theirs[NBINS];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (k = 0; k < NBINS; k++)
    mine[k] = (rank + 1) * (k + 3) % 11;
  if (rank == 0) {
    for (k = 0; k < NBINS; k++)
      sums[k] = mine[k];
    for (p = 1; p < size; p++) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
      MPI_Recv(theirs, NBINS, MPI_LONG, p, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      for (k = 0; k < NBINS; k++)
        sums[k] += theirs[k];
    }
    for (k = 0; k < NBINS; k++)
      printf("bin %d: %ld\n", k, sums[k]);
  } else {
    MPI_Send(mine, NBINS, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  }
  // CHECK-FIXES: MPI_Reduce(mine, sums, NBINS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK-FIXES-NOT: MPI_Recv
  // CHECK-FIXES-NOT: MPI_Send
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
