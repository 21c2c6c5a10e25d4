// libcdag from C++: a broadcast of a std::vector written as a star.
#include <cdag/cdag.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  std::vector<int> Data(1000, Rank == 0 ? 42 : -1);
  cDAG_Graph G;
  cDAG_Create(MPI_COMM_WORLD, &G);
  for (int J = 1; Rank == 0 && J < Size; ++J)
    cDAG_Send(G, Data.data(), Data.size() * sizeof(int), J, 0, nullptr);
  if (Rank != 0)
    cDAG_Recv(G, Data.data(), Data.size() * sizeof(int), 0, 0, nullptr);
  cDAG_Schedule S;
  if (cDAG_Compile(G, &S) != CDAG_SUCCESS || cDAG_Run(S) != CDAG_SUCCESS) {
    std::printf("rank %d: %s\n", Rank, cDAG_Error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  bool Ok = true;
  for (int V : Data)
    Ok &= V == 42;
  std::printf("rank %d: %s (%d collective)\n", Rank, Ok ? "ok" : "FAILED",
              cDAG_Num_collectives(S));
  cDAG_Free_schedule(&S);
  cDAG_Free(&G);
  MPI_Finalize();
  return Ok ? 0 : 1;
}
