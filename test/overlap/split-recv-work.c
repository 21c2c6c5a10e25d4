// A receive followed by independent work and then the use: MPI_Irecv, and
// the wait just before the first use. The second receive's status is read
// after some work: its wait stops at that read, and gets the status.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-split-recv" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static double work(int n) {
  double s = 0;
  for (int k = 1; k <= n; k++)
    s += 1.0 / ((double)k * k);
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  double out[32], in[32], in2[32];
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int k = 0; k < 32; k++)
    out[k] = rank + k * 0.5;
  MPI_Send(out, 32, MPI_DOUBLE, right, 0, MPI_COMM_WORLD);
  MPI_Send(out, 32, MPI_DOUBLE, left, 1, MPI_COMM_WORLD);
  MPI_Recv(in, 32, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: blocking MPI_Recv can overlap the next 4 statements; split it into MPI_Irecv and MPI_Wait [mpilift-split-recv]
  // CHECK-MESSAGES: :[[@LINE+7]]:3: note: the wait is placed here: this statement uses 'in'
  double w = work(40000);
  MPI_Recv(in2, 32, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &st);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: blocking MPI_Recv can overlap the next 1 statement; split it into MPI_Irecv and MPI_Wait [mpilift-split-recv]
  // CHECK-MESSAGES: :[[@LINE+2]]:3: note: the wait is placed here: this statement uses 'st'
  double w2 = work(1000);
  int from = st.MPI_SOURCE;
  double v = in[0] + in[31] + w + w2 + in2[2];
  // CHECK-FIXES: MPI_Request recv_request = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: MPI_Irecv(in, 32, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &recv_request);
  // CHECK-FIXES: double w = work(40000);
  // CHECK-FIXES-NEXT: MPI_Request recv_request2 = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: MPI_Irecv(in2, 32, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &recv_request2);
  // CHECK-FIXES: double w2 = work(1000);
  // CHECK-FIXES-NEXT: MPI_Wait(&recv_request2, &st);
  // CHECK-FIXES-NEXT: int from = st.MPI_SOURCE;
  // CHECK-FIXES-NEXT: MPI_Wait(&recv_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: double v =
  printf("rank %d: %.4f from %d\n", rank, v, from == right);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
