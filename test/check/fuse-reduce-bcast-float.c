// Issue 15: a floating-point sum reduced to a root and broadcast. By
// default the fusion is refused by reduction-order (MPI_Allreduce may
// combine the values in another order and round differently); with
// --allow-reassociation it is rewritten. The values here are small
// integers, exact in any order, so the outputs compare equal.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --check-prefix=CHECK-STRICT --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t.fast --check-args="--allow-reassociation" | FileCheck %s --check-prefix=CHECK-FAST --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.fast/prog.c
#include <mpi.h>
#include <stdio.h>

#define ROOT 0

int main(int argc, char **argv) {
  int rank;
  double partial[2], area[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  partial[0] = 0.5 * (rank + 1);
  partial[1] = 2.0 * rank;
  int rc = MPI_Reduce(partial, area, 2, MPI_DOUBLE, MPI_SUM, ROOT,
                      MPI_COMM_WORLD);
  // CHECK-STRICT: :[[@LINE-2]]:12: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: reduction-order refused [mpilift-fuse-collectives]
  // CHECK-STRICT: :[[@LINE-3]]:12: note: reduction-order: a sum of 'MPI_DOUBLE' may round differently when MPI_Allreduce combines the values in another order than MPI_Reduce did; --allow-reassociation accepts results that differ in the last bits
  // CHECK-FAST: :[[@LINE-4]]:12: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  int rc2 = MPI_Bcast(area, 2, MPI_DOUBLE, ROOT, MPI_COMM_WORLD);
  // CHECK-FIXES: int rc = MPI_Allreduce(partial, area, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // CHECK-FIXES: int rc2 = MPI_SUCCESS;
  printf("rank %d: area %.3f %.3f (%d %d)\n", rank, area[0], area[1], rc, rc2);
  MPI_Finalize();
  return 0;
}
// CHECK-STRICT: check-rewrite: unchanged
// CHECK-FAST: check-rewrite: same output at np 1 2 3 4 5 7 8
