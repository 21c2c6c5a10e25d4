// A helper in another file adds every process's histogram into the root's,
// receiving each one into a scratch block it allocates with malloc (sized
// with `sizeof *part`), checks the allocation the way careful codes do
// (`if (!part) return MPI_ERR_NO_MEM;`), and frees after the loop behind
// `if (part)`. What the block holds after the loop (the last histogram
// received) is never read, so MPI_Reduce, which leaves no such copy, does
// the same; and the allocation test is false on every process in a run
// whose allocations succeed, as an error-code test is in a run without
// MPI errors, so every process reaches the loop.
//
// Must not be rewritten:
// - with KEEP_LAST, the helper keeps the last histogram received in a
//   global that main prints: the block's content after the loop is read,
//   so scale-independence refuses (the root receives a process's data
//   unchanged, which no reduction moves);
// - with COPIED, a second pointer to the block is taken before the loop
//   and read after it: the block is not the helper's scratch, refused the
//   same way.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --all-units | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/hist.c
// RUN: %check-rewrite refuse %s %t.keep --all-units --trace --cflags=-DKEEP_LAST | FileCheck %s --check-prefix=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.copied --all-units --trace --cflags=-DCOPIED | FileCheck %s --check-prefix=REFUSED --implicit-check-not=warning:
// clang-format on
// CHECK-MESSAGES: hist.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES: part = malloc((size_t)nbins * sizeof *part);
// CHECK-FIXES-NEXT: if (!part)
// CHECK-FIXES-NEXT: return MPI_ERR_NO_MEM;
// CHECK-FIXES: if (g->rank == g->root) {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, bins, nbins, MPI_INT, MPI_SUM, g->root,
// CHECK-FIXES-NEXT: g->comm);
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(bins, NULL, nbins, MPI_INT, MPI_SUM, g->root, g->comm);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES: if (part)
// CHECK-FIXES-NEXT: free(part);
// REFUSED: hist.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis and the trace); not rewritten: scale-independence refused [mpilift-manual-reduce]
// REFUSED: note: scale-independence: at 3 processes, process {{[0-9]}} also receives {{[0-9]+}} bytes of process {{[0-9]}}'s data unchanged, which no reduction moves
// REFUSED: check-rewrite: unchanged
#include "hist.h"

#include <stdio.h>

int main(int argc, char **argv) {
  struct grid g;
  int bins[NBINS], ierr;
  MPI_Init(&argc, &argv);
  g.comm = MPI_COMM_WORLD;
  ierr = MPI_Comm_rank(g.comm, &g.rank);
  ierr = MPI_Comm_size(g.comm, &g.size);
  g.root = g.size / 2;
  for (int b = 0; b < NBINS; b++)
    bins[b] = (g.rank * 5 + b * 3) % 7;
  ierr = sum_histograms(&g, bins, NBINS);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(g.comm, ierr);
  if (g.rank == g.root) {
    for (int b = 0; b < NBINS; b++)
      printf("bin %d: %d\n", b, bins[b]);
#ifdef KEEP_LAST
    printf("last received: %d\n", last_received);
#endif
  }
  MPI_Finalize();
  return 0;
}

//--- hist.h
#include <mpi.h>

#define NBINS 6
#define HIST_TAG 31

struct grid {
  int rank, size, root;
  MPI_Comm comm;
};

extern int last_received;

int sum_histograms(const struct grid *g, int *bins, int nbins);

//--- hist.c
#include "hist.h"

#include <stdlib.h>

int last_received = -1;

/* Each variant is a function of its own: what conditional code reads
   after the loop counts as read in every build. */
#if defined(COPIED)
int sum_histograms(const struct grid *g, int *bins, int nbins) {
  int *part = NULL, p, b, ierr = MPI_SUCCESS;
  MPI_Status status;
  int *seen;
  part = malloc((size_t)nbins * sizeof *part);
  if (!part)
    return MPI_ERR_NO_MEM;
  seen = part;
  if (g->rank == g->root) {
    for (p = 0; p < g->size; p++) {
      if (p == g->root)
        continue;
      ierr = MPI_Recv(part, nbins, MPI_INT, p, HIST_TAG, g->comm, &status);
      if (ierr != MPI_SUCCESS)
        break;
      for (b = 0; b < nbins; b++)
        bins[b] += part[b];
    }
  } else {
    ierr = MPI_Send(bins, nbins, MPI_INT, g->root, HIST_TAG, g->comm);
  }
  if (g->rank == g->root && g->size > 1)
    last_received = seen[0];
  if (part)
    free(part);
  return ierr;
}
#elif defined(KEEP_LAST)
int sum_histograms(const struct grid *g, int *bins, int nbins) {
  int *part = NULL, p, b, ierr = MPI_SUCCESS;
  MPI_Status status;
  part = malloc((size_t)nbins * sizeof *part);
  if (!part)
    return MPI_ERR_NO_MEM;
  if (g->rank == g->root) {
    for (p = 0; p < g->size; p++) {
      if (p == g->root)
        continue;
      ierr = MPI_Recv(part, nbins, MPI_INT, p, HIST_TAG, g->comm, &status);
      if (ierr != MPI_SUCCESS)
        break;
      for (b = 0; b < nbins; b++)
        bins[b] += part[b];
    }
  } else {
    ierr = MPI_Send(bins, nbins, MPI_INT, g->root, HIST_TAG, g->comm);
  }
  if (g->rank == g->root && g->size > 1)
    last_received = part[0];
  if (part)
    free(part);
  return ierr;
}
#else
int sum_histograms(const struct grid *g, int *bins, int nbins) {
  int *part = NULL, p, b, ierr = MPI_SUCCESS;
  MPI_Status status;
  part = malloc((size_t)nbins * sizeof *part);
  if (!part)
    return MPI_ERR_NO_MEM;
  if (g->rank == g->root) {
    for (p = 0; p < g->size; p++) {
      if (p == g->root)
        continue;
      ierr = MPI_Recv(part, nbins, MPI_INT, p, HIST_TAG, g->comm, &status);
      if (ierr != MPI_SUCCESS)
        break;
      for (b = 0; b < nbins; b++)
        bins[b] += part[b];
    }
  } else {
    ierr = MPI_Send(bins, nbins, MPI_INT, g->root, HIST_TAG, g->comm);
  }
  if (part)
    free(part);
  return ierr;
}
#endif
