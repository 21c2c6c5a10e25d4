// A team keeps its communicator, rank and size in a structure; a regroup
// step replaces the communicator by a split of itself that reverses the
// order of the ranks. Where the regroup queries the rank and size again,
// the fields are the rank and size in the communicator the messages use, and the
// broadcast written by hand is rewritten (np 1-8 identical). Where it does
// not, the field still holds the rank in the old communicator: the hand-
// written loop then sends from the wrong process, and a rewrite would
// change what the program does. This was a false rewrite: the field was
// taken as the rank in whatever the communicator field held.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --cflags=-DREQUERY | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.stale | FileCheck %s --check-prefix=STALE --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define TEAM_TAG 5
#define NVALS 6

struct team {
  MPI_Comm comm;
  int rank;
  int size;
};

static int team_open(struct team *t) {
  int ierr = MPI_Comm_dup(MPI_COMM_WORLD, &t->comm);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_rank(t->comm, &t->rank);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(t->comm, &t->size);
  return ierr;
}

static int team_regroup(struct team *t) {
  MPI_Comm old = t->comm;
  int ierr = MPI_Comm_split(old, 0, t->size - t->rank, &t->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
#ifdef REQUERY
  ierr = MPI_Comm_rank(t->comm, &t->rank);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(t->comm, &t->size);
#endif
  MPI_Comm_free(&old);
  return ierr;
}

static int team_share(struct team *t, int *vals) {
  int p, ierr = MPI_SUCCESS;
  if (t->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // STALE: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
    for (p = 1; p < t->size; ++p) {
      ierr = MPI_Send(vals, NVALS, MPI_INT, p, TEAM_TAG, t->comm);
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(vals, NVALS, MPI_INT, 0, TEAM_TAG, t->comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(vals, NVALS, MPI_INT, 0, t->comm);
  return ierr;
}

int main(int argc, char **argv) {
  struct team t;
  int vals[NVALS], i, world;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  if (team_open(&t) != MPI_SUCCESS || team_regroup(&t) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (i = 0; i < NVALS; ++i)
    vals[i] = t.rank == 0 ? 10 * world + i : -1;
  if (team_share(&t, vals) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 2);
  printf("world %d team %d:", world, t.rank);
  for (i = 0; i < NVALS; ++i)
    printf(" %d", vals[i]);
  printf("\n");
  MPI_Comm_free(&t.comm);
  MPI_Finalize();
  return 0;
}
// STALE: note: input-independence: {{.*}}'rank' receives a query on 'comm' here, but 'comm' is written again where no new query follows, so it may hold another communicator
