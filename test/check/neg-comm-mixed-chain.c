// Issue 14: a chain whose ranks forward on a duplicate of the
// communicator they receive on (it works: the duplicate has the same
// ranks, and each message is matched on its own communicator). One
// MPI_Bcast has one communicator. Nothing may be rewritten; without a trace
// nothing is reported either (no size forms a collective on one
// communicator).
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

struct comms {
  MPI_Comm world, copy;
  int rank, size;
};

int main(int argc, char **argv) {
  struct comms c;
  int token = 0, ierr;
  MPI_Init(&argc, &argv);
  c.world = MPI_COMM_WORLD;
  MPI_Comm_dup(c.world, &c.copy);
  MPI_Comm_rank(c.world, &c.rank);
  MPI_Comm_size(c.world, &c.size);
  if (c.rank == 0)
    token = 4242;
  if (c.rank > 0)
    ierr = MPI_Recv(&token, 1, MPI_INT, c.rank - 1, 0,
                    c.rank % 2 ? c.world : c.copy, MPI_STATUS_IGNORE);
  if (c.rank + 1 < c.size)
    ierr = MPI_Send(&token, 1, MPI_INT, c.rank + 1, 0,
                    c.rank % 2 ? c.copy : c.world);
  printf("%d: %d\n", c.rank, token);
  MPI_Comm_free(&c.copy);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
