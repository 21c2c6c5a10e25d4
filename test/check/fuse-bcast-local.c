// Issue 15, seed 001's rules into Local and Comcast: after MPI_Bcast every
// rank holds the root's value, so MPI_Scan of the broadcast buffer gives
// rank k the combination of k + 1 copies (BS-Comcast), MPI_Reduce gives the
// root p copies (BR-Local) and MPI_Allreduce gives every rank p copies
// (BR-Alllocal); each rank computes that itself and the second collective
// goes. The broadcast stays. Error codes kept in every spelling, rank,
// size and communicator in a structure, counts and roots behind macros,
// reads of the broadcast value between the calls.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define NPARAM 3
#define ROOT 0
#define COMM(d) ((d)->comm)

struct decomp {
  MPI_Comm comm;
  int rank, size;
  long first, last, weight;
};

/// Each rank's block of a 1-D domain: the root's widths, broadcast, and the
/// running sum of them.
static int partition(struct decomp *d, long seed) {
  long params[NPARAM] = {seed % 11 + 1, 2 * seed, seed % 5};
  long ends[NPARAM];
  int ierr = MPI_Bcast(params, NPARAM, MPI_LONG, ROOT, COMM(d));
  long width = params[0];
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Scan(params, ends, NPARAM, MPI_LONG, MPI_SUM, COMM(d));
  // CHECK-MESSAGES: :[[@LINE-4]]:14: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; each rank combines its rank + 1 copies of the value itself (BS-Comcast) [mpilift-fuse-collectives]
  // CHECK-FIXES: int ierr = MPI_Bcast(params, NPARAM, MPI_LONG, ROOT, COMM(d));
  // CHECK-FIXES: if (ierr == MPI_SUCCESS) {
  // CHECK-FIXES-NEXT: int fold_rank;
  // CHECK-FIXES-NEXT: ierr = MPI_Comm_rank(COMM(d), &fold_rank);
  // CHECK-FIXES-NEXT: if (ierr == MPI_SUCCESS) {
  // CHECK-FIXES-NEXT: for (int fold_i = 0; fold_i < (NPARAM); ++fold_i) {
  // CHECK-FIXES-NEXT: ends[fold_i] = (fold_rank + 1) * params[fold_i];
  // CHECK-FIXES-NOT: MPI_Scan
  d->first = ends[0] - width;
  d->last = ends[0];
  d->weight = ends[1] + ends[2];
  return ierr;
}

/// The step count the ranks agree on, known to the last rank.
static int agree(struct decomp *d, int proposal, int *agreed) {
  int steps = proposal;
  MPI_Bcast(&steps, 1, MPI_INT, ROOT, d->comm);
  int rc = MPI_Reduce(&steps, agreed, 1, MPI_INT, MPI_MIN, d->size - 1,
                      d->comm);
  // CHECK-MESSAGES: :[[@LINE-3]]:3: warning: MPI_Bcast followed by MPI_Reduce of the broadcast buffer; the root combines the p copies of the value itself (BR-Local) [mpilift-fuse-collectives]
  // CHECK-FIXES: int fold_rank, fold_size;
  // CHECK-FIXES-NEXT: int rc = MPI_Comm_rank(d->comm, &fold_rank);
  // CHECK-FIXES-NEXT: if (rc == MPI_SUCCESS)
  // CHECK-FIXES-NEXT: rc = MPI_Comm_size(d->comm, &fold_size);
  // CHECK-FIXES-NEXT: if (rc == MPI_SUCCESS && fold_rank == (d->size - 1)) {
  // CHECK-FIXES-NEXT: agreed[0] = steps;
  // CHECK-FIXES-NEXT: }
  return rc;
}

int main(int argc, char **argv) {
  struct decomp d;
  unsigned mask;
  unsigned parity = 0;
  int grow[2], power[2], agreed = -1, ierr;
  MPI_Init(&argc, &argv);
  d.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(d.comm, &d.rank);
  MPI_Comm_size(d.comm, &d.size);
  ierr = partition(&d, 100 + 7 * d.rank + argc);
  ierr += agree(&d, 50 - d.rank, &agreed);

  mask = 0x5au + (unsigned)d.rank;
  MPI_Bcast(&mask, 1, MPI_UNSIGNED, d.size / 2, d.comm);
  MPI_Allreduce(&mask, &parity, 1, MPI_UNSIGNED, MPI_BXOR, d.comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; each rank combines the p copies of the value itself (BR-Alllocal) [mpilift-fuse-collectives]
  // CHECK-FIXES: MPI_Bcast(&mask, 1, MPI_UNSIGNED, d.size / 2, d.comm);
  // CHECK-FIXES-NEXT: {
  // CHECK-FIXES-NEXT: int fold_size;
  // CHECK-FIXES-NEXT: MPI_Comm_size(d.comm, &fold_size);
  // CHECK-FIXES-NEXT: parity = (fold_size) % 2 ? mask : 0;
  // CHECK-FIXES-NEXT: }

  grow[0] = 2 + d.rank;
  grow[1] = -1 - d.rank;
  int rc = MPI_Bcast(grow, 2, MPI_INT, ROOT, d.comm);
  rc = MPI_Allreduce(grow, power, 2, MPI_INT, MPI_PROD, d.comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; each rank combines the p copies of the value itself (BR-Alllocal) [mpilift-fuse-collectives]
  // CHECK-FIXES: int fold_base = grow[fold_i], fold_acc;
  // CHECK-FIXES-NEXT: int fold_k = fold_size;
  // CHECK-FIXES-NEXT: while (!(fold_k & 1)) {
  // CHECK-FIXES-NEXT: fold_base = (fold_base * fold_base);
  // CHECK-FIXES: power[fold_i] = fold_acc;

  printf("rank %d: block [%ld, %ld) weight %ld agreed %d parity %#x power %d "
         "%d ierr %d\n",
         d.rank, d.first, d.last, d.weight, agreed, parity, power[0],
         power[1], ierr + rc);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
