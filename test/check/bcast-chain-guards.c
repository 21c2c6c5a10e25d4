// Issue 14: a chain broadcast in the guard-pair spelling. Every rank but the
// first receives from its left neighbour, every rank but the last forwards
// to its right one; the error code goes to one variable, which the
// broadcast's result replaces.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define LEN 4

int main(int argc, char **argv) {
  int rank, nprocs, ierr = MPI_SUCCESS;
  int header[LEN] = {0, 0, 0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0)
    for (int k = 0; k < LEN; k++)
      header[k] = 10 * (k + 1);
  if (rank > 0)
    ierr = MPI_Recv(header, LEN, MPI_INT, rank - 1, 0, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  if (rank < nprocs - 1)
    ierr = MPI_Send(header, LEN, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-5]]:3: warning: chain of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  // CHECK-NB: :[[@LINE-6]]:3: warning: chain of point-to-point messages implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
  int checksum = 0;
  for (int k = 0; k < LEN; k++)
    checksum += header[k] * (k + 1);
  printf("%d: %d %d %d %d\n", rank, header[0], header[1], header[2],
         header[3]);
  printf("%d: checksum %d\n", rank, checksum);
  // CHECK-FIXES: header[k] = 10 * (k + 1);
  // CHECK-FIXES-NEXT: ierr = MPI_Bcast(header, LEN, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK-FIXES-NOT: MPI_Send
  // CHECK-FIXES: int checksum = 0;
  // CHECK-NB-FIXES: MPI_Request bcast_request;
  // CHECK-NB-FIXES-NEXT: ierr = MPI_Ibcast(header, LEN, MPI_INT, 0, MPI_COMM_WORLD, &bcast_request);
  // CHECK-NB-FIXES: int checksum = 0;
  // CHECK-NB-FIXES-NEXT: if (ierr == MPI_SUCCESS)
  // CHECK-NB-FIXES-NEXT: ierr = MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  // CHECK-NB-FIXES-NEXT: for (int k = 0; k < LEN; k++)
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
