// Issue 18, item 2: the root sends '&data[start]' to every peer, but
// 'start' is set from the peer inside the loop, so each peer gets another
// block: a scatter written with a local, not one broadcast buffer. Taking
// it for MPI_Bcast(&data[start], ...) computed wrong totals. Evaluated per
// rank, the addresses are data + peer * BLOCK: a scatter with base 'data',
// and the root's element loop copies its own block, which MPI_IN_PLACE
// leaves to it.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define BLOCK 4
#define MAXP 64

static void hand_out(const int *data, int *mine, int me, int np) {
  int start = 0;
  if (me == 0) {
    for (int peer = 1; peer < np; peer++) {
      start = peer * BLOCK;
      MPI_Send(&data[start], BLOCK, MPI_INT, peer, 0, MPI_COMM_WORLD);
    }
    // CHECK: :[[@LINE-4]]:5: warning: loop of point-to-point sends implements a scatter (static analysis); replace it with MPI_Scatter [mpilift-manual-scatter]
    // CHECK-FIXES: if (me == 0) {
    // CHECK-FIXES-NEXT: MPI_Scatter(data, BLOCK, MPI_INT, MPI_IN_PLACE, BLOCK, MPI_INT, 0,
    // CHECK-FIXES: mine[k] = data[k];
    // CHECK-FIXES-NEXT: } else {
    // CHECK-FIXES-NEXT: MPI_Scatter(NULL, 0, MPI_INT, mine, BLOCK, MPI_INT, 0, MPI_COMM_WORLD);
    for (int k = 0; k < BLOCK; k++)
      mine[k] = data[k];
  } else {
    MPI_Recv(mine, BLOCK, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  int rank, size, data[MAXP * BLOCK], mine[BLOCK];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < MAXP * BLOCK; k++)
    data[k] = rank == 0 ? k : -1;
  hand_out(data, mine, rank, size);
  int sum = 0;
  for (int k = 0; k < BLOCK; k++)
    sum += mine[k];
  printf("rank %d: sum %d\n", rank, sum);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: same output at np 1 2 3 4 5 7 8
