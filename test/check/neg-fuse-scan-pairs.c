// Issue 15: a scan followed by a reduction or scan of its result that one
// collective on pairs may not replace, each refused by the check that
// names why: the scan's result read elsewhere, not a local variable, or
// the second call's result used or possibly reached between the calls
// (message-integrity); a message between them (message-order); the root
// changed between them (matching-arguments); a count that is no constant,
// a scan in place (source-form); one operation twice, integer sums under a
// maximum, floating-point products under sums (reduction-order). Two scans
// of 4096 elements are not reported: the cost model says they do not pay
// on this machine (t_s > 2m fails).
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define NBIG 4096

struct team {
  MPI_Comm comm;
  int rank, size, root;
};

static long read_later(const struct team *t, long x, long *total) {
  long prefix;
  MPI_Scan(&x, &prefix, 1, MPI_LONG, MPI_PROD, t->comm);
  MPI_Reduce(&prefix, total, 1, MPI_LONG, MPI_SUM, 0, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_PROD) followed by MPI_Reduce (MPI_SUM) of its result; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE+1]]:10: note: message-integrity: 'prefix', the scan's result, is used here: the fused call does not compute it
  return prefix;
}

static void not_local(const struct team *t, long x, long *prefix,
                      long *total) {
  MPI_Scan(&x, prefix, 1, MPI_LONG, MPI_PROD, t->comm);
  MPI_Allreduce(prefix, total, 1, MPI_LONG, MPI_SUM, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_PROD) followed by MPI_Allreduce (MPI_SUM) of its result; not rewritten: message-integrity refused
  // CHECK: :[[@LINE-3]]:16: note: message-integrity: the scan's result 'prefix' is not a local variable or array of 'not_local': the fused call does not compute it, and other code may read it
}

static void result_used_between(const struct team *t, long x, long *total) {
  long prefix;
  MPI_Scan(&x, &prefix, 1, MPI_LONG, MPI_PROD, t->comm);
  *total = 0;
  MPI_Reduce(&prefix, total, 1, MPI_LONG, MPI_SUM, 0, t->comm);
  // CHECK: :[[@LINE-3]]:3: warning: MPI_Scan (MPI_PROD) followed by MPI_Reduce (MPI_SUM) of its result; not rewritten: message-integrity refused
  // CHECK: :[[@LINE-3]]:3: note: message-integrity: this statement uses 'total' between MPI_Scan and MPI_Reduce, which the MPI_Reduce writes only after it; the fused call would write it before
}

static void call_between(const struct team *t, unsigned mask,
                         unsigned *common) {
  unsigned kept;
  MPI_Scan(&mask, &kept, 1, MPI_UNSIGNED, MPI_BAND, t->comm);
  fprintf(stderr, "scanned\n");
  MPI_Allreduce(&kept, common, 1, MPI_UNSIGNED, MPI_BOR, t->comm);
  // CHECK: :[[@LINE-3]]:3: warning: MPI_Scan (MPI_BAND) followed by MPI_Allreduce (MPI_BOR) of its result; not rewritten: message-integrity refused
  // CHECK: :[[@LINE-3]]:3: note: message-integrity: this statement calls 'fprintf' between MPI_Scan and MPI_Allreduce, which may reach 'common', which the MPI_Allreduce writes only after it
}

static void message_between(const struct team *t, unsigned mask,
                            unsigned *common) {
  unsigned kept, token = 1;
  MPI_Scan(&mask, &kept, 1, MPI_UNSIGNED, MPI_BAND, t->comm);
  if (t->rank == 0 && t->size > 1)
    MPI_Send(&token, 1, MPI_UNSIGNED, 1, 7, t->comm);
  else if (t->rank == 1)
    MPI_Recv(&token, 1, MPI_UNSIGNED, 0, 7, t->comm, MPI_STATUS_IGNORE);
  MPI_Allreduce(&kept, common, 1, MPI_UNSIGNED, MPI_BOR, t->comm);
  // CHECK: :[[@LINE-6]]:3: warning: MPI_Scan (MPI_BAND) followed by MPI_Allreduce (MPI_BOR) of its result; not rewritten: message-order refused
  // CHECK: :[[@LINE-5]]:5: note: message-order: 'MPI_Send' between MPI_Scan and MPI_Allreduce: one MPI_Allreduce on pairs would move the MPI_Allreduce before it
}

static void root_changes(struct team *t, int x, int *best) {
  int lowest;
  MPI_Scan(&x, &lowest, 1, MPI_INT, MPI_MIN, t->comm);
  t->root = t->size - 1;
  MPI_Reduce(&lowest, best, 1, MPI_INT, MPI_MAX, t->root, t->comm);
  // CHECK: :[[@LINE-3]]:3: warning: MPI_Scan (MPI_MIN) followed by MPI_Reduce (MPI_MAX) of its result; not rewritten: matching-arguments refused
  // CHECK: :[[@LINE-3]]:3: note: matching-arguments: this statement changes 't', which the MPI_Reduce reads, between MPI_Scan and MPI_Reduce
}

static void count_unknown(const struct team *t, int n, const int *x,
                          int *best) {
  int lowest[64];
  MPI_Scan(x, lowest, n, MPI_INT, MPI_MIN, t->comm);
  MPI_Allreduce(lowest, best, n, MPI_INT, MPI_MAX, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_MIN) followed by MPI_Allreduce (MPI_MAX) of its result; not rewritten: source-form refused
  // CHECK: :[[@LINE-3]]:3: note: source-form: the count 'n' is no constant, which the arrays of pairs need
}

static void in_place(const struct team *t, int *x, int *best) {
  MPI_Scan(MPI_IN_PLACE, x, 1, MPI_INT, MPI_MIN, t->comm);
  MPI_Allreduce(x, best, 1, MPI_INT, MPI_MAX, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_MIN) followed by MPI_Allreduce (MPI_MAX) of its result; not rewritten: source-form, message-integrity refused
  // CHECK: :[[@LINE-3]]:3: note: source-form: the scan is in place: its buffer would keep the values the scan replaced, since the fused call does not compute the scan's result
}

static void same_sum_twice(const struct team *t, int x, int *total) {
  int prefix;
  MPI_Scan(&x, &prefix, 1, MPI_INT, MPI_SUM, t->comm);
  MPI_Reduce(&prefix, total, 1, MPI_INT, MPI_SUM, 0, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_SUM) followed by MPI_Reduce (MPI_SUM) of its result; not rewritten: reduction-order refused
  // CHECK: :[[@LINE-2]]:42: note: reduction-order: 'MPI_SUM' does not distribute over 'MPI_SUM' (a MPI_SUM (b MPI_SUM c) is not (a MPI_SUM b) MPI_SUM (a MPI_SUM c)), which one collective on pairs needs; for one operation twice the seed fuses only in a reduction tree MPI does not offer
}

static void sums_under_maximum(const struct team *t, int x, int *best) {
  int prefix;
  MPI_Scan(&x, &prefix, 1, MPI_INT, MPI_SUM, t->comm);
  MPI_Allreduce(&prefix, best, 1, MPI_INT, MPI_MAX, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_SUM) followed by MPI_Allreduce (MPI_MAX) of its result; not rewritten: reduction-order refused
  // CHECK: :[[@LINE-2]]:44: note: reduction-order: 'MPI_SUM' distributes over 'MPI_MAX', but the operation on pairs adds values of ranks that the scan never adds, which may overflow 'MPI_INT' where the program's sums do not
}

static void float_products(const struct team *t, double x, double *total) {
  double prefix;
  MPI_Scan(&x, &prefix, 1, MPI_DOUBLE, MPI_PROD, t->comm);
  MPI_Allreduce(&prefix, total, 1, MPI_DOUBLE, MPI_SUM, t->comm);
  // CHECK: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_PROD) followed by MPI_Allreduce (MPI_SUM) of its result; not rewritten: reduction-order refused
  // CHECK: :[[@LINE-2]]:48: note: reduction-order: 'MPI_PROD' distributes over 'MPI_SUM' on real numbers, but one collective on pairs of 'MPI_DOUBLE' computes other sums and products than MPI_Scan and MPI_Allreduce do, which may round differently (allow it with --allow-reassociation)
}

static void big_scans(const struct team *t, const long *x, long *result) {
  long lowest[NBIG];
  MPI_Scan(x, lowest, NBIG, MPI_LONG, MPI_MIN, t->comm);
  MPI_Scan(lowest, result, NBIG, MPI_LONG, MPI_MAX, t->comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct team t = {MPI_COMM_WORLD, 0, 1, 0};
  MPI_Comm_rank(t.comm, &t.rank);
  MPI_Comm_size(t.comm, &t.size);
  long total = 0, prefix = 0;
  unsigned common = 0;
  int best = 0, xs[4] = {3, 1, 4, 1}, mine = t.rank + 1;
  double fsum = 0;
  static long big[NBIG], bigout[NBIG];
  long last = read_later(&t, t.rank + 2, &total);
  not_local(&t, t.rank + 2, &prefix, &total);
  result_used_between(&t, t.rank + 2, &total);
  call_between(&t, 0xF0u >> t.rank, &common);
  message_between(&t, 0xF0u >> t.rank, &common);
  root_changes(&t, 10 - t.rank, &best);
  count_unknown(&t, 4, xs, &best);
  in_place(&t, &mine, &best);
  same_sum_twice(&t, t.rank, &best);
  sums_under_maximum(&t, t.rank - 2, &best);
  float_products(&t, 0.5 + t.rank, &fsum);
  big_scans(&t, big, bigout);
  printf("%d: %ld %ld %ld %x %d %g %ld\n", t.rank, last, total, prefix, common,
         best, fsum, bigout[0]);
  MPI_Finalize();
  return 0;
}
