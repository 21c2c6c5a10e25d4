// The polling broadcast as a chain from rank 0, reporting through its
// return value: the caller's loop is `while (!poll_panel(...))`. The probe
// and the receive share a status nobody reads afterwards.
// RUN: %check-rewrite rewrite %s %t --trace --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

/// Nonzero once this rank has the panel.
static int poll_panel(float *buf, int n, MPI_Comm comm) {
  int me, np, arrived;
  MPI_Status st;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me != 0) {
    MPI_Iprobe(me - 1, 3, comm, &arrived, &st);
    if (arrived) {
      MPI_Recv(buf, n, MPI_FLOAT, me - 1, 3, comm, &st);
      if (me + 1 < np)
        MPI_Send(buf, n, MPI_FLOAT, me + 1, 3, comm);
      return 1;
    }
    return 0;
  } else {
    if (np > 1)
      MPI_Send(buf, n, MPI_FLOAT, 1, 3, comm);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: polling chain of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Ibcast polled by MPI_Test [mpilift-manual-bcast]
  }
  return 1;
}
// CHECK-FIXES: static MPI_Request bcast_request = MPI_REQUEST_NULL;
// CHECK-FIXES-NEXT: if (me != 0) {
// CHECK-FIXES-NEXT: if (bcast_request == MPI_REQUEST_NULL)
// CHECK-FIXES-NEXT: MPI_Ibcast(buf, n, MPI_FLOAT, 0, comm, &bcast_request);
// CHECK-FIXES-NEXT: MPI_Test(&bcast_request, &arrived, MPI_STATUS_IGNORE);
// CHECK-FIXES-NEXT: if (arrived) {
// CHECK-FIXES-NEXT: return 1;
// CHECK-FIXES: } else {
// CHECK-FIXES-NEXT: MPI_Ibcast(buf, n, MPI_FLOAT, 0, comm, &bcast_request);
// CHECK-FIXES-NEXT: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);

int main(int argc, char **argv) {
  int rank;
  float panel[8];
  long counts[16] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int round = 0; round < 3; round++) {
    if (rank == 0)
      for (int k = 0; k < 8; k++)
        panel[k] = round + k * 0.125f;
    // Histogram work, a bounded amount per probe; the rest afterwards.
    int next = 0;
    while (!poll_panel(panel, 8, MPI_COMM_WORLD)) {
      if (next < 4000) {
        counts[(next * 7 + rank) % 16]++;
        next++;
      }
    }
    for (; next < 4000; next++)
      counts[(next * 7 + rank) % 16]++;
    printf("round %d rank %d: %.3f %.3f %ld\n", round, rank, panel[1],
           panel[7], counts[rank % 16]);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
