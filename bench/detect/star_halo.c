// bench/detect: the long trace of a star broadcast among halo exchanges.
// Rank 0 sends a block to every other rank from one call site, then every
// rank exchanges with both neighbours of a ring (two MPI_Sendrecv calls):
// ITERATIONS times. `mpilift detect` finds the broadcast, and the halo
// exchanges are what its rotating-root search and the dataflow analysis
// must reject.
// Usage: star_halo [ITERATIONS]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 8

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 100;
  double block[BLOCK], left[BLOCK], right[BLOCK];
  int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  double sum = 0;
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < BLOCK; ++i)
      block[i] = rank == 0 ? it + i : -1;
    if (rank == 0) {
      for (int peer = 1; peer < size; ++peer)
        MPI_Send(block, BLOCK, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    } else {
      MPI_Recv(block, BLOCK, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
    MPI_Sendrecv(block, BLOCK, MPI_DOUBLE, next, 2, left, BLOCK, MPI_DOUBLE,
                 prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(block, BLOCK, MPI_DOUBLE, prev, 3, right, BLOCK, MPI_DOUBLE,
                 next, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sum += left[0] + right[BLOCK - 1];
  }
  if (rank == 0)
    printf("%g\n", sum);
  MPI_Finalize();
  return 0;
}
