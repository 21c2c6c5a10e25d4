// Issue 14: a scatter whose blocks differ in size, where the root works out
// each share as it sends and keeps no array of counts or displacements.
// MPI_Scatterv needs both arrays at the root; the rewrite uses only what
// the program holds, so it is refused by matching-arguments, naming what
// is missing.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100

static int share(int rank, int nprocs) {
  return N / nprocs + (rank < N % nprocs);
}

int main(int argc, char **argv) {
  int rank, nprocs, ierr = MPI_SUCCESS;
  double data[N], part[N];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0) {
    for (int k = 0; k < N; k++)
      data[k] = k;
    int offset = share(0, nprocs);
    for (int p = 1; p < nprocs; p++) {
      int n = share(p, nprocs);
      ierr = MPI_Send(data + offset, n, MPI_DOUBLE, p, 0, MPI_COMM_WORLD);
      offset += n;
    }
    // CHECK: :[[@LINE-5]]:5: warning: loop of point-to-point sends implements a scatter (static analysis); not rewritten: matching-arguments refused [mpilift-manual-scatter]
    // CHECK: :[[@LINE-10]]:3: note: matching-arguments: the ranks' blocks differ in size or are not in rank order, and no int array in scope at the pattern's start holds, at the root, every other rank's count, which MPI_Scatterv takes
    for (int k = 0; k < share(0, nprocs); k++)
      part[k] = data[k];
  } else {
    ierr = MPI_Recv(part, share(rank, nprocs), MPI_DOUBLE, 0, 0,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double sum = 0;
  for (int k = 0; k < share(rank, nprocs); k++)
    sum += part[k];
  printf("rank %d: sum %.1f (%d)\n", rank, sum, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
