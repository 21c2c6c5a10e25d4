// Algorithm 2 (--overlap-aggressive): the send's wait would stop at the end
// of the loop body; instead its requests go into a ring, completed where
// the next iteration refills the buffer and after the loop. The receive's
// data is read in the next iteration: it completes there, and before the
// next receive into the same buffer is posted.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-split-send,mpilift-split-recv --overlap-aggressive" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  double row[64], in[64] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double acc = 0;
  for (int it = 0; it < 6; it++) {
    acc += in[it % 64];
    for (int k = 0; k < 64; k++)
      row[k] = rank * 100 + it + k;
    double s = 0;
    for (int i = 0; i < 100000; i++)
      s += (i % 7) * 1e-6;
    acc += s;
    MPI_Send(row, 64, MPI_DOUBLE, right, it, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: blocking MPI_Send can overlap the rest of its loop iteration and the next ones until the buffer is touched again; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
    // CHECK-MESSAGES: :[[@LINE+4]]:3: note: the wait is placed here: after the loop (its requests are completed where the loop touches the buffer again)
    MPI_Recv(in, 64, MPI_DOUBLE, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: blocking MPI_Recv can overlap the rest of its loop iteration and the next ones until the buffer is touched again; split it into MPI_Irecv and MPI_Wait [mpilift-split-recv]
    // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the wait is placed here: after the loop (its requests are completed where the loop touches the buffer again)
  }
  printf("rank %d: %.4f %.1f\n", rank, acc, in[5]);
  MPI_Finalize();
  return 0;
}
// CHECK-FIXES: MPI_Request send_requests[64];
// CHECK-FIXES-NEXT: unsigned send_requests_posted = 0, send_requests_done = 0;
// CHECK-FIXES-NEXT: MPI_Request recv_requests[64];
// CHECK-FIXES-NEXT: unsigned recv_requests_posted = 0, recv_requests_done = 0;
// CHECK-FIXES-NEXT: for (int it = 0; it < 6; it++) {
// CHECK-FIXES-NEXT: while (recv_requests_done < recv_requests_posted) {
// CHECK-FIXES-NEXT: MPI_Wait(&recv_requests[recv_requests_done % 64], MPI_STATUS_IGNORE);
// CHECK-FIXES-NEXT: recv_requests_done++;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: acc += in[it % 64];
// CHECK-FIXES-NEXT: while (send_requests_done < send_requests_posted) {
// CHECK-FIXES-NEXT: MPI_Wait(&send_requests[send_requests_done % 64], MPI_STATUS_IGNORE);
// CHECK-FIXES-NEXT: send_requests_done++;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: for (int k = 0; k < 64; k++)
// CHECK-FIXES: MPI_Isend(row, 64, MPI_DOUBLE, right, it, MPI_COMM_WORLD,
// CHECK-FIXES: send_requests_posted++;
// CHECK-FIXES: MPI_Irecv(in, 64, MPI_DOUBLE, left, it, MPI_COMM_WORLD,
// CHECK-FIXES: recv_requests_posted++;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES: while (send_requests_done < send_requests_posted) {
// CHECK-FIXES: while (recv_requests_done < recv_requests_posted) {
// CHECK-FIXES: printf(
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
