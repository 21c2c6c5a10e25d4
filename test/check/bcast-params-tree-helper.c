// The settings reach every process through the program's own broadcast,
// as HPL_pdinfo sends HPL.dat's numbers with HPL_broadcast: tree_bcast in
// settings.c is a binomial tree of sends and receives that takes a void
// buffer, an element kind of the program's own (mapped to MPI's datatype by
// a macro) and returns an error code; it leaves early where nothing moves.
// It lives in tree.c, another unit (its summary says it is a broadcast,
// and settings.c's summary leaves the call to the reader); with
// TREE_IN_SETTINGS, settings.c holds it itself.
// It is proven a broadcast of its buffer on its own, with its parameters
// taken as the same on every process, and a call of it counts as
// MPI_Bcast where the caller proves those arguments so. The settings then
// come back through pointers (the round trip of
// bcast-count-packed-params.c) and the hand-written broadcast that uses
// them is rewritten.
//
// Must not be rewritten, each refused by input-independence with the
// reason named (the call judged by the reader of settings.c's summary, and
// with TREE_IN_SETTINGS by settings.c itself):
// - with SMALL_TREE, the tree gives up above 8 processes (and the runs of
//   this test stay below): tree_bcast is no broadcast;
// - with WRONG_KIND, the settings are sent as doubles from an int array;
// - with ROOT_FROM_ENV, the tree's root is read from the environment by
//   every process.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.same --cflags=-DTREE_IN_SETTINGS | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.samekind --trace --cflags="-DTREE_IN_SETTINGS -DWRONG_KIND" | FileCheck %s --check-prefixes=REFUSED,SAMEKIND --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.small --trace --cflags=-DSMALL_TREE | FileCheck %s --check-prefixes=REFUSED,SMALL --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.kind --trace --cflags=-DWRONG_KIND | FileCheck %s --check-prefixes=REFUSED,KIND --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.env --trace --cflags=-DROOT_FROM_ENV | FileCheck %s --check-prefixes=REFUSED,ENV --implicit-check-not=warning:
// clang-format on
#include "settings.h"

#include <stdio.h>

#define ROW_TAG 12
#define ROW_LEN 32

typedef struct {
  int rank, nprocs;
  MPI_Comm comm;
} team_t;

/* Process 0's row to everybody, one message each. */
static int row_share(const team_t *team, long *row, int len) {
  int q, ierr = MPI_SUCCESS;
  if (team->rank != 0) {
    ierr = MPI_Recv(row, len, MPI_LONG, 0, ROW_TAG, team->comm,
                    MPI_STATUS_IGNORE);
    // REFUSED: prog.c:[[#@LINE-2]]:12: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
    // CHECK-FIXES: ierr = MPI_Bcast(row, len, MPI_LONG, 0, team->comm);
  } else {
    for (q = 1; q < team->nprocs; ++q) {
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(row, len, MPI_LONG, q, ROW_TAG, team->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  }
  return ierr;
}

int main(int argc, char **argv) {
  team_t team;
  long row[ROW_LEN];
  int len, rounds, r, i, ierr;
  MPI_Init(&argc, &argv);
  team.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(team.comm, &team.rank);
  MPI_Comm_size(team.comm, &team.nprocs);
  if (settings_read(argc, argv, &len, &rounds) != MPI_SUCCESS)
    MPI_Abort(team.comm, 1);
  ierr = MPI_SUCCESS;
  for (i = 0; i < ROW_LEN; i++)
    row[i] = team.rank == 0 ? 7L * i + 1 : -1L;
  for (r = 0; r < rounds && ierr == MPI_SUCCESS; r++)
    ierr = row_share(&team, row, len);
  long sum = 0;
  for (i = 0; i < ROW_LEN; i++)
    sum += row[i];
  printf("rank %d: len %d rounds %d sum %ld\n", team.rank, len, rounds, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// SMALL: note: input-independence: {{.*}}'len' is written by 'settings_read': it takes a call of 'tree_bcast' in another unit as a broadcast of element 0 of an array, but its unit does not show it to be one
// KIND: note: input-independence: {{.*}}'len' is written by 'settings_read': it takes a call of 'tree_bcast' in another unit as a broadcast of element 0 of an array, but its datatype may not be the array's element type 'int'
// ENV: note: input-independence: {{.*}}'len' is written by 'settings_read': it takes a call of 'tree_bcast' in another unit as a broadcast of element 0 of an array, but its root may not be the process that packs the array
// SAMEKIND: note: input-independence: {{.*}}'*len' reaches the other ranks through element 0 of 'iwork' and the broadcast by 'tree_bcast' at line {{[0-9]+}}, which may not carry that element

//--- settings.h
#ifndef SETTINGS_H
#define SETTINGS_H
#include <mpi.h>

#define SETTINGS_LEN 24
#define SETTINGS_ROUNDS 3

typedef enum { ELEM_INT = 100, ELEM_DOUBLE = 101 } elem_kind;

int tree_bcast(void *buf, int count, elem_kind kind, int root, MPI_Comm comm);
int settings_read(int argc, char **argv, int *len, int *rounds);
#endif
//--- settings.c
#include "settings.h"

#include <stdlib.h>

#ifdef TREE_IN_SETTINGS
#define SETTINGS_INCLUDES_TREE
#include "tree.c"
#endif

#ifdef ROOT_FROM_ENV
#define SETTINGS_ROOT (getenv("SETTINGS_ROOT") ? atoi(getenv("SETTINGS_ROOT")) : 0)
#else
#define SETTINGS_ROOT 0
#endif

#ifdef WRONG_KIND
#define SETTINGS_KIND ELEM_DOUBLE
#else
#define SETTINGS_KIND ELEM_INT
#endif

/* Process 0 reads the settings; the tree gives them to the others. */
int settings_read(int argc, char **argv, int *len, int *rounds) {
  int me, ierr;
  int *iwork;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    *len = argc > 1 ? atoi(argv[1]) : SETTINGS_LEN;
    *rounds = argc > 2 ? atoi(argv[2]) : SETTINGS_ROUNDS;
  }
  iwork = (int *)malloc(2 * sizeof(double)); /* Two of either kind. */
  if (me == 0) {
    iwork[0] = *len;
    iwork[1] = *rounds;
  }
  ierr = tree_bcast((void *)iwork, 2, SETTINGS_KIND, SETTINGS_ROOT,
                    MPI_COMM_WORLD);
  if (me != 0) {
    *len = iwork[0];
    *rounds = iwork[1];
  }
  free(iwork);
  return ierr;
}
//--- tree.c
/* With TREE_IN_SETTINGS, settings.c holds this code itself. */
#if !defined(TREE_IN_SETTINGS) || defined(SETTINGS_INCLUDES_TREE)
#include "settings.h"

#define ELEM_TYPE(k) ((k) == ELEM_INT ? MPI_INT : MPI_DOUBLE)
#define TREE_TAG 4100

/* A binomial tree from root over comm: in the round of `span`, every
   process that has the data (the first `span` from the root) passes it
   `span` further on. */
int tree_bcast(void *buf, int count, elem_kind kind, int root,
               MPI_Comm comm) {
  int me, np, rel, span, ierr, err = MPI_SUCCESS;
  if (count <= 0)
    return MPI_SUCCESS;
  ierr = MPI_Comm_size(comm, &np);
  if (ierr != MPI_SUCCESS || np < 2)
    return ierr;
#ifdef SMALL_TREE
  if (np > 8)
    return ierr;
#endif
  ierr = MPI_Comm_rank(comm, &me);
  rel = (me - root + np) % np;
  for (span = 1; span < np; span <<= 1) {
    if (rel < span) {
      if (rel + span < np)
        ierr = MPI_Send(buf, count, ELEM_TYPE(kind), (me + span) % np,
                        TREE_TAG, comm);
    } else if (rel < 2 * span) {
      ierr = MPI_Recv(buf, count, ELEM_TYPE(kind), (me - span + np) % np,
                      TREE_TAG, comm, MPI_STATUS_IGNORE);
    }
    if (ierr != MPI_SUCCESS)
      err = ierr;
  }
  return err;
}
#endif
