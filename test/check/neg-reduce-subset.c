// Issue 15: the root adds up the values of every rank but the last, which
// sends nothing: a reduction over part of the ranks. Refused by
// scale-independence, naming the rank left out.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

struct team {
  int rank, size;
};

int main(int argc, char **argv) {
  struct team t;
  int p;
  long mine, sum, theirs;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
  mine = 10 + t.rank;
  if (t.rank == 0) {
    sum = mine;
    for (p = 1; p < t.size - 1; p++) {
      // CHECK: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: scale-independence refused [mpilift-manual-reduce]
      MPI_Recv(&theirs, 1, MPI_LONG, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      sum += theirs;
      // CHECK: :[[@LINE-1]]:7: note: scale-independence: at 3 processes, process 0's result combines 2 of 3 processes; process 2's data is not part of it
    }
    printf("sum %ld\n", sum);
  } else if (t.rank < t.size - 1) {
    MPI_Send(&mine, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
