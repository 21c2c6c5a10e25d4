// A broadcast written by hand in a function with external linkage, as
// most C codes write their helpers (no `static`). Its root and count are
// parameters: the proof follows every call, in this file and (through the
// project index, which judges each call where it is made) in the others.
// Here no other file calls it, and the loop is rewritten; it is also
// rewritten when util.c calls it too, with root 0 and a count it receives
// from main, on every rank.
//
// Must not be rewritten: another file calls it with the rank as root (a
// single-unit view saw only main's call with 0 and rewrote it), another
// file calls it with a count of its own under a condition on data the
// proof cannot show to be the same everywhere (it is, at run time: the
// trace shows the broadcast; the refusal names the call and its
// condition), and
// another file keeps its address in a table of broadcasts.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.calls --cflags=-DOTHER_CALLS | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.calls/prog.c
// RUN: %check-rewrite refuse %s %t.rank --cflags=-DOTHER_ROOT_IS_RANK | FileCheck %s --check-prefix=RANK --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.some --trace --cflags=-DOTHER_CALLS_SOME | FileCheck %s --check-prefix=SOME --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.table --trace --cflags=-DOTHER_TABLE | FileCheck %s --check-prefix=TABLE --implicit-check-not=warning:
// clang-format on
#include "spread.h"

#include <stdio.h>

int spread_ints(int root, int *values, int count, MPI_Comm comm) {
  int ierr, me, np, peer;
  ierr = MPI_Comm_rank(comm, &me);
  ierr = MPI_Comm_size(comm, &np);
  if (me == root) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (peer = 0; peer < np; peer++) {
      if (peer != root) {
        ierr = MPI_Send(values, count, MPI_INT, peer, SPREAD_TAG, comm);
        if (ierr != MPI_SUCCESS)
          return ierr;
      }
    }
  } else {
    ierr = MPI_Recv(values, count, MPI_INT, root, SPREAD_TAG, comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(values, count, MPI_INT, root, comm);
  return ierr;
}

int main(int argc, char **argv) {
  int v[SPREAD_MAX], i, me;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (i = 0; i < SPREAD_MAX; i++)
    v[i] = me == 0 ? 3 * i + 1 : 0;
  if (spread_ints(0, v, SPREAD_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  spread_report(me, v, SPREAD_MAX);
  MPI_Finalize();
  return 0;
}

// RANK: check-rewrite: unchanged
// SOME: prog.c:[[#@LINE-27]]:16: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// SOME: note: input-independence: the count 'count' cannot be evaluated: 'count' receives a value in {{.*}}util.c:13:5 that may differ between ranks: 'spread_ints' is called in {{.*}}util.c:13:5, where some ranks may make the call and others not: the condition 'again[0] > 0' may differ between ranks
// TABLE: prog.c:[[#@LINE-29]]:16: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// TABLE: note: input-independence: {{.*}}'root' is a parameter of 'spread_ints' whose callers are not all visible ('spread_ints' may be called through a pointer set in {{.*}}util.c:20:{{[0-9]+}})

//--- spread.h
#include <mpi.h>

#define SPREAD_MAX 8
#define SPREAD_TAG 21

int spread_ints(int root, int *values, int count, MPI_Comm comm);
void spread_report(int me, const int *values, int count);
//--- util.c
#include "spread.h"

#include <stdio.h>

void spread_report(int me, const int *values, int count) {
  int i, again[SPREAD_MAX];
  for (i = 0; i < count; i++)
    again[i] = values[i];
#if defined(OTHER_CALLS)
  spread_ints(0, again, count, MPI_COMM_WORLD);
#elif defined(OTHER_CALLS_SOME)
  if (again[0] > 0)
    spread_ints(0, again, count - 1, MPI_COMM_WORLD);
#elif defined(OTHER_ROOT_IS_RANK)
  if (me < 2)
    spread_ints(me, again, count, MPI_COMM_WORLD);
#endif
  printf("rank %d:", me);
#ifdef OTHER_TABLE
  int (*spreaders[])(int, int *, int, MPI_Comm) = {spread_ints};
  printf(" %d", spreaders[0] != 0);
#endif
  for (i = 0; i < count; i++)
    printf(" %d", again[i]);
  printf("\n");
}
