#include "blocks.h"

int layer_send(const layer_t *l, const double *buf, int n, int dest,
               int tag) {
  int ierr = MPI_Send(buf, n, BLOCK_TYPE, dest, tag, l->comm);
  return ierr;
}
