// The MG pattern of the paper's Figure 2 (give3/take3 inlined): two
// conditional blocking sends of the same buffer, each after refilling it,
// then the matching receives and computation that only reads the buffer.
// The first send's wait leaves its `if` (its request starts as
// MPI_REQUEST_NULL, so the wait does nothing where the send did not run)
// and stops at the refill of the second give; the second send's wait
// sinks to the end of the loop body.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-split-send" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define N 128

static double smooth(const double *u, int n) {
  double s = 0;
  for (int r = 0; r < 200; r++)
    for (int k = 1; k < n - 1; k++)
      s += 0.25 * (u[k - 1] + 2 * u[k] + u[k + 1]) * 1e-3;
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  double u[N], buff[N], from_left[N], from_right[N];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double total = 0;
  for (int k = 0; k < N; k++)
    u[k] = rank + k * 0.01;
  for (int it = 0; it < 4; it++) {
    // give: the first axis, every other iteration.
    if (size > 1 && it % 2 == 0) {
      for (int k = 0; k < N; k++)
        buff[k] = u[k] * (it + 1);
      MPI_Send(buff, N, MPI_DOUBLE, right, 10, MPI_COMM_WORLD);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: blocking MPI_Send can overlap the next 1 statement; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
      // CHECK-MESSAGES: :[[@LINE+4]]:5: note: the wait is placed here: this statement may write 'buff'
    }
    double norm = smooth(u, N);
    // give: the second axis.
    if (size > 1) {
      for (int k = 0; k < N; k++)
        buff[k] = u[N - 1 - k] - it;
      MPI_Send(buff, N, MPI_DOUBLE, left, 11, MPI_COMM_WORLD);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: blocking MPI_Send can overlap the next 5 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
    }
    // take: receive the neighbours' data, compute with our own copy.
    if (size > 1 && it % 2 == 0)
      MPI_Recv(from_left, N, MPI_DOUBLE, left, 10, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    if (size > 1)
      MPI_Recv(from_right, N, MPI_DOUBLE, right, 11, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    double mine = smooth(buff, N);
    total += norm + mine + (size > 1 ? from_right[3] : 0);
    if (size > 1 && it % 2 == 0)
      total += from_left[5];
  }
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the wait is placed here: the end of the loop body (a wait stays in its loop)
  // CHECK-FIXES: MPI_Request send_request = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: if (size > 1 && it % 2 == 0) {
  // CHECK-FIXES: MPI_Isend(buff, N, MPI_DOUBLE, right, 10, MPI_COMM_WORLD, &send_request);
  // CHECK-FIXES: double norm = smooth(u, N);
  // CHECK-FIXES-NEXT: MPI_Wait(&send_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES: MPI_Request send_request2 = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: if (size > 1) {
  // CHECK-FIXES: MPI_Isend(buff, N, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &send_request2);
  // CHECK-FIXES: total += from_left[5];
  // CHECK-FIXES-NEXT: MPI_Wait(&send_request2, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: }
  printf("rank %d: %.6f\n", rank, total);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
