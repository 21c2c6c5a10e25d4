// --collectives nonblocking: the broadcast becomes MPI_Ibcast in both
// branches and its wait moves past the independent computation to just
// before the first use of the buffer.
// RUN: %check-rewrite rewrite %s %t --trace --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static double work(int n) {
  double s = 0;
  for (int k = 1; k <= n; k++)
    s += 1.0 / k;
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  int coefficients[8];
  double partial[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int step = 0; step < 3; step++) {
    if (rank == 0) {
      for (int k = 0; k < 8; k++)
        coefficients[k] = step * 8 + k;
      for (int i = 1; i < size; i++)
        MPI_Send(coefficients, 8, MPI_INT, i, 0, MPI_COMM_WORLD);
      // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Ibcast [mpilift-manual-bcast]
    } else {
      MPI_Recv(coefficients, 8, MPI_INT, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    for (int j = 0; j < 4; j++)
      partial[j] = work(1000 * (j + 1) + rank);
    int total = 0;
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: the wait is placed here: this statement uses 'coefficients'
    for (int k = 0; k < 8; k++)
      total += coefficients[k];
    printf("step %d rank %d total %d work %.3f\n", step, rank, total,
           partial[3]);
  }
  // CHECK-FIXES: for (int step = 0; step < 3; step++) {
  // CHECK-FIXES-NEXT: MPI_Request bcast_request;
  // CHECK-FIXES-NEXT: if (rank == 0) {
  // CHECK-FIXES: MPI_Ibcast(coefficients, 8, MPI_INT, 0, MPI_COMM_WORLD, &bcast_request);
  // CHECK-FIXES: } else {
  // CHECK-FIXES-NEXT: MPI_Ibcast(coefficients, 8, MPI_INT, 0, MPI_COMM_WORLD, &bcast_request);
  // CHECK-FIXES: partial[j] = work(1000 * (j + 1) + rank);
  // CHECK-FIXES-NEXT: int total = 0;
  // CHECK-FIXES: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: for (int k = 0; k < 8; k++)
  // CHECK-FIXES-NEXT: total += coefficients[k];
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
