// Issue 14: a pipelined chain broadcast, as codes that move large arrays
// write it: the buffer travels down the chain in segments, each rank
// forwarding segment k while the next one is still coming. Helpers for the
// neighbours live in a struct; error codes are kept.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define TOTAL 24
#define SEG 8
#define NSEG (TOTAL / SEG)

struct chain {
  int rank;
  int size;
  int prev;
  int next;
};

int main(int argc, char **argv) {
  struct chain c;
  long data[TOTAL];
  int ierr;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  c.prev = c.rank - 1;
  c.next = c.rank + 1;
  for (int i = 0; i < TOTAL; i++)
    data[i] = c.rank == 0 ? 1000L * i + 7 : -1;
  for (int s = 0; s < NSEG; s++) {
    if (c.rank > 0)
      ierr = MPI_Recv(&data[s * SEG], SEG, MPI_LONG, c.prev, 5, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
    if (c.next < c.size)
      ierr = MPI_Send(&data[s * SEG], SEG, MPI_LONG, c.next, 5, MPI_COMM_WORLD);
  }
  // CHECK-MESSAGES: :[[@LINE-7]]:3: warning: {{.*}}implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  // CHECK-FIXES: ierr = MPI_Bcast(data, TOTAL, MPI_LONG, 0, MPI_COMM_WORLD);
  long sum = 0;
  for (int i = 0; i < TOTAL; i++)
    sum += data[i] * (i + 1);
  printf("rank %d sum %ld first %ld last %ld\n", c.rank, sum, data[0],
         data[TOTAL - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
