// Each destination gets a different number of elements, all from the
// start of one array: a scatterv of overlapping blocks, which is
// erroneous for MPI_Scatterv (it reads no location twice) and no
// MPI_Scatter call replaces.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, data[8] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(data, i, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: matching-arguments refused [mpilift-manual-scatter]
    // CHECK: :[[@LINE-4]]:3: note: matching-arguments: at 3 processes, the root's blocks for ranks 1 and 2 overlap; MPI_Scatterv reads no location twice
  } else {
    MPI_Recv(data, rank, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
