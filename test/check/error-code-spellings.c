// Issue 19, part 1: every spelling of a kept error code real codes use,
// each rewritten with the error flow kept as the user wrote it.
//  - accumulated over the calls: `ierr |= MPI_Send(...)` (the collective's
//    code is or-ed in) and `nerr += MPI_Recv(...)` in a reduction;
//  - tested in place: `if (MPI_Send(...) != MPI_SUCCESS) return -1;`, `if
//    (MPI_SUCCESS != MPI_Recv(...))`, and `if ((rc = MPI_Recv(...)) !=
//    MPI_SUCCESS) return rc;` (the collective is checked the same way);
//  - a test for success after each send (`if (ierr == MPI_SUCCESS)
//    printf(...)`) is no error check: it stays in the root's loop, which
//    keeps printing once per peer (it used to be moved after the
//    collective and print once: a false rewrite).
// In the nonblocking form the wait keeps its code where the start's went
// (`ierr |= MPI_Wait(...)`, `if (ierr == MPI_SUCCESS) ierr =
// MPI_Wait(...)`); after calls checked in place it keeps none.
// The team lives in a structure the header declares, its rank and size
// set in the same unit; buffers and counts are macros.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
// clang-format on
#include "team.h"

#include <stdio.h>

#define PARAMS(t) ((t)->params)
#define NPARAMS 4
#define TAG_PARAMS 11
#define TAG_COUNT 12
#define TAG_TABLE 13

void team_init(team_t *t, MPI_Comm comm) {
  t->comm = comm;
  MPI_Comm_rank(t->comm, &t->rank);
  MPI_Comm_size(t->comm, &t->size);
}

int team_share_params(team_t *t) {
  int ierr = MPI_SUCCESS;
  if (t->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-NB: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    for (int p = 1; p < t->size; ++p)
      ierr |= MPI_Send(PARAMS(t), NPARAMS, MPI_DOUBLE, p, TAG_PARAMS, t->comm);
  } else {
    ierr |= MPI_Recv(PARAMS(t), NPARAMS, MPI_DOUBLE, 0, TAG_PARAMS, t->comm,
                     MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr |= MPI_Bcast(PARAMS(t), NPARAMS, MPI_DOUBLE, 0, t->comm);
  // CHECK-NB-FIXES: ierr |={{$}}
  // CHECK-NB-FIXES-NEXT: MPI_Ibcast(PARAMS(t), NPARAMS, MPI_DOUBLE, 0, t->comm, &bcast_request);
  // CHECK-NB-FIXES: {{^  }}ierr |= MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  return ierr;
}

int team_count(team_t *t, long mine, long *total) {
  int nerr = 0;
  long sum = mine;
  if (t->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    // CHECK-NB: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Ireduce [mpilift-manual-reduce]
    for (int p = 1; p < t->size; ++p) {
      long part;
      nerr += MPI_Recv(&part, 1, MPI_LONG, p, TAG_COUNT, t->comm,
                       MPI_STATUS_IGNORE);
      sum += part;
    }
  } else {
    nerr += MPI_Send(&mine, 1, MPI_LONG, 0, TAG_COUNT, t->comm);
  }
  // CHECK-FIXES: nerr += MPI_Reduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, t->comm);
  // CHECK-NB-FIXES: nerr += MPI_Ireduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, t->comm,
  // CHECK-NB-FIXES: {{^  }}nerr += MPI_Wait(&reduction_request, MPI_STATUS_IGNORE);
  if (t->rank == 0)
    *total = sum;
  return nerr;
}

int team_share_table(team_t *t, int *table) {
  if (t->rank == t->size - 1) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-NB: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    for (int p = 0; p < t->size - 1; ++p)
      if (MPI_Send(table, TABLE_LEN, MPI_INT, p, TAG_TABLE, t->comm) != MPI_SUCCESS)
        return -1;
  } else if (MPI_Recv(table, TABLE_LEN, MPI_INT, t->size - 1, TAG_TABLE, t->comm,
                      MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    return -1;
  }
  // CHECK-FIXES: if (MPI_Bcast(table, TABLE_LEN, MPI_INT, t->size - 1, t->comm) != MPI_SUCCESS)
  // CHECK-FIXES-NEXT: return -1;
  // CHECK-NB-FIXES: if (MPI_Ibcast(table, TABLE_LEN, MPI_INT, t->size - 1, t->comm,
  // CHECK-NB-FIXES-NEXT: &bcast_request2) != MPI_SUCCESS)
  // CHECK-NB-FIXES-NEXT: return -1;
  // CHECK-NB-FIXES: {{^  }}MPI_Wait(&bcast_request2, MPI_STATUS_IGNORE);
  return 0;
}

int team_share_seed(team_t *t, unsigned *seed) {
  int rc;
  if (t->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-NB: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    for (int p = 1; p < t->size; ++p)
      if ((rc = MPI_Send(seed, 1, MPI_UNSIGNED, p, TAG_PARAMS, t->comm)) !=
          MPI_SUCCESS)
        return rc;
  } else {
    if ((rc = MPI_Recv(seed, 1, MPI_UNSIGNED, 0, TAG_PARAMS, t->comm,
                       MPI_STATUS_IGNORE)) != MPI_SUCCESS)
      return rc;
  }
  // CHECK-FIXES: if ((rc = MPI_Bcast(seed, 1, MPI_UNSIGNED, 0, t->comm)) != MPI_SUCCESS)
  // CHECK-FIXES-NEXT: return rc;
  // CHECK-NB-FIXES: if ((rc = MPI_Ibcast(seed, 1, MPI_UNSIGNED, 0, t->comm, &bcast_request3)) !=
  // CHECK-NB-FIXES-NEXT: MPI_SUCCESS)
  // CHECK-NB-FIXES-NEXT: return rc;
  return MPI_SUCCESS;
}

int team_share_step(team_t *t, int *step) {
  int ierr = MPI_SUCCESS;
  if (t->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-NB: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    for (int p = 1; p < t->size; ++p) {
      ierr = MPI_Send(step, 1, MPI_INT, p, TAG_COUNT, t->comm);
      if (ierr == MPI_SUCCESS)
        printf("step sent to a peer\n");
    }
  } else {
    ierr = MPI_Recv(step, 1, MPI_INT, 0, TAG_COUNT, t->comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(step, 1, MPI_INT, 0, t->comm);
  // CHECK-FIXES-NEXT: if (t->rank == 0) {
  // CHECK-FIXES: for (int p = 1; p < t->size; ++p) {
  // CHECK-FIXES-NEXT: if (ierr == MPI_SUCCESS)
  // CHECK-FIXES-NEXT: printf("step sent to a peer\n");
  // CHECK-NB-FIXES: ierr = MPI_Ibcast(step, 1, MPI_INT, 0, t->comm, &bcast_request4);
  // CHECK-NB-FIXES-NEXT: if (ierr == MPI_SUCCESS)
  // CHECK-NB-FIXES-NEXT: ierr = MPI_Wait(&bcast_request4, MPI_STATUS_IGNORE);
  return ierr;
}

//--- team.h
#include <mpi.h>

#define TABLE_LEN 6

typedef struct {
  int rank, size;
  MPI_Comm comm;
  double params[4];
} team_t;

void team_init(team_t *t, MPI_Comm comm);
int team_share_params(team_t *t);
int team_count(team_t *t, long mine, long *total);
int team_share_table(team_t *t, int *table);
int team_share_seed(team_t *t, unsigned *seed);
int team_share_step(team_t *t, int *step);

//--- main.c
#include "team.h"

#include <stdio.h>

int main(int argc, char **argv) {
  team_t t;
  int table[TABLE_LEN];
  long total = -1;
  unsigned seed = 0;
  int step = 0;
  MPI_Init(&argc, &argv);
  team_init(&t, MPI_COMM_WORLD);
  for (int i = 0; i < 4; ++i)
    t.params[i] = t.rank == 0 ? 0.5 * i + 1 : -1;
  for (int i = 0; i < TABLE_LEN; ++i)
    table[i] = t.rank == t.size - 1 ? 10 * i + 7 : 0;
  if (t.rank == 0) {
    seed = 12345u;
    step = 17;
  }
  if (team_share_params(&t) != MPI_SUCCESS ||
      team_count(&t, 3L * t.rank + 1, &total) != MPI_SUCCESS ||
      team_share_table(&t, table) != 0 ||
      team_share_seed(&t, &seed) != MPI_SUCCESS ||
      team_share_step(&t, &step) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  printf("rank %d step %d\n", t.rank, step);
  printf("rank %d params %g %g table %d %d total %ld seed %u\n", t.rank,
         t.params[0], t.params[3], table[0], table[TABLE_LEN - 1], t.rank == 0 ? total : 0,
         seed);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
