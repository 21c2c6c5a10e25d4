// Wait matching through a request array filled in a loop: MPI_Waitall
// completes every MPI_Irecv and MPI_Isend that set an element, so it depends
// on both buffers; it moves past the independent work to the first read of
// what arrived.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-sink-wait" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// With progress polling, the loop the wait now crosses tests the whole
// array every 8 iterations.
// RUN: %check-rewrite rewrite %s %t.poll --np 2,3,4,8 --check-args="--checks=mpilift-sink-wait --progress-polling --poll-interval 8" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-POLL < %t.poll/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double halo[2][16], mine[16];
  MPI_Request reqs[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer[2] = {(rank + size - 1) % size, (rank + 1) % size};
  for (int k = 0; k < 16; k++)
    mine[k] = rank + k * 0.25;
  for (int d = 0; d < 2; d++)
    MPI_Irecv(halo[d], 16, MPI_DOUBLE, peer[d], d, MPI_COMM_WORLD, &reqs[d]);
  for (int d = 0; d < 2; d++)
    MPI_Isend(mine, 16, MPI_DOUBLE, peer[1 - d], d, MPI_COMM_WORLD,
              &reqs[2 + d]);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Waitall can move past the next 2 statements [mpilift-sink-wait]
  // CHECK-MESSAGES: :[[@LINE+6]]:3: note: the wait is placed here: this statement uses 'halo'
  double interior = 0;
  for (int i = 0; i < 200000; i++)
    interior += mine[i % 16] * 1e-6;
  // CHECK-FIXES: interior += mine[i % 16] * 1e-6;
  // CHECK-FIXES-NEXT: MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  double edges = halo[0][0] + halo[1][15];
  mine[0] = edges;
  printf("rank %d: %.3f %.2f\n", rank, interior, edges);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
// CHECK-POLL: unsigned wait_polls = 0;
// CHECK-POLL: double interior = 0;
// CHECK-POLL-NEXT: for (int i = 0; i < 200000; i++) {
// CHECK-POLL-NEXT: if (++wait_polls % 8 == 0) {
// CHECK-POLL-NEXT: int wait_done;
// CHECK-POLL-NEXT: MPI_Testall(4, reqs, &wait_done, MPI_STATUSES_IGNORE);
// CHECK-POLL-NEXT: }
// CHECK-POLL: MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
