// Issue 14: a star broadcast along each row of a 2-D process grid, on the
// row communicator MPI_Cart_sub made; rank and size of the row are kept in
// a struct. Traced at 4 processes the rows have 2 ranks, a single message
// the trace cannot call a broadcast, so the check runs without the trace.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

struct grid {
  MPI_Comm cart, row;
  int row_rank, row_size;
};

int main(int argc, char **argv) {
  int wrank, wsize;
  struct grid g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  int dims[2] = {0, 0}, periods[2] = {0, 0}, keep[2] = {0, 1};
  MPI_Dims_create(wsize, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g.cart);
  MPI_Cart_sub(g.cart, keep, &g.row);
  MPI_Comm_rank(g.row, &g.row_rank);
  MPI_Comm_size(g.row, &g.row_size);
  int v = g.row_rank == 0 ? 77 + wrank : -1;
  if (g.row_rank == 0) {
    for (int i = 1; i < g.row_size; i++)
      MPI_Send(&v, 1, MPI_INT, i, 0, g.row);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
  // CHECK-NB: :[[@LINE-3]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
  // CHECK-FIXES: MPI_Bcast(&v, 1, MPI_INT, 0, g.row);
  // CHECK-NB-FIXES: MPI_Ibcast(&v, 1, MPI_INT, 0, g.row, &bcast_request);
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, g.row, MPI_STATUS_IGNORE);
  }
  printf("%d: %d\n", wrank, v);
  MPI_Comm_free(&g.row);
  MPI_Comm_free(&g.cart);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
