// Issue 14: a broadcast helper of n complex values sends 2 * n doubles,
// and a named constant of the same function (HIST, 6) has the value that
// count takes when the evaluation gives n its default value (3). The
// rewrite must use the count the calls use: the caller's n is 5, so a
// broadcast of HIST elements would send too little and the output would
// differ. The evaluation tries the count with a second value to tell
// them apart.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define HIST 6
#define TAG_Z 21

struct node {
  int id, count;
};

static void share_z(double *z, int n, const struct node *me) {
  int ierr = MPI_SUCCESS;
  double hist[HIST] = {0.0};
  if (me->id == 0) {
    for (int p = 1; p < me->count; p++)
      ierr = MPI_Send(z, 2 * n, MPI_DOUBLE, p, TAG_Z, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    ierr = MPI_Recv(z, 2 * n, MPI_DOUBLE, 0, TAG_Z, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(z, 2 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  for (int i = 0; i < HIST && i < 2 * n; i++)
    hist[i] = z[i];
  printf("%d: hist %g %g\n", me->id, hist[0], hist[HIST - 1]);
}

int main(int argc, char **argv) {
  struct node me;
  double z[10];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me.id);
  MPI_Comm_size(MPI_COMM_WORLD, &me.count);
  for (int i = 0; i < 10; i++)
    z[i] = me.id == 0 ? 1.25 * (i + 1) : -1.0;
  share_z(z, 5, &me);
  printf("%d: %g %g\n", me.id, z[0], z[9]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
