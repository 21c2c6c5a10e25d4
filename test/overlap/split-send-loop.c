// A send in a loop whose next iteration overwrites the buffer: the wait
// goes to the end of the loop body, past the receive and the work, and
// never into the next iteration. Progress polling tests the request in
// the loop the wait now crosses.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-split-send --progress-polling --poll-interval 16" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size;
  float row[512], in[512];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double acc = 0;
  for (int it = 0; it < 5; it++) {
    for (int k = 0; k < 512; k++)
      row[k] = rank + it * 0.5f + k;
    MPI_Send(row, 512, MPI_FLOAT, (rank + 1) % size, it, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: blocking MPI_Send can overlap the next 4 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
    // CHECK-MESSAGES: :[[@LINE+8]]:3: note: the wait is placed here: the end of the loop body (a wait stays in its loop)
    MPI_Recv(in, 512, MPI_FLOAT, (rank + size - 1) % size, it, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    double s = 0;
    for (int i = 0; i < 300000; i++) {
      s += (double)((i * 7 + it) % 11) * 1e-6;
    }
    acc += s + in[it] + row[3];
  }
  // CHECK-FIXES: MPI_Request send_request = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: unsigned send_request_polls = 0;
  // CHECK-FIXES-NEXT: MPI_Isend(row, 512, MPI_FLOAT, (rank + 1) % size, it, MPI_COMM_WORLD,
  // CHECK-FIXES-NEXT: &send_request);
  // CHECK-FIXES: for (int i = 0; i < 300000; i++) {
  // CHECK-FIXES-NEXT: if (++send_request_polls % 16 == 0) {
  // CHECK-FIXES-NEXT: int send_request_done;
  // CHECK-FIXES-NEXT: MPI_Test(&send_request, &send_request_done, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: }
  // CHECK-FIXES: acc += s + in[it] + row[3];
  // CHECK-FIXES-NEXT: MPI_Wait(&send_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: }
  printf("rank %d: %.3f\n", rank, acc);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
