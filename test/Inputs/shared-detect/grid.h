/* A process grid as solvers keep one: rank, size and communicator in a
 * structure, set up once. */
#ifndef GRID_H
#define GRID_H
#include <mpi.h>

typedef struct {
  MPI_Comm comm;
  int me, np;
} grid_t;

#define TAG_PARAMS 11
#define TAG_HALO 12
#define NPARAMS 6

/* In libgridcomm.so: the root sends the parameters to every other rank. */
int grid_bcast_params(const grid_t *g, double *params, int root);

#endif
