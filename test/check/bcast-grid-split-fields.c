// A broadcast along the rows of a process grid, written the way HPL's panel
// broadcasts are (HPL_1ring.c over HPL_grid_init.c): the grid structure
// keeps the process's column and the row's width, which the set-up in
// grid.c computes from the rank and hands to MPI_Comm_split as colour and
// key, so no MPI_Comm_rank on the row communicator says what they are; the
// root column changes from panel to panel. The split proof runs grid_init
// as every process of MPI_COMM_WORLD at every size up to 8, for every grid
// shape and both orders, does what MPI_Comm_split does (the grid's own
// communicator first, then its rows and columns), and finds 'mycol' the
// rank in 'row_comm' and 'npcol' its size. grid.c's summary leaves the shape
// to this unit, which proves it the same on every rank, and the guard's
// grid_abort, which the proof takes to end the program as HPL's HPL_pabort
// does, to errors.c's summary, which shows that it does.
//
// Must not be rewritten: the row split's key is the column reversed, so
// 'mycol' is not the rank in 'row_comm' (the note gives the first process
// that shows it); the number of rows comes from the environment, which may
// differ between processes, so the proof's inputs may differ; the set-up
// allows a last row shorter than the others, so 'npcol' is not every row's
// size and the loop sends to a column that does not exist; grid_abort may
// return, so a shape the guard turns down may still reach the splits.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.key --cflags=-DKEY_REVERSED | FileCheck %s --check-prefix=KEY --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.env --trace --cflags=-DSHAPE_FROM_ENV | FileCheck %s --check-prefix=ENV --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.partial --trace --cflags=-DPARTIAL_ROWS | FileCheck %s --check-prefix=PARTIAL --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.abort --trace --cflags=-DABORT_MAY_RETURN | FileCheck %s --check-prefix=ABORT --implicit-check-not=warning:
// clang-format on
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>

#define ROW_TAG 7
#define PANEL_NB 5
#define PANELS 6
#define PANEL_BUF(p) ((p)->vals)

typedef struct {
  double vals[PANEL_NB];
} panel_t;

static int row_share(const grid_t *g, panel_t *p, int rootcol) {
  int ierr = MPI_SUCCESS, c;
  if (g->mycol == rootcol) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (c = 0; c < g->npcol; c++) {
      if (c == rootcol)
        continue;
      ierr = MPI_Send(PANEL_BUF(p), PANEL_NB, MPI_DOUBLE, c, ROW_TAG,
                      g->row_comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(PANEL_BUF(p), PANEL_NB, MPI_DOUBLE, rootcol, ROW_TAG,
                    g->row_comm, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(PANEL_BUF(p), PANEL_NB, MPI_DOUBLE, rootcol, g->row_comm);
  return ierr;
}

int main(int argc, char **argv) {
  grid_t grid;
  panel_t p;
  int size, nprow, i, k, ierr;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nprow = size % 2 == 0 && size > 4 ? 2 : 1;
#ifdef SHAPE_FROM_ENV
  if (getenv("GRID_ROWS"))
    nprow = atoi(getenv("GRID_ROWS"));
#endif
#ifdef PARTIAL_ROWS
  nprow = size > 1 ? 2 : 1;
#endif
  if (grid_init(MPI_COMM_WORLD, GRID_ROW_MAJOR, nprow,
                (size + nprow - 1) / nprow, &grid) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (k = 0; k < PANELS; k++) {
    int root = k % grid.npcol;
    for (i = 0; i < PANEL_NB; i++)
      p.vals[i] = grid.mycol == root ? 100.0 * k + 10.0 * grid.myrow + i : -1.0;
    ierr = row_share(&grid, &p, root);
    if (ierr != MPI_SUCCESS)
      MPI_Abort(MPI_COMM_WORLD, 2);
    printf("panel %d row %d col %d:", k, grid.myrow, grid.mycol);
    for (i = 0; i < PANEL_NB; i++)
      printf(" %.1f", p.vals[i]);
    printf("\n");
  }
  grid_exit(&grid);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8

// clang-format off
// KEY: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// KEY: note: input-independence: {{.*}}'mycol' is given a value in {{.*}}grid.c:{{[0-9]+}}:{{[0-9]+}} that may differ between ranks: {{.*}}; nor is it the rank or the size in the communicator split beside it: at 2 processes with 'order' GRID_ROW_MAJOR, 'nprow' 1, 'npcol' 2, process 0 gives it 0 where its rank in 'row_comm' is 1 of 2
// ENV: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// ENV: note: input-independence: {{.*}}'mycol' is given a value in {{.*}}grid.c:{{[0-9]+}}:{{[0-9]+}}, the rank in 'row_comm' (the split proof) where the values 'grid_init' is given are the same on every rank, which they may not be: 'nprow' {{.*}}getenv
// PARTIAL: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: {{.*}}broadcast {{.*}}not rewritten: scale-independence refused [mpilift-manual-bcast]
// PARTIAL: note: scale-independence: at 3 processes, rank 1 waits for a message from rank 0 (tag 7, 40 bytes) that never comes
// ABORT: prog.c:{{[0-9]+}}:{{[0-9]+}}: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// ABORT: note: input-independence: {{.*}}'mycol' is given a value in {{.*}}grid.c:{{[0-9]+}}:{{[0-9]+}}, the rank in 'row_comm' (the split proof) only if 'grid_abort' ends the program, which no unit's summary shows
// clang-format on

//--- grid.h
#include <mpi.h>

typedef enum { GRID_ROW_MAJOR = 101, GRID_COLUMN_MAJOR = 102 } grid_order_t;

typedef struct {
  MPI_Comm all_comm, row_comm, col_comm;
  int iam, myrow, mycol, nprow, npcol;
} grid_t;

int grid_init(MPI_Comm comm, grid_order_t order, int nprow, int npcol,
              grid_t *g);
int grid_exit(grid_t *g);
void grid_abort(int line, const char *where, const char *form, ...);
//--- grid.c
#include "grid.h"

int grid_init(MPI_Comm comm, grid_order_t order, int nprow, int npcol,
              grid_t *g) {
  int rank, size, myrow, mycol, ierr;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
#ifdef PARTIAL_ROWS
  if (nprow < 1 || npcol < 1) {
#else
  if (nprow < 1 || npcol < 1 || nprow * npcol > size) {
#endif
    grid_abort(__LINE__, "grid_init", "no %d x %d grid in %d processes",
               nprow, npcol, size);
  }
  if (order == GRID_ROW_MAJOR) {
    myrow = rank / npcol;
    mycol = rank - myrow * npcol;
  } else {
    mycol = rank / nprow;
    myrow = rank - mycol * nprow;
  }
  g->iam = rank;
  g->myrow = myrow;
  g->mycol = mycol;
  g->nprow = nprow;
  g->npcol = npcol;
  ierr = MPI_Comm_split(comm, rank < nprow * npcol ? 0 : MPI_UNDEFINED, rank,
                        &g->all_comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (g->all_comm == MPI_COMM_NULL)
    return MPI_SUCCESS;
#ifdef KEY_REVERSED
  ierr = MPI_Comm_split(g->all_comm, myrow, npcol - 1 - mycol, &g->row_comm);
#else
  ierr = MPI_Comm_split(g->all_comm, myrow, mycol, &g->row_comm);
#endif
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_split(g->all_comm, mycol, myrow, &g->col_comm);
  return ierr;
}

int grid_exit(grid_t *g) {
  if (g->all_comm == MPI_COMM_NULL)
    return MPI_SUCCESS;
  MPI_Comm_free(&g->row_comm);
  MPI_Comm_free(&g->col_comm);
  return MPI_Comm_free(&g->all_comm);
}
//--- errors.c
#include "grid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void grid_abort(int line, const char *where, const char *form, ...) {
  char text[256];
  va_list args;
  va_start(args, form);
  vsnprintf(text, sizeof text, form, args);
  va_end(args);
  fprintf(stderr, "%s, line %d: %s\n", where, line, text);
#ifdef ABORT_MAY_RETURN
  if (getenv("GRID_KEEP_GOING"))
    return;
#endif
  MPI_Abort(MPI_COMM_WORLD, -1);
  exit(-1);
}
