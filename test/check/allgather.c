// An allgather written as MPI_Sendrecv with every other rank; each rank's
// own block is its contribution, so the rewrite is in place.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *table = calloc(2 * size, sizeof(long));
  table[2 * rank] = rank * rank;
  table[2 * rank + 1] = -rank;
  for (int p = 0; p < size; p++) {
    if (p == rank)
      continue;
    MPI_Sendrecv(table + rank * 2, 2, MPI_LONG, p, 6, table + p * 2, 2,
                 MPI_LONG, p, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // CHECK-MESSAGES: :[[@LINE-6]]:3: warning: loop of point-to-point exchanges implements an allgather (static analysis and the trace); replace it with MPI_Allgather [mpilift-manual-allgather]
  // CHECK-FIXES: table[2 * rank + 1] = -rank;
  // CHECK-FIXES-NEXT: MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table, 2, MPI_LONG,
  // CHECK-FIXES-NEXT: MPI_COMM_WORLD);
  for (int k = 0; k < 2 * size; k++)
    printf("rank %d table[%d] = %ld\n", rank, k, table[k]);
  free(table);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
