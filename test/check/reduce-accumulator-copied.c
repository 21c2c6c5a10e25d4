// A reduction written by hand into a local accumulator, its total copied
// out through a pointer after the loop (`*total = acc;`), the way helpers
// return results; error codes accumulated (`rc |= MPI_Recv(...)`). The
// copy goes with the loop: MPI_Reduce leaves the result in `*total`
// itself (before, the copy stayed and overwrote it with the root's own
// value; neg-reduce-accumulator-copied.c keeps the cases that still
// read the accumulator). Also a maximum, each code checked.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include "stats.h"

void stats_init(stats_t *s, MPI_Comm comm) {
  s->comm = comm;
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->size);
}

int stats_total(const stats_t *s, long mine, long *total) {
  int rc = MPI_SUCCESS;
  if (s->rank == STATS_ROOT) {
    long acc = mine;
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (int src = 0; src < s->size; ++src) {
      long part;
      if (src == STATS_ROOT)
        continue;
      rc |= MPI_Recv(&part, 1, MPI_LONG, src, STATS_TAG, s->comm,
                     MPI_STATUS_IGNORE);
      acc += part;
    }
    *total = acc;
  } else {
    rc |= MPI_Send(&mine, 1, MPI_LONG, STATS_ROOT, STATS_TAG, s->comm);
  }
  // CHECK-FIXES: rc |= MPI_Reduce(&mine, total, 1, MPI_LONG, MPI_SUM, STATS_ROOT, s->comm);
  // CHECK-FIXES-NOT: acc
  return rc;
}

int stats_max(const stats_t *s, int mine, int *top) {
  int rc = MPI_SUCCESS;
  if (s->rank == STATS_ROOT) {
    int best = mine;
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (int src = 1; src < s->size; ++src) {
      int part;
      rc = MPI_Recv(&part, 1, MPI_INT, src, STATS_TAG, s->comm,
                    MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return rc;
      if (part > best)
        best = part;
    }
    *top = best;
  } else {
    rc = MPI_Send(&mine, 1, MPI_INT, STATS_ROOT, STATS_TAG, s->comm);
  }
  // CHECK-FIXES: rc = MPI_Reduce(&mine, top, 1, MPI_INT, MPI_MAX, STATS_ROOT, s->comm);
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
int stats_max(const stats_t *s, int mine, int *top);

//--- main.c
#include "stats.h"

#include <stdio.h>

int main(int argc, char **argv) {
  stats_t s;
  long total = -1;
  int top = -1;
  MPI_Init(&argc, &argv);
  stats_init(&s, MPI_COMM_WORLD);
  if (stats_total(&s, 10L * s.rank + 3, &total) != MPI_SUCCESS ||
      stats_max(&s, (s.rank * 7) % 5, &top) != MPI_SUCCESS)
    MPI_Abort(s.comm, 1);
  printf("rank %d total %ld top %d\n", s.rank, total, top);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
