// --collectives nonblocking on a gather of blocks of different sizes whose
// arrays of counts and displacements are freed right after it: MPI_Igatherv
// reads them until it completes, so the wait goes before the first free.
// RUN: %check-rewrite rewrite %s %t --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *counts = malloc(size * sizeof(int));
  int *displs = malloc(size * sizeof(int));
  int total = 0;
  for (int p = 0; p < size; p++) {
    counts[p] = 1 + p % 3;
    displs[p] = total;
    total += counts[p];
  }
  int mine[4] = {rank, rank, rank, rank};
  int all[64] = {0};
  if (rank == 0) {
    for (int p = 1; p < size; p++)
      MPI_Recv(all + displs[p], counts[p], MPI_INT, p, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point receives implements a gather (static analysis); replace it with MPI_Igatherv [mpilift-manual-gather]
  } else {
    MPI_Send(mine, counts[rank], MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the wait is placed here: this statement uses 'counts'
  free(counts);
  free(displs);
  // CHECK-FIXES: MPI_Wait(&gather_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: free(counts);
  if (rank == 0)
    for (int k = 0; k < 24 && k < size * 3; k++)
      printf("%d ", all[k]);
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
