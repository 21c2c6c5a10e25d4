// Graphs that cannot run: compiling fails on every process with a message
// that names the operations. Bad arguments fail at once.
#include <cdag/cdag.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int Rank, Size;
  double X = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  cDAG_Graph G;
  cDAG_Create(MPI_COMM_WORLD, &G);
  int RC = cDAG_Send(G, &X, sizeof(X), Size + 5, 0, NULL);
  if (Rank == 0)
    printf("bad peer: %s: %s\n", cDAG_Error_string(RC), cDAG_Error_message());
  RC = cDAG_Depend(G, 0, 7);
  if (Rank == 0)
    printf("bad dependency: %s: %s\n", cDAG_Error_string(RC),
           cDAG_Error_message());
  // Rank 0 sends with tag 5, rank 1 waits for tag 6.
  if (Rank == 0)
    cDAG_Send(G, &X, sizeof(X), 1, 5, NULL);
  if (Rank == 1)
    cDAG_Recv(G, &X, sizeof(X), 0, 6, NULL);
  cDAG_Schedule S;
  RC = cDAG_Compile(G, &S);
  printf("rank %d: compile: %s: %s\n", Rank, cDAG_Error_string(RC),
         cDAG_Error_message());
  cDAG_Free(&G);
  MPI_Finalize();
  return 0;
}
