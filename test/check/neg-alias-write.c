// The message is written through another pointer inside the loop.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, data[2] = {0, 0};
  int *cursor = data;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++) {
      MPI_Send(data, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
      cursor[1] = i;
    }
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}not rewritten: message-integrity refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-3]]:7: note: message-integrity: this statement changes 'data' after it was sent and before it is sent again, so the messages do not all carry the same data
  } else {
    MPI_Recv(data, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
