// Issue 15: the root prints the running total after each value arrives.
// With one MPI_Reduce there is no running total: refused by
// message-integrity at the statement that reads it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, p;
  long mine, sum, theirs;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mine = 10 + rank;
  if (rank == 0) {
    sum = mine;
    for (p = 1; p < size; p++) {
      // CHECK: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: message-integrity refused [mpilift-manual-reduce]
      MPI_Recv(&theirs, 1, MPI_LONG, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      sum += theirs;
      printf("after %d: %ld\n", p, sum);
      // CHECK: :[[@LINE-1]]:7: note: message-integrity: this statement reads the message buffer 'sum' between the pattern's messages; with one collective call it would read other data
    }
  } else {
    MPI_Send(&mine, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
