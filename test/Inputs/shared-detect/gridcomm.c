/* The library half: a broadcast written as a loop of sends, error codes
 * kept. */
#include "grid.h"

int grid_bcast_params(const grid_t *g, double *params, int root) {
  int ierr = MPI_SUCCESS, p;
  if (g->me == root) {
    for (p = 0; p < g->np; ++p) {
      if (p == root)
        continue;
      ierr = MPI_Send(params, NPARAMS, MPI_DOUBLE, p, TAG_PARAMS, g->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(params, NPARAMS, MPI_DOUBLE, root, TAG_PARAMS, g->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}
