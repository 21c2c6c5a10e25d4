// The broadcast lives in a helper called from an iteration loop; rank,
// size and root reach it through parameters, and every caller passes what
// MPI_Comm_rank and MPI_Comm_size wrote.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static void share(long *values, int n, int root, int me, int np) {
  if (me == root) {
    for (int p = 0; p < np; p++)
      if (p != root)
        MPI_Send(values, n, MPI_LONG, p, 11, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(values, n, MPI_LONG, root, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: static void share(long *values, int n, int root, int me, int np) {
  // CHECK-FIXES-NEXT: MPI_Bcast(values, n, MPI_LONG, root, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  long state[3];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int iter = 0; iter < 5; iter++) {
    for (int k = 0; k < 3; k++)
      state[k] = 100 * rank + 10 * iter + k;
    share(state, 3, iter % size, rank, size);
    long sum = state[0] + state[1] + state[2];
    printf("iter %d rank %d sum %ld\n", iter, rank, sum);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
