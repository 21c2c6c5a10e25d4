// Issue 14: a binomial broadcast from the last rank, numbered relative to
// it, whose root formats the message with snprintf first; rank and size in
// a struct, error codes kept, the length and tag behind macros.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MSG_LEN 32
#define TAG_NOTE 17

struct world {
  int rank, nprocs;
};

/* The last rank announces the run's label down a binomial tree numbered
   relative to it; it formats the label first. */
static int announce(char *label, const struct world *w, int step) {
  int root = w->nprocs - 1;
  int rel = (w->rank - root + w->nprocs) % w->nprocs;
  int ierr = MPI_SUCCESS;
  int mask = 1;
  if (rel == 0)
    snprintf(label, MSG_LEN, "step %d from rank %d", step, w->rank);
  while (mask < w->nprocs) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    if (rel & mask) {
      int src = (rel - mask + root) % w->nprocs;
      ierr = MPI_Recv(label, MSG_LEN, MPI_CHAR, src, TAG_NOTE, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < w->nprocs) {
      int dst = (rel + mask + root) % w->nprocs;
      ierr = MPI_Send(label, MSG_LEN, MPI_CHAR, dst, TAG_NOTE, MPI_COMM_WORLD);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
    mask >>= 1;
  }
  return ierr;
}
// CHECK-FIXES: snprintf(label, MSG_LEN, "step %d from rank %d", step, w->rank);
// CHECK-FIXES-NEXT: ierr = MPI_Bcast(label, MSG_LEN, MPI_CHAR, root, MPI_COMM_WORLD);
// CHECK-FIXES-NOT: MPI_Send

int main(int argc, char **argv) {
  struct world w;
  char label[MSG_LEN];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.nprocs);
  for (int step = 0; step < 3; step++) {
    memset(label, 0, sizeof label);
    if (announce(label, &w, step) != MPI_SUCCESS)
      MPI_Abort(MPI_COMM_WORLD, 1);
    printf("rank %d: %s\n", w.rank, label);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
