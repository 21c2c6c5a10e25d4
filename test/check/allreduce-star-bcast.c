// Issue 15: every rank needs the smallest time step any rank allows. The
// ranks send theirs to the root, which keeps the smallest (a ternary) and
// sends it back to each: a reduction followed by a broadcast of its result,
// both by hand, is one MPI_Allreduce with MPI_MIN.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define ROOT 0
#define TAG_DT 5
#define TAG_MIN 6

static int allowed_step(int rank) { return 40 - (rank * 7) % 13; }

int main(int argc, char **argv) {
  int rank, size, step, theirs, p, ierr = MPI_SUCCESS;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = allowed_step(rank);
  if (rank == ROOT) {
    step = mine;
    for (p = 0; p < size; p++) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: loop of point-to-point messages implements an allreduce (static analysis); replace it with MPI_Allreduce [mpilift-manual-allreduce]
      if (p == ROOT)
        continue;
      ierr = MPI_Recv(&theirs, 1, MPI_INT, p, TAG_DT, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
      step = theirs < step ? theirs : step;
    }
    for (p = 0; p < size; p++)
      if (p != ROOT)
        ierr = MPI_Send(&step, 1, MPI_INT, p, TAG_MIN, MPI_COMM_WORLD);
  } else {
    ierr = MPI_Send(&mine, 1, MPI_INT, ROOT, TAG_DT, MPI_COMM_WORLD);
    ierr = MPI_Recv(&step, 1, MPI_INT, ROOT, TAG_MIN, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: int mine = allowed_step(rank);
  // CHECK-FIXES-NEXT: ierr = MPI_Allreduce(&mine, &step, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: printf("rank %d: step %d (%d)\n", rank, step, ierr);
  printf("rank %d: step %d (%d)\n", rank, step, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
