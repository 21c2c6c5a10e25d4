// Every rank takes a turn as the root; the loop skips the root with
// `if (i != root)`. The guard and the receive name the same root, and the
// whole guard collapses into one call.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, root;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (root = 0; root < size; root++) {
    int token[2] = {rank * 10, rank * 10 + 1};
    if (rank == root) {
      for (int i = 0; i < size; ++i) {
        if (i != root)
          MPI_Send(token, 2, MPI_INT, i, 3, MPI_COMM_WORLD);
      }
      // CHECK-MESSAGES: :[[@LINE-4]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    } else {
      MPI_Recv(token, 2, MPI_INT, root, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    // CHECK-FIXES: int token[2] = {rank * 10, rank * 10 + 1};
    // CHECK-FIXES-NEXT: MPI_Bcast(token, 2, MPI_INT, root, MPI_COMM_WORLD);
    printf("round %d rank %d: %d %d\n", root, rank, token[0], token[1]);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
