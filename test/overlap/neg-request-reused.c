// The request is used again right after its wait, for the next send: the
// wait must complete the first send before the request is reused, so it
// stays. A request reached through a pointer is not followed at all.
// RUN: %check-rewrite refuse %s %t --check-args="--checks=mpilift-sink-wait" | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

struct exchange {
  MPI_Request req;
  int value;
};

int main(int argc, char **argv) {
  int rank, size, a = 1, b = 2, in[3];
  struct exchange x;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Isend(&a, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-1]]:3: remark: MPI_Wait: nothing to overlap [mpilift-sink-wait]
  MPI_Isend(&b, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &r);
  // CHECK: :[[@LINE-1]]:3: note: the wait cannot move: this statement uses 'r'
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-1]]:3: remark: MPI_Wait: nothing to overlap [mpilift-sink-wait]
  b = 3;
  // CHECK: :[[@LINE-1]]:3: note: the wait cannot move: this statement may write 'b'
  struct exchange *px = &x;
  x.value = rank + b;
  MPI_Isend(&x.value, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &px->req);
  MPI_Wait(&px->req, MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-1]]:3: remark: MPI_Wait: nothing to overlap [mpilift-sink-wait]
  // CHECK: :[[@LINE-2]]:12: note: the request is reached through a pointer or a nested field, which the matching does not follow
  MPI_Recv(&in[0], 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(&in[1], 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(&in[2], 1, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d: %d %d %d\n", rank, in[0], in[1], in[2]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
