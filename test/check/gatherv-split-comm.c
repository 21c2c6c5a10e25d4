// Issue 14: a gather whose blocks differ in size, on a communicator from
// MPI_Comm_split, to the last rank of it. Each rank produces
// rows_of(rank) results; every rank computes the counts and displacements
// with a helper in arrays it allocates; the root copies its own block with
// an element loop and receives the others' in rank order; error codes are
// kept. The rewrite is MPI_Gatherv with the program's arrays, the root's
// block in place.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// The nonblocking form: MPI_Igatherv, waited for where the root reads 'all'.
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NBFIX < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_RESULT 21

typedef struct {
  MPI_Comm comm;
  int rank;
  int nprocs;
} group_t;

static int rows_of(int rank) { return 2 + rank % 3; }

static int plan(int nprocs, int *counts, int *displs) {
  int total = 0;
  for (int p = 0; p < nprocs; ++p) {
    counts[p] = rows_of(p);
    displs[p] = total;
    total += counts[p];
  }
  return total;
}

int main(int argc, char **argv) {
  int world, ierr = MPI_SUCCESS;
  group_t g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_split(MPI_COMM_WORLD, world % 2, world, &g.comm);
  MPI_Comm_rank(g.comm, &g.rank);
  MPI_Comm_size(g.comm, &g.nprocs);
  int *counts = malloc(g.nprocs * sizeof(int));
  int *displs = malloc(g.nprocs * sizeof(int));
  int total = plan(g.nprocs, counts, displs);
  int root = g.nprocs - 1;
  int mine[8];
  for (int k = 0; k < rows_of(g.rank); ++k)
    mine[k] = 100 * world + k;
  int *all = malloc(total * sizeof(int));
  if (g.rank == root) {
    for (int k = 0; k < counts[root]; ++k)
      all[displs[root] + k] = mine[k];
    for (int src = 0; src < root; ++src) {
      ierr = MPI_Recv(all + displs[src], counts[src], MPI_INT, src,
                      TAG_RESULT, g.comm, MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        break;
    }
    // CHECK-MESSAGES: :[[@LINE-6]]:5: warning: loop of point-to-point receives implements a gather (static analysis); replace it with MPI_Gatherv [mpilift-manual-gather]
    // CHECK-NB: :[[@LINE-7]]:5: warning: loop of point-to-point receives implements a gather (static analysis); replace it with MPI_Igatherv [mpilift-manual-gather]
  } else {
    ierr = MPI_Send(mine, rows_of(g.rank), MPI_INT, root, TAG_RESULT, g.comm);
  }
  // CHECK-FIXES: all[displs[root] + k] = mine[k];
  // CHECK-FIXES-NEXT: ierr = MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT,
  // CHECK-FIXES-NEXT: root, g.comm);
  // CHECK-FIXES: } else {
  // CHECK-FIXES-NEXT: ierr = MPI_Gatherv(mine, rows_of(g.rank), MPI_INT, NULL, NULL, NULL,
  // CHECK-FIXES-NEXT: MPI_INT, root, g.comm);
  // CHECK-FIXES-NEXT: }
  if (g.rank == root) {
    long sum = 0;
    for (int k = 0; k < total; ++k)
      sum += all[k];
    printf("group %d: %d results, sum %ld (%d)\n", world % 2, total, sum,
           ierr);
  }
  free(all);
  free(counts);
  free(displs);
  MPI_Comm_free(&g.comm);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: note: the wait is placed here
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NBFIX: MPI_Igatherv(MPI_IN_PLACE, 0, MPI_INT, all, counts, displs, MPI_INT,
// CHECK-NBFIX: MPI_Igatherv(mine, rows_of(g.rank), MPI_INT, NULL, NULL, NULL,
// CHECK-NBFIX: MPI_Wait(&gather_request, MPI_STATUS_IGNORE);
