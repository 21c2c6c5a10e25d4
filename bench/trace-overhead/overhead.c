// The timed kernels of bench/trace-overhead: prints microseconds per
// iteration of the kernel named by argv[1] (pingpong0, pingpong64k, ring,
// nullsend, nullrecv), measured on rank 0 around the
// loop only (MPI_Init, MPI_Finalize and the trace conversion are outside).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pingpong(int bytes, int iterations, int rank) {
  char *buf = calloc(bytes ? bytes : 1, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  double t = MPI_Wtime() - start;
  free(buf);
  return t;
}

static double ring(int iterations, int rank, int size) {
  int token = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    MPI_Request r;
    int in;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &r);
    MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    token = in + 1;
  }
  return MPI_Wtime() - start;
}

// MPI_Send to MPI_PROC_NULL moves nothing: what is left is the cost of the
// call itself, which isolates the wrapper's cost per call.
static double nullsend(int iterations) {
  int x = 0;
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i)
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  return MPI_Wtime() - start;
}

// MPI_Recv from MPI_PROC_NULL returns at once with an empty status: the
// wrapper's cost per receive, status handling included.
static double nullrecv(int iterations) {
  int x = 0;
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i)
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  return MPI_Wtime() - start;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *kernel = argc > 1 ? argv[1] : "pingpong0";
  int iterations = argc > 2 ? atoi(argv[2]) : 100000;
  double t;
  if (!strcmp(kernel, "pingpong0"))
    t = pingpong(0, iterations, rank);
  else if (!strcmp(kernel, "pingpong64k"))
    t = pingpong(65536, iterations, rank);
  else if (!strcmp(kernel, "nullsend"))
    t = nullsend(iterations);
  else if (!strcmp(kernel, "nullrecv"))
    t = nullrecv(iterations);
  else
    t = ring(iterations, rank, size);
  if (rank == 0)
    printf("%.4f\n", t * 1e6 / iterations);
  MPI_Finalize();
  return 0;
}
