// MPI_Reduce, then the broadcast of its result only if the reduction
// succeeded, as codes that keep every error code write it (the LSP tests'
// sample and HPL's grid routines do): the pair is one MPI_Allreduce whose
// code goes to the same variable. A guard on another variable, or on the
// code after something between rewrote it, is not looked through.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define NSTAT 4

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

static int census(const team_t *t, int counts[NSTAT]) {
  int mine[NSTAT], ierr, k;
  for (k = 0; k < NSTAT; k++)
    mine[k] = (t->me + 1) * (k + 2);
  ierr = MPI_Reduce(mine, counts, NSTAT, MPI_INT, MPI_SUM, 0, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Bcast(counts, NSTAT, MPI_INT, 0, t->comm);
  // CHECK-FIXES: ierr = MPI_Allreduce(mine, counts, NSTAT, MPI_INT, MPI_SUM, t->comm);
  // CHECK-FIXES-NOT: MPI_Bcast(counts
  return ierr;
}

/// The broadcast depends on something else than the reduction's code: two
/// collectives stay.
static int extremes(const team_t *t, int verbose, int *hi) {
  int mine = t->me * 7 % 5, ierr, other = MPI_SUCCESS;
  ierr = MPI_Reduce(&mine, hi, 1, MPI_INT, MPI_MAX, 0, t->comm);
  if (verbose > 0)
    other = MPI_SUCCESS;
  if (other == MPI_SUCCESS)
    ierr = MPI_Bcast(hi, 1, MPI_INT, 0, t->comm);
  // CHECK-FIXES: ierr = MPI_Reduce(&mine, hi, 1, MPI_INT, MPI_MAX, 0, t->comm);
  // CHECK-FIXES: ierr = MPI_Bcast(hi, 1, MPI_INT, 0, t->comm);
  return ierr;
}

/// The code tested is not the reduction's any more.
static int lows(const team_t *t, int *lo) {
  int mine = t->me * 3 % 4, ierr;
  ierr = MPI_Reduce(&mine, lo, 1, MPI_INT, MPI_MIN, 0, t->comm);
  ierr = t->np > 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Bcast(lo, 1, MPI_INT, 0, t->comm);
  // CHECK-FIXES: ierr = MPI_Reduce(&mine, lo, 1, MPI_INT, MPI_MIN, 0, t->comm);
  // CHECK-FIXES: ierr = MPI_Bcast(lo, 1, MPI_INT, 0, t->comm);
  return ierr;
}

int main(int argc, char **argv) {
  team_t t;
  int counts[NSTAT], hi = -1, lo = -1;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  int ierr = census(&t, counts);
  ierr |= extremes(&t, argc > 5, &hi);
  ierr |= lows(&t, &lo);
  printf("rank %d: %d %d %d %d hi %d lo %d (%d)\n", t.me, counts[0],
         counts[1], counts[2], counts[3], hi, lo, ierr);
  MPI_Finalize();
  return 0;
}
