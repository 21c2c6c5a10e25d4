// Issue 18, item 1: the root's loop prints the old content of each block
// before it receives it. The collective would run before the loop and fill
// the blocks first, so the loop would print the new values: refused.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define BLOCK 3

int main(int argc, char **argv) {
  int rank, size;
  int table[64 * BLOCK];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 64 * BLOCK; k++)
    table[k] = -1;
  for (int k = 0; k < BLOCK; k++)
    table[rank * BLOCK + k] = rank * 100 + k;
  if (rank == 0) {
    for (int src = 1; src < size; src++) {
      printf("block %d was %d\n", src, table[src * BLOCK]);
      MPI_Recv(&table[src * BLOCK], BLOCK, MPI_INT, src, 5, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    // CHECK: :[[@LINE-5]]:5: warning: loop of point-to-point receives implements a gather (static analysis); not rewritten: message-integrity refused [mpilift-manual-gather]
    // CHECK: :[[@LINE-5]]:7: note: message-integrity: this statement reads the message buffer 'table' between the pattern's messages; with one collective call it would read other data
  } else {
    MPI_Send(&table[rank * BLOCK], BLOCK, MPI_INT, 0, 5, MPI_COMM_WORLD);
  }
  if (rank == 0)
    for (int k = 0; k < size * BLOCK; k++)
      printf("%d\n", table[k]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
