// A ring broadcast (Listing 2 of the paper, with the predecessor computed
// without a negative remainder) whose root changes every round: each rank
// receives from its predecessor and forwards unless its successor is the
// root. The root is recovered from the guard (section VI). Alone, the root
// sends nothing: a message to itself would never be received.
// In the trace, a rank's send as root and as forwarder look alike, so no
// root's rounds repeat as the paper's templates require; `mpilift detect`
// grows each round from its messages instead and finds one chain whose
// root changes, which the finding cites. The static proof decides the
// rewrite: rank-space evaluation, with every root at every size.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static void ring_bcast(int *x, int root, int rank, int numtasks) {
  int next = (rank + 1) % numtasks;
  int prev = (rank - 1 + numtasks) % numtasks;
  if (rank == root) {
    if (numtasks > 1)
      MPI_Send(x, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: ring of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(x, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (next != root)
      MPI_Send(x, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
  }
}
// The neighbours were only the messages' peers: they go with them.
// CHECK-FIXES: static void ring_bcast(int *x, int root, int rank, int numtasks) {
// CHECK-FIXES-NEXT: MPI_Bcast(x, 1, MPI_INT, root, MPI_COMM_WORLD);
// CHECK-FIXES-NEXT: }

int main(int argc, char **argv) {
  int rank, numtasks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  for (int i = 0; i < 6; ++i) {
    int root = i % numtasks;
    int x = rank == root ? 1000 + i : -1;
    ring_bcast(&x, root, rank, numtasks);
    printf("round %d rank %d x %d\n", i, rank, x);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
