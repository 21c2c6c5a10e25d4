// Issue 15: p scatters with rotating roots are one MPI_Alltoall: a loop
// runs MPI_Scatter once with every rank of the communicator as the root,
// each time into the root's block of one array. The size in a structure
// field set by MPI_Comm_size, error codes kept, block sizes behind a macro
// and a local, both spellings of the block (`a + r * n`, `&a[n * r]`).
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLK 2

struct world {
  MPI_Comm comm;
  int rank, size;
};

/// Rank j's share of every rank's table: block j of each, in rank order.
static int transpose(const struct world *w, const int *table, int *mine) {
  int ierr = MPI_SUCCESS;
  for (int root = 0; root < w->size; root++)
    ierr = MPI_Scatter(table, BLK, MPI_INT, mine + root * BLK, BLK, MPI_INT,
                       root, w->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: MPI_Scatter from every rank of the communicator as the root in turn; replace the loop with MPI_Alltoall [mpilift-fuse-collectives]
  // CHECK-FIXES: int ierr = MPI_SUCCESS;
  // CHECK-FIXES-NEXT: ierr = MPI_Alltoall(table, BLK, MPI_INT, mine, BLK, MPI_INT, w->comm);
  // CHECK-FIXES: return ierr;
  return ierr;
}

static void weights(const struct world *w, int n, double *out) {
  double *all = malloc(sizeof(double) * n * w->size);
  int r;
  for (int k = 0; k < n * w->size; k++)
    all[k] = w->rank + 0.5 * k;
  for (r = 0; r < w->size; ++r) {
    MPI_Scatter(all, n, MPI_DOUBLE, &out[n * r], n, MPI_DOUBLE, r, w->comm);
  }
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: MPI_Scatter from every rank of the communicator as the root in turn; replace the loop with MPI_Alltoall [mpilift-fuse-collectives]
  // CHECK-FIXES: MPI_Alltoall(all, n, MPI_DOUBLE, out, n, MPI_DOUBLE, w->comm);
  free(all);
}

int main(int argc, char **argv) {
  struct world w;
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  int *table = malloc(sizeof(int) * BLK * w.size);
  int *mine = malloc(sizeof(int) * BLK * w.size);
  double *out = malloc(sizeof(double) * 3 * w.size);
  for (int k = 0; k < BLK * w.size; k++)
    table[k] = 100 * w.rank + k + argc;
  int ierr = transpose(&w, table, mine);
  weights(&w, 3, out);
  printf("rank %d (%d):", w.rank, ierr);
  for (int k = 0; k < BLK * w.size; k++)
    printf(" %d", mine[k]);
  for (int k = 0; k < 3 * w.size; k++)
    printf(" %g", out[k]);
  printf("\n");
  free(table);
  free(mine);
  free(out);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
