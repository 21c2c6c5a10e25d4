// Issue 14: the loop bound is the size of the row communicator, the
// messages go over MPI_COMM_WORLD. The broadcast reaches every process
// only while the grid has one row; MPI_Bcast on MPI_COMM_WORLD would
// reach all. Refused by scale-independence.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define NCOLS 2
#define TAG_PANEL 17

typedef struct {
  MPI_Comm world, row;
  int me, nprocs, ncols_in_row;
} grid_t;

static int grid_init(grid_t *g) {
  int ierr;
  g->world = MPI_COMM_WORLD;
  ierr = MPI_Comm_rank(g->world, &g->me);
  ierr |= MPI_Comm_size(g->world, &g->nprocs);
  ierr |= MPI_Comm_split(g->world, g->me / NCOLS, g->me, &g->row);
  return ierr;
}

int main(int argc, char **argv) {
  grid_t g;
  double panel[4] = {0, 0, 0, 0};
  int ierr, npcol;
  MPI_Init(&argc, &argv);
  ierr = grid_init(&g);
  ierr = MPI_Comm_size(g.row, &npcol);
  if (g.me == 0) {
    for (int i = 0; i < 4; i++)
      panel[i] = 1.5 * i;
    for (int p = 1; p < npcol; p++)
      ierr = MPI_Send(panel, 4, MPI_DOUBLE, p, TAG_PANEL, g.world);
  } else if (g.me < npcol) {
    ierr = MPI_Recv(panel, 4, MPI_DOUBLE, 0, TAG_PANEL, g.world,
                    MPI_STATUS_IGNORE);
  }
  // CHECK: :[[@LINE-6]]:5: warning: {{.*}}implements a broadcast (static analysis); not rewritten: scale-independence refused [mpilift-manual-bcast]
  // CHECK: :[[@LINE-11]]:10: note: scale-independence: 'npcol' is set by MPI_Comm_size on 'g.row', not on the communicator of the region's messages; the region forms this collective only where the two have the same size
  printf("%d: %g %g\n", g.me, panel[1], panel[3]);
  MPI_Comm_free(&g.row);
  MPI_Finalize();
  return ierr;
}
// CHECK: check-rewrite: unchanged
