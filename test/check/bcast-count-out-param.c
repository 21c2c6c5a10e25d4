// The count of a hand-written broadcast comes back from helpers through
// pointers, the way a code reads its problem size: problem_read in
// problem.c parses it on process 0 (defaults first), broadcasts it and
// sets the repetitions outright; chunk_of in this file caps it. Neither
// the caller nor any single write shows the value the same everywhere:
// every write the helpers make of '*n', '*reps' and '*chunk' does, and
// problem.c's summary says so for its function (project-index.md).
//
// Must not be rewritten, each with the check that refuses it named:
// - with NO_BCAST, the size parsed by process 0 is never broadcast;
// - with ENV_OVERRIDE, processes other than 0 take the size from the
//   environment after the broadcast;
// - with SELF_BCAST, the broadcast is on MPI_COMM_SELF, which spans one
//   process;
// - with KEEP_POINTER, chunk_of keeps the pointer for later tuning, so
//   what writes through it cannot be followed.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.nobcast --trace --cflags=-DNO_BCAST | FileCheck %s --check-prefix=NOBCAST --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.env --trace --cflags=-DENV_OVERRIDE | FileCheck %s --check-prefix=ENV --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.self --trace --cflags=-DSELF_BCAST | FileCheck %s --check-prefix=SELF --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.keep --trace --cflags=-DKEEP_POINTER | FileCheck %s --check-prefix=KEEP --implicit-check-not=warning:
// clang-format on
#include "problem.h"

#include <stdio.h>

#define CHUNK_MAX 48
#define SLAB_TAG 21
#define SLAB_DATA(s) ((s)->values)

struct slab {
  double values[PROBLEM_MAX_N];
  int owner;
};

#ifdef KEEP_POINTER
int *tuned_chunk;
#endif

/* How much of the slab goes out at once. */
static void chunk_of(int *chunk, int n) {
  *chunk = n < CHUNK_MAX ? n : CHUNK_MAX;
#ifdef KEEP_POINTER
  tuned_chunk = chunk;
#endif
}

/* The owner's slab to every other process of comm. */
static int slab_share(struct slab *s, int count, MPI_Comm comm) {
  int me, np, p, ierr;
  ierr = MPI_Comm_rank(comm, &me);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(comm, &np);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (me == 0) {
    for (p = 1; p < np; ++p) {
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(SLAB_DATA(s), count, MPI_DOUBLE, p, SLAB_TAG, comm);
      // NOBCAST: prog.c:[[#@LINE-1]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      // ENV: prog.c:[[#@LINE-2]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      // SELF: prog.c:[[#@LINE-3]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      // KEEP: prog.c:[[#@LINE-4]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(SLAB_DATA(s), count, MPI_DOUBLE, 0, SLAB_TAG, comm,
                    MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(SLAB_DATA(s), count, MPI_DOUBLE, 0, comm);
  }
  return ierr;
}

int main(int argc, char **argv) {
  struct slab s;
  int me, n, reps, chunk, r, i, ierr;
  MPI_Init(&argc, &argv);
  ierr = problem_read(argc, argv, &n, &reps);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  chunk_of(&chunk, n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (i = 0; i < PROBLEM_MAX_N; i++)
    s.values[i] = me == 0 ? 0.25 * i : -1.0;
  s.owner = 0;
  for (r = 0; r < reps && ierr == MPI_SUCCESS; r++)
    ierr = slab_share(&s, chunk, MPI_COMM_WORLD);
  double sum = 0;
  for (i = 0; i < PROBLEM_MAX_N; i++)
    sum += s.values[i];
  printf("rank %d: n %d chunk %d reps %d sum %.2f\n", me, n, chunk, reps, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// NOBCAST: note: input-independence: {{.*}}'n' is written by 'problem_read' in another unit, which says: '*n' is written where not every rank may get: the condition 'me == 0' may differ between ranks
// ENV: note: input-independence: {{.*}}'n' is written by 'problem_read' in another unit, which says: '*n' is written where not every rank may get: the condition 'me > 0' may differ between ranks
// SELF: note: input-independence: {{.*}}'n' is written by 'problem_read' in another unit, which says: '*n' is made the same only on the processes of 'PROBLEM_COMM', which may be fewer than those it must agree on
// KEEP: note: input-independence: {{.*}}'chunk' is written by 'chunk_of': 'chunk' is used in 'chunk_of' where writes through it cannot be followed

//--- problem.h
#include <mpi.h>

#define PROBLEM_MAX_N 64
#define PROBLEM_REPS 3

int problem_read(int argc, char **argv, int *n, int *reps);
//--- problem.c
#include "problem.h"

#include <stdlib.h>

#ifdef SELF_BCAST
#define PROBLEM_COMM MPI_COMM_SELF
#else
#define PROBLEM_COMM MPI_COMM_WORLD
#endif

/* The problem size: process 0 reads it, everybody gets it. */
int problem_read(int argc, char **argv, int *n, int *reps) {
  int me, ierr;
  ierr = MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (ierr != MPI_SUCCESS)
    return ierr;
  *reps = PROBLEM_REPS;
  *n = PROBLEM_MAX_N;
  if (me == 0 && argc > 1) {
    *n = atoi(argv[1]);
    if (*n < 1 || *n > PROBLEM_MAX_N)
      *n = PROBLEM_MAX_N;
  }
#ifndef NO_BCAST
  ierr = MPI_Bcast(n, 1, MPI_INT, 0, PROBLEM_COMM);
#endif
#ifdef ENV_OVERRIDE
  const char *override = getenv("PROBLEM_N");
  if (me > 0 && override)
    *n = atoi(override);
#endif
  return ierr;
}
