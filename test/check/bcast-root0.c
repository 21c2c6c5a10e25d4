// A star broadcast from rank 0 whose root first fills the buffer: the loop
// and the receive become MPI_Bcast in their branches.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double data[4] = {0, 0, 0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int k = 0; k < 4; ++k)
      data[k] = 1.5 * (k + 1);
    // Tell everybody.
    for (int i = 1; i < size; i++)
      MPI_Send(data, 4, MPI_DOUBLE, i, 7, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-FIXES: // Tell everybody.
    // CHECK-FIXES-NEXT: MPI_Bcast(data, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 4, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // CHECK-FIXES: } else {
    // CHECK-FIXES-NEXT: MPI_Bcast(data, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  printf("rank %d: %g %g %g %g\n", rank, data[0], data[1], data[2], data[3]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
