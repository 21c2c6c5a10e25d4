// bench/trace-convert: a traced run that leaves CALLS traced calls per rank
// in its spill file, then times MPI_Finalize on rank 0, which is where the
// trace is converted (serially on rank 0, or by every rank).
// Usage: trace-convert-app CALLS_PER_RANK   prints the seconds MPI_Finalize
// took on rank 0.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long calls = argc > 1 ? atol(argv[1]) : 100000;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, in = -1;
  // Each iteration is four traced calls with messages and a request to
  // resolve: the kind of event the converter spends most on.
  for (long i = 0; i < calls / 4; ++i) {
    MPI_Request r;
    MPI_Irecv(&in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r);
    MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&out, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double start = now();
  MPI_Finalize();
  if (rank == 0)
    printf("%.4f\n", now() - start);
  return 0;
}
