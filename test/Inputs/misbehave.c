// A small MPI program that ends in the way its first argument says:
// normal, segv, abort, term, kill, nofinalize, pcontrol, many (20000 sends).
// Rank 0 sends to rank 1 first; the last rank misbehaves.
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "normal";
  int rank, size, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = !strcmp(mode, "many") ? 20000 : 3;
  for (int i = 0; i < n && size > 1; ++i) {
    if (rank == 0)
      MPI_Send(&i, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (!strcmp(mode, "pcontrol")) {
    MPI_Pcontrol(0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == size - 1) {
    fflush(stdout);
    if (!strcmp(mode, "segv")) {
      volatile int *p = NULL;
      *p = 1;
    }
    if (!strcmp(mode, "abort"))
      MPI_Abort(MPI_COMM_WORLD, 3);
    if (!strcmp(mode, "term"))
      raise(SIGTERM);
    if (!strcmp(mode, "kill")) // Nothing can run: the buffer is lost.
      raise(SIGKILL);
    if (!strcmp(mode, "nofinalize"))
      exit(0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d done x=%d\n", rank, x);
  MPI_Finalize();
  return 0;
}
