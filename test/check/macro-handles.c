// Issue 19, part 3: datatypes and operations behind the program's own
// macros (`#define COUNT_T MPI_LONG`, `#define TOTAL_OP MPI_SUM`), as codes
// that switch between precisions or MPI implementations write them. The
// proofs read the MPI handle the macro stands for; the rewrites keep the
// spelling. A hand-written sum to the coordinator becomes MPI_Reduce, and
// the program's own MPI_Reduce then MPI_Bcast of the result, both spelled
// with the macros, becomes MPI_Allreduce.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define COUNT_T MPI_LONG
#define TOTAL_OP MPI_SUM
#define TAG_COUNT 41
#define COORDINATOR 0

typedef struct {
  MPI_Comm comm;
  int me, np;
} world_t;

static long coordinator_total(const world_t *w, long mine) {
  long total = mine, incoming;
  int ierr;
  if (w->me == COORDINATOR) {
    // CHECK-MESSAGES: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (int src = 1; src < w->np; ++src) {
      ierr = MPI_Recv(&incoming, 1, COUNT_T, src, TAG_COUNT, w->comm,
                      MPI_STATUS_IGNORE);
      total += incoming;
    }
  } else {
    ierr = MPI_Send(&mine, 1, COUNT_T, COORDINATOR, TAG_COUNT, w->comm);
  }
  (void)ierr;
  return total;
}
// CHECK-FIXES: ierr = MPI_Reduce(&mine, &total, 1, COUNT_T, MPI_SUM, COORDINATOR, w->comm);

static int shared_total(const world_t *w, long *mine, long *all) {
  int rc = MPI_Reduce(mine, all, 2, COUNT_T, TOTAL_OP, COORDINATOR, w->comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Bcast(all, 2, COUNT_T, COORDINATOR, w->comm);
  return rc;
}
// CHECK-MESSAGES: :[[@LINE-5]]:12: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
// CHECK-FIXES: int rc = MPI_Allreduce(mine, all, 2, COUNT_T, TOTAL_OP, w->comm);

int main(int argc, char **argv) {
  world_t w;
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.me);
  MPI_Comm_size(w.comm, &w.np);
  long mine[2] = {3 + 5 * w.me % 7, 100 - w.me}, all[2] = {0, 0};
  long total = coordinator_total(&w, mine[0]);
  int rc = shared_total(&w, mine, all);
  printf("rank %d: %ld %ld %ld (%d)\n", w.me, total, all[0], all[1], rc);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
