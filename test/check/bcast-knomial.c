// Issue 14: a k-nomial tree broadcast (radix 3): a rank receives from the
// rank that clears its lowest nonzero base-3 digit, then sends to up to two
// children per level, highest level first. The radix is a macro.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define RADIX 3
#define NVAL 2

int main(int argc, char **argv) {
  int rank, size;
  double x[NVAL];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  x[0] = x[1] = rank == 0 ? 2.5 : -1.0;
  int step = 1;
  while (step < size) {
    if (rank % (step * RADIX) != 0) {
      MPI_Recv(x, NVAL, MPI_DOUBLE, rank - rank % (step * RADIX), 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      break;
    }
  // CHECK-MESSAGES: :[[@LINE-6]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  // CHECK-NB: :[[@LINE-7]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
  // CHECK-FIXES: MPI_Bcast(x, NVAL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  // CHECK-NB-FIXES: MPI_Ibcast(x, NVAL, MPI_DOUBLE, 0, MPI_COMM_WORLD, &bcast_request);
  // CHECK-NB-FIXES: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
    step *= RADIX;
  }
  step /= RADIX;
  while (step >= 1) {
    for (int j = 1; j < RADIX; j++) {
      int child = rank + j * step;
      if (child < size)
        MPI_Send(x, NVAL, MPI_DOUBLE, child, 0, MPI_COMM_WORLD);
    }
    step /= RADIX;
  }
  printf("%d: %g %g\n", rank, x[0], x[1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
