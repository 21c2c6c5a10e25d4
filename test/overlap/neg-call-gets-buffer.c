// Calls that get the buffer: one that only reads it through a `const`
// pointer is crossed, one that may write it (a plain pointer) stops the
// wait.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-split-send" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static double sum(const double *v, int n) {
  double s = 0;
  for (int k = 0; k < n; k++)
    s += v[k];
  return s;
}

static void scale(double *v, int n, double f) {
  for (int k = 0; k < n; k++)
    v[k] *= f;
}

int main(int argc, char **argv) {
  int rank, size;
  double buf[64], in[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 64; k++)
    buf[k] = rank * 0.5 + k;
  MPI_Send(buf, 64, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: blocking MPI_Send can overlap the next 2 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
  // CHECK-MESSAGES: :[[@LINE+4]]:3: note: the wait is placed here: this statement may write 'buf'
  MPI_Recv(in, 64, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  double before = sum(buf, 64);
  scale(buf, 64, 2.0);
  // CHECK-FIXES: double before = sum(buf, 64);
  // CHECK-FIXES-NEXT: MPI_Wait(&send_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: scale(buf, 64, 2.0);
  printf("rank %d: %.1f %.1f %.1f\n", rank, before, sum(buf, 64), in[1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
