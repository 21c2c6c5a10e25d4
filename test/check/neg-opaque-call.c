// A call the analysis cannot see into gets the buffer inside the loop.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

void refresh(double *values, int step);

void refresh(double *values, int step) { values[0] += step; }

int main(int argc, char **argv) {
  int rank, size;
  double values[3] = {1, 2, 3};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++) {
      refresh(values, i);
      MPI_Send(values, 3, MPI_DOUBLE, i, 0, MPI_COMM_WORLD);
    }
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}not rewritten: message-integrity refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-4]]:7: note: message-integrity: this statement changes 'values' after it was sent and before it is sent again, so the messages do not all carry the same data
  } else {
    MPI_Recv(values, 3, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
