// Issue 14: a gather whose root posts an MPI_Irecv per rank into a malloc'd
// array and waits for all of them; the root copies its own block by a loop
// first. Error codes are kept.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define B 3
#define ROOT 0

int main(int argc, char **argv) {
  int rank, size, ierr;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine[B];
  for (int i = 0; i < B; i++)
    mine[i] = rank * 100 + i;
  int *all = malloc(sizeof(int) * B * size);
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * size);
  if (rank == ROOT) {
    for (int i = 0; i < B; i++)
      all[i] = mine[i];
    for (int p = 1; p < size; p++)
      ierr = MPI_Irecv(all + p * B, B, MPI_INT, p, 2, MPI_COMM_WORLD,
                       &reqs[p - 1]);
  // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point receives implements a gather (static analysis and the trace); replace it with MPI_Gather [mpilift-manual-gather]
  // CHECK-NB: :[[@LINE-4]]:5: warning: loop of point-to-point receives implements a gather (static analysis); replace it with MPI_Igather [mpilift-manual-gather]
  // CHECK-FIXES: ierr = MPI_Gather(MPI_IN_PLACE, B, MPI_INT, all, B, MPI_INT, ROOT,
  // CHECK-FIXES: ierr = MPI_Gather(mine, B, MPI_INT, NULL, 0, MPI_INT, ROOT, MPI_COMM_WORLD);
  // CHECK-NB-FIXES: ierr = MPI_Igather(MPI_IN_PLACE, B, MPI_INT, all, B, MPI_INT, ROOT,
  // CHECK-NB-FIXES: MPI_Wait(&gather_request, MPI_STATUS_IGNORE);
    ierr = MPI_Waitall(size - 1, reqs, MPI_STATUSES_IGNORE);
  } else {
    ierr = MPI_Send(mine, B, MPI_INT, ROOT, 2, MPI_COMM_WORLD);
  }
  if (rank == ROOT)
    for (int i = 0; i < B * size; i++)
      printf("%d\n", all[i]);
  free(all);
  free(reqs);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
