// The buffer is a global, so an opaque call may write it: the wait cannot
// move past the call.
// RUN: %check-rewrite refuse %s %t --check-args="--checks=mpilift-split-send" | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

double field[32];
int steps;

void advance(void) {
  for (int k = 0; k < 32; k++)
    field[k] += 1;
  steps++;
}

int main(int argc, char **argv) {
  int rank, size;
  double in[32];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 32; k++)
    field[k] = rank;
  MPI_Send(field, 32, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: remark: blocking MPI_Send: nothing to overlap [mpilift-split-send]
  advance();
  // CHECK: :[[@LINE-1]]:3: note: the wait cannot move: this call may reach the buffer, which is not a private local object
  MPI_Recv(in, 32, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  printf("rank %d: %.1f %d\n", rank, in[0] + field[0], steps);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
