// Programs the dataflow analysis cannot match, for different reasons.
//   buffering  every rank sends to its right neighbour, then receives from
//              its left one: correct only while MPI buffers the sends
// Built with -DWRAP_SEND the program defines MPI_Send itself and calls
// PMPI_Send, as some codes do to count messages: the tracer never sees
// those sends.
#include <mpi.h>
#include <stdio.h>

#ifdef WRAP_SEND
static int Sent;
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  ++Sent;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
#endif

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double out[4] = {rank, rank, rank, rank}, in[4];
  for (int it = 0; it < 3; ++it) {
    MPI_Send(out, 4, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Recv(in, 4, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
  printf("rank %d got %g\n", rank, in[0]);
  MPI_Finalize();
  return 0;
}
