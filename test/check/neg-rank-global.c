// The rank lives in a global another translation unit could write.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

int my_rank;

int main(int argc, char **argv) {
  int size, data = 5;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (my_rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(&data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
    // CHECK: :5:5: note: input-independence: the region forms this collective only if 'my_rank' is the rank, which is not proven: the condition 'my_rank == 0' cannot be evaluated: 'my_rank' is a global variable; its writes cannot be followed
  } else {
    MPI_Recv(&data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
