// A broadcast written by hand on a team whose communicator, rank, size and
// root another file of the program sets (as HPL's HPL_grid_init sets the
// grid every panel broadcast reads): the project index says what each write
// there gives the field, and the proof follows it. team.c keeps a duplicate
// of the parent communicator and queries the rank on the parent (a
// duplicate has the same ranks), the size on the duplicate, and sets the
// root to a constant where every rank gets; main calls team_init on every
// rank.
//
// Must not be rewritten: the root read from the environment there, or
// set again on one rank only (to the value it had: the run agrees, the
// proof cannot tell); a helper there that sets the root again, called on
// some ranks only here;
// a helper there that replaces the team's communicator without querying
// the rank again; the rank queried on the parent while the team keeps a
// split of it, whose ranks differ.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: env TEAM_ROOT=0 %check-rewrite refuse %s %t.env --trace --cflags=-DROOT_FROM_ENV | FileCheck %s --check-prefix=ENV --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.first --trace --cflags=-DROOT_ON_FIRST | FileCheck %s --check-prefix=FIRST --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.some --trace --cflags=-DRESET_ON_SOME | FileCheck %s --check-prefix=SOME --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.shrink --trace --cflags=-DSHRINK_WITHOUT_QUERY | FileCheck %s --check-prefix=SHRINK --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.split --trace --cflags=-DRANK_OF_PARENT_SPLIT | FileCheck %s --check-prefix=SPLIT --implicit-check-not=warning:
// clang-format on
#include "team.h"

#include <stdio.h>
#include <stdlib.h>

#define SHARE_TAG 21
#define SHARE_BUF(s) ((s)->vals)
#define SHARE_LEN(s) ((s)->len)

struct share {
  int vals[TEAM_MAX];
  int len;
};

static int team_share(const team_t *t, struct share *s) {
  int p, ierr = MPI_SUCCESS;
  if (t->rank == t->root) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (p = 0; p < t->size; p++) {
      if (p != t->root) {
        ierr = MPI_Send(SHARE_BUF(s), SHARE_LEN(s), MPI_INT, p, SHARE_TAG,
                        t->comm);
        if (ierr != MPI_SUCCESS)
          return ierr;
      }
    }
  } else {
    ierr = MPI_Recv(SHARE_BUF(s), SHARE_LEN(s), MPI_INT, t->root, SHARE_TAG,
                    t->comm, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(SHARE_BUF(s), SHARE_LEN(s), MPI_INT, t->root, t->comm);
  return ierr;
}

int main(int argc, char **argv) {
  team_t team;
  struct share s;
  int i, ierr;
  MPI_Init(&argc, &argv);
  ierr = team_init(&team, MPI_COMM_WORLD);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
#ifdef RESET_ON_SOME
  if (team.rank % 2 == 1)
    team_reset(&team);
#endif
#ifdef SHRINK_WITHOUT_QUERY
  if (argc > 5)
    team_shrink(&team);
#endif
  s.len = TEAM_MAX;
  for (i = 0; i < s.len; ++i)
    s.vals[i] = team.rank == team.root ? 7 * i + 3 : -1;
  ierr = team_share(&team, &s);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  printf("team rank %d of %d, root %d:", team.rank, team.size, team.root);
  for (i = 0; i < s.len; ++i)
    printf(" %d", s.vals[i]);
  printf("\n");
  team_free(&team);
  MPI_Finalize();
  return 0;
}

// clang-format off
// ENV: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// ENV: note: input-independence: {{.*}}'root' is given a value in {{.*}}team.c:21:3 that may differ between ranks: the value comes from a call of 'atoi', which may return something else on another rank
// FIRST: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// FIRST: note: input-independence: {{.*}}'root' is given a value in {{.*}}team.c:25:5 from 'rank', which may differ between ranks: 'rank' is given a value in {{.*}}team.c:14:{{[0-9]+}}, the rank, which differs between ranks
// SOME: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// SOME: note: input-independence: {{.*}}'root' is given a value in {{.*}}team.c:30:30 by 'team_reset', which some ranks may run and others not: the condition 'team.rank % 2 == 1' may differ between ranks
// SHRINK: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// SHRINK: note: input-independence: {{.*}}'rank' receives a query on 'comm' in {{.*}}team.c:14:{{[0-9]+}}, but 'comm' is written again where no new query follows, so it may hold another communicator
// SPLIT: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// SPLIT: note: input-independence: {{.*}}'rank' is given a value in {{.*}}team.c:14:{{[0-9]+}} that may differ between ranks: the query is on a communicator the structure does not keep
// clang-format on

//--- team.h
#include <mpi.h>

#define TEAM_MAX 12
#define TEAM_ROOT 1

typedef struct team_s {
  MPI_Comm comm;
  int rank, size, root;
} team_t;

int team_init(team_t *t, MPI_Comm parent);
void team_reset(team_t *t);
void team_shrink(team_t *t);
void team_free(team_t *t);
//--- team.c
#include "team.h"

#include <stdlib.h>

int team_init(team_t *t, MPI_Comm parent) {
  int ierr;
#ifdef RANK_OF_PARENT_SPLIT
  if (MPI_Comm_split(parent, 0, 0, &t->comm) != MPI_SUCCESS)
    return MPI_ERR_COMM;
#else
  if (MPI_Comm_dup(parent, &t->comm) != MPI_SUCCESS)
    return MPI_ERR_COMM;
#endif
  ierr = MPI_Comm_rank(parent, &t->rank);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(t->comm, &t->size);
  if (ierr != MPI_SUCCESS)
    return ierr;
  t->root = t->size > TEAM_ROOT ? TEAM_ROOT : 0;
#ifdef ROOT_FROM_ENV
  t->root = atoi(getenv("TEAM_ROOT"));
#endif
#ifdef ROOT_ON_FIRST
  if (t->rank == 0)
    t->root = t->size > TEAM_ROOT ? TEAM_ROOT : 0;
#endif
  return MPI_SUCCESS;
}

void team_reset(team_t *t) { t->root = t->size > TEAM_ROOT ? TEAM_ROOT : 0; }

void team_shrink(team_t *t) {
#ifdef SHRINK_WITHOUT_QUERY
  MPI_Comm_split(t->comm, 0, t->size - t->rank, &t->comm);
#endif
}

void team_free(team_t *t) { MPI_Comm_free(&t->comm); }
