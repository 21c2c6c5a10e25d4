// Issue 14: a ring allgather with MPI_Sendrecv. In step s every rank passes
// to its right neighbour the block it received in step s - 1 and receives
// the next one from its left; every rank starts with its own block in
// place, so the collective runs in place.
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
  int table[MAXP * B];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < B; k++)
    table[rank * B + k] = rank * 10 + k;
  int left = (rank - 1 + size) % size;
  int right = (rank + 1) % size;
  for (int step = 0; step < size - 1; step++) {
    int send_block = (rank - step + size) % size;
    int recv_block = (rank - step - 1 + size) % size;
    MPI_Sendrecv(&table[send_block * B], B, MPI_INT, right, 1,
                 &table[recv_block * B], B, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  // CHECK-MESSAGES: :[[@LINE-7]]:3: warning: loop of point-to-point exchanges implements an allgather (static analysis and the trace); replace it with MPI_Allgather [mpilift-manual-allgather]
  // CHECK-NB: :[[@LINE-8]]:3: warning: loop of point-to-point exchanges implements an allgather (static analysis); replace it with MPI_Iallgather [mpilift-manual-allgather]
  // CHECK-FIXES: table[rank * B + k] = rank * 10 + k;
  // CHECK-FIXES-NEXT: MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table, B, MPI_INT,
  // CHECK-FIXES-NEXT: MPI_COMM_WORLD);
  // CHECK-NB-FIXES: MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table, B, MPI_INT,
  // CHECK-NB-FIXES: MPI_Wait(&allgather_request, MPI_STATUS_IGNORE);
  // CHECK-NB-FIXES-NEXT: for (int k = 0; k < size * B; k++)
  for (int k = 0; k < size * B; k++)
    printf("rank %d table[%d] = %d\n", rank, k, table[k]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
