// Rank 0 sends one buffer to every rank, once as ints and once through a
// strided datatype that picks the same ints out of a wider array.
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, data[4] = {1, 2, 3, 4}, wide[8] = {1, 0, 2, 0, 3, 0, 4, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype strided;
  MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  if (rank == 0) {
    for (int i = 1; i < size; ++i)
      MPI_Send(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
    for (int i = 1; i < size; ++i)
      MPI_Send(wide, 1, strided, i, 1, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request r;
    MPI_Irecv(data, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}
