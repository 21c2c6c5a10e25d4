// Issue 14: a pairwise-exchange all-to-all. In step s every rank sends to
// rank + s and receives from rank - s; the own block was copied before by
// an element loop. Partners live in helper variables the rewrite drops.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define MAXP 64
#define TAG_A2A 2

int main(int argc, char **argv) {
  int rank, size, ierr = MPI_SUCCESS;
  long out[MAXP], in[MAXP];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int p = 0; p < size; p++)
    out[p] = 100 * rank + p;
  in[rank] = out[rank];
  for (int s = 1; s < size; s++) {
    int to = (rank + s) % size;
    int from = (rank - s + size) % size;
    ierr = MPI_Sendrecv(&out[to], 1, MPI_LONG, to, TAG_A2A, &in[from], 1,
                        MPI_LONG, from, TAG_A2A, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE);
  }
  // CHECK-MESSAGES: :[[@LINE-7]]:3: warning: loop of point-to-point exchanges implements an alltoall (static analysis and the trace); replace it with MPI_Alltoall [mpilift-manual-alltoall]
  // CHECK-FIXES: in[rank] = out[rank];
  // CHECK-FIXES-NEXT: ierr = MPI_Alltoall(out, 1, MPI_LONG, in, 1, MPI_LONG, MPI_COMM_WORLD);
  for (int p = 0; p < size; p++)
    printf("rank %d from %d: %ld (%d)\n", rank, p, in[p], ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
