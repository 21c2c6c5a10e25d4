// The receive's status is read afterwards; MPI_Bcast has none to give.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, data = 5;
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(&data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: status-use refused [mpilift-manual-bcast]
  } else {
    MPI_Recv(&data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
    printf("from %d\n", st.MPI_SOURCE);
    // CHECK: :[[@LINE-1]]:25: note: status-use: the status 'st' of a receive is read here
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
