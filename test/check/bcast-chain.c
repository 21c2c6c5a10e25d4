// A chain broadcast from rank 0: each rank receives from rank - 1 and
// passes the message on while there is a next rank. The root only sends
// when it is not alone.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double panel[5] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int k = 0; k < 5; k++)
      panel[k] = 0.5 * k * k;
    if (size > 1)
      MPI_Send(panel, 5, MPI_DOUBLE, rank + 1, 8, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: chain of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(panel, 5, MPI_DOUBLE, rank - 1, 8, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    // Pass it on.
    if (rank < size - 1)
      MPI_Send(panel, 5, MPI_DOUBLE, rank + 1, 8, MPI_COMM_WORLD);
  }
  // CHECK-FIXES: panel[k] = 0.5 * k * k;
  // CHECK-FIXES-NEXT: MPI_Bcast(panel, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  // CHECK-FIXES: } else {
  // CHECK-FIXES-NEXT: MPI_Bcast(panel, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: // Pass it on.
  // CHECK-FIXES-NEXT: }
  printf("rank %d: %.1f %.1f %.1f\n", rank, panel[1], panel[2], panel[4]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
