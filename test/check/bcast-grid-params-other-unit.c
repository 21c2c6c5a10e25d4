// A broadcast written by hand over a process grid whose root column and
// block size are parameters of the set-up function in grid.c, which a
// driver in driver.c calls with values it receives from main (as HPL's
// HPL_grid_init takes the grid's shape from its driver). grid.c's summary
// leaves the parameters to the unit that reads the fields; that unit
// follows them through the project index into every call, in driver.c and
// here, and proves them the same on every rank.
//
// Must not be rewritten: main passes a root column read from its command
// line (the same on every rank at run time, which no proof can know); the
// driver calls grid_init with a value read from the environment where it
// is set (the note names the driver's call and its condition); the driver
// also keeps grid_init in a table of set-up functions, so a call through a
// pointer may pass anything.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.args --trace --cflags=-DROOT_FROM_ARGS | FileCheck %s --check-prefix=ARGS --implicit-check-not=warning:
// RUN: env GRID_ROOT=1 %check-rewrite refuse %s %t.env --trace --cflags=-DROOT_FROM_ENV | FileCheck %s --check-prefix=ENV --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.table --trace --cflags=-DINIT_IN_TABLE | FileCheck %s --check-prefix=TABLE --implicit-check-not=warning:
// clang-format on
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>

#define PANEL_BUF(p) ((p)->data)
#define PANEL_TAG 31

struct panel {
  double data[GRID_MAXNB];
};

static int panel_share(const grid_t *g, struct panel *p) {
  int ierr = MPI_SUCCESS, col;
  if (g->mycol == g->rootcol) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (col = 0; col < g->npcol; ++col) {
      if (col == g->rootcol)
        continue;
      ierr = MPI_Send(PANEL_BUF(p), g->nb, MPI_DOUBLE, col, PANEL_TAG,
                      g->comm);
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(PANEL_BUF(p), g->nb, MPI_DOUBLE, g->rootcol, PANEL_TAG,
                    g->comm, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(PANEL_BUF(p), g->nb, MPI_DOUBLE, g->rootcol, g->comm);
  return ierr;
}

int main(int argc, char **argv) {
  grid_t grid;
  struct panel p;
  int i, me, rootcol = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
#ifdef ROOT_FROM_ARGS
  if (argc > 1)
    rootcol = atoi(argv[1]);
#endif
  if (grid_start(&grid, rootcol, GRID_MAXNB - 2) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (i = 0; i < GRID_MAXNB; ++i)
    p.data[i] = grid.mycol == grid.rootcol ? 0.5 * i + 1 : -1.0;
  if (panel_share(&grid, &p) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 2);
  printf("col %d of %d (root %d):", grid.mycol, grid.npcol, grid.rootcol);
  for (i = 0; i < GRID_MAXNB; ++i)
    printf(" %.1f", p.data[i]);
  printf("\n");
  grid_exit(&grid);
  MPI_Finalize();
  return 0;
}

// clang-format off
// ARGS: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// ARGS: note: input-independence: {{.*}}'rootcol' is given a value in {{.*}}grid.c:12:3 that may differ between ranks: it reads parameter 3 of 'grid_init', which receives a value in {{.*}}driver.c:16:10 that may differ between ranks: 'rootcol' receives a value here that may differ between ranks: 'rootcol' is written where not every rank may get: the condition 'argc > 1' may differ between ranks
// ENV: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// ENV: note: input-independence: {{.*}}'rootcol' is given a value in {{.*}}grid.c:12:3 by 'grid_init', which some ranks may run and others not: 'grid_init' is called in {{.*}}driver.c:14:12, where some ranks may make the call and others not: the condition 'forced' may differ between ranks ('forced' is given a value that may differ between ranks: the value comes from a call of 'getenv', which may return something else on another rank)
// TABLE: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// TABLE: note: input-independence: {{.*}}'rootcol' is given a value in {{.*}}grid.c:12:3 by 'grid_init', which some ranks may run and others not: 'grid_init' may be called through a pointer set in {{.*}}driver.c:7:32
// clang-format on

//--- grid.h
#include <mpi.h>

#define GRID_MAXNB 6

typedef struct {
  MPI_Comm comm;
  int mycol, npcol, rootcol, nb;
} grid_t;

int grid_init(grid_t *g, MPI_Comm parent, int rootcol, int nb);
int grid_start(grid_t *g, int rootcol, int nb);
int grid_exit(grid_t *g);
//--- grid.c
#include "grid.h"

int grid_init(grid_t *g, MPI_Comm parent, int rootcol, int nb) {
  int ierr = MPI_Comm_dup(parent, &g->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Comm_rank(g->comm, &g->mycol);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(g->comm, &g->npcol);
  if (ierr != MPI_SUCCESS)
    return ierr;
  g->rootcol = rootcol < g->npcol ? rootcol : 0;
  g->nb = nb;
  return MPI_SUCCESS;
}

int grid_exit(grid_t *g) { return MPI_Comm_free(&g->comm); }
//--- driver.c
#include "grid.h"

#include <stdlib.h>

#ifdef INIT_IN_TABLE
typedef int (*grid_setup_fn)(grid_t *, MPI_Comm, int, int);
grid_setup_fn grid_setups[] = {grid_init};
#endif

int grid_start(grid_t *g, int rootcol, int nb) {
#ifdef ROOT_FROM_ENV
  const char *forced = getenv("GRID_ROOT");
  if (forced)
    return grid_init(g, MPI_COMM_WORLD, atoi(forced), nb);
#endif
  return grid_init(g, MPI_COMM_WORLD, rootcol, nb);
}
