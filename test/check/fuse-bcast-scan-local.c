// Issue 15, seed 001's BSR2-, BSR-Local and BSS2-, BSS-Comcast: a broadcast,
// a scan of the broadcast buffer, then a reduction or scan of the scan's
// result. After MPI_Bcast every rank holds b, the scan gives rank k the
// power b^(k+1), and the last call combines powers: each rank that needs
// the result computes it from b where the last call stood; the scan goes
// (its result is a local nothing else reads), the broadcast stays.
//
// Growth factors: the root broadcasts the factor per generation; rank k
// holds generation k + 1's size (MPI_Scan with MPI_PROD); the root wants the
// total over all generations (MPI_Reduce with MPI_SUM, BSR2-Local); every
// rank wants the largest step (MPI_SUM then MPI_MAX, BSR2-Local on
// MPI_Allreduce); rank k wants the total up to its generation (MPI_PROD
// then MPI_Scan with MPI_SUM, BSS2-Comcast); arithmetic series (MPI_SUM
// twice, BSR-Local). Integers throughout (products wrap modulo 2^64 on
// unsigned long, as MPI's do); error codes kept, the configuration in a
// structure, counts and roots behind macros.
//
// Refused, each leaving the broadcast and scan to BS-Comcast with a note
// naming the check: the scan's result printed afterwards, or named in code
// the preprocessor leaves out in this configuration (message-integrity),
// a sum of running maxima (the maximum does not distribute over the sum,
// reduction-order).
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefixes=QUIET,LEFTOUT,COMMON --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.used --cflags=-DPOWER_USED | FileCheck %s --check-prefixes=QUIET,USED,COMMON --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define ROOT 0
#define NFACTOR 2

struct growth {
  MPI_Comm comm;
  int rank, size;
  unsigned long factor[NFACTOR];
  unsigned long total[NFACTOR], reported[NFACTOR];
  long step, steepest, summed, upto, series;
};

static int total_growth(struct growth *g) {
  unsigned long power[NFACTOR];
  int ierr = MPI_Bcast(g->factor, NFACTOR, MPI_UNSIGNED_LONG, ROOT, g->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Scan(g->factor, power, NFACTOR, MPI_UNSIGNED_LONG, MPI_PROD,
                  g->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Reduce(power, g->total, NFACTOR, MPI_UNSIGNED_LONG, MPI_SUM, ROOT,
                    g->comm);
  return ierr;
}
// QUIET: warning: MPI_Bcast, MPI_Scan (MPI_PROD) of the broadcast buffer, then MPI_Reduce (MPI_SUM) of the scan's result; the root computes the result from the broadcast value itself (the combination of its first p powers), without the scan (BSR2-Local) [mpilift-fuse-collectives]
// CHECK-FIXES: static int total_growth(struct growth *g) {
// CHECK-FIXES-NEXT: int ierr = MPI_Bcast(g->factor, NFACTOR, MPI_UNSIGNED_LONG, ROOT, g->comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: {
// CHECK-FIXES-NEXT: int fold_rank, fold_size;
// CHECK-FIXES-NEXT: ierr = MPI_Comm_rank(g->comm, &fold_rank);
// CHECK-FIXES: fold_sum = (fold_sum + (fold_power * fold_sum));
// CHECK-FIXES-NOT: MPI_Scan
// CHECK-FIXES: return ierr;

static int reported_growth(struct growth *g) {
  unsigned long power[NFACTOR];
  int ierr = MPI_Bcast(g->factor, NFACTOR, MPI_UNSIGNED_LONG, ROOT, g->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Scan(g->factor, power, NFACTOR, MPI_UNSIGNED_LONG, MPI_PROD,
                  g->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Reduce(power, g->reported, NFACTOR, MPI_UNSIGNED_LONG, MPI_SUM,
                    ROOT, g->comm);
#ifdef POWER_USED
  printf("rank %d: generation %d grows by %lu\n", g->rank, g->rank + 1,
         power[0]);
#endif
  return ierr;
}
// LEFTOUT: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; each rank combines its rank + 1 copies of the value itself (BS-Comcast) [mpilift-fuse-collectives]
// LEFTOUT: note: not fused with the MPI_Reduce of the scan's result: message-integrity: 'power', the scan's result, is named in code of 'reported_growth' that the preprocessor leaves out here (#if); where it is compiled it may read the result, which the fused code does not compute
// USED: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; each rank combines its rank + 1 copies of the value itself (BS-Comcast) [mpilift-fuse-collectives]
// USED: note: not fused with the MPI_Reduce of the scan's result: message-integrity: 'power', the scan's result, is used here: the fused call does not compute it

static int steepest_step(struct growth *g) {
  long step = g->step, reached, steepest;
  int ierr = MPI_Bcast(&step, 1, MPI_LONG, ROOT, g->comm);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Scan(&step, &reached, 1, MPI_LONG, MPI_SUM, g->comm);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Allreduce(&reached, &steepest, 1, MPI_LONG, MPI_MAX, g->comm);
  g->steepest = steepest;
  return ierr;
}
// COMMON: warning: MPI_Bcast, MPI_Scan (MPI_SUM) of the broadcast buffer, then MPI_Allreduce (MPI_MAX) of the scan's result; each rank computes the result from the broadcast value itself (the combination of its first p powers), without the scan (BSR2-Local) [mpilift-fuse-collectives]

static int summed_maxima(struct growth *g) {
  long step = g->step, highest, summed;
  int ierr = MPI_Bcast(&step, 1, MPI_LONG, ROOT, g->comm);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Scan(&step, &highest, 1, MPI_LONG, MPI_MAX, g->comm);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Allreduce(&highest, &summed, 1, MPI_LONG, MPI_SUM, g->comm);
  g->summed = summed;
  return ierr;
}
// COMMON: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; each rank combines its rank + 1 copies of the value itself (BS-Comcast) [mpilift-fuse-collectives]
// COMMON: note: not fused with the MPI_Allreduce of the scan's result: reduction-order: 'MPI_MAX' does not distribute over 'MPI_SUM'
// CHECK-FIXES: ierr = MPI_Allreduce(&highest, &summed, 1, MPI_LONG, MPI_SUM, g->comm);

static int upto_generation(struct growth *g) {
  long base = g->step + 1, power, upto;
  int rc = MPI_Bcast(&base, 1, MPI_LONG, ROOT, g->comm);
  rc = MPI_Scan(&base, &power, 1, MPI_LONG, MPI_PROD, g->comm);
  rc = MPI_Scan(&power, &upto, 1, MPI_LONG, MPI_SUM, g->comm);
  g->upto = upto;
  return rc;
}
// COMMON: warning: MPI_Bcast, MPI_Scan (MPI_PROD) of the broadcast buffer, then MPI_Scan (MPI_SUM) of the scan's result; rank k computes the result from the broadcast value itself (the combination of its first k + 1 powers), without the scan (BSS2-Comcast) [mpilift-fuse-collectives]

static int arithmetic_series(struct growth *g) {
  long step = g->step, term, series;
  MPI_Bcast(&step, 1, MPI_LONG, ROOT, g->comm);
  MPI_Scan(&step, &term, 1, MPI_LONG, MPI_SUM, g->comm);
  MPI_Reduce(&term, &series, 1, MPI_LONG, MPI_SUM, ROOT, g->comm);
  if (g->rank == ROOT)
    g->series = series;
  return MPI_SUCCESS;
}
// COMMON: warning: MPI_Bcast, MPI_Scan (MPI_SUM) of the broadcast buffer, then MPI_Reduce (MPI_SUM) of the scan's result; the root computes the result from the broadcast value itself (the combination of its first p powers), without the scan (BSR-Local) [mpilift-fuse-collectives]

int main(int argc, char **argv) {
  struct growth g = {0};
  MPI_Init(&argc, &argv);
  g.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(g.comm, &g.rank);
  MPI_Comm_size(g.comm, &g.size);
  g.factor[0] = g.rank == ROOT ? 3 : 0;
  g.factor[1] = g.rank == ROOT ? 0x9e3779b97f4a7c15ul : 1;
  g.step = g.rank == ROOT ? -7 : 100;
  int ierr = total_growth(&g);
  ierr |= reported_growth(&g);
  ierr |= steepest_step(&g);
  ierr |= summed_maxima(&g);
  ierr |= upto_generation(&g);
  ierr |= arithmetic_series(&g);
  printf("rank %d: total %lu %lu %lu %lu steepest %ld summed %ld upto %ld "
         "series %ld (%d)\n",
         g.rank, g.total[0], g.total[1], g.reported[0], g.reported[1],
         g.steepest, g.summed, g.upto, g.series, ierr);
  MPI_Finalize();
  return 0;
}
// COMMON: check-rewrite: same output at np 1 2 3 4 5 7 8
