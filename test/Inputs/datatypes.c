// Sends with predefined datatypes of every size and with derived datatypes
// that are freed and created again (MPI may hand out the same handle for a
// type of another size): the trace must record the bytes each call moved.
// Rank 0 sends to itself with MPI_Isend/MPI_Recv, so one process suffices.
#include <mpi.h>
#include <stdio.h>

#define TAG_BASE 100

static int exchange(void *out, void *in, int count, MPI_Datatype type,
                    int tag) {
  MPI_Request req;
  int ierr = MPI_Isend(out, count, type, 0, tag, MPI_COMM_WORLD, &req);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Recv(in, count, type, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (ierr != MPI_SUCCESS)
    return ierr;
  return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  char out[256] = {0}, in[256];
  int rank, err = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    err |= exchange(out, in, 3, MPI_SHORT, TAG_BASE + 1);
    err |= exchange(out, in, 3, MPI_DOUBLE, TAG_BASE + 2);
    err |= exchange(out, in, 2, MPI_LONG_DOUBLE, TAG_BASE + 3);
    err |= exchange(out, in, 5, MPI_2INT, TAG_BASE + 4);
    err |= exchange(out, in, 7, MPI_C_DOUBLE_COMPLEX, TAG_BASE + 5);
    for (int round = 0; round < 3; ++round) {
      // 3, 5 and 7 ints: 12, 20 and 28 bytes per element.
      MPI_Datatype block;
      MPI_Type_contiguous(3 + 2 * round, MPI_INT, &block);
      MPI_Type_commit(&block);
      err |= exchange(out, in, 2, block, TAG_BASE + 10 + round);
      MPI_Type_free(&block);
    }
  }
  printf("rank %d: %s\n", rank, err == MPI_SUCCESS ? "ok" : "FAILED");
  MPI_Finalize();
  return 0;
}
