// Issue 14: a block distribution whose blocks differ by one row when the
// process count does not divide the table. Every rank computes the counts
// and displacements into arrays of a structure, in a helper; the root
// copies its own rows with memcpy and sends the others theirs, skipping
// itself in the loop; the error codes go to one variable. The rewrite is
// MPI_Scatterv with the program's own arrays, the root's rows in place.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROWS 1009
#define ROOT 0
#define TAG_ROWS 7

struct layout {
  int me, np;
  int *counts, *displs;
};

static void layout_init(struct layout *l, int nrows) {
  int offset = 0;
  l->counts = malloc(l->np * sizeof(int));
  l->displs = malloc(l->np * sizeof(int));
  for (int p = 0; p < l->np; p++) {
    l->counts[p] = nrows / l->np + (p < nrows % l->np ? 1 : 0);
    l->displs[p] = offset;
    offset += l->counts[p];
  }
}

int main(int argc, char **argv) {
  struct layout l;
  int ierr = MPI_SUCCESS;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &l.me);
  MPI_Comm_size(MPI_COMM_WORLD, &l.np);
  layout_init(&l, NROWS);
  int *counts = l.counts, *displs = l.displs;
  double *rows = malloc(counts[l.me] * sizeof(double));
  double *table = NULL;
  if (l.me == ROOT) {
    table = malloc(NROWS * sizeof(double));
    for (int k = 0; k < NROWS; k++)
      table[k] = 1.5 * k;
    memcpy(rows, table + displs[ROOT], counts[ROOT] * sizeof(double));
    for (int p = 0; p < l.np; p++) {
      if (p == ROOT)
        continue;
      ierr = MPI_Send(table + displs[p], counts[p], MPI_DOUBLE, p, TAG_ROWS,
                      MPI_COMM_WORLD);
    }
    // CHECK-MESSAGES: :[[@LINE-6]]:5: warning: loop of point-to-point sends implements a scatter (static analysis); replace it with MPI_Scatterv [mpilift-manual-scatter]
  } else {
    ierr = MPI_Recv(rows, counts[l.me], MPI_DOUBLE, ROOT, TAG_ROWS,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: memcpy(rows, table + displs[ROOT], counts[ROOT] * sizeof(double));
  // CHECK-FIXES-NEXT: ierr = MPI_Scatterv(table, counts, displs, MPI_DOUBLE, MPI_IN_PLACE, 0,
  // CHECK-FIXES-NEXT: MPI_DOUBLE, ROOT, MPI_COMM_WORLD);
  // CHECK-FIXES: } else {
  // CHECK-FIXES-NEXT: ierr = MPI_Scatterv(NULL, NULL, NULL, MPI_DOUBLE, rows, counts[l.me],
  // CHECK-FIXES-NEXT: MPI_DOUBLE, ROOT, MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: }
  double sum = 0;
  for (int k = 0; k < counts[l.me]; k++)
    sum += rows[k];
  printf("rank %d: %d rows from row %d, sum %.1f (%d)\n", l.me, counts[l.me],
         displs[l.me], sum, ierr);
  free(rows);
  free(table);
  free(l.counts);
  free(l.displs);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
