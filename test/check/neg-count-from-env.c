// Issue 14: the root reads the message length from the environment, the
// others receive a fixed maximum. The environment may differ between
// processes, so no one count can be given to MPI_Bcast. Refused.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXLEN 16

static int wanted_length(void) {
  const char *s = getenv("APP_MSG_LEN");
  int n = s ? atoi(s) : 8;
  return n > MAXLEN ? MAXLEN : n;
}

int main(int argc, char **argv) {
  int rank, size, ierr;
  int buf[MAXLEN];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < MAXLEN; i++)
    buf[i] = rank == 0 ? i * i : -1;
  if (rank == 0) {
    int n = wanted_length();
    for (int dest = 1; dest < size; dest++)
      ierr = MPI_Send(buf, n, MPI_INT, dest, 0, MPI_COMM_WORLD);
  } else {
    ierr = MPI_Recv(buf, MAXLEN, MPI_INT, 0, 0, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  // CHECK: :27:5: warning: {{.*}}implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
  // CHECK: :26:9: note: input-independence: 'n' is computed from what the evaluation cannot follow, and the region's messages depend on it (the region calls 'getenv', whose effects cannot be followed)
  for (int i = 0; i < MAXLEN; i++)
    printf("%d: %d\n", rank, buf[i]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
