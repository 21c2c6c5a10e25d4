// Issue 19, part 1: collective sequences whose calls accumulate their
// error codes (`ierr |= MPI_Reduce(...)`, `nerr += ...`), fused with the
// code accumulated the same way: a pair (the fused call keeps `|=`), a
// packed run (one `nerr += MPI_Allreduce(...)`), a broadcast combined
// locally (the size query's code accumulated, with no guard on it: the
// variable may hold an earlier failure the original did not stop at), and
// a scan of a scan's result on pairs. The codes start non-zero, so a
// rewrite that assigned them instead of accumulating them would print
// other values.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define ROOT 0
#define NPART 2

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

static int totals(const team_t *t, int *sum) {
  int mine = 3 * t->me + 1, ierr = 4;
  ierr |= MPI_Reduce(&mine, sum, 1, MPI_INT, MPI_SUM, ROOT, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  ierr |= MPI_Bcast(sum, 1, MPI_INT, ROOT, t->comm);
  // CHECK-FIXES: ierr |= MPI_Allreduce(&mine, sum, 1, MPI_INT, MPI_SUM, t->comm);
  // CHECK-FIXES-NOT: MPI_Bcast(sum
  return ierr;
}

static int bounds(const team_t *t, long out[3]) {
  long lo = t->me, hi = 10 + t->me, wide = 7 * t->me;
  int nerr = 1;
  nerr += MPI_Allreduce(&lo, &out[0], 1, MPI_LONG, MPI_MAX, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 3 MPI_Allreduce calls back to back with the same operation, datatype and communicator; replace them with one MPI_Allreduce on a packed buffer [mpilift-fuse-collectives]
  nerr += MPI_Allreduce(&hi, &out[1], 1, MPI_LONG, MPI_MAX, t->comm);
  nerr += MPI_Allreduce(&wide, &out[2], 1, MPI_LONG, MPI_MAX, t->comm);
  // CHECK-FIXES: nerr += MPI_Allreduce(packed_in, packed_out, 3, MPI_LONG, MPI_MAX, t->comm);
  return nerr;
}

static int spread(const team_t *t, int *value, int *all) {
  int ierr = 2;
  ierr |= MPI_Bcast(value, 1, MPI_INT, ROOT, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; each rank combines the p copies of the value itself (BR-Alllocal) [mpilift-fuse-collectives]
  ierr |= MPI_Allreduce(value, all, 1, MPI_INT, MPI_SUM, t->comm);
  // CHECK-FIXES: ierr |= MPI_Comm_size(t->comm, &fold_size);
  // CHECK-FIXES-NOT: ierr == MPI_SUCCESS
  return ierr;
}

static int growth(const team_t *t, long *reached) {
  long factor = 1 + t->me % 3, prefix;
  int ierr = 8;
  ierr |= MPI_Scan(&factor, &prefix, 1, MPI_LONG, MPI_PROD, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: MPI_Scan (MPI_PROD) followed by MPI_Allreduce (MPI_SUM) of its result; replace them with one MPI_Allreduce on pairs with an operation of their own (SR2-Reduction) [mpilift-fuse-collectives]
  ierr |= MPI_Allreduce(&prefix, reached, 1, MPI_LONG, MPI_SUM, t->comm);
  // CHECK-FIXES: ierr |={{$}}
  // CHECK-FIXES-NEXT: MPI_Allreduce(fused_in, fused_out, 1, fused_pair, fused_op, t->comm);
  return ierr;
}

int main(int argc, char **argv) {
  team_t t;
  int sum = -1, value, all = -1;
  long out[3] = {0, 0, 0}, reached = -1;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  value = t.me == ROOT ? 6 : -1;
  int e1 = totals(&t, &sum);
  int e2 = bounds(&t, out);
  int e3 = spread(&t, &value, &all);
  int e4 = growth(&t, &reached);
  printf("rank %d: sum %d (%d) bounds %ld %ld %ld (%d) all %d (%d) reached "
         "%ld (%d)\n",
         t.me, sum, e1, out[0], out[1], out[2], e2, all, e3, reached, e4);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
