// Issue 19, part 1: a loop of sends that stops at the first failure, the
// check written in the call's own condition without braces, as C codes
// write it: `if ((ierr = MPI_Send(...)) != MPI_SUCCESS) break;`. The
// branch leaves the very loop the rewrite replaces, and is never taken in
// a run without MPI errors (the runs a proof speaks of), so the check goes
// with the loop and the code stays in `ierr`: `ierr = MPI_Bcast(...)`. With
// UNKEPT the sends are checked without keeping their code (`if
// (MPI_Send(...) != MPI_SUCCESS) break;`), and the broadcast keeps none.
// The grid lives in a structure of the header, its rank and size set in
// another file; the buffer, its length and the tag are macros.
//
// Must not be rewritten: with OUTER_BREAK the exchange runs in a loop over
// steps and the receivers' check leaves that loop, which is no part of the
// pattern (after the rewrite its branch would end the steps on a failure
// of the broadcast only where the receive failed before): source-form
// refuses. Without braces or with them, the same.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
// RUN: %check-rewrite rewrite %s %t.unkept --cflags=-DUNKEPT | FileCheck %s --check-prefix=CHECK-UNKEPT --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-UNKEPT-FIXES < %t.unkept/prog.c
// RUN: %check-rewrite refuse %s %t.outer --cflags=-DOUTER_BREAK | FileCheck %s --check-prefix=REFUSED --implicit-check-not=warning:
// clang-format on
#include "grid.h"

#define GRID_BUF(g) ((g)->coords)
#define GRID_LEN NCOORDS
#define TAG_COORDS 21

#if defined(OUTER_BREAK)
int grid_share_coords(struct grid *g) {
  int ierr = MPI_SUCCESS;
  int step;
  for (step = 0; step < 2; step++) {
    if (g->myrank == 0) {
      int p;
      // REFUSED: prog.c:[[#@LINE+1]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
      for (p = 1; p < g->nprocs; p++)
        if ((ierr = MPI_Send(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, p, TAG_COORDS,
                             g->comm)) != MPI_SUCCESS)
          break;
    } else {
      if ((ierr = MPI_Recv(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, 0, TAG_COORDS,
                           g->comm, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
        // REFUSED: prog.c:[[#@LINE-1]]:{{[0-9]+}}: note: source-form: this branch, taken when the call fails, cannot follow the collective call as written
        break;
      }
    }
    GRID_BUF(g)[0] += 1.0;
  }
  return ierr;
}
#elif defined(UNKEPT)
int grid_share_coords(struct grid *g) {
  int p;
  if (g->myrank == 0) {
    // CHECK-UNKEPT: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (p = 1; p < g->nprocs; p++)
      if (MPI_Send(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, p, TAG_COORDS,
                   g->comm) != MPI_SUCCESS)
        break;
  } else {
    MPI_Recv(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, 0, TAG_COORDS, g->comm,
             MPI_STATUS_IGNORE);
  }
  // CHECK-UNKEPT-FIXES: {{^  }}MPI_Bcast(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, 0, g->comm);
  // CHECK-UNKEPT-FIXES-NOT: {{^ *}}break;
  // CHECK-UNKEPT-FIXES: {{^  }}return MPI_SUCCESS;
  return MPI_SUCCESS;
}
#else
int grid_share_coords(struct grid *g) {
  int ierr = MPI_SUCCESS;
  int p;
  if (g->myrank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with {{MPI_Bcast|MPI_Ibcast}} [mpilift-manual-bcast]
    for (p = 1; p < g->nprocs; p++)
      if ((ierr = MPI_Send(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, p, TAG_COORDS,
                           g->comm)) != MPI_SUCCESS)
        break;
  } else {
    ierr = MPI_Recv(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, 0, TAG_COORDS,
                    g->comm, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: {{^  }}ierr = MPI_Bcast(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, 0, g->comm);
  // CHECK-FIXES-NOT: {{^ *}}break;
  // CHECK-FIXES: {{^  }}return ierr;
  // CHECK-NB-FIXES: {{^  }}ierr ={{$}}
  // CHECK-NB-FIXES-NEXT: MPI_Ibcast(GRID_BUF(g), GRID_LEN, MPI_DOUBLE, 0, g->comm, &bcast_request);
  // CHECK-NB-FIXES: {{^  }}if (ierr == MPI_SUCCESS)
  // CHECK-NB-FIXES-NEXT: ierr = MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  return ierr;
}
#endif

//--- grid.h
#include <mpi.h>

#define NCOORDS 6

struct grid {
  int myrank, nprocs;
  MPI_Comm comm;
  double coords[NCOORDS];
};

void grid_setup(struct grid *g, MPI_Comm comm);
int grid_share_coords(struct grid *g);

//--- setup.c
#include "grid.h"

void grid_setup(struct grid *g, MPI_Comm comm) {
  int i;
  g->comm = comm;
  MPI_Comm_rank(g->comm, &g->myrank);
  MPI_Comm_size(g->comm, &g->nprocs);
  for (i = 0; i < NCOORDS; i++)
    g->coords[i] = g->myrank == 0 ? 0.25 * i - 1.0 : -7.0;
}

//--- main.c
#include "grid.h"

#include <stdio.h>

int main(int argc, char **argv) {
  struct grid g;
  MPI_Init(&argc, &argv);
  grid_setup(&g, MPI_COMM_WORLD);
  if (grid_share_coords(&g) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 2);
  printf("rank %d coords %g %g %g\n", g.myrank, g.coords[0], g.coords[1],
         g.coords[NCOORDS - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-UNKEPT: check-rewrite: same output at np 1 2 3 4 5 7 8
