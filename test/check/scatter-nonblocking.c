// --collectives nonblocking on a scatter whose receivers print their block
// inside the branch: they wait right there, the root waits after the guard
// (where the other ranks find their request already complete).
// RUN: %check-rewrite rewrite %s %t --trace --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double grid[64], row[2] = {0, 0}, other = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int k = 0; k < 2 * size; k++)
      grid[k] = k / 4.0;
    row[0] = grid[0];
    row[1] = grid[1];
    for (int i = 1; i < size; i++)
      MPI_Send(&grid[i * 2], 2, MPI_DOUBLE, i, 0, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a scatter (static analysis and the trace); replace it with MPI_Iscatter [mpilift-manual-scatter]
  } else {
    MPI_Recv(row, 2, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d row %.2f %.2f\n", rank, row[0], row[1]);
  }
  other = 2.0 * rank;
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the wait is placed here: this statement uses 'row'
  printf("rank %d sum %.2f other %.1f\n", rank, row[0] + row[1], other);
  // CHECK-FIXES: MPI_Request scatter_request;
  // CHECK-FIXES-NEXT: if (rank == 0) {
  // CHECK-FIXES: MPI_Iscatter(grid, 2, MPI_DOUBLE, MPI_IN_PLACE, 2, MPI_DOUBLE, 0,
  // CHECK-FIXES-NEXT: MPI_COMM_WORLD, &scatter_request);
  // CHECK-FIXES: MPI_Iscatter(NULL, 0, MPI_DOUBLE, row, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD,
  // CHECK-FIXES-NEXT: &scatter_request);
  // CHECK-FIXES-NEXT: MPI_Wait(&scatter_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: printf("rank %d row %.2f %.2f\n", rank, row[0], row[1]);
  // CHECK-FIXES: other = 2.0 * rank;
  // CHECK-FIXES: MPI_Wait(&scatter_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: printf("rank %d sum
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
