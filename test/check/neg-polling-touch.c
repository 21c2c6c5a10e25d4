// The polling loop reads the panel while it may still be on its way: a
// nonblocking broadcast would be writing into it.
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
    // CHECK: :[[@LINE-2]]:5: warning: polling chain {{.*}}not rewritten: message-integrity refused [mpilift-manual-bcast]
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
    acc += panel[3];
    // CHECK: :[[@LINE-1]]:5: note: message-integrity: the broadcast writes into 'panel' while this loop polls it, and this statement uses 'panel'
    poll_panel(panel, 4, MPI_COMM_WORLD, &done);
  }
  printf("rank %d: %.1f %.1f\n", rank, panel[3], acc > 0 ? 1.0 : 0.0);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
