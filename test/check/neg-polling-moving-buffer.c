// Each probe names another part of the buffer: the first probe would
// start the broadcast into a block the original never receives into.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

static int poll_panel(double *buf, int n, MPI_Comm comm, int *done) {
  int me, np, go;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me == 0) {
    if (np > 1)
      MPI_Send(buf, n, MPI_DOUBLE, 1, 9, comm);
    // CHECK: :[[@LINE-2]]:5: warning: polling chain {{.*}}not rewritten: polling-loop refused [mpilift-manual-bcast]
    *done = 1;
  } else {
    MPI_Iprobe(me - 1, 9, comm, &go, MPI_STATUS_IGNORE);
    if (go) {
      MPI_Recv(buf, n, MPI_DOUBLE, me - 1, 9, comm, MPI_STATUS_IGNORE);
      if (me + 1 < np)
        MPI_Send(buf, n, MPI_DOUBLE, me + 1, 9, comm);
      *done = 1;
    } else {
      *done = 0;
    }
  }
  return *done;
}

int main(int argc, char **argv) {
  int rank;
  double panel[4] = {0, 0, 0, 0};
  double acc = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    panel[3] = 2.5;
  int done = 0;
  while (!done) {
    acc += 1;
    poll_panel(panel + (int)acc % 2, 2, MPI_COMM_WORLD, &done);
    // CHECK: :[[@LINE-1]]:5: note: polling-loop: the broadcast's argument 'buf' must be the same at every call from this loop, but 'acc' may change inside the loop
  }
  printf("rank %d: %.1f %.1f\n", rank, panel[3], acc > 0 ? 1.0 : 0.0);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
