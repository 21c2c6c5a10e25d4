// Sends with predefined datatypes of every size and with derived datatypes
// that are freed and created again (MPI may hand out the same handle for a
// type of another size): the trace must record the bytes each call moved.
// Rank 0 sends to itself with MPI_Isend/MPI_Recv, so one process suffices.
// Then datatypes whose data leaves gaps (a strided vector, pairs with
// padding) and a structure at MPI_BOTTOM with an absolute address: the trace
// records where the data starts and whether it has gaps.
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

/// One int in every other slot: two ints with a gap between them.
static MPI_Datatype strided(void) {
  MPI_Datatype t;
  MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

/// \p n ints at the absolute address of \p at, for MPI_BOTTOM.
static MPI_Datatype absolute(int *at, int n) {
  MPI_Datatype t;
  MPI_Aint disp;
  MPI_Get_address(at, &disp);
  MPI_Datatype member = MPI_INT;
  MPI_Type_create_struct(1, &n, &disp, &member, &t);
  MPI_Type_commit(&t);
  return t;
}

static int layouts(void) {
  int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
  int err = 0;
  MPI_Request req;
  MPI_Datatype gap = strided();
  err |= MPI_Isend(src, 1, gap, 0, TAG_BASE + 20, MPI_COMM_WORLD, &req);
  err |= MPI_Recv(dst, 2, MPI_INT, 0, TAG_BASE + 20, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  err |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  err |= MPI_Sendrecv(src, 2, MPI_INT, 0, TAG_BASE + 21, dst, 1, gap, 0,
                      TAG_BASE + 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Type_free(&gap);

  /* Two ints packed in the reverse of their order in memory, and a
     subarray (a type the tracer does not decode: gaps, no runs). */
  MPI_Datatype reversed, sub;
  int ones[2] = {1, 1}, sizes[2] = {4, 4}, subsizes[2] = {2, 2},
      starts[2] = {1, 1};
  MPI_Aint back[2] = {2 * sizeof(int), 0};
  MPI_Type_create_hindexed(2, ones, back, MPI_INT, &reversed);
  MPI_Type_commit(&reversed);
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT,
                           &sub);
  MPI_Type_commit(&sub);
  err |= MPI_Isend(src, 1, reversed, 0, TAG_BASE + 25, MPI_COMM_WORLD, &req);
  int pair[2], grid[16] = {0}, block[4];
  err |= MPI_Recv(pair, 2, MPI_INT, 0, TAG_BASE + 25, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  err |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (pair[0] != 3 || pair[1] != 1)
    err |= 1;
  err |= MPI_Isend(grid, 1, sub, 0, TAG_BASE + 26, MPI_COMM_WORLD, &req);
  err |= MPI_Recv(block, 4, MPI_INT, 0, TAG_BASE + 26, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  err |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Type_free(&reversed);
  MPI_Type_free(&sub);

  MPI_Datatype from = absolute(&src[2], 4), into = absolute(&dst[4], 4);
  printf("bottom-send %p\nbottom-recv %p\n", (void *)&src[2], (void *)&dst[4]);
  err |= MPI_Isend(MPI_BOTTOM, 1, from, 0, TAG_BASE + 22, MPI_COMM_WORLD,
                   &req);
  err |= MPI_Recv(MPI_BOTTOM, 1, into, 0, TAG_BASE + 22, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  err |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Type_free(&from);
  MPI_Type_free(&into);
  if (dst[4] != 3 || dst[7] != 6 || dst[0] != 1 || dst[2] != 2)
    err |= 1;

  struct {
    double d;
    int i;
  } pairs[2] = {{1.0, 1}, {2.0, 2}}, got[2];
  err |= MPI_Isend(pairs, 1, MPI_DOUBLE_INT, 0, TAG_BASE + 23, MPI_COMM_WORLD,
                   &req);
  err |= MPI_Recv(got, 1, MPI_DOUBLE_INT, 0, TAG_BASE + 23, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  err |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  err |= MPI_Isend(pairs, 2, MPI_DOUBLE_INT, 0, TAG_BASE + 24, MPI_COMM_WORLD,
                   &req);
  err |= MPI_Recv(got, 2, MPI_DOUBLE_INT, 0, TAG_BASE + 24, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
  err |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  return err;
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
    err |= layouts();
  }
  printf("rank %d: %s\n", rank, err == MPI_SUCCESS ? "ok" : "FAILED");
  MPI_Finalize();
  return 0;
}
