// Listing 7 of the paper: HPL's polling chain broadcast. The root sends the
// panel to its successor; every other rank probes for it and, while it has
// not arrived, goes back to its caller, which computes and asks again. Once
// it is there the rank receives it and passes it on. Rewritten, the
// broadcast is one MPI_Ibcast that each probe tests, so the computation
// still overlaps the transfer.
// RUN: %check-rewrite rewrite %s %t --trace --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

enum { KEEP_TESTING = 0, BCAST_DONE = 1 };

/// One probe of the panel broadcast from root; *flag says whether it is
/// over for this rank.
static int bcast_test(double *panel, int count, int root, MPI_Comm comm,
                      int *flag) {
  int rank, size, go = 0;
  // CHECK-FIXES: static MPI_Request bcast_request = MPI_REQUEST_NULL;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int next = (rank + 1) % size;
  int prev = (rank + size - 1) % size;
  if (rank == root) {
    if (size > 1)
      MPI_Send(panel, count, MPI_DOUBLE, next, 17, comm);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: polling ring of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Ibcast polled by MPI_Test [mpilift-manual-bcast]
    // CHECK-FIXES: if (rank == root) {
    // CHECK-FIXES-NEXT: MPI_Ibcast(panel, count, MPI_DOUBLE, root, comm, &bcast_request);
    // CHECK-FIXES-NEXT: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
    *flag = BCAST_DONE;
  } else {
    MPI_Iprobe(prev, 17, comm, &go, MPI_STATUS_IGNORE);
    if (go != 0) {
      MPI_Recv(panel, count, MPI_DOUBLE, prev, 17, comm, MPI_STATUS_IGNORE);
      if (next != root)
        MPI_Send(panel, count, MPI_DOUBLE, next, 17, comm);
      *flag = BCAST_DONE;
    } else {
      *flag = KEEP_TESTING;
    }
    // CHECK-FIXES: } else {
    // CHECK-FIXES-NEXT: if (bcast_request == MPI_REQUEST_NULL)
    // CHECK-FIXES-NEXT: MPI_Ibcast(panel, count, MPI_DOUBLE, root, comm, &bcast_request);
    // CHECK-FIXES-NEXT: MPI_Test(&bcast_request, &go, MPI_STATUS_IGNORE);
    // CHECK-FIXES-NEXT: if (go != 0) {
    // CHECK-FIXES-NEXT: *flag = BCAST_DONE;
    // CHECK-FIXES-NEXT: } else {
  }
  return *flag;
}

int main(int argc, char **argv) {
  int rank, size;
  double panel[6];
  double update[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int step = 0; step < 4; step++) {
    int root = 0;
    if (rank == root)
      for (int k = 0; k < 6; k++)
        panel[k] = step * 10.0 + k + 0.5;
    // Update the trailing matrix one column at a time while the panel is on
    // its way; what is left is done once it has arrived.
    int done = 0;
    int flag = KEEP_TESTING;
    while (flag == KEEP_TESTING) {
      if (done < 64) {
        update[done] = (rank + 1) * 0.25 * (done + step);
        done++;
      }
      bcast_test(panel, 6, root, MPI_COMM_WORLD, &flag);
    }
    for (; done < 64; done++)
      update[done] = (rank + 1) * 0.25 * (done + step);
    double sum = 0;
    for (int k = 0; k < 64; k++)
      sum += update[k] * panel[k % 6];
    printf("step %d rank %d: %.2f %.2f %.2f\n", step, rank, panel[0], panel[5],
           sum);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
