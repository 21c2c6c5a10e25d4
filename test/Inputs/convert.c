// A deterministic traced program for comparing conversions: point-to-point
// in a ring (blocking and nonblocking), communicators split and duplicated,
// collectives on each, a persistent request. Every rank makes the same calls
// in the same order on every run.
#include <mpi.h>
#include <stdio.h>

struct Grid {
  int rank, size;
  MPI_Comm row, dup;
};

#define NITER 20

static int ringStep(const struct Grid *g, int value, int tag) {
  int right = (g->rank + 1) % g->size, left = (g->rank + g->size - 1) % g->size;
  int got = 0, ierr;
  MPI_Request reqs[2];
  ierr = MPI_Irecv(&got, 1, MPI_INT, left, tag, MPI_COMM_WORLD, &reqs[0]);
  ierr |= MPI_Isend(&value, 1, MPI_INT, right, tag, MPI_COMM_WORLD, &reqs[1]);
  ierr |= MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  return ierr == MPI_SUCCESS ? got : -1;
}

int main(int argc, char **argv) {
  struct Grid g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.size);
  MPI_Comm_split(MPI_COMM_WORLD, g.rank % 2, g.rank, &g.row);
  MPI_Comm_dup(g.row, &g.dup);

  int value = g.rank, sum = 0;
  double payload[64] = {0};
  MPI_Request persistent;
  MPI_Send_init(payload, 64, MPI_DOUBLE, (g.rank + 1) % g.size, 7,
                MPI_COMM_WORLD, &persistent);
  for (int i = 0; i < NITER; ++i) {
    value = ringStep(&g, value + i, i);
    MPI_Bcast(&value, 1, MPI_INT, 0, g.row);
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, g.dup);
    MPI_Start(&persistent);
    MPI_Recv(payload, 64, MPI_DOUBLE, (g.rank + g.size - 1) % g.size, 7,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&persistent);
  MPI_Comm_free(&g.dup);
  MPI_Comm_free(&g.row);
  printf("rank %d: sum %d\n", g.rank, sum);
  MPI_Finalize();
  return 0;
}
