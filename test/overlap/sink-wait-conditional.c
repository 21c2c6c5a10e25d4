// A wait in a conditional (the BT example of the paper's Figure 1): moved
// out of its `if`, it runs behind the boolean flag of Algorithm 1, set
// where the original wait ran.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-sink-wait" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static long work(int rank) {
  long s = 0;
  for (int i = 0; i < 200000; i++)
    s += (i ^ rank) % 13;
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  int got[8] = {0}, mine[8];
  MPI_Request req;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 8; k++)
    mine[k] = rank * 8 + k;
  int pairs = rank % 2 == 0 && rank + 1 < size;
  if (pairs) {
    MPI_Irecv(got, 8, MPI_INT, rank + 1, 3, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: MPI_Wait can move past the next 1 statement [mpilift-sink-wait]
    // CHECK-MESSAGES: :[[@LINE+5]]:3: note: the wait is placed here: this statement uses 'got'
  } else if (rank % 2 == 1) {
    MPI_Send(mine, 8, MPI_INT, rank - 1, 3, MPI_COMM_WORLD);
  }
  long w = work(rank);
  printf("rank %d: %ld %d %d\n", rank, w, got[0], got[7]);
  MPI_Finalize();
  return 0;
}
// CHECK-FIXES: int wait_pending = 0;
// CHECK-FIXES-NEXT: if (pairs) {
// CHECK-FIXES-NEXT: MPI_Irecv(got, 8, MPI_INT, rank + 1, 3, MPI_COMM_WORLD, &req);
// CHECK-FIXES-NEXT: wait_pending = 1;
// CHECK-FIXES: long w = work(rank);
// CHECK-FIXES-NEXT: if (wait_pending)
// CHECK-FIXES-NEXT: MPI_Wait(&req, MPI_STATUS_IGNORE);
// CHECK-FIXES-NEXT: printf(
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
