// MPI_Reduce, then the broadcast of its result only if the reduction
// succeeded, as codes that keep every error code write it (the LSP tests'
// sample and HPL's grid routines do): the pair is one MPI_Allreduce whose
// code goes to the same variable. A guard on another variable, or on the
// code after something between rewrote it, is not looked through.
// A check of the first call's code between the calls (`if (ierr !=
// MPI_SUCCESS) return ierr;`, `if (rc) MPI_Abort(...)`) stays after the
// fused call and tests its code. A code only the second call kept (`MPI_Reduce
// (...); ierr = MPI_Bcast(...);`) becomes `ierr = MPI_SUCCESS;`: removing
// the statement left `ierr` unset, a false rewrite mpilift made before.
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

/// Every code checked right after its call.
static int checked(const team_t *t, int counts[NSTAT]) {
  int mine[NSTAT], ierr, k;
  for (k = 0; k < NSTAT; k++)
    mine[k] = (t->me + 3) * (k + 1) % 11;
  ierr = MPI_Reduce(mine, counts, NSTAT, MPI_INT, MPI_MAX, 0, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Bcast(counts, NSTAT, MPI_INT, 0, t->comm);
  // CHECK-FIXES: ierr = MPI_Allreduce(mine, counts, NSTAT, MPI_INT, MPI_MAX, t->comm);
  // CHECK-FIXES: if (ierr != MPI_SUCCESS)
  // CHECK-FIXES-NEXT: return ierr;
  // CHECK-FIXES-NOT: MPI_Bcast(counts
  return ierr;
}

/// A declared code, checked by aborting.
static int spread_of(const team_t *t, int *widest) {
  int mine = 100 + t->me % 3;
  int rc = MPI_Reduce(&mine, widest, 1, MPI_INT, MPI_MAX, 0, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  if (rc)
    MPI_Abort(t->comm, rc);
  rc = MPI_Bcast(widest, 1, MPI_INT, 0, t->comm);
  // CHECK-FIXES: int rc = MPI_Allreduce(&mine, widest, 1, MPI_INT, MPI_MAX, t->comm);
  // CHECK-FIXES: if (rc)
  // CHECK-FIXES-NEXT: MPI_Abort(t->comm, rc);
  // CHECK-FIXES-NOT: MPI_Bcast(widest
  return rc;
}

/// Only the broadcast keeps its code.
static int second_only(const team_t *t, int *lo) {
  int mine = (t->me * 5 + 2) % 7, ierr;
  MPI_Reduce(&mine, lo, 1, MPI_INT, MPI_MIN, 0, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  ierr = MPI_Bcast(lo, 1, MPI_INT, 0, t->comm);
  // CHECK-FIXES: MPI_Allreduce(&mine, lo, 1, MPI_INT, MPI_MIN, t->comm);
  // CHECK-FIXES: ierr = MPI_SUCCESS;
  return ierr;
}

int main(int argc, char **argv) {
  team_t t;
  int counts[NSTAT], hi = -1, lo = -1, maxes[NSTAT], least = -1;
  int widest = -1;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  int ierr = census(&t, counts);
  ierr |= extremes(&t, argc > 5, &hi);
  ierr |= lows(&t, &lo);
  ierr |= checked(&t, maxes);
  ierr |= spread_of(&t, &widest);
  ierr |= second_only(&t, &least);
  printf("rank %d: %d %d %d %d hi %d lo %d (%d)\n", t.me, counts[0],
         counts[1], counts[2], counts[3], hi, lo, ierr);
  printf("rank %d: max %d %d least %d widest %d\n", t.me, maxes[0],
         maxes[NSTAT - 1], least, widest);
  MPI_Finalize();
  return 0;
}
