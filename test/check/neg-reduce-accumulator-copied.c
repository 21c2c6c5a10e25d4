// A reduction written by hand into a local accumulator whose total is then
// copied out through a pointer (`*total = acc;`), the way helpers return
// results, and then read once more (a printf). mpilift used to rewrite the receive loop into
// `MPI_Reduce(&mine, total, ...)` and keep `long acc = mine;` and every
// statement after the loop, so the root's total was its own value: a false
// rewrite. Now the copy to where the collective leaves its result goes with
// the loop (reduce-accumulator-copied.c), and any other statement that
// stays and reads the accumulator, which without the combines holds only
// the root's own value, is refused by message-integrity, naming it.
// clang-format off
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
// clang-format on
#include "stats.h"

#include <stdio.h>

void stats_init(stats_t *s, MPI_Comm comm) {
  s->comm = comm;
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->size);
}

int stats_total(const stats_t *s, long mine, long *total) {
  int rc = MPI_SUCCESS;
  if (s->rank == STATS_ROOT) {
    long acc = mine;
    // CHECK: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: message-integrity refused [mpilift-manual-reduce]
    for (int src = 0; src < s->size; ++src) {
      long part;
      if (src == STATS_ROOT)
        continue;
      rc |= MPI_Recv(&part, 1, MPI_LONG, src, STATS_TAG, s->comm,
                     MPI_STATUS_IGNORE);
      acc += part;
    }
    *total = acc;
    // CHECK: prog.c:[[#@LINE+1]]:5: note: message-integrity: this statement stays and reads 'acc', which holds the combined value only in the hand-written code: the collective call leaves the result elsewhere, and 'acc' would keep what it held before
    printf("total of the parts %ld\n", acc);
  } else {
    rc |= MPI_Send(&mine, 1, MPI_LONG, STATS_ROOT, STATS_TAG, s->comm);
  }
  return rc;
}

int stats_max(const stats_t *s, long mine, long *top) {
  int rc = MPI_SUCCESS;
  if (s->rank == STATS_ROOT) {
    long best = mine;
    // CHECK: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: message-integrity refused [mpilift-manual-reduce]
    for (int src = 1; src < s->size; ++src) {
      long part;
      rc = MPI_Recv(&part, 1, MPI_LONG, src, STATS_TAG, s->comm,
                    MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return rc;
      if (part > best)
        best = part;
    }
    // CHECK: prog.c:[[#@LINE+1]]:5: note: message-integrity: this statement stays and reads 'best', which holds the combined value only in the hand-written code: the collective call leaves the result elsewhere, and 'best' would keep what it held before
    printf("largest part %ld\n", best);
    *top = best;
  } else {
    rc = MPI_Send(&mine, 1, MPI_LONG, STATS_ROOT, STATS_TAG, s->comm);
  }
  return rc;
}

//--- stats.h
#include <mpi.h>

#define STATS_ROOT 0
#define STATS_TAG 41


typedef struct {
  int rank, size;
  MPI_Comm comm;
} stats_t;

void stats_init(stats_t *s, MPI_Comm comm);
int stats_total(const stats_t *s, long mine, long *total);
int stats_max(const stats_t *s, long mine, long *top);

//--- main.c
#include "stats.h"

#include <stdio.h>

int main(int argc, char **argv) {
  stats_t s;
  long total = -1, top = -1;
  MPI_Init(&argc, &argv);
  stats_init(&s, MPI_COMM_WORLD);
  if (stats_total(&s, 10L * s.rank + 3, &total) != MPI_SUCCESS ||
      stats_max(&s, (s.rank * 7) % 5, &top) != MPI_SUCCESS)
    MPI_Abort(s.comm, 1);
  printf("rank %d total %ld top %ld\n", s.rank, total, top);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
