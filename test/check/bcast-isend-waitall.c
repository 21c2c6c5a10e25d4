// Issue 14: the root posts a nonblocking send per peer into a request array
// it allocates, and waits for them all; the others post a receive and wait.
// The requests, their count and the waits go; the array's allocation
// stays (removing it is no part of replacing the messages).
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 8
#define FIELD_TAG 9

int main(int argc, char **argv) {
  int rank, size;
  float field[COUNT];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < COUNT; k++)
    field[k] = rank == 0 ? k * 2.0f : 0.0f;
  if (rank == 0) {
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * size);
    int nreq = 0;
    for (int p = 1; p < size; p++)
      MPI_Isend(field, COUNT, MPI_FLOAT, p, FIELD_TAG, MPI_COMM_WORLD,
                &reqs[nreq++]);
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
  } else {
    MPI_Request req;
    MPI_Irecv(field, COUNT, MPI_FLOAT, 0, FIELD_TAG, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: field[k] = rank == 0 ? k * 2.0f : 0.0f;
  // CHECK-FIXES-NEXT: MPI_Bcast(field, COUNT, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: if (rank == 0) {
  // CHECK-FIXES-NEXT: MPI_Request *reqs = malloc(sizeof(MPI_Request) * size);
  // CHECK-FIXES: free(reqs);
  // CHECK-FIXES-NEXT: }
  // CHECK-FIXES-NOT: MPI_Request req;
  printf("rank %d: %.1f %.1f\n", rank, field[1], field[COUNT - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
