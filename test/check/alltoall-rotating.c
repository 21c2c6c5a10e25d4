// Issue 14: an alltoall written as a scatter from each root in turn (the
// rotating-root form); each root copies its own block. Each round is proven
// a scatter and rewritten to MPI_Scatter inside the loop; the loop of
// scatters as one MPI_Alltoall is not proven yet.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define B 2
#define MAXP 64

int main(int argc, char **argv) {
  int rank, size;
  long sendbuf[MAXP * B], recvbuf[MAXP * B];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < size * B; i++)
    sendbuf[i] = rank * 1000 + i;
  for (int root = 0; root < size; root++) {
    if (rank == root) {
      for (int p = 0; p < size; p++)
        if (p != root)
          MPI_Send(&sendbuf[p * B], B, MPI_LONG, p, 1, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-3]]:7: warning: loop of point-to-point sends implements a scatter (static analysis and the trace); replace it with MPI_Scatter [mpilift-manual-scatter]
  // CHECK-NB: :[[@LINE-4]]:7: warning: loop of point-to-point sends implements a scatter (static analysis); replace it with MPI_Iscatter [mpilift-manual-scatter]
  // CHECK-FIXES: MPI_Scatter(sendbuf, B, MPI_LONG, MPI_IN_PLACE, B, MPI_LONG, root,
  // CHECK-FIXES: MPI_Scatter(NULL, 0, MPI_LONG, &recvbuf[root * B], B, MPI_LONG, root,
  // CHECK-NB-FIXES: MPI_Iscatter(sendbuf, B, MPI_LONG, MPI_IN_PLACE, B, MPI_LONG, root,
      for (int k = 0; k < B; k++)
        recvbuf[root * B + k] = sendbuf[root * B + k];
    } else {
      MPI_Recv(&recvbuf[root * B], B, MPI_LONG, root, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    }
  }
  for (int i = 0; i < size * B; i++)
    printf("%d %ld\n", rank, recvbuf[i]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
