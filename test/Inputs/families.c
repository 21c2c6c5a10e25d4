// Exercises the MPI families the other trace tests do not: persistent
// requests, probes and matched probes, nonblocking and v-collectives,
// Testsome, Sendrecv_replace, Cart_create and Comm_dup. Every rank checks
// the data it got, so the wrappers are shown not to change results.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int Errors;
static void expect(int Cond, const char *What, int Rank) {
  if (!Cond) {
    printf("rank %d: wrong %s\n", Rank, What);
    ++Errors;
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  // Persistent send and receive, started twice.
  int out = rank, in = -1;
  MPI_Request pers[2];
  MPI_Send_init(&out, 1, MPI_INT, right, 10, MPI_COMM_WORLD, &pers[0]);
  MPI_Recv_init(&in, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &pers[1]);
  for (int round = 0; round < 2; ++round) {
    MPI_Startall(2, pers);
    MPI_Waitall(2, pers, MPI_STATUSES_IGNORE);
    expect(in == left, "persistent receive", rank);
  }
  MPI_Request_free(&pers[0]);
  MPI_Request_free(&pers[1]);

  // Probe, then receive what the probe found; matched probe.
  MPI_Send(&out, 1, MPI_INT, right, 11, MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Probe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st);
  int count;
  MPI_Get_count(&st, MPI_INT, &count);
  MPI_Recv(&in, count, MPI_INT, st.MPI_SOURCE, 11, MPI_COMM_WORLD, &st);
  expect(in == left, "probed receive", rank);
  MPI_Send(&out, 1, MPI_INT, right, 12, MPI_COMM_WORLD);
  MPI_Message msg;
  MPI_Mprobe(left, 12, MPI_COMM_WORLD, &msg, &st);
  MPI_Mrecv(&in, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
  expect(in == left, "matched receive", rank);

  // Sendrecv_replace around the ring.
  int token = rank;
  MPI_Sendrecv_replace(&token, 1, MPI_INT, right, 13, left, 13,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(token == left, "Sendrecv_replace", rank);

  // Nonblocking bcast, then v-collectives.
  int root_value = rank == 0 ? 99 : 0;
  MPI_Request req;
  MPI_Ibcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  expect(root_value == 99, "Ibcast", rank);
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  int *all = malloc(size * 2 * sizeof(int)), mine[2] = {rank, rank};
  for (int i = 0; i < size; ++i) {
    counts[i] = 2;
    displs[i] = 2 * i;
  }
  MPI_Allgatherv(mine, 2, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i)
    expect(all[2 * i] == i && all[2 * i + 1] == i, "Allgatherv", rank);
  MPI_Alltoall(all, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);

  // Testsome until both requests are done.
  MPI_Request two[2];
  int a = -1, b = -1, done = 0, outcount, indices[2];
  MPI_Irecv(&a, 1, MPI_INT, left, 14, MPI_COMM_WORLD, &two[0]);
  MPI_Isend(&out, 1, MPI_INT, right, 14, MPI_COMM_WORLD, &two[1]);
  while (done < 2) {
    MPI_Testsome(2, two, &outcount, indices, MPI_STATUSES_IGNORE);
    if (outcount != MPI_UNDEFINED)
      done += outcount;
  }
  expect(a == left, "Testsome receive", rank);
  (void)b;

  // A periodic Cartesian communicator and a duplicate of it.
  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm cart, dup;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Comm_dup(cart, &dup);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
  expect(sum == size * (size - 1) / 2, "Allreduce on the duplicate", rank);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);

  free(counts);
  free(displs);
  free(all);
  printf("rank %d: %s\n", rank, Errors ? "FAILED" : "ok");
  MPI_Finalize();
  return Errors != 0;
}
