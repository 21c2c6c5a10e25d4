// A star scatter: the root sends block i of its array to rank i and keeps
// its own block with a local copy, which stays.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 3

int main(int argc, char **argv) {
  int rank, size;
  int mine[CHUNK];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *all = malloc(sizeof(int) * CHUNK * size);
  if (rank == 0) {
    for (int k = 0; k < CHUNK * size; k++)
      all[k] = 7 * k + 1;
    memcpy(mine, all, sizeof mine);
    for (int i = 1; i < size; i++)
      MPI_Send(all + i * CHUNK, CHUNK, MPI_INT, i, 9, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a scatter (static analysis and the trace); replace it with MPI_Scatter [mpilift-manual-scatter]
  } else {
    MPI_Recv(mine, CHUNK, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: memcpy(mine, all, sizeof mine);
  // CHECK-FIXES-NEXT: MPI_Scatter(all, CHUNK, MPI_INT, MPI_IN_PLACE, CHUNK, MPI_INT, 0,
  // CHECK-FIXES-NEXT: MPI_COMM_WORLD);
  // CHECK-FIXES: MPI_Scatter(NULL, 0, MPI_INT, mine, CHUNK, MPI_INT, 0, MPI_COMM_WORLD);
  printf("rank %d: %d %d %d\n", rank, mine[0], mine[1], mine[2]);
  free(all);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
