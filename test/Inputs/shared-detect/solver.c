/* The program half: a halo exchange on a ring each step, and the
 * parameters broadcast by the library every few steps; the result printed
 * by rank 0. */
#include "grid.h"
#include <stdio.h>

#define STEPS 12

static int exchange_halo(const grid_t *g, double *left, double mine) {
  int right = (g->me + 1) % g->np, from = (g->me + g->np - 1) % g->np;
  return MPI_Sendrecv(&mine, 1, MPI_DOUBLE, right, TAG_HALO, left, 1,
                      MPI_DOUBLE, from, TAG_HALO, g->comm, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  grid_t g;
  double params[NPARAMS] = {0}, u, left = 0.0;
  int step, k;
  MPI_Init(&argc, &argv);
  g.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(g.comm, &g.me);
  MPI_Comm_size(g.comm, &g.np);
  u = g.me;
  for (step = 0; step < STEPS; ++step) {
    if (step % 4 == 0) {
      if (g.me == 0)
        for (k = 0; k < NPARAMS; ++k)
          params[k] = 0.5 * (step + k);
      if (grid_bcast_params(&g, params, 0) != MPI_SUCCESS)
        MPI_Abort(g.comm, 1);
    }
    if (exchange_halo(&g, &left, u) != MPI_SUCCESS)
      MPI_Abort(g.comm, 1);
    u = 0.5 * (u + left) + params[step % NPARAMS];
  }
  if (g.me == 0)
    printf("u = %.3f\n", u);
  MPI_Finalize();
  return 0;
}
