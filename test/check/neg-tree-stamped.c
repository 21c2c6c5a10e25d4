// The tree of bcast-tree-formatted.c, but every hop stamps the label with
// its own rank (snprintf into the received buffer) before forwarding it:
// the ranks do not all end with the root's data, so this is no broadcast.
// snprintf is a write the evaluator follows, not a harmless call.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
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
  while (mask < w->nprocs) {
    // CHECK: :[[@LINE-1]]:3: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: message-integrity refused [mpilift-manual-bcast]
    if (rel & mask) {
      int src = (rel - mask + root) % w->nprocs;
      ierr = MPI_Recv(label, MSG_LEN, MPI_CHAR, src, TAG_NOTE, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      /* Each hop stamps the label with its own rank before forwarding. */
      snprintf(label + MSG_LEN / 2, MSG_LEN / 2, "via %d", w->rank);
      // CHECK: :[[@LINE-1]]:7: note: message-integrity: this statement changes what 'label' points to after it was received and before it is sent again, so the messages do not all carry the same data
      break;
    }
    mask <<= 1;
  }
  /* The root finds no parent: it writes the label the others receive. */
  if (rel == 0)
    snprintf(label, MSG_LEN, "step %d from rank %d", step, w->rank);
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
// CHECK: check-rewrite: unchanged
