// Issue 18, item 3: every rank but the last gets 'chunk' elements; the last
// one first adds the remainder to its 'chunk' and receives more. Both sides
// spell 'chunk', but the values differ whenever size does not divide n:
// MPI_Scatter would be erroneous (different type signatures at the root
// and at the last rank), although Open MPI happens to print the same.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 30

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int chunk = N / size;
  int *all = malloc(N * sizeof(int));
  int *part = malloc((chunk + size) * sizeof(int));
  if (rank == size - 1)
    chunk += N % size;
  if (rank == 0) {
    for (int k = 0; k < N; k++)
      all[k] = k;
    for (int i = 1; i < size; i++)
      MPI_Send(all + i * chunk, chunk, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a scatter (static analysis); not rewritten: matching-arguments refused [mpilift-manual-scatter]
    // CHECK: :[[@LINE-2]]:7: note: matching-arguments: at 4 processes, rank 0 sends 28 bytes to rank 3, which receives 36
    for (int k = 0; k < chunk; k++)
      part[k] = all[k];
  } else {
    MPI_Recv(part, chunk, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  long sum = 0;
  for (int k = 0; k < chunk; k++)
    sum += part[k];
  printf("rank %d: %d elements, sum %ld\n", rank, chunk, sum);
  free(part);
  free(all);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
