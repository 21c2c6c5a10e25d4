// Issue 14: an alltoall as MPI_Irecv from every rank, MPI_Isend to every
// rank (itself included), and one MPI_Waitall over a request array.
// `mpilift detect` finds no collective in its trace at 4 processes (a gap
// of the trace side, noted in issue 14), so the check runs without it.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define B 2
#define MAXP 64

int main(int argc, char **argv) {
  int rank, size;
  int sendbuf[MAXP * B], recvbuf[MAXP * B];
  MPI_Request req[2 * MAXP];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < size * B; i++)
    sendbuf[i] = rank * 1000 + i;
  int n = 0;
  for (int p = 0; p < size; p++)
    MPI_Irecv(&recvbuf[p * B], B, MPI_INT, p, 5, MPI_COMM_WORLD, &req[n++]);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: loop of point-to-point exchanges implements an alltoall (static analysis); replace it with MPI_Alltoall [mpilift-manual-alltoall]
  // CHECK-NB: :[[@LINE-3]]:3: warning: loop of point-to-point exchanges implements an alltoall (static analysis); replace it with MPI_Ialltoall [mpilift-manual-alltoall]
  // CHECK-FIXES: MPI_Alltoall(sendbuf, B, MPI_INT, recvbuf, B, MPI_INT, MPI_COMM_WORLD);
  // CHECK-NB-FIXES: MPI_Ialltoall(sendbuf, B, MPI_INT, recvbuf, B, MPI_INT, MPI_COMM_WORLD,
  for (int p = 0; p < size; p++)
    MPI_Isend(&sendbuf[p * B], B, MPI_INT, p, 5, MPI_COMM_WORLD, &req[n++]);
  MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < size * B; i++)
    printf("%d %d\n", rank, recvbuf[i]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
