// With a trace, the finding says how long the run blocked in the call, and
// the rewrite happens only above --overlap-threshold-ms.
// RUN: %check-rewrite refuse %s %t.high --trace --check-args="--checks=mpilift-split-send --overlap-threshold-ms=100000" | FileCheck %s --check-prefix=CHECK-HIGH --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t.zero --trace --np 2,3,4,8 --check-args="--checks=mpilift-split-send --overlap-threshold-ms=0" | FileCheck %s --check-prefix=CHECK-ZERO --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double out[256], in[256];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double acc = 0;
  for (int it = 0; it < 3; it++) {
    for (int k = 0; k < 256; k++)
      out[k] = rank + it + k * 0.001;
    MPI_Send(out, 256, MPI_DOUBLE, (rank + 1) % size, it, MPI_COMM_WORLD);
    // CHECK-HIGH: :[[@LINE-1]]:5: warning: blocking MPI_Send can overlap the next 2 statements (the trace: {{[0-9]+\.[0-9]+}} ms blocked in 12 calls); not rewritten: the trace shows less than --overlap-threshold-ms=100000{{.*}} blocked here [mpilift-split-send]
    // CHECK-ZERO: :[[@LINE-2]]:5: warning: blocking MPI_Send can overlap the next 2 statements (the trace: {{[0-9]+\.[0-9]+}} ms blocked in 12 calls); split it into MPI_Isend and MPI_Wait [mpilift-split-send]
    MPI_Recv(in, 256, MPI_DOUBLE, (rank + size - 1) % size, it,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    acc += in[it] + out[7];
  }
  printf("rank %d: %.3f\n", rank, acc);
  MPI_Finalize();
  return 0;
}
// CHECK-HIGH: check-rewrite: unchanged
// CHECK-ZERO: check-rewrite: same output at np 2 3 4 8
