// Issue 15: workers report their counts to the coordinator, the last rank,
// which keeps the largest (`if (x > largest) largest = x;`). The
// communicator is a duplicate, rank and size live in a typedef'd structure,
// the root is a macro of it, error codes are kept. Rewritten to MPI_Reduce
// with MPI_MAX, blocking and nonblocking.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define TAG_COUNT 3
#define COORDINATOR(g) ((g)->size - 1)

typedef struct {
  MPI_Comm comm;
  int rank, size;
} grid_t;

static long work_done(int rank) { return (rank * 37 + 11) % 23; }

static void summarize(const grid_t *g) {
  long mine = work_done(g->rank), largest, incoming;
  int ierr = MPI_SUCCESS, p;
  if (g->rank != COORDINATOR(g)) {
    ierr = MPI_Send(&mine, 1, MPI_LONG, COORDINATOR(g), TAG_COUNT, g->comm);
  } else {
    largest = mine;
    for (p = 0; p < g->size - 1; p++) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
      // CHECK-NB: :[[@LINE-2]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Ireduce [mpilift-manual-reduce]
      ierr = MPI_Recv(&incoming, 1, MPI_LONG, p, TAG_COUNT, g->comm,
                      MPI_STATUS_IGNORE);
      if (incoming > largest)
        largest = incoming;
    }
    printf("coordinator %d: largest %ld (%d)\n", g->rank, largest, ierr);
  }
}
// CHECK-FIXES: long mine = work_done(g->rank), largest, incoming;
// CHECK-FIXES-NEXT: int ierr = MPI_SUCCESS, p;
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(&mine, &largest, 1, MPI_LONG, MPI_MAX, COORDINATOR(g),
// CHECK-FIXES-NEXT: g->comm);
// CHECK-FIXES-NEXT: if (g->rank != COORDINATOR(g)) {
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES: printf("coordinator %d: largest %ld (%d)\n", g->rank, largest, ierr);
// CHECK-NB-FIXES: MPI_Request reduction_request;
// CHECK-NB-FIXES-NEXT: ierr = MPI_Ireduce(&mine, &largest, 1, MPI_LONG, MPI_MAX,
// CHECK-NB-FIXES-NEXT: g->comm, &reduction_request);
// CHECK-NB-FIXES-NEXT: if (ierr == MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: ierr = MPI_Wait(&reduction_request, MPI_STATUS_IGNORE);
// CHECK-NB-FIXES-NEXT: if (g->rank != COORDINATOR(g)) {

int main(int argc, char **argv) {
  grid_t g;
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  MPI_Comm_rank(g.comm, &g.rank);
  MPI_Comm_size(g.comm, &g.size);
  summarize(&g);
  MPI_Comm_free(&g.comm);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
