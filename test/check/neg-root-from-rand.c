// The root is drawn at random on every rank. With the same seed the ranks
// would agree, but nothing proves they do; taken as the same on every
// rank, the exchange would be a broadcast from that root. Input
// independence refuses it, naming the variable and the call it comes from.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NVAL 3

typedef struct {
  int rank;
  int nranks;
} team_t;

int main(int argc, char **argv) {
  team_t team;
  long vals[NVAL] = {0, 0, 0};
  int ierr = MPI_SUCCESS;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &team.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &team.nranks);
  srand(12345u);
  int leader = rand() % team.nranks;
  if (team.rank == leader) {
    for (int k = 0; k < NVAL; k++)
      vals[k] = 7L * (k + 1);
    for (int peer = 0; peer < team.nranks; peer++) {
      if (peer == leader)
        continue;
      ierr = MPI_Send(vals, NVAL, MPI_LONG, peer, 4, MPI_COMM_WORLD);
    }
    // CHECK: :[[@LINE-5]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-10]]:7: note: input-independence: 'leader' is not proven the same on every rank (the condition 'team.rank == leader' cannot be evaluated: the result of a call of 'rand')
  } else {
    ierr = MPI_Recv(vals, NVAL, MPI_LONG, leader, 4, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  printf("rank %d: %ld %ld\n", team.rank, vals[0], vals[NVAL - 1]);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// CHECK: check-rewrite: unchanged
