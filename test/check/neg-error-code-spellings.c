// Issue 19, part 1: error-code spellings the collective call cannot keep.
// Each is refused by source-form, naming what it cannot keep:
//  - a failure branch that names the loop's peer (the collective has none);
//  - some calls checked in place, others keeping their codes in a variable;
//  - calls checked in place with different failure branches;
//  - codes kept in the same variable, but assigned by some calls and
//    accumulated by others.
// clang-format off
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
// clang-format on
#include "grid.h"

#include <stdio.h>

#define TAG_ROW 21

void grid_init(grid_t *g, MPI_Comm comm) {
  g->comm = comm;
  MPI_Comm_rank(g->comm, &g->me);
  MPI_Comm_size(g->comm, &g->np);
}

int grid_row_peer_named(grid_t *g, double *row) {
  if (g->me == 0) {
    // CHECK: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < g->np; ++p)
      // CHECK: prog.c:[[#@LINE+2]]:24: note: source-form: this branch, taken when the call fails, cannot follow the collective call as written
      if (MPI_Send(row, ROW_LEN, MPI_DOUBLE, p, TAG_ROW, g->comm) !=
          MPI_SUCCESS) {
        fprintf(stderr, "sending the row to %d failed\n", p);
        return -1;
      }
  } else if (MPI_Recv(row, ROW_LEN, MPI_DOUBLE, 0, TAG_ROW, g->comm,
                      MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    return -1;
  }
  return 0;
}

int grid_row_mixed(grid_t *g, double *row) {
  int ierr = MPI_SUCCESS;
  if (g->me == 0) {
    // CHECK: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < g->np; ++p)
      // CHECK: prog.c:[[#@LINE+1]]:7: note: source-form: some calls of the pattern check their codes here and others keep them in a variable; the collective call can do only one
      if (MPI_Send(row, ROW_LEN, MPI_DOUBLE, p, TAG_ROW, g->comm) !=
          MPI_SUCCESS)
        return -1;
  } else {
    ierr = MPI_Recv(row, ROW_LEN, MPI_DOUBLE, 0, TAG_ROW, g->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}

int grid_row_two_branches(grid_t *g, double *row) {
  if (g->me == 0) {
    // CHECK: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < g->np; ++p)
      if (MPI_Send(row, ROW_LEN, MPI_DOUBLE, p, TAG_ROW, g->comm) !=
          MPI_SUCCESS)
        return -1;
  } else {
    // CHECK: prog.c:[[#@LINE+1]]:5: note: source-form: the calls' codes are checked in different ways; the collective call can be checked only one way
    if (MPI_Recv(row, ROW_LEN, MPI_DOUBLE, 0, TAG_ROW, g->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return -2;
  }
  return 0;
}

int grid_row_assigned_and_accumulated(grid_t *g, double *row) {
  int ierr = MPI_SUCCESS;
  if (g->me == 0) {
    // CHECK: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < g->np; ++p)
      // CHECK: prog.c:[[#@LINE+1]]:15: note: source-form: the result of this call is used; removing the call would lose it
      ierr |= MPI_Send(row, ROW_LEN, MPI_DOUBLE, p, TAG_ROW, g->comm);
  } else {
    ierr = MPI_Recv(row, ROW_LEN, MPI_DOUBLE, 0, TAG_ROW, g->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}

//--- grid.h
#include <mpi.h>

#define ROW_LEN 3

typedef struct {
  int me, np;
  MPI_Comm comm;
} grid_t;

void grid_init(grid_t *g, MPI_Comm comm);
int grid_row_peer_named(grid_t *g, double *row);
int grid_row_mixed(grid_t *g, double *row);
int grid_row_two_branches(grid_t *g, double *row);
int grid_row_assigned_and_accumulated(grid_t *g, double *row);

//--- main.c
#include "grid.h"

#include <stdio.h>

int main(int argc, char **argv) {
  grid_t g;
  double row[ROW_LEN];
  int bad = 0;
  MPI_Init(&argc, &argv);
  grid_init(&g, MPI_COMM_WORLD);
  for (int i = 0; i < ROW_LEN; ++i)
    row[i] = g.me == 0 ? 1.5 * i : 0;
  bad |= grid_row_peer_named(&g, row) != 0;
  bad |= grid_row_mixed(&g, row) != MPI_SUCCESS;
  bad |= grid_row_two_branches(&g, row) != 0;
  bad |= grid_row_assigned_and_accumulated(&g, row) != MPI_SUCCESS;
  printf("rank %d row %g %g bad %d\n", g.me, row[0], row[ROW_LEN - 1], bad);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
