/* A solver's communication layer: one send routine for everything. */
#ifndef BLOCKS_H
#define BLOCKS_H
#include <mpi.h>

typedef struct {
  MPI_Comm comm;
  int rank, size;
} layer_t;

#define BLOCK_TYPE MPI_DOUBLE
#define TAG_PANEL 7
#define TAG_RESIDUAL 9

int layer_send(const layer_t *l, const double *buf, int n, int dest, int tag);

#endif
