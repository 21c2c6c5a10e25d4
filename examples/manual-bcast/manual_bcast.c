// A solver step as many old MPI codes write it: the root broadcasts its
// parameters with a loop of point-to-point sends, every rank computes, and
// the partial results travel around a ring. mpilift's demo traces it.
#include <mpi.h>
#include <stdio.h>

#define N 16

static void broadcast_parameters(double *params, int rank, int size) {
  if (rank == 0) {
    for (int dest = 1; dest < size; ++dest)
      MPI_Send(params, N, MPI_DOUBLE, dest, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(params, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static double ring_sum(double mine, int rank, int size) {
  double total = mine, passing = mine, incoming;
  for (int step = 1; step < size; ++step) {
    MPI_Sendrecv(&passing, 1, MPI_DOUBLE, (rank + 1) % size, 1, &incoming, 1,
                 MPI_DOUBLE, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    total += incoming;
    passing = incoming;
  }
  return total;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double params[N];
  for (int iteration = 0; iteration < 3; ++iteration) {
    if (rank == 0)
      for (int i = 0; i < N; ++i)
        params[i] = iteration + i * 0.5;
    broadcast_parameters(params, rank, size);
    double mine = 0;
    for (int i = 0; i < N; ++i)
      mine += params[i] * (rank + 1);
    double total = ring_sum(mine, rank, size);
    if (rank == 0)
      printf("iteration %d: total %.1f\n", iteration, total);
  }
  MPI_Finalize();
  return 0;
}
