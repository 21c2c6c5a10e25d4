// A ring that returns the message to its root, which receives it last; the
// root's closing receive disappears with the rest.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, numtasks, master_task = 0, x = 0, tag = 1;
  MPI_Status stat;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  for (int i = 0; i < 3; ++i) {
    if (rank == master_task)
      x = 10 * (i + 1);
    if (rank == master_task) {
      MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
      MPI_Recv(&x, 1, MPI_INT, (rank + numtasks - 1) % numtasks, tag,
               MPI_COMM_WORLD, &stat);
    } else {
      MPI_Recv(&x, 1, MPI_INT, (rank + numtasks - 1) % numtasks, tag,
               MPI_COMM_WORLD, &stat);
      MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
    }
    // CHECK-MESSAGES: :[[@LINE-8]]:7: warning: ring of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-FIXES: x = 10 * (i + 1);
    // CHECK-FIXES-NEXT: MPI_Bcast(&x, 1, MPI_INT, master_task, MPI_COMM_WORLD);
    printf("round %d rank %d x %d\n", i, rank, x);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
