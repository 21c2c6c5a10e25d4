// Each peer gets a header and then the payload on the same tag: two
// broadcasts interleaved in one loop, which one collective call cannot
// replace (and the receives depend on that order).
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, header = 2, payload[2] = {3, 4};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++) {
      MPI_Send(&header, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
      MPI_Send(payload, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
    }
    // CHECK: :[[@LINE-4]]:5: warning: {{.*}}not rewritten: scale-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-6]]:3: note: scale-independence: at 3 processes the messages form 2 broadcasts; one collective call replaces one of them
  } else {
    MPI_Recv(&header, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(payload, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
