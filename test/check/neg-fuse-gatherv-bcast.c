// Issue 15: MPI_Gatherv then MPI_Bcast of the gathered buffer that one
// MPI_Allgatherv may not replace, each refused by the check that names why:
// counts and displacements the root alone computes (MPI_Allgatherv reads
// them on every rank), counts gathered with MPI_Allgather (which the
// evaluation does not follow), a broadcast that also sends a trailer no
// block holds, padded blocks with gaps between them, displacements that
// differ between ranks, blocks that reach past the broadcast (a tally for
// the root), counts that depend on three inputs, and a root that gathers in
// place.
// RUN: %check-rewrite refuse %s %t --args=10 | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT 0
#define PAD 4

struct ctx {
  MPI_Comm comm;
  int rank, size;
};

static void layout(int *counts, int *displs, int n, int size) {
  int p, at = 0;
  for (p = 0; p < size; ++p) {
    counts[p] = n / size + (p < n % size);
    displs[p] = at;
    at += counts[p];
  }
}

static void root_only(const struct ctx *c, int n, const int *mine, int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  int ierr;
  if (c->rank == ROOT)
    layout(counts, displs, n, c->size);
  ierr = MPI_Gatherv(mine, n / c->size + (c->rank < n % c->size), MPI_INT,
                     all, counts, displs, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-2]]:10: warning: MPI_Gatherv followed by MPI_Bcast of the gathered buffer from the same root; not rewritten: input-independence refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-3]]:10: note: input-independence: MPI_Allgatherv reads the counts 'counts' on every rank, and on rank 1 of 4 (with 'n' = 3) element 0 is given no value before the call
  ierr = MPI_Bcast(all, n, MPI_INT, ROOT, c->comm);
  free(counts);
  free(displs);
  (void)ierr;
}

static void exchanged_counts(const struct ctx *c, int n, const int *mine,
                             int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  int own = n / c->size + (c->rank < n % c->size), p;
  MPI_Allgather(&own, 1, MPI_INT, counts, 1, MPI_INT, c->comm);
  displs[0] = 0;
  for (p = 1; p < c->size; ++p)
    displs[p] = displs[p - 1] + counts[p - 1];
  MPI_Gatherv(mine, own, MPI_INT, all, counts, displs, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-1]]:3: warning: {{.*}}; not rewritten: input-independence refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:3: note: input-independence: MPI_Allgatherv reads the counts 'counts' on every rank, and on rank 0 of 4 (with 'n' = 3) element 0 is not known: the block allocated here is written by 'MPI_Allgather'
  MPI_Bcast(all, n, MPI_INT, ROOT, c->comm);
  free(counts);
  free(displs);
}

static void with_trailer(const struct ctx *c, int n, const int *mine,
                         int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  layout(counts, displs, n, c->size);
  if (c->rank == ROOT)
    all[n] = n; /* a trailer only the root writes */
  MPI_Gatherv(mine, counts[c->rank], MPI_INT, all, counts, displs, MPI_INT,
              ROOT, c->comm);
  // CHECK: :[[@LINE-2]]:3: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  MPI_Bcast(all, n + 1, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-1]]:3: note: matching-arguments: the gathered blocks are not exactly the 4 elements the broadcast sends at 4 processes (with 'n' = 3): elements [3, 4) are in no block; MPI_Allgatherv writes the blocks only
  free(counts);
  free(displs);
}

static void padded(const struct ctx *c, int n, const int *mine, int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  int p;
  for (p = 0; p < c->size; ++p) {
    counts[p] = 1;
    displs[p] = p * PAD;
  }
  MPI_Gatherv(mine, 1, MPI_INT, all, counts, displs, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-1]]:3: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  MPI_Bcast(all, c->size * PAD, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-1]]:3: note: matching-arguments: the gathered blocks are not exactly the 16 elements the broadcast sends at 4 processes: elements [1, 4) are in no block; MPI_Allgatherv writes the blocks only
  free(counts);
  free(displs);
  (void)n;
}

/* Blocks laid out from the calling rank on, as the halo exchange wants
   them: only the root's layout is the gathered one. */
static void centred(const struct ctx *c, int n, const int *mine, int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  int p, blk = n / c->size;
  for (p = 0; p < c->size; ++p) {
    counts[p] = blk;
    displs[p] = ((p - c->rank + c->size) % c->size) * blk;
  }
  MPI_Gatherv(mine, blk, MPI_INT, all, counts, displs, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-1]]:3: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:3: note: matching-arguments: the displacements 'displs' differ between ranks at 2 processes (with 'n' = 2): rank 0 holds 0 1, rank 1 1 0; MPI_Allgatherv needs the same on every rank
  MPI_Bcast(all, blk * c->size, MPI_INT, ROOT, c->comm);
  free(counts);
  free(displs);
}

/* The last rank adds a tally for the root; the others need the rows
   only. */
static void with_tally(const struct ctx *c, int n, const int *mine, int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  layout(counts, displs, n, c->size);
  counts[c->size - 1] += 1;
  MPI_Gatherv(mine, counts[c->rank], MPI_INT, all, counts, displs, MPI_INT,
              ROOT, c->comm);
  // CHECK: :[[@LINE-2]]:3: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  MPI_Bcast(all, n, MPI_INT, ROOT, c->comm);
  // CHECK: :[[@LINE-1]]:3: note: matching-arguments: the gathered blocks are not exactly the 3 elements the broadcast sends at 4 processes (with 'n' = 3): rank 3's block [3, 4) ends past them; MPI_Allgatherv writes the blocks only
  free(counts);
  free(displs);
}

/* Rows, columns and a halo width, each read on the root and broadcast:
   three inputs, of which the evaluation tries at most two. */
static void three_inputs(const struct ctx *c, int rows, int cols, int halo,
                         const int *mine, int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  int p;
  for (p = 0; p < c->size; ++p) {
    counts[p] = (rows / c->size + (p < rows % c->size)) * cols + halo;
    displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
  }
  MPI_Gatherv(mine, counts[c->rank], MPI_INT, all, counts, displs, MPI_INT,
              ROOT, c->comm);
  // CHECK: :[[@LINE-2]]:3: warning: {{.*}}; not rewritten: input-independence refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-3]]:3: note: input-independence: the counts and displacements read 3 inputs; at most two are evaluated
  MPI_Bcast(all, displs[c->size - 1] + counts[c->size - 1], MPI_INT, ROOT,
            c->comm);
  free(counts);
  free(displs);
}

static void in_place(const struct ctx *c, int n, int *all) {
  int *counts = malloc(c->size * sizeof(int));
  int *displs = malloc(c->size * sizeof(int));
  layout(counts, displs, n, c->size);
  MPI_Gatherv(c->rank == ROOT ? MPI_IN_PLACE : all + displs[c->rank],
              counts[c->rank], MPI_INT, all, counts, displs, MPI_INT, ROOT,
              c->comm);
  // CHECK: :[[@LINE-3]]:3: warning: {{.*}}; not rewritten: source-form refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-4]]:3: note: source-form: the root gathers in place ('c->rank == ROOT ? MPI_IN_PLACE : all + displs[c->rank]'), and the others' blocks are not in the result buffer for MPI_Allgatherv to take them from there
  MPI_Bcast(all, n, MPI_INT, ROOT, c->comm);
  free(counts);
  free(displs);
}

int main(int argc, char **argv) {
  struct ctx c;
  int n = 8, k;
  MPI_Init(&argc, &argv);
  c.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(c.comm, &c.rank);
  MPI_Comm_size(c.comm, &c.size);
  if (c.rank == ROOT && argc > 1)
    n = atoi(argv[1]);
  MPI_Bcast(&n, 1, MPI_INT, ROOT, c.comm);
  int rows = n / 2, cols = 2, halo = 0;
  if (c.rank == ROOT && argc > 2)
    cols = atoi(argv[2]);
  MPI_Bcast(&cols, 1, MPI_INT, ROOT, c.comm);
  if (c.rank == ROOT && argc > 3)
    halo = atoi(argv[3]);
  MPI_Bcast(&halo, 1, MPI_INT, ROOT, c.comm);
  int *mine = malloc((n + 2) * sizeof(int));
  int *all = malloc((n + PAD * c.size + 2) * sizeof(int));
  int base = c.rank * (n / c.size) + (c.rank < n % c.size ? c.rank : n % c.size);
  for (k = 0; k < n / c.size + 1; ++k)
    mine[k] = 10 * (base + k) + 1;
  memset(all, 0, (n + PAD * c.size + 2) * sizeof(int));
  root_only(&c, n, mine, all);
  exchanged_counts(&c, n, mine, all);
  with_trailer(&c, n, mine, all);
  padded(&c, n, mine, all);
  centred(&c, n, mine, all);
  with_tally(&c, n, mine, all);
  three_inputs(&c, rows, cols, halo, mine, all);
  in_place(&c, n, all);
  printf("rank %d:", c.rank);
  for (k = 0; k < n + 1; ++k)
    printf(" %d", all[k]);
  printf("\n");
  free(all);
  free(mine);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
