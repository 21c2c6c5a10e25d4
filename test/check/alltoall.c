// An alltoall: block p of `out` goes to rank p, block p of `in` comes from
// it, and the rank's own block is copied next to the loop.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 3

int main(int argc, char **argv) {
  int rank, size;
  MPI_Status status;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float *out = malloc(sizeof(float) * N * size);
  float *in = malloc(sizeof(float) * N * size);
  for (int k = 0; k < N * size; k++)
    out[k] = rank * 100.0f + k;
  memcpy(in + rank * N, out + rank * N, N * sizeof(float));
  for (int p = 0; p < size; ++p)
    if (p != rank)
      MPI_Sendrecv(&out[p * N], N, MPI_FLOAT, p, 0, &in[p * N], N, MPI_FLOAT,
                   p, 0, MPI_COMM_WORLD, &status);
  // CHECK-MESSAGES: :[[@LINE-4]]:3: warning: loop of point-to-point exchanges implements an alltoall (static analysis and the trace); replace it with MPI_Alltoall [mpilift-manual-alltoall]
  // CHECK-FIXES: memcpy(in + rank * N, out + rank * N, N * sizeof(float));
  // CHECK-FIXES-NEXT: MPI_Alltoall(out, N, MPI_FLOAT, in, N, MPI_FLOAT, MPI_COMM_WORLD);
  for (int k = 0; k < N * size; k++)
    printf("rank %d in[%d] = %.0f\n", rank, k, in[k]);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
