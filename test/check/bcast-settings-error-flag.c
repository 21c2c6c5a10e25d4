// Settings read on process 0 the way HPL_pdinfo reads HPL.dat: every
// problem sets an error flag and jumps past the rest of the reading; the
// processes then agree on the flag with a maximum and all leave together
// when it is set. Only then does process 0 pack the settings, one of them
// encoded (the layout as 0 or 1), and broadcast them. On the paths that
// jump past the layout's write, process 0 would pack the caller's value,
// but those paths set the flag to 1 and cannot pass `if (error)`: the
// maximum of the flags is at least 1. So the layout (which decides how
// much of which slab moves), the count and the rounds are the same on
// every process, and the hand-written chain is rewritten.
//
// Must not be rewritten, each refused by input-independence, the note
// naming the packing:
// - with MIN, the processes agree on the flag with a minimum (0 from the
//   others wins, so process 0 goes on with the caller's layout);
// - with NEGATIVE, a problem sets the flag to -1 (the maximum is then the
//   others' 0);
// - with FORGIVEN, the flag is cleared after the reading when the count
//   was out of range and replaced by the default;
// - with OTHER_FLAG, the exit tests the result of the reduction call, not
//   the flag;
// - with HELPER_FLAG, a helper in another file may write the flag
//   through its address.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.min --trace --cflags=-DMIN | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.negative --trace --cflags=-DNEGATIVE | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.forgiven --trace --cflags=-DFORGIVEN | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.other --trace --cflags=-DOTHER_FLAG | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.helper --trace --cflags=-DHELPER_FLAG | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// clang-format on
#include "settings.h"

#include <stdio.h>

#define SLAB_TAG 17
#define SLAB_LEN SETTINGS_MAX_N

struct team {
  MPI_Comm comm;
  int rank;
  int size;
};

/* Each process but the first takes the slab from its left neighbour and
   each but the last hands it on. */
static int slab_pass_on(const struct team *t, double *slab, int count) {
  int ierr = MPI_SUCCESS;
  if (t->rank > 0)
    ierr = MPI_Recv(slab, count, MPI_DOUBLE, t->rank - 1, SLAB_TAG, t->comm,
                    MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: prog.c:[[#@LINE-3]]:3: warning: chain of point-to-point messages implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
  // REFUSED: prog.c:[[#@LINE-3]]:12: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
  if (t->rank < t->size - 1)
    ierr = MPI_Send(slab, count, MPI_DOUBLE, t->rank + 1, SLAB_TAG, t->comm);
  // CHECK-FIXES: ierr = MPI_Bcast(slab, count, MPI_DOUBLE, 0, t->comm);
  // CHECK-FIXES-NOT: MPI_Send
  return ierr;
}

int main(int argc, char **argv) {
  struct team t;
  double rows[SLAB_LEN], cols[SLAB_LEN];
  int n, layout = 0, reps, r, i, ierr;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.rank);
  MPI_Comm_size(t.comm, &t.size);
  ierr = settings_read(argc, argv, &n, &layout, &reps);
  for (i = 0; i < SLAB_LEN; i++) {
    rows[i] = t.rank == 0 ? 0.5 * i : -1.0;
    cols[i] = t.rank == 0 ? 3.0 - i : -2.0;
  }
  /* A column slab holds half as many numbers. */
  for (r = 0; r < reps && ierr == MPI_SUCCESS; r++)
    ierr = layout == SETTINGS_ROWS ? slab_pass_on(&t, rows, n)
                                   : slab_pass_on(&t, cols, n / 2);
  double sum = 0;
  for (i = 0; i < SLAB_LEN; i++)
    sum += rows[i] + 2 * cols[i];
  printf("rank %d: n %d layout %d reps %d sum %.2f\n", t.rank, n, layout,
         reps, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// REFUSED: note: input-independence: {{.*}}'*layout' reaches the other ranks through element 1 of 'iwork' and the broadcast at line {{[0-9]+}}, encoded and decoded, and on some path the root packs it without writing it first (the value it had when 'settings_read' began)

//--- settings.h
#include <mpi.h>
#include <stdio.h>

#define SETTINGS_ROWS 3
#define SETTINGS_COLS 4
#define SETTINGS_MAX_N 24

int settings_read(int argc, char **argv, int *n, int *layout, int *reps);
int input_int(FILE *in, int fallback);
void input_check(FILE *in, int *error);
//--- input.c
#include "settings.h"

/* The next number in `in`, or `fallback` without a file or a number. */
int input_int(FILE *in, int fallback) {
  int value;
  if (in && fscanf(in, "%d", &value) == 1)
    return value;
  return fallback;
}

/* Flags a read error of `in`. */
void input_check(FILE *in, int *error) {
  if (in && ferror(in))
    *error = 1;
}
//--- settings.c
#include "settings.h"

#include <stdlib.h>

#ifdef MIN
#define SETTINGS_AGREE MPI_MIN
#else
#define SETTINGS_AGREE MPI_MAX
#endif

#ifdef NEGATIVE
#define SETTINGS_FAILED (-1)
#else
#define SETTINGS_FAILED 1
#endif

/* Process 0 reads the settings from the file named first on the command
   line (the defaults without one); one message gives them to the others. A
   problem with them stops every process. */
int settings_read(int argc, char **argv, int *n, int *layout, int *reps) {
  int me, ierr, error = 0;
  int *iwork = NULL;
  FILE *in = NULL;
  ierr = MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    if (argc > 1 && (in = fopen(argv[1], "r")) == NULL) {
      fprintf(stderr, "settings: cannot open %s\n", argv[1]);
      error = SETTINGS_FAILED;
      goto label_error;
    }
    *n = input_int(in, SETTINGS_MAX_N / 2);
    if (*n < 1 || *n > SETTINGS_MAX_N) {
      fprintf(stderr, "settings: count %d out of range\n", *n);
      error = SETTINGS_FAILED;
      goto label_error;
    }
    *layout = input_int(in, 0) == 1 ? SETTINGS_COLS : SETTINGS_ROWS;
    *reps = input_int(in, 2);
#ifdef HELPER_FLAG
    input_check(in, &error);
#endif
  label_error:
    if (in)
      fclose(in);
#ifdef FORGIVEN
    if (*n < 1 || *n > SETTINGS_MAX_N) {
      *n = SETTINGS_MAX_N / 2;
      error = 0;
    }
#endif
  }
  ierr = MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_INT, SETTINGS_AGREE,
                       MPI_COMM_WORLD);
#ifdef OTHER_FLAG
  if (ierr != MPI_SUCCESS) {
#else
  if (ierr != MPI_SUCCESS || error) {
#endif
    if (me == 0)
      fprintf(stderr, "settings: illegal input, exiting\n");
    MPI_Finalize();
    exit(1);
  }
  iwork = (int *)malloc(3 * sizeof(int));
  if (me == 0) {
    iwork[0] = *n;
    iwork[1] = (*layout == SETTINGS_ROWS ? 0 : 1);
    iwork[2] = *reps;
  }
  ierr = MPI_Bcast(iwork, 3, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0) {
    *n = iwork[0];
    *layout = (iwork[1] == 0 ? SETTINGS_ROWS : SETTINGS_COLS);
    *reps = iwork[2];
  }
  free(iwork);
  return ierr;
}
