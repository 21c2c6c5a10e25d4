// Issue 15: a hand-written reduction to rank 0 (error codes kept) before the
// program's own MPI_Bcast of the total. --fix rewrites the reduction to
// MPI_Reduce and, in the same run, fuses it with the broadcast into
// MPI_Allreduce; a second --fix changes nothing.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define TAG_PART 11

struct ctx {
  MPI_Comm comm;
  int rank, size;
};

static long part_of(int rank) { return 3L * rank + 1; }

int main(int argc, char **argv) {
  struct ctx c;
  int ierr = MPI_SUCCESS, src;
  long local, total, tmp;
  MPI_Init(&argc, &argv);
  c.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(c.comm, &c.rank);
  MPI_Comm_size(c.comm, &c.size);
  local = part_of(c.rank);
  if (c.rank != 0) {
    ierr = MPI_Send(&local, 1, MPI_LONG, 0, TAG_PART, c.comm);
  } else {
    total = local;
    for (src = 1; src < c.size; src++) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
      ierr = MPI_Recv(&tmp, 1, MPI_LONG, src, TAG_PART, c.comm,
                      MPI_STATUS_IGNORE);
      total += tmp;
    }
  }
  // CHECK-MESSAGES: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  ierr = MPI_Bcast(&total, 1, MPI_LONG, 0, c.comm);
  // CHECK-FIXES: local = part_of(c.rank);
  // CHECK-FIXES-NEXT: ierr = MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, c.comm);
  // CHECK-FIXES-NOT: MPI_Bcast
  printf("rank %d: total %ld (%d)\n", c.rank, total, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
