/* bench/overlap: the program the overlap rules rewrite. Each rank swaps a
 * message of BYTES bytes with a partner (pairs, or a ring at more ranks)
 * with blocking MPI_Send/MPI_Recv, then computes WORK units that touch
 * neither buffer, then reads what it received. mpilift-split-send and
 * mpilift-split-recv turn the exchange into MPI_Isend/MPI_Irecv whose waits
 * land after the computation.
 *
 *   exchange BYTES WORK ITERATIONS
 *
 * Rank 0 prints the slowest rank's seconds per iteration and a checksum
 * that every variant must reproduce.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0)
      fprintf(stderr, "usage: exchange BYTES WORK ITERATIONS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long bytes = atol(argv[1]), work = atol(argv[2]);
  int iterations = atoi(argv[3]);
  int n = (int)(bytes / (long)sizeof(double));
  double *out = malloc((size_t)n * sizeof(double));
  double *in = malloc((size_t)n * sizeof(double));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double checksum = 0, acc = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    for (int k = 0; k < n; k += 512)
      out[k] = rank + it + k;
    /* Even ranks send first, odd ranks receive first: no deadlock at any
     * message size with blocking calls. */
    if (rank % 2 == 0) {
      MPI_Send(out, n, MPI_DOUBLE, right, it, MPI_COMM_WORLD);
      MPI_Recv(in, n, MPI_DOUBLE, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, n, MPI_DOUBLE, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, n, MPI_DOUBLE, right, it, MPI_COMM_WORLD);
    }
    /* Work that keeps one core busy; progress polling tests the requests
     * in this loop. */
    double x = it;
    for (long i = 0; i < work; i++) {
      x = x * 0.999999 + 1e-7 * (double)(i & 1023);
    }
    acc += x;
    checksum += in[0] + in[n - 1];
  }
  double mine = (MPI_Wtime() - start) / iterations, slowest;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double total;
  MPI_Reduce(&checksum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%.9f %.6e %.3f\n", slowest, total, acc > 0 ? 1.0 : 0.0);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
