// A broadcast inside a function template: one edit of its text would serve
// every instantiation, so it is refused.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

template <typename T>
void share(T *values, int n, MPI_Datatype type, int rank, int size) {
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(values, n, type, i, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: source-form refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-4]]:3: note: source-form: the pattern is in a template; its instantiations may use other types than the checks can see
  } else {
    MPI_Recv(values, n, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  double d[2] = {1, 2};
  int i[3] = {1, 2, 3};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  share(d, 2, MPI_DOUBLE, rank, size);
  share(i, 3, MPI_INT, rank, size);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
