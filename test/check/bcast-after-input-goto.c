// A broadcast helper written by hand, called from a routine in another file
// that reads the run's parameters the way HPL_pdinfo reads HPL.dat: rank 0
// opens the input, and every error while reading jumps with `goto` to a
// label at the end of the same `if (rank == 0)` block, where the file is
// closed; then every rank takes part in spreading what rank 0 found (an
// error flag by a hand-written maximum, the parameters by the helper, with
// a count set after the block). The jumps stay inside the block, so every
// rank reaches the line that sets the count.
//
// Must not be rewritten: with SKIP_ON_ERROR, rank 0 jumps past that line
// when the input is missing (it is, in the test), so it sends two values
// where the others receive up to four. Their receives take the shorter
// message; MPI_Bcast needs the same count everywhere. The note names the
// jump's condition.
//
// Checked with every unit (--all-units), the hand-written maximum in
// reduce.c is an MPI_Allreduce too: the value received last stays in
// `other`, which nothing reads afterwards (its uses are the receive and the
// `if (other > *val) *val = other;` that combines it). With KEEP_OTHER the
// helper prints that last value on rank 0, and scale-independence refuses
// (the broadcast in prog.c is still rewritten).
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.all --all-units | FileCheck %s --check-prefix=ALL --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=ALL-FIXES < %t.all/reduce.c
// RUN: %check-rewrite rewrite %s %t.keep --all-units --cflags=-DKEEP_OTHER | FileCheck %s --check-prefix=KEEP --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=KEEP-FIXES < %t.keep/reduce.c
// RUN: %check-rewrite refuse %s %t.skip --trace --cflags=-DSKIP_ON_ERROR | FileCheck %s --check-prefix=SKIP --implicit-check-not=warning:
// clang-format on
// ALL: prog.c:{{[0-9]+}}:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
// ALL: reduce.c:{{[0-9]+}}:5: warning: loop of point-to-point messages implements an allreduce (static analysis); replace it with MPI_Allreduce [mpilift-manual-allreduce]
// ALL: check-rewrite: same output at np 1 2 3 4 5 7 8
// ALL-FIXES: ierr = MPI_Allreduce(MPI_IN_PLACE, val, 1, MPI_INT, MPI_MAX, comm);
// KEEP: prog.c:{{[0-9]+}}:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
// KEEP: reduce.c:{{[0-9]+}}:5: warning: loop of point-to-point messages implements an allreduce (static analysis); not rewritten: scale-independence refused [mpilift-manual-allreduce]
// KEEP: note: scale-independence: at 3 processes, process 0 also receives 4 bytes of process 2's data unchanged, which no reduction moves
// KEEP: check-rewrite: same output at np 1 2 3 4 5 7 8
// KEEP-FIXES: ierr = MPI_Recv(&other, 1, MPI_INT, p, 9, comm, MPI_STATUS_IGNORE);
#include "params.h"

#include <stdio.h>

#define SPREAD_TAG 5

int spread_ints(int *vals, int count, int root, MPI_Comm comm) {
  int ierr = MPI_SUCCESS, me, np, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me == root) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (p = 0; p < np; ++p) {
      if (p == root)
        continue;
      // SKIP: prog.c:[[#@LINE+1]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
      ierr = MPI_Send(vals, count, MPI_INT, p, SPREAD_TAG, comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    // SKIP: note: input-independence: the count 'count' cannot be evaluated: 'count' receives a value in {{.*}}params.c:{{[0-9]+}}:{{[0-9]+}} that may differ between ranks: 'nspread' is written where not every rank may get: an earlier statement may leave on some ranks only: the condition '(infp = fopen(path, "r")) == NULL' may differ between ranks
    ierr = MPI_Recv(vals, count, MPI_INT, root, SPREAD_TAG, comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(vals, count, MPI_INT, root, comm);
  return ierr;
}

int main(int argc, char **argv) {
  params_t prm;
  int rank, ierr;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ierr = read_params("mpilift-no-such-input.dat", &prm);
  printf("rank %d: ierr %d error %d n %d nb %d p %d q %d\n", rank, ierr,
         prm.error, prm.n, prm.nb, prm.p, prm.q);
  MPI_Finalize();
  return 0;
}

//--- params.h
#ifndef PARAMS_H
#define PARAMS_H
#include <mpi.h>

typedef struct {
  int error;
  int n, nb, p, q;
} params_t;

int spread_ints(int *vals, int count, int root, MPI_Comm comm);
int max_int(int *val, MPI_Comm comm);
int read_params(const char *path, params_t *prm);

#endif

//--- reduce.c
#include "params.h"

#include <stdio.h>

// The largest of every rank's *val, on every rank, gathered on rank 0 and
// sent back one by one. Each variant is a function of its own: what
// conditional code reads after the pattern counts as read in every build.
#ifdef KEEP_OTHER
int max_int(int *val, MPI_Comm comm) {
  int me, np, p, other, ierr = MPI_SUCCESS;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me == 0) {
    for (p = 1; p < np; ++p) {
      ierr = MPI_Recv(&other, 1, MPI_INT, p, 9, comm, MPI_STATUS_IGNORE);
      if (other > *val)
        *val = other;
    }
    for (p = 1; p < np; ++p)
      ierr = MPI_Send(val, 1, MPI_INT, p, 10, comm);
  } else {
    ierr = MPI_Send(val, 1, MPI_INT, 0, 9, comm);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Recv(val, 1, MPI_INT, 0, 10, comm, MPI_STATUS_IGNORE);
  }
  if (me == 0 && np > 1)
    printf("last value received: %d\n", other);
  return ierr;
}
#else
int max_int(int *val, MPI_Comm comm) {
  int me, np, p, other, ierr = MPI_SUCCESS;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me == 0) {
    for (p = 1; p < np; ++p) {
      ierr = MPI_Recv(&other, 1, MPI_INT, p, 9, comm, MPI_STATUS_IGNORE);
      if (other > *val)
        *val = other;
    }
    for (p = 1; p < np; ++p)
      ierr = MPI_Send(val, 1, MPI_INT, p, 10, comm);
  } else {
    ierr = MPI_Send(val, 1, MPI_INT, 0, 9, comm);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Recv(val, 1, MPI_INT, 0, 10, comm, MPI_STATUS_IGNORE);
  }
  return ierr;
}
#endif

//--- params.c
#include "params.h"

#include <stdio.h>
#include <stdlib.h>

#define NPARAMS 4
#define LINE_MAX_LEN 128

static int read_int(FILE *fp, int *out) {
  char line[LINE_MAX_LEN];
  if (!fgets(line, sizeof line, fp))
    return 1;
  *out = atoi(line);
  return *out <= 0;
}

int read_params(const char *path, params_t *prm) {
  int rank, ierr, nspread = 2, iwork[NPARAMS] = {0, 0, 0, 0};
  FILE *infp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  prm->error = 0;
  if (rank == 0) {
    // Defaults, for an input that is missing or short.
    iwork[0] = 96;
    iwork[1] = 8;
    iwork[2] = 1;
    iwork[3] = 2;
    if ((infp = fopen(path, "r")) == NULL) {
      prm->error = 1;
#ifdef SKIP_ON_ERROR
      goto label_spread;
#else
      goto label_end;
#endif
    }
    if (read_int(infp, &iwork[0])) {
      prm->error = 2;
      goto label_error;
    }
    if (read_int(infp, &iwork[1])) {
      prm->error = 2;
      goto label_error;
    }
  label_error:
    (void)fclose(infp);
  label_end:;
  }
  nspread = NPARAMS;
#ifdef SKIP_ON_ERROR
label_spread:
#endif
  ierr = max_int(&prm->error, MPI_COMM_WORLD);
  if (ierr == MPI_SUCCESS)
    ierr = spread_ints(iwork, nspread, 0, MPI_COMM_WORLD);
  prm->n = iwork[0];
  prm->nb = iwork[1];
  prm->p = iwork[2];
  prm->q = iwork[3];
  return ierr;
}
