// Wait matching through structure fields: each request field of a local
// structure is its own request. The send's wait moves past the work; the
// structure is then used again, which stops it.
// RUN: %check-rewrite rewrite %s %t --np 2,3,4,8 --check-args="--checks=mpilift-sink-wait" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

struct halo {
  double out[8], in[8];
  MPI_Request send, recv;
};

static double work(int rank) {
  double s = 0;
  for (int i = 0; i < 300000; i++)
    s += ((i + rank) % 5) * 1e-6;
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  struct halo h;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 8; k++)
    h.out[k] = rank + k;
  MPI_Irecv(h.in, 8, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
            &h.recv);
  MPI_Isend(h.out, 8, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD,
            &h.send);
  MPI_Wait(&h.send, MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Wait can move past the next 2 statements [mpilift-sink-wait]
  // CHECK-MESSAGES: :[[@LINE+5]]:3: note: the wait is placed here: this statement may write 'h'
  double w = work(rank);
  double total = w * 2;
  // CHECK-FIXES: double total = w * 2;
  // CHECK-FIXES-NEXT: MPI_Wait(&h.send, MPI_STATUS_IGNORE);
  MPI_Wait(&h.recv, MPI_STATUS_IGNORE);
  printf("rank %d: %.3f %.1f\n", rank, total, h.in[3]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 2 3 4 8
