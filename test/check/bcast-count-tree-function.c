// Process 0 decides the sizes of a run and spreads them with the code's own
// binomial tree, written the way MPICH writes its broadcast, with MPI_Bcast's
// arguments: a loop that receives once from the parent, then a loop that
// hands the data to the children, largest subtree first (tree.c). The tree is proven a broadcast
// with its parameters taken as the same on every process; each call then
// leaves `n` and `reps` the same everywhere, since the arguments it was
// proven with are constants at the calls and MPI_INT carries all of an
// int. So the hand-written star that
// sends the slab `reps` times, `n` numbers each, is rewritten (and so is the
// tree itself). With WITH_MPI_BCAST the sizes go by MPI_Bcast instead (the
// switch codes keep for MPI libraries they trust), and the same holds.
//
// Must not be rewritten, each refused by input-independence with the
// reason named:
// - with NOTHING_SENT, the call for `n` gives a count of 0;
// - with SHORT_TYPE, the call for `n` sends it as one MPI_SHORT (two of its
//   four bytes);
// - with ROW_TREE, the tree runs on the processes of a row (a split of the
//   world), so `n` is the same along a row only;
// - with CHANGED_AFTER, the last process sets `reps` again after the
//   broadcast;
// - with SMALL_TREE, the tree gives up above eight processes (it is no
//   broadcast then, and `n` keeps each process's own value).
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.mpi --cflags=-DWITH_MPI_BCAST | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.mpi/prog.c
// RUN: %check-rewrite refuse %s %t.nothing --trace --cflags=-DNOTHING_SENT | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.short-type --trace --cflags=-DSHORT_TYPE | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.row --trace --cflags=-DROW_TREE | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.changed --trace --cflags=-DCHANGED_AFTER | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.small --trace --cflags=-DSMALL_TREE | FileCheck %s --check-prefixes=REFUSED --implicit-check-not=warning:
// clang-format on
#include "tree.h"

#include <stdio.h>
#include <stdlib.h>

#define SLAB_MAX 32
#define SLAB_TAG 12

#ifdef WITH_MPI_BCAST
#define tree_bcast MPI_Bcast
#endif

int main(int argc, char **argv) {
  int me, np, n = SLAB_MAX / 2, reps = 2, r, p, i, ierr;
  double slab[SLAB_MAX];
  MPI_Comm tree_comm = MPI_COMM_WORLD;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
#ifdef ROW_TREE
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &tree_comm);
#endif
  if (me == 0 && argc > 2) {
    n = atoi(argv[1]);
    reps = atoi(argv[2]);
    if (n < 1 || n > SLAB_MAX)
      n = SLAB_MAX;
  }
#if defined(NOTHING_SENT)
  ierr = tree_bcast(&n, 0, MPI_INT, 0, tree_comm);
#elif defined(SHORT_TYPE)
  ierr = tree_bcast(&n, 1, MPI_SHORT, 0, tree_comm);
#else
  ierr = tree_bcast(&n, 1, MPI_INT, 0, tree_comm);
#endif
  if (tree_bcast(&reps, 1, MPI_INT, 0, tree_comm) != MPI_SUCCESS ||
      ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
#ifdef CHANGED_AFTER
  if (me == np - 1 && argc > 3)
    reps = atoi(argv[3]);
#endif
  for (i = 0; i < SLAB_MAX; i++)
    slab[i] = me == 0 ? 2.0 * i + 1 : 0.0;
  for (r = 0; r < reps; r++) {
    if (me == 0) {
      for (p = 1; p < np; p++) {
        // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
        ierr = MPI_Send(slab, n, MPI_DOUBLE, p, SLAB_TAG, MPI_COMM_WORLD);
        // REFUSED: prog.c:[[#@LINE-1]]:16: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
        if (ierr != MPI_SUCCESS)
          break;
      }
    } else {
      ierr = MPI_Recv(slab, n, MPI_DOUBLE, 0, SLAB_TAG, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
      // CHECK-FIXES: ierr = MPI_Bcast(slab, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
  }
  double sum = 0;
  for (i = 0; i < SLAB_MAX; i++)
    sum += slab[i];
  printf("rank %d: n %d reps %d sum %.1f\n", me, n, reps, sum);
#ifdef ROW_TREE
  MPI_Comm_free(&tree_comm);
#endif
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// Where 'n' or 'reps' is not proven the same after its broadcast, the run
// computes what process 0 alone gave it first, and cannot decide for
// which processes that condition holds.
// REFUSED: note: input-independence: the condition 'argc > 2' cannot be evaluated: 'argc' is written by a call of 'MPI_Init'

//--- tree.h
#include <mpi.h>

int tree_bcast(void *buf, int count, MPI_Datatype type, int root,
               MPI_Comm comm);
//--- tree.c
#include "tree.h"

#define TREE_TAG 301

/* MPI_Bcast by hand: each process but the root receives the data once
   from its parent, then passes it to its children, the farthest first. */
int tree_bcast(void *buf, int count, MPI_Datatype type, int root,
               MPI_Comm comm) {
  int me, np, rel, mask, ierr = MPI_SUCCESS;
  if (count <= 0)
    return MPI_SUCCESS;
  ierr = MPI_Comm_size(comm, &np);
  if (ierr != MPI_SUCCESS || np < 2)
    return ierr;
#ifdef SMALL_TREE
  if (np > 8)
    return ierr;
#endif
  MPI_Comm_rank(comm, &me);
  rel = (me - root + np) % np;
  mask = 1;
  while (mask < np) {
    if (rel & mask) {
      ierr = MPI_Recv(buf, count, type, (me - mask + np) % np, TREE_TAG, comm,
                      MPI_STATUS_IGNORE);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < np)
      ierr = MPI_Send(buf, count, type, (me + mask) % np, TREE_TAG, comm);
    mask >>= 1;
  }
  return ierr;
}
