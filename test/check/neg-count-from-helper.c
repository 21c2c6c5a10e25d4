// Issue 18, item 3: the count comes from a helper that gives the low ranks
// one element more. The spelling 'len' is the same on both sides; the value
// is not: the evaluation follows the helper and finds the sizes differ.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define TOTAL 23

static int share_of(int total, int me, int np) {
  return total / np + (me < total % np ? 1 : 0);
}

int main(int argc, char **argv) {
  int rank, size;
  double values[TOTAL];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int len = share_of(TOTAL, rank, size);
  if (rank == 0) {
    for (int k = 0; k < TOTAL; k++)
      values[k] = 0.5 * k;
    for (int i = 1; i < size; i++)
      MPI_Send(values, len, MPI_DOUBLE, i, 8, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: matching-arguments refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-2]]:7: note: matching-arguments: at 3 processes, rank 0 sends 64 bytes to rank 2, which receives 56
  } else {
    MPI_Recv(values, len, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("rank %d: %d values, first %.1f\n", rank, len, values[0]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
