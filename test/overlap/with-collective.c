// All rules at once (--checks='mpilift-*'): the receive of the hand-written
// broadcast belongs to the collective's rewrite, so the overlap rules leave
// it alone; the send of the ring exchange after it is split.
// RUN: %check-rewrite rewrite %s %t --check-args="--checks=mpilift-*" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
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
  double p[4] = {0}, out[8], in[8];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int k = 0; k < 4; k++)
      p[k] = k + 0.5;
    for (int i = 1; i < size; i++)
      MPI_Send(p, 4, MPI_DOUBLE, i, 0, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(p, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double w = work(1000);
    p[0] += w * 0;
  }
  for (int k = 0; k < 8; k++)
    out[k] = rank + k;
  MPI_Send(out, 8, MPI_DOUBLE, (rank + 1) % size, 1, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: blocking MPI_Send can overlap the next 2 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
  double w2 = work(5000);
  MPI_Recv(in, 8, MPI_DOUBLE, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  out[0] = in[0] + w2;
  // CHECK-FIXES: MPI_Bcast(p, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  // CHECK-FIXES: MPI_Bcast(p, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: double w = work(1000);
  // CHECK-FIXES: MPI_Isend(out, 8, MPI_DOUBLE, (rank + 1) % size, 1, MPI_COMM_WORLD,
  // CHECK-FIXES: MPI_Wait(&send_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: out[0] = in[0] + w2;
  printf("rank %d: %.2f %.2f\n", rank, p[3], out[0]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
