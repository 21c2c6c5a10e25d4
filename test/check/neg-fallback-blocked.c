// --fallback cdag where libcdag cannot take the pattern: the region calls
// printf (a cached graph would not print again), and a pattern refused for
// message integrity is never a fallback candidate.
// RUN: %check-rewrite refuse %s %t --trace --check-args="--fallback cdag" | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, v = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < 4 && i < size; i++) {
      printf("to %d\n", i);
      MPI_Send(&v, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
    }
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}; not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-5]]:5: note: no libcdag fallback: the region calls 'printf', which a cached graph would not call again
  } else if (rank < 4) {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 0) {
    for (int i = 1; i < size; i++) {
      MPI_Send(&v, 1, MPI_INT, i, 1, MPI_COMM_WORLD);
      v++;
    }
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}; not rewritten: message-integrity refused [mpilift-manual-bcast]
    // CHECK-NOT: no libcdag fallback
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
