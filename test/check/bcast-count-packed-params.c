// The settings of a run come back from a reader in another file through
// pointers, the way HPL_pdinfo returns them: process 0 parses them, packs
// them into memory it allocates, broadcasts the array, and the other
// processes unpack it, decoding the layout from the number it was sent as
// (settings.c). The settings in this test are the defaults. No write of '*n', '*layout' or '*reps' runs on every rank;
// the round trip as a whole makes them the same everywhere, so the loop
// of rounds, the layout's choice of slab and the count of the hand-written
// broadcast are proven and it is rewritten.
//
// Must not be rewritten, each refused by input-independence with the
// reason named:
// - with BAD_DECODE, the others decode the layout the wrong way round;
// - with SKEW, the others add their rank to the count before unpacking it;
// - with SHADOW, the others write the packed count through a copy of the
//   pointer before unpacking it;
// - with STASHED, a helper keeps the pointer in a global before the
//   packing, and the others write the count through that copy before
//   unpacking it (no copy of the pointer in the function itself);
// - with SHORT, the broadcast carries two of the three numbers packed (the
//   others find the zero the allocation gave the third, which happens to
//   decode to the root's default layout);
// - with EARLY_RETURN, process 0 may return before the broadcast when the
//   settings file names more than five arguments;
// - with LAYOUT_IF_GIVEN, process 0 sets the layout only when it is given,
//   so it may pack the caller's 0, which the others decode as columns.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.decode --trace --cflags=-DBAD_DECODE | FileCheck %s --check-prefixes=REFUSED,DECODE --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.skew --trace --cflags=-DSKEW | FileCheck %s --check-prefixes=REFUSED,SKEW --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.shadow --trace --cflags=-DSHADOW | FileCheck %s --check-prefixes=REFUSED,SHADOW --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.stashed --trace --cflags=-DSTASHED | FileCheck %s --check-prefixes=REFUSED,STASHED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.short --trace --cflags=-DSHORT | FileCheck %s --check-prefixes=REFUSED,SHORT --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.early --trace --cflags=-DEARLY_RETURN | FileCheck %s --check-prefixes=REFUSED,EARLY --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.given --trace --cflags=-DLAYOUT_IF_GIVEN | FileCheck %s --check-prefixes=REFUSED,GIVEN --implicit-check-not=warning:
// clang-format on
#include "settings.h"

#include <stdio.h>

#define SLAB_TAG 31
#define SLAB_LEN 40

struct world {
  int me, np;
  MPI_Comm comm;
};

/* The first `count` values of `slab` from process 0 to every other. */
static int slab_share(const struct world *w, double *slab, int count) {
  int p, ierr = MPI_SUCCESS;
  if (w->me == 0) {
    for (p = 1; p < w->np; p++) {
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(slab, count, MPI_DOUBLE, p, SLAB_TAG, w->comm);
      // REFUSED: prog.c:[[#@LINE-1]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(slab, count, MPI_DOUBLE, 0, SLAB_TAG, w->comm,
                    MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(slab, count, MPI_DOUBLE, 0, w->comm);
  }
  return ierr;
}

int main(int argc, char **argv) {
  struct world w;
  double rows[SLAB_LEN], cols[SLAB_LEN];
  int n, layout = 0, reps, r, i, ierr;
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.me);
  MPI_Comm_size(w.comm, &w.np);
  ierr = settings_read(argc, argv, &n, &layout, &reps);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(w.comm, ierr);
  for (i = 0; i < SLAB_LEN; i++) {
    rows[i] = w.me == 0 ? 1.5 * i : -1.0;
    cols[i] = w.me == 0 ? 100.0 - i : -2.0;
  }
  for (r = 0; r < reps && ierr == MPI_SUCCESS; r++) {
    if (layout == SETTINGS_ROWS)
      ierr = slab_share(&w, rows, n);
    else
      ierr = slab_share(&w, cols, n);
  }
  double sum = 0;
  for (i = 0; i < SLAB_LEN; i++)
    sum += rows[i] + cols[i];
  printf("rank %d: n %d layout %d reps %d sum %.2f\n", w.me, n, layout, reps,
         sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// DECODE: note: input-independence: {{.*}}'*layout' reaches the other ranks through element 2 of 'iwork' and the broadcast at line {{[0-9]+}}, but decoding does not give back the value 20 the root may hold
// SKEW: note: input-independence: {{.*}}'*n' reaches the other ranks through element 0 of 'iwork' and the broadcast at line {{[0-9]+}}, but 'iwork' may change between the packing and the unpacking, or its memory be reached another way
// SHADOW: note: input-independence: {{.*}}'*n' reaches the other ranks through element 0 of 'iwork' and the broadcast at line {{[0-9]+}}, but 'iwork' may change between the packing and the unpacking, or its memory be reached another way
// STASHED: note: input-independence: {{.*}}'*n' reaches the other ranks through element 0 of 'iwork' and the broadcast at line {{[0-9]+}}, but 'iwork' may change between the packing and the unpacking, or its memory be reached another way
// SHORT: note: input-independence: {{.*}}'*layout' reaches the other ranks through element 2 of 'iwork' and the broadcast at line {{[0-9]+}}, which may not carry that element
// GIVEN: note: input-independence: {{.*}}'*layout' reaches the other ranks through element 2 of 'iwork' and the broadcast at line {{[0-9]+}}, encoded and decoded, and on some path the root packs it without writing it first (the value it had when 'settings_read' began)
// EARLY: note: input-independence: {{.*}}'*n' reaches the other ranks through a broadcast that not every return of 'settings_read' comes after

//--- settings.h
#include <mpi.h>

#define SETTINGS_ROWS 10
#define SETTINGS_COLS 20
#define SETTINGS_MAX_N 40

int settings_read(int argc, char **argv, int *n, int *layout, int *reps);
//--- settings.c
#include "settings.h"

#include <stdlib.h>

#ifdef SHORT
#define SETTINGS_SENT 2
#else
#define SETTINGS_SENT 3
#endif

#ifdef STASHED
static int *stash;
/* Kept to look the settings up again later. */
static void keep_for_later(int *work) { stash = work; }
#endif

/* Process 0 reads the settings; one message gives them to the others. */
int settings_read(int argc, char **argv, int *n, int *layout, int *reps) {
  int me, ierr;
  int *iwork = NULL;
  ierr = MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  if (me == 0) {
    *n = argc > 1 ? atoi(argv[1]) : SETTINGS_MAX_N / 2;
    if (*n < 1 || *n > SETTINGS_MAX_N)
      *n = SETTINGS_MAX_N;
#ifdef LAYOUT_IF_GIVEN
    if (argc > 2)
      *layout = atoi(argv[2]) == 1 ? SETTINGS_COLS : SETTINGS_ROWS;
#else
    *layout = argc > 2 && atoi(argv[2]) == 1 ? SETTINGS_COLS : SETTINGS_ROWS;
#endif
    *reps = argc > 3 ? atoi(argv[3]) : 2;
#ifdef EARLY_RETURN
    if (argc > 5)
      return MPI_ERR_ARG;
#endif
  }
  iwork = (int *)calloc(3, sizeof(int));
#ifdef STASHED
  keep_for_later(iwork);
#endif
  if (me == 0) {
    iwork[0] = *n;
    iwork[1] = *reps;
    iwork[2] = (*layout == SETTINGS_ROWS ? 0 : 1);
  }
  ierr = MPI_Bcast(iwork, SETTINGS_SENT, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0) {
#ifdef SKEW
    iwork[0] += me % 2;
#endif
#ifdef SHADOW
    int *shadow = iwork;
    shadow[0] = SETTINGS_MAX_N - me;
#endif
#ifdef STASHED
    stash[0] = SETTINGS_MAX_N - me;
#endif
    *n = iwork[0];
    *reps = iwork[1];
#ifdef BAD_DECODE
    *layout = (iwork[2] == 1 ? SETTINGS_ROWS : SETTINGS_COLS);
#else
    *layout = (iwork[2] == 0 ? SETTINGS_ROWS : SETTINGS_COLS);
#endif
  }
  if (iwork)
    free(iwork);
  return ierr;
}
