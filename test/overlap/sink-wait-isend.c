// An MPI_Isend immediately followed by its MPI_Wait: the wait moves past the
// receive and the independent work to the first write of the buffer.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-sink-wait" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, out[64], in[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 64; k++)
    out[k] = rank * 100 + k;
  MPI_Request req;
  MPI_Isend(out, 64, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Wait can move past the next 3 statements [mpilift-sink-wait]
  MPI_Recv(in, 64, MPI_INT, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  long acc = 0;
  for (int i = 0; i < 100000; i++)
    acc += (long)i * (i % 7) + out[i % 64];
  out[0] = -1;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the wait is placed here: this statement may write 'out'
  // CHECK-FIXES: MPI_Isend(out, 64, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD, &req);
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: MPI_Recv(in, 64, MPI_INT, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
  // CHECK-FIXES: acc += (long)i * (i % 7) + out[i % 64];
  // CHECK-FIXES-NEXT: MPI_Wait(&req, MPI_STATUS_IGNORE);
  // CHECK-FIXES-NEXT: out[0] = -1;
  printf("rank %d: %ld %d %d\n", rank, acc, in[5], out[0]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
