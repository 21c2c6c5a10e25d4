// Issue 14: a binomial tree broadcast written with mask loops in ranks
// relative to the root (the receive loop breaks out when the rank's bit is
// found, the send loop walks the mask back down), for a root that is the
// last rank. It runs only at some ranks' own schedule, yet every process
// count from 1 to 64 and beyond gives the same broadcast.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define N 3

static void tree_bcast(long *buf, int count, int root, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int relative = (rank - root + size) % size;
  int mask = 1;
  while (mask < size) {
    if (relative & mask) {
      int src = rank - mask;
      if (src < 0)
        src += size;
      MPI_Recv(buf, count, MPI_LONG, src, 7, comm, MPI_STATUS_IGNORE);
      break;
    }
    mask <<= 1;
  }
  // CHECK-MESSAGES: :[[@LINE-10]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  // CHECK-NB: :[[@LINE-11]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
  mask >>= 1;
  while (mask > 0) {
    if (relative + mask < size) {
      int dst = rank + mask;
      if (dst >= size)
        dst -= size;
      MPI_Send(buf, count, MPI_LONG, dst, 7, comm);
    }
    mask >>= 1;
  }
  // CHECK-FIXES: MPI_Comm_size(comm, &size);
  // CHECK-FIXES-NEXT: MPI_Bcast(buf, count, MPI_LONG, root, comm);
  // CHECK-FIXES-NEXT: }
  // CHECK-NB-FIXES: MPI_Comm_size(comm, &size);
  // CHECK-NB-FIXES-NEXT: MPI_Request bcast_request;
  // CHECK-NB-FIXES-NEXT: MPI_Ibcast(buf, count, MPI_LONG, root, comm, &bcast_request);
  // CHECK-NB-FIXES: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  // CHECK-NB-FIXES-NEXT: }
}

int main(int argc, char **argv) {
  int rank, size;
  long data[N];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < N; k++)
    data[k] = rank == size - 1 ? 100 + k : -1;
  tree_bcast(data, N, size - 1, MPI_COMM_WORLD);
  printf("rank %d: %ld %ld %ld\n", rank, data[0], data[1], data[2]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
