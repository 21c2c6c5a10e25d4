// Issue 14: a scatter whose root allocates and fills the whole array inside
// its branch and copies its own block with memcpy beside the loop; the
// error codes go to one variable. The root's call takes the array only
// where the allocation has happened, with its own block in place.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4
#define TAG_WORK 12

struct world {
  int me;
  int np;
};

int main(int argc, char **argv) {
  struct world w;
  double mine[CHUNK];
  double *all = NULL;
  int ierr = MPI_SUCCESS;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &w.me);
  MPI_Comm_size(MPI_COMM_WORLD, &w.np);
  if (w.me == 0) {
    all = malloc(sizeof(double) * CHUNK * w.np);
    for (int k = 0; k < CHUNK * w.np; k++)
      all[k] = k * 0.25;
    memcpy(mine, all, CHUNK * sizeof(double));
    for (int dest = 1; dest < w.np; dest++)
      ierr = MPI_Send(all + dest * CHUNK, CHUNK, MPI_DOUBLE, dest, TAG_WORK,
                      MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point sends implements a scatter (static analysis and the trace); replace it with MPI_Scatter [mpilift-manual-scatter]
  } else {
    ierr = MPI_Recv(mine, CHUNK, MPI_DOUBLE, 0, TAG_WORK, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: memcpy(mine, all, CHUNK * sizeof(double));
  // CHECK-FIXES-NEXT: ierr = MPI_Scatter(all, CHUNK, MPI_DOUBLE, MPI_IN_PLACE, CHUNK, MPI_DOUBLE,
  // CHECK-FIXES-NEXT: 0, MPI_COMM_WORLD);
  // CHECK-FIXES: } else {
  // CHECK-FIXES-NEXT: ierr = MPI_Scatter(NULL, 0, MPI_DOUBLE, mine, CHUNK, MPI_DOUBLE, 0,
  // CHECK-FIXES-NEXT: MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: }
  double sum = 0;
  for (int k = 0; k < CHUNK; k++)
    sum += mine[k];
  printf("rank %d sum %.2f (%d)\n", w.me, sum, ierr);
  free(all);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
