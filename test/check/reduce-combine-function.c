// Two hand-written reductions that fold what they receive into their
// accumulator through a helper of the program, the way codes share their
// vector operations: the peaks of each process go to the root through
// `vec_max`, defined in another file (vecops.c), and the event counts
// through `add_counts`, a static helper of the same file. Each helper is
// the loop over the elements and nothing else, so a call combines that
// many elements as MPI_MAX and MPI_SUM would; the call goes with the loop
// it stands in, also where it runs only when the receive succeeded. A
// third reduction folds levels with `any_max` of vecops.c, which picks its
// loop by a type argument (`if (kind == KIND_INT) ... else ...`, on local
// views of `void *` parameters, the way HPL's HPL_max is written). Rank,
// size and root live in a structure, counts behind macros, every error
// code is kept.
//
// Must not be rewritten (both with LOGGED):
// - the counts folded by `add_counts_logged`, which also counts its calls
//   in a global that main prints: the call does more than combine, so
//   source-form refuses (deleting it would lose the count);
// - the peaks folded by `vec_max_logged` of vecops.c, which also
//   remembers the last array it read: no combine function, and its
//   effects are not followed across files, so input-independence
//   refuses.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --all-units | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/stats.c
// RUN: %check-rewrite refuse %s %t.logged --all-units --trace --cflags=-DLOGGED | FileCheck %s --check-prefix=LOGGED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.static --all-units --cflags=-DLOGGED | FileCheck %s --check-prefix=STATIC --implicit-check-not=warning:
// clang-format on
// CHECK-MESSAGES-DAG: stats.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// CHECK-MESSAGES-DAG: stats.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// CHECK-MESSAGES-DAG: stats.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES-NEXT: int team_peaks(
// CHECK-FIXES: if (t->rank == t->root) {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, peaks, NPEAKS, MPI_DOUBLE, MPI_MAX, t->root,
// CHECK-FIXES-NEXT: t->comm);
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT: ierr =
// CHECK-FIXES-NEXT: MPI_Reduce(peaks, NULL, NPEAKS, MPI_DOUBLE, MPI_MAX, t->root, t->comm);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: free(incoming);
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES-NEXT: static void add_counts(
// CHECK-FIXES: int team_counts(
// CHECK-FIXES: if (t->rank == t->root) {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, counts, NCOUNTS, MPI_LONG, MPI_SUM, t->root,
// CHECK-FIXES-NEXT: t->comm);
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT: ierr =
// CHECK-FIXES-NEXT: MPI_Reduce(counts, NULL, NCOUNTS, MPI_LONG, MPI_SUM, t->root, t->comm);
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES: int team_levels(
// CHECK-FIXES: if (t->rank == t->root) {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, levels, NLEVELS, MPI_INT, MPI_MAX, t->root,
// CHECK-FIXES-NEXT: t->comm);
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT: ierr =
// CHECK-FIXES-NEXT: MPI_Reduce(levels, NULL, NLEVELS, MPI_INT, MPI_MAX, t->root, t->comm);
// CHECK-FIXES-NEXT: }
// LOGGED-DAG: stats.c:[[#]]:14: warning: point-to-point messages the trace shows as a reduction (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-reduce]
// LOGGED-DAG: note: input-independence: the region calls 'vec_max_logged', whose effects cannot be followed
// LOGGED-DAG: stats.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis and the trace); not rewritten: source-form refused [mpilift-manual-reduce]
// LOGGED-DAG: note: source-form: the values are combined inside a call of 'add_counts_logged', which does more than fold one array into another
// LOGGED: check-rewrite: unchanged
// Without the trace the refused reduction is reported too; the loop that
// calls 'vec_max_logged' is not, as a region whose evaluation stops at a
// call it cannot follow never is.
// STATIC: stats.c:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: source-form refused [mpilift-manual-reduce]
// STATIC: note: source-form: the values are combined inside a call of 'add_counts_logged', which does more than fold one array into another
// STATIC: check-rewrite: unchanged
#include "stats.h"

#include <stdio.h>

int main(int argc, char **argv) {
  struct team t;
  double peaks[NPEAKS];
  long counts[NCOUNTS];
  int levels[NLEVELS];
  int ierr;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  ierr = MPI_Comm_rank(t.comm, &t.rank);
  ierr = MPI_Comm_size(t.comm, &t.size);
  t.root = t.size - 1;
  for (int k = 0; k < NPEAKS; k++)
    peaks[k] = (double)((t.rank * 7 + k * 5) % 11) + 0.25 * k;
  for (int k = 0; k < NCOUNTS; k++)
    counts[k] = 1000L * t.rank + k;
  for (int k = 0; k < NLEVELS; k++)
    levels[k] = (t.rank * 3 + k * 7) % 10;
  ierr = team_peaks(&t, peaks);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(t.comm, ierr);
  ierr = team_counts(&t, counts);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(t.comm, ierr);
  ierr = team_levels(&t, levels);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(t.comm, ierr);
  if (t.rank == t.root) {
    for (int k = 0; k < NPEAKS; k++)
      printf("peak %d: %.2f\n", k, peaks[k]);
    for (int k = 0; k < NCOUNTS; k++)
      printf("count %d: %ld\n", k, counts[k]);
    for (int k = 0; k < NLEVELS; k++)
      printf("level %d: %d\n", k, levels[k]);
    printf("helper calls: %d\n", helper_calls);
  }
  MPI_Finalize();
  return 0;
}

//--- stats.h
#include <mpi.h>

#define NPEAKS 5
#define NCOUNTS 3
#define PEAK_TAG 41
#define COUNT_TAG 42
#define NLEVELS 4
#define LEVEL_TAG 43
#define Mmax(a, b) ((a) > (b) ? (a) : (b))

typedef enum { KIND_INT = 100, KIND_DOUBLE = 101 } kind_t;

struct team {
  MPI_Comm comm;
  int rank, size, root;
};

extern int helper_calls;
extern const double *last_seen;

void vec_max(int n, const double *in, double *inout);
void vec_max_logged(int n, const double *in, double *inout);
int team_peaks(const struct team *t, double *peaks);
int team_counts(const struct team *t, long *counts);
void any_max(const int n, const void *in, void *inout, const kind_t kind);
int team_levels(const struct team *t, int *levels);

//--- vecops.c
#include "stats.h"

const double *last_seen;

void vec_max(int n, const double *in, double *inout) {
  int i;
  for (i = 0; i < n; ++i)
    if (in[i] > inout[i])
      inout[i] = in[i];
}

void vec_max_logged(int n, const double *in, double *inout) {
  int i;
  for (i = 0; i < n; ++i)
    if (in[i] > inout[i])
      inout[i] = in[i];
  last_seen = in;
}

void any_max(const int n, const void *in, void *inout, const kind_t kind) {
  int i;
  if (kind == KIND_INT) {
    const int *a = (const int *)(in);
    int *b = (int *)(inout);
    for (i = 0; i < n; i++)
      b[i] = Mmax(a[i], b[i]);
  } else {
    const double *a = (const double *)(in);
    double *b = (double *)(inout);
    for (i = 0; i < n; i++)
      b[i] = Mmax(a[i], b[i]);
  }
}

//--- stats.c
#include "stats.h"

#include <stdlib.h>

int helper_calls;

/* Each variant is a function of its own. */
#if defined(LOGGED)
int team_peaks(const struct team *t, double *peaks) {
  double *incoming = malloc(NPEAKS * sizeof *incoming);
  int p, ierr = MPI_SUCCESS;
  MPI_Status st;
  if (incoming == NULL)
    return MPI_ERR_NO_MEM;
  if (t->rank == t->root) {
    for (p = 0; p < t->size; p++) {
      if (p == t->root)
        continue;
      ierr = MPI_Recv(incoming, NPEAKS, MPI_DOUBLE, p, PEAK_TAG, t->comm, &st);
      if (ierr != MPI_SUCCESS)
        break;
      vec_max_logged(NPEAKS, incoming, peaks);
    }
  } else {
    ierr = MPI_Send(peaks, NPEAKS, MPI_DOUBLE, t->root, PEAK_TAG, t->comm);
  }
  free(incoming);
  return ierr;
}
#else
int team_peaks(const struct team *t, double *peaks) {
  double *incoming = malloc(NPEAKS * sizeof *incoming);
  int p, ierr = MPI_SUCCESS;
  MPI_Status st;
  if (incoming == NULL)
    return MPI_ERR_NO_MEM;
  if (t->rank == t->root) {
    for (p = 0; p < t->size; p++) {
      if (p == t->root)
        continue;
      ierr = MPI_Recv(incoming, NPEAKS, MPI_DOUBLE, p, PEAK_TAG, t->comm, &st);
      if (ierr != MPI_SUCCESS)
        break;
      vec_max(NPEAKS, incoming, peaks);
    }
  } else {
    ierr = MPI_Send(peaks, NPEAKS, MPI_DOUBLE, t->root, PEAK_TAG, t->comm);
  }
  free(incoming);
  return ierr;
}
#endif

#if defined(LOGGED)
static void add_counts_logged(long n, const long *in, long *inout) {
  for (long i = 0; i < n; i++)
    inout[i] += in[i];
  helper_calls++;
}

int team_counts(const struct team *t, long *counts) {
  int p, ierr = MPI_SUCCESS;
  if (t->rank == t->root) {
    for (p = 0; p < t->size; p++) {
      long part[NCOUNTS];
      if (p == t->root)
        continue;
      ierr = MPI_Recv(part, NCOUNTS, MPI_LONG, p, COUNT_TAG, t->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        break;
      add_counts_logged(NCOUNTS, part, counts);
    }
  } else {
    ierr = MPI_Send(counts, NCOUNTS, MPI_LONG, t->root, COUNT_TAG, t->comm);
  }
  return ierr;
}
#else
static void add_counts(long n, const long *in, long *inout) {
  for (long i = 0; i < n; i++)
    inout[i] += in[i];
}

int team_counts(const struct team *t, long *counts) {
  long part[NCOUNTS];
  int p, ierr = MPI_SUCCESS;
  if (t->rank == t->root) {
    for (p = 0; p < t->size; p++) {
      if (p == t->root)
        continue;
      ierr = MPI_Recv(part, NCOUNTS, MPI_LONG, p, COUNT_TAG, t->comm,
                      MPI_STATUS_IGNORE);
      if (ierr == MPI_SUCCESS)
        add_counts(NCOUNTS, part, counts);
    }
  } else {
    ierr = MPI_Send(counts, NCOUNTS, MPI_LONG, t->root, COUNT_TAG, t->comm);
  }
  return ierr;
}
#endif

#if defined(LOGGED)
/* The negative build checks the two above alone. */
int team_levels(const struct team *t, int *levels) {
  (void)t;
  (void)levels;
  return MPI_SUCCESS;
}
#else
int team_levels(const struct team *t, int *levels) {
  int p, ierr = MPI_SUCCESS;
  MPI_Status st;
  if (t->rank == t->root) {
    for (p = 0; p < t->size; p++) {
      int got[NLEVELS];
      if (p == t->root)
        continue;
      ierr = MPI_Recv(got, NLEVELS, MPI_INT, p, LEVEL_TAG, t->comm, &st);
      if (ierr != MPI_SUCCESS)
        break;
      any_max(NLEVELS, got, levels, KIND_INT);
    }
  } else {
    ierr = MPI_Send(levels, NLEVELS, MPI_INT, t->root, LEVEL_TAG, t->comm);
  }
  return ierr;
}
#endif
