// A send followed by long independent computation, then a write to the
// buffer: the send becomes MPI_Isend and its wait lands just before the
// write. The computation reads the buffer, which a pending send allows; the
// MPI_Wait it passes is not counted as overlapped work.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-split-send" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
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
  double halo[256], in[256];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double total = 0;
  for (int step = 0; step < 3; step++) {
    for (int k = 0; k < 256; k++)
      halo[k] = rank * 1000 + step * 10 + k;
    MPI_Request r;
    MPI_Irecv(in, 256, MPI_DOUBLE, left, step, MPI_COMM_WORLD, &r);
    MPI_Send(halo, 256, MPI_DOUBLE, right, step, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: blocking MPI_Send can overlap the next 3 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
    double mine = work(20000 + step);
    for (int k = 0; k < 100; k++)
      mine += halo[k] * 1e-9;
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    total += mine + in[3];
    halo[0] = 0;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the wait is placed here: this statement may write 'halo'
  }
  // CHECK-FIXES: MPI_Request send_request = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: MPI_Isend(halo, 256, MPI_DOUBLE, right, step, MPI_COMM_WORLD,
  // CHECK-FIXES-NEXT: &send_request);
  // CHECK-FIXES: total += mine + in[3];
  // CHECK-FIXES-NEXT: MPI_Wait(&send_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: halo[0] = 0;
  printf("rank %d: %.6f\n", rank, total);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
