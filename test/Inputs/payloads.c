// Shapes that use one buffer for every message like a broadcast, but whose
// messages carry different bytes, and one real broadcast. Three iterations.
// Usage: payloads MODE
//   bcast    a star broadcast from rank 0
//   hops     a chain that adds one to the value at every hop
//   fresh    rank 0 writes new data into the buffer before each send
//   loopvar  rank 0 sends its loop variable to each peer
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 4

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "bcast";
  long buf[N];
  for (int it = 0; it < 3; ++it) {
    for (int k = 0; k < N; ++k)
      buf[k] = rank == 0 ? 10 * it + k : -1;
    if (!strcmp(mode, "hops")) {
      if (rank > 0)
        MPI_Recv(buf, N, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      buf[0] += 1;
      if (rank < size - 1)
        MPI_Send(buf, N, MPI_LONG, rank + 1, 0, MPI_COMM_WORLD);
      continue;
    }
    if (rank == 0) {
      for (int dest = 1; dest < size; ++dest) {
        if (!strcmp(mode, "fresh"))
          buf[0] = 1000 * it + dest;
        if (!strcmp(mode, "loopvar"))
          MPI_Send(&dest, 1, MPI_INT, dest, 0, MPI_COMM_WORLD);
        else
          MPI_Send(buf, N, MPI_LONG, dest, 0, MPI_COMM_WORLD);
      }
    } else if (!strcmp(mode, "loopvar")) {
      int got;
      MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, N, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  MPI_Finalize();
  return 0;
}
