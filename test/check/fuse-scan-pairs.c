// Issue 15, seed 001's rule SR2-Reduction: MPI_Scan with an operation that
// distributes over the operation of an MPI_Reduce or MPI_Allreduce of the
// scan's result is one reduction on pairs (s, r) with an operation of its
// own, op((s1, r1), (s2, r2)) = (s1 + r1 x s2, r1 x r2), which the rewrite
// adds before the function and creates once. Integer products over sums
// (computed in unsigned arithmetic, as MPI's own sums wrap), bitwise and
// over or element-wise over an array behind a macro, minimum over maximum;
// error codes kept (`ierr =`, `int rc =`, the second call behind `if (ierr
// == MPI_SUCCESS)`), rank and communicator in a structure, the growth
// factors from a helper in another file. The scan's result, now unused,
// loses its declaration where it declares nothing else.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#include "stages.h"

#define NFEATURE 3
#define REPORT_ROOT 0

struct pipeline {
  MPI_Comm comm;
  int rank, size;
};

// CHECK-FIXES: /* MPI_SUM of the prefixes MPI_PROD forms, on pairs (s, r) of long (seed 001,
// CHECK-FIXES-NEXT: * rule SR2-Reduction): (s1, r1) then (s2, r2) is (s1 + r1 x s2, r1 x r2). */
// CHECK-FIXES-NEXT: static void [[POP:fused_pair_op_[0-9]+]](void *in, void *inout, int *len,
// CHECK-FIXES-NEXT: MPI_Datatype *type) {
// CHECK-FIXES-NEXT: const long *a = (const long *)in;
// CHECK-FIXES-NEXT: long *b = (long *)inout;
// CHECK-FIXES-NEXT: for (int i = 0; i < *len; ++i) {
// CHECK-FIXES-NEXT: long s = ((long)((unsigned long)a[2 * i] +
// CHECK-FIXES-NEXT: (unsigned long)((long)((unsigned long)a[2 * i + 1] *
// CHECK-FIXES-NEXT: (unsigned long)b[2 * i]))));
// CHECK-FIXES-NEXT: b[2 * i + 1] =
// CHECK-FIXES-NEXT: ((long)((unsigned long)a[2 * i + 1] * (unsigned long)b[2 * i + 1]));
// CHECK-FIXES-NEXT: b[2 * i] = s;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: (void)type;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: /// The population summed over every stage: stage k holds the product of

/// The population summed over every stage: stage k holds the product of
/// the growth factors of stages 0 to k.
static int population(const struct pipeline *p, long *total) {
  int ierr;
  long growth = growth_of(p->rank);
  long reached;
  ierr = MPI_Scan(&growth, &reached, 1, MPI_LONG, MPI_PROD, p->comm);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Reduce(&reached, total, 1, MPI_LONG, MPI_SUM, REPORT_ROOT,
                      p->comm);
  // CHECK-MESSAGES: :[[@LINE-4]]:10: warning: MPI_Scan (MPI_PROD) followed by MPI_Reduce (MPI_SUM) of its result; replace them with one MPI_Reduce on pairs with an operation of their own (SR2-Reduction) [mpilift-fuse-collectives]
  // CHECK-FIXES: long growth = growth_of(p->rank);
  // CHECK-FIXES-NEXT: {
  // CHECK-FIXES-NEXT: static MPI_Op fused_op = MPI_OP_NULL;
  // CHECK-FIXES-NEXT: static MPI_Datatype fused_pair;
  // CHECK-FIXES-NEXT: long fused_in[1][2], fused_out[1][2];
  // CHECK-FIXES-NEXT: if (fused_op == MPI_OP_NULL) {
  // CHECK-FIXES-NEXT: MPI_Type_contiguous(2, MPI_LONG, &fused_pair);
  // CHECK-FIXES-NEXT: MPI_Type_commit(&fused_pair);
  // CHECK-FIXES-NEXT: MPI_Op_create([[POP]], 0, &fused_op);
  // CHECK-FIXES-NEXT: }
  // CHECK-FIXES-NEXT: fused_in[0][0] = fused_in[0][1] = growth;
  // CHECK-FIXES-NEXT: ierr = MPI_Reduce(fused_in, fused_out, 1, fused_pair, fused_op, REPORT_ROOT,
  // CHECK-FIXES-NEXT: p->comm);
  // CHECK-FIXES-NEXT: int fused_rank = -1;
  // CHECK-FIXES-NEXT: MPI_Comm_rank(p->comm, &fused_rank);
  // CHECK-FIXES-NEXT: if (fused_rank == (REPORT_ROOT)) {
  // CHECK-FIXES-NEXT: total[0] = fused_out[0][0];
  // CHECK-FIXES-NOT: MPI_Scan
  return ierr;
}

/// The features some prefix of the pipeline supports in full.
static int prefix_features(const struct pipeline *p,
                           const unsigned mask[NFEATURE],
                           unsigned common[NFEATURE], int *bits) {
  unsigned upto[NFEATURE];
  int rc = MPI_Scan(mask, upto, NFEATURE, MPI_UNSIGNED, MPI_BAND, p->comm);
  int width = NFEATURE * (int)sizeof(unsigned) * 8;
  rc = MPI_Allreduce(upto, common, NFEATURE, MPI_UNSIGNED, MPI_BOR, p->comm);
  *bits = width;
  // CHECK-MESSAGES: :[[@LINE-4]]:12: warning: MPI_Scan (MPI_BAND) followed by MPI_Allreduce (MPI_BOR) of its result; replace them with one MPI_Allreduce on pairs with an operation of their own (SR2-Reduction) [mpilift-fuse-collectives]
  // CHECK-FIXES: unsigned common[NFEATURE], int *bits) {
  // CHECK-FIXES-NEXT: int rc;
  // CHECK-FIXES-NEXT: {
  // CHECK-FIXES: unsigned fused_in[NFEATURE][2], fused_out[NFEATURE][2];
  // CHECK-FIXES: for (int fused_i = 0; fused_i < (NFEATURE); ++fused_i)
  // CHECK-FIXES-NEXT: fused_in[fused_i][0] = fused_in[fused_i][1] = mask[fused_i];
  // CHECK-FIXES-NEXT: rc = MPI_Allreduce(fused_in, fused_out, NFEATURE, fused_pair, fused_op,
  // CHECK-FIXES-NEXT: p->comm);
  // CHECK-FIXES-NEXT: for (int fused_i = 0; fused_i < (NFEATURE); ++fused_i)
  // CHECK-FIXES-NEXT: common[fused_i] = fused_out[fused_i][0];
  // CHECK-FIXES-NEXT: }
  // CHECK-FIXES-NEXT: int width = NFEATURE * (int)sizeof(unsigned) * 8;
  // CHECK-FIXES-NEXT: *bits = width;
  return rc;
}

/// The best bottleneck: the largest of the smallest capacities of each
/// prefix of the stages.
static int best_bottleneck(const struct pipeline *p, int capacity) {
  int narrowest, best = 0;
  MPI_Scan(&capacity, &narrowest, 1, MPI_INT, MPI_MIN, p->comm);
  MPI_Allreduce(&narrowest, &best, 1, MPI_INT, MPI_MAX, p->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: MPI_Scan (MPI_MIN) followed by MPI_Allreduce (MPI_MAX) of its result; replace them with one MPI_Allreduce on pairs
  // CHECK-FIXES: MPI_Allreduce(fused_in, fused_out, 1, fused_pair, fused_op, p->comm);
  // CHECK-FIXES-NEXT: best = fused_out[0][0];
  return best;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct pipeline p;
  p.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(p.comm, &p.rank);
  MPI_Comm_size(p.comm, &p.size);
  long total = -1;
  int bits = 0;
  unsigned mask[NFEATURE], common[NFEATURE];
  for (int f = 0; f < NFEATURE; ++f)
    mask[f] = (unsigned)(0xF0F0u >> (p.rank + f)) | (1u << f);
  int ierr = population(&p, &total);
  if (ierr == MPI_SUCCESS)
    ierr = prefix_features(&p, mask, common, &bits);
  int best = best_bottleneck(&p, 100 - 7 * ((p.rank * 5) % 4));
  if (p.rank == REPORT_ROOT)
    printf("population %ld\n", total);
  printf("rank %d features %x %x %x of %d bits, bottleneck %d, status %d\n",
         p.rank, common[0], common[1], common[2], bits, best, ierr);
  MPI_Finalize();
  return 0;
}
//--- stages.h
long growth_of(int stage);
//--- stages.c
#include "stages.h"

/* Growth factors large enough that the products overflow 32 bits on 8
   ranks and that a long's wraps would show. */
long growth_of(int stage) { return 3 + (stage * 7919L) % 1013; }
