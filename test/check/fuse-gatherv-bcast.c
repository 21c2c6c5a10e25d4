// Issue 15: MPI_Gatherv to a root then MPI_Bcast of the gathered buffer from
// it is MPI_Allgatherv, when every rank holds the root's counts and
// displacements and the blocks are exactly the elements the broadcast sends.
// Rows of a block-distributed matrix (the problem size read on the root and
// broadcast, counts from helpers, arrays from malloc, the team in a
// structure, error codes kept), and ids of varying length per rank gathered
// to the last rank with displacements as a running sum in arrays as long as
// the team.
// RUN: %check-rewrite rewrite %s %t --args=13 | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROOT 0
#define NCOLS 3
#define DEFAULT_ROWS 11

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

/* The first n % np ranks own one row more. */
static int rows_of(int r, int n, int np) { return n / np + (r < n % np); }

static int first_row(int r, int n, int np) {
  return r * (n / np) + (r < n % np ? r : n % np);
}

static int share_rows(const team_t *t, int n, const double *mine,
                      double *all) {
  int *counts = malloc(t->np * sizeof *counts);
  int *displs = malloc(t->np * sizeof *displs);
  int ierr, p;
  for (p = 0; p < t->np; ++p) {
    counts[p] = rows_of(p, n, t->np) * NCOLS;
    displs[p] = first_row(p, n, t->np) * NCOLS;
  }
  ierr = MPI_Gatherv(mine, counts[t->me], MPI_DOUBLE, all, counts, displs,
                     MPI_DOUBLE, ROOT, t->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: MPI_Gatherv followed by MPI_Bcast of the gathered buffer from the same root; replace them with MPI_Allgatherv [mpilift-fuse-collectives]
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Bcast(all, n * NCOLS, MPI_DOUBLE, ROOT, t->comm);
  // CHECK-FIXES: ierr = MPI_Allgatherv(mine, counts[t->me], MPI_DOUBLE, all, counts, displs,
  // CHECK-FIXES-NEXT: MPI_DOUBLE, t->comm);
  // CHECK-FIXES-NOT: MPI_Bcast(all
  free(counts);
  free(displs);
  return ierr;
}

static int gather_ids(const team_t *t, int *ids) {
  int *counts = calloc(t->np, sizeof(int));
  int *displs = calloc(t->np, sizeof(int));
  int mine[3], len = t->me % 3 + 1, total, k, q;
  for (k = 0; k < len; ++k)
    mine[k] = 100 * t->me + k;
  for (q = 0; q < t->np; ++q) {
    counts[q] = q % 3 + 1;
    if (q > 0)
      displs[q] = displs[q - 1] + counts[q - 1];
  }
  total = displs[t->np - 1] + counts[t->np - 1];
  int rc = MPI_Gatherv(mine, len, MPI_INT, ids, counts, displs, MPI_INT,
                       t->np - 1, t->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: MPI_Gatherv followed by MPI_Bcast of the gathered buffer from the same root; replace them with MPI_Allgatherv [mpilift-fuse-collectives]
  rc = MPI_Bcast(ids, total, MPI_INT, t->np - 1, t->comm);
  // CHECK-FIXES: int rc =
  // CHECK-FIXES-NEXT: MPI_Allgatherv(mine, len, MPI_INT, ids, counts, displs, MPI_INT, t->comm);
  // CHECK-FIXES-NOT: MPI_Bcast(ids
  free(counts);
  free(displs);
  return rc == MPI_SUCCESS ? total : -1;
}

int main(int argc, char **argv) {
  team_t team;
  int n = DEFAULT_ROWS, r, c, k, total;
  MPI_Init(&argc, &argv);
  team.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(team.comm, &team.me);
  MPI_Comm_size(team.comm, &team.np);
  if (team.me == ROOT && argc > 1)
    n = atoi(argv[1]);
  MPI_Bcast(&n, 1, MPI_INT, ROOT, team.comm);

  double *mine = malloc((n / team.np + 1) * NCOLS * sizeof(double));
  double *all = malloc(n * NCOLS * sizeof(double));
  int lo = first_row(team.me, n, team.np);
  for (r = 0; r < rows_of(team.me, n, team.np); ++r)
    for (c = 0; c < NCOLS; ++c)
      mine[r * NCOLS + c] = (lo + r) * 10.0 + c;
  for (k = 0; k < n * NCOLS; ++k)
    all[k] = -1.0;
  if (share_rows(&team, n, mine, all) != MPI_SUCCESS)
    MPI_Abort(team.comm, 1);

  int *ids = malloc(3 * team.np * sizeof(int));
  total = gather_ids(&team, ids);

  printf("rank %d rows:", team.me);
  for (k = 0; k < n * NCOLS; ++k)
    printf(" %g", all[k]);
  printf(" | ids:");
  for (k = 0; k < total; ++k)
    printf(" %d", ids[k]);
  printf("\n");
  free(ids);
  free(all);
  free(mine);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
