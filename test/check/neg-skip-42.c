// Listing 1 of the paper: the loop skips rank 42, so the pattern is a
// broadcast only below 43 processes. Input independence refuses it.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, data[4] = {1, 2, 3, 4};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++) {
      if (i == 42)
        continue;
      MPI_Send(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
    }
    // CHECK: :[[@LINE-5]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-7]]:3: note: scale-independence: at 43 processes the messages form a broadcast over 42 of them; rank 42 takes no part
  } else if (rank != 42) {
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("%d\n", data[3]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
