// Issue 15: a checksum folded by the root as the values arrive
// (`hash = hash * 31 + theirs`) is no operation MPI can reduce with: its
// result depends on the order of combination. Refused by reduction-order,
// naming the statement.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define TAG_SUM 4

int main(int argc, char **argv) {
  int rank, size, p;
  unsigned long mine, hash, theirs;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mine = 1000u + rank;
  if (rank == 0) {
    hash = mine;
    for (p = 1; p < size; p++) {
      // CHECK: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: reduction-order refused [mpilift-manual-reduce]
      MPI_Recv(&theirs, 1, MPI_UNSIGNED_LONG, p, TAG_SUM, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      hash = hash * 31u + theirs;
      // CHECK: :[[@LINE-1]]:7: note: reduction-order: this statement combines the values by an operation that is none of MPI's (sum, product, minimum, maximum, bitwise or logical and, or, xor); the order in which MPI combines would change the result
    }
    printf("hash %lu\n", hash);
  } else {
    MPI_Send(&mine, 1, MPI_UNSIGNED_LONG, 0, TAG_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
