// Issue 18, item 2: the root sends '&data[start]' to every peer, but
// 'start' is set from the peer inside the loop, so each peer gets another
// block: a scatter written with a local, not one broadcast buffer. Taking
// it for MPI_Bcast(&data[start], ...) computed wrong totals.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
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
    // CHECK: :[[@LINE-4]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: matching-arguments refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-4]]:7: note: matching-arguments: the buffer '&data[start]' is not proven the same for every peer: 'start' is written inside the loop, so '&data[start]' may differ from one peer to the next
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
// CHECK: check-rewrite: unchanged
