// A do loop over the peers runs its body once even alone: at one process
// it sends to rank 1, which does not exist. Scale independence refuses it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, v = 3, i;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    i = 1;
    do {
      MPI_Send(&v, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
      i++;
    } while (i < size);
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-4]]:32: note: scale-independence: at 1 process, rank 0 sends to rank 1, which does not exist
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
