// Issue 15 and 19: a broadcast followed by a reduction or scan of the
// broadcast value, where the second call's code is returned by the helper
// (`return MPI_Allreduce(...);`) or checked in place (`if (MPI_Reduce(...)
// != MPI_SUCCESS) return ...;`), was passed over in silence. The local
// combination asks MPI for the rank or size instead: a returned code
// becomes that query's, a check in place checks the queries the same way.
// A scan followed by a reduction of its result whose code is returned is
// reported and refused (the rewrite on pairs unpacks after the call).
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define COMM_OF(s) ((s)->comm)

struct solver {
  MPI_Comm comm;
  int rank;
  long seed, total, best, prefix, low;
};

static int total_work(struct solver *s) {
  int ierr = MPI_Bcast(&s->seed, 1, MPI_LONG, 0, COMM_OF(s));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; each rank combines the p copies of the value itself (BR-Alllocal) [mpilift-fuse-collectives]
  if (ierr != MPI_SUCCESS)
    return ierr;
  return MPI_Allreduce(&s->seed, &s->total, 1, MPI_LONG, MPI_SUM, COMM_OF(s));
  // CHECK-FIXES: int rc = MPI_Comm_size(COMM_OF(s), &fold_size);
  // CHECK-FIXES-NEXT: if (rc == MPI_SUCCESS) {
  // CHECK-FIXES: return rc;
}

static int best_seed(struct solver *s) {
  if (MPI_Bcast(&s->seed, 1, MPI_LONG, 0, s->comm) != MPI_SUCCESS)
    return -1;
  // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: MPI_Bcast followed by MPI_Reduce of the broadcast buffer; the root combines the p copies of the value itself (BR-Local) [mpilift-fuse-collectives]
  if (MPI_Reduce(&s->seed, &s->best, 1, MPI_LONG, MPI_MAX, 0, s->comm) !=
      MPI_SUCCESS)
    return -2;
  // CHECK-FIXES: if (MPI_Comm_rank(s->comm, &fold_rank) != MPI_SUCCESS)
  // CHECK-FIXES-NEXT: return -2;
  // CHECK-FIXES-NOT: MPI_Reduce(
  return 0;
}

static int running(struct solver *s) {
  MPI_Bcast(&s->seed, 1, MPI_LONG, 0, s->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; each rank combines its rank + 1 copies of the value itself (BS-Comcast) [mpilift-fuse-collectives]
  return MPI_Scan(&s->seed, &s->prefix, 1, MPI_LONG, MPI_SUM, s->comm);
  // CHECK-FIXES: int rc = MPI_Comm_rank(s->comm, &fold_rank);
  // CHECK-FIXES-NOT: MPI_Scan(&s->seed
}

static int power_sum(struct solver *s, long *out) {
  long base = s->rank == 0 ? 3 : 0, powers;
  MPI_Bcast(&base, 1, MPI_LONG, 0, s->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Bcast, MPI_Scan (MPI_PROD) of the broadcast buffer, then MPI_Allreduce (MPI_SUM) of the scan's result; each rank computes the result from the broadcast value itself (the combination of its first p powers), without the scan (BSR2-Local) [mpilift-fuse-collectives]
  MPI_Scan(&base, &powers, 1, MPI_LONG, MPI_PROD, s->comm);
  return MPI_Allreduce(&powers, out, 1, MPI_LONG, MPI_SUM, s->comm);
  // CHECK-FIXES: return rc;
  // CHECK-FIXES-NOT: MPI_Scan(&base
}

static int lowest_prefix(struct solver *s) {
  long mine = 10 - s->rank, part;
  MPI_Scan(&mine, &part, 1, MPI_LONG, MPI_MIN, s->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Scan (MPI_MIN) followed by MPI_Allreduce (MPI_MAX) of its result; not rewritten: source-form refused [mpilift-fuse-collectives]
  return MPI_Allreduce(&part, &s->low, 1, MPI_LONG, MPI_MAX, s->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: note: source-form: the function returns MPI_Allreduce's code; the rewrite on pairs unpacks the result after the fused call, and keeps no code returned or checked there
}

int main(int argc, char **argv) {
  struct solver s = {MPI_COMM_WORLD, 0, 0, 0, 0, 0, 0};
  int codes;
  long sum_of_powers = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(s.comm, &s.rank);
  if (s.rank == 0)
    s.seed = 41;
  codes = total_work(&s);
  codes += best_seed(&s);
  codes += running(&s);
  codes += power_sum(&s, &sum_of_powers);
  codes += lowest_prefix(&s);
  printf("rank %d: total %ld best %ld prefix %ld low %ld powers %ld codes %d\n",
         s.rank, s.total, s.rank == 0 ? s.best : -1, s.prefix, s.low,
         sum_of_powers, codes);
  MPI_Finalize();
  return 0;
}
// The refused pair again, where mpilift looks once more at what it rewrote:
// CHECK-MESSAGES: prog.c:{{[0-9]+}}:3: warning: MPI_Scan (MPI_MIN) followed by MPI_Allreduce (MPI_MAX) of its result; not rewritten: source-form refused [mpilift-fuse-collectives]
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
