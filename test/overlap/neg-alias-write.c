// A write through a pointer that aliases the buffer, right after the send:
// the buffer is no longer private, so the write may reach it and the wait
// cannot move at all.
// RUN: %check-rewrite refuse %s %t --check-args="--checks=mpilift-split-send" | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double buf[16];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *edge = &buf[8];
  for (int k = 0; k < 16; k++)
    buf[k] = rank + k;
  MPI_Send(buf, 16, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: remark: blocking MPI_Send: nothing to overlap [mpilift-split-send]
  edge[0] = -1;
  // CHECK: :[[@LINE-1]]:3: note: the wait cannot move: this access through a pointer may reach the buffer
  double in[16];
  MPI_Recv(in, 16, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  printf("rank %d: %.1f %.1f\n", rank, in[8], buf[8]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
