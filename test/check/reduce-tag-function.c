// Each process counts what it saw in a table of statistics; a helper in
// another file (stats.c) adds the tables up on one process the way old codes
// do it: the root receives every other process's table into a scratch array
// and adds it in, element by element, in a loop bounded by the table's
// length. The root, the tag and the length are the helper's parameters, and
// the root is a field of a structure declared in the shared header that
// stats.c never reads. The length only bounds the loop that adds (it sizes
// the data combined, as a message's count does), so two inputs decide the
// control flow, and the star is proven an MPI_Reduce. With ALL_BUT_LAST the
// loop adds all but the last element received: the same, of n - 1 elements.
//
// Not rewritten:
// - with EVERY_OTHER, the loop adds every other element: scale-independence
//   refuses (MPI_Reduce combines contiguous elements);
// - with COUNTS_TOO, the adding loop also counts the entries it adds, so the
//   length decides more than the size of what is combined and the region's
//   control flow depends on three inputs, more than the judge evaluates. The
//   trace shows the calls as a reduction, so the finding says so and names
//   the inputs (a region refused before it formed anything used to be
//   reported by nothing at all, even with a trace).
// clang-format off
// RUN: %check-rewrite rewrite %s %t --all-units | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/stats.c
// RUN: %check-rewrite rewrite %s %t.last --all-units --cflags=-DALL_BUT_LAST | FileCheck %s --check-prefix=LAST --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=FIXES-LAST < %t.last/stats.c
// RUN: %check-rewrite refuse %s %t.other --all-units --trace --cflags=-DEVERY_OTHER | FileCheck %s --check-prefix=OTHER --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.counts --all-units --trace --cflags=-DCOUNTS_TOO | FileCheck %s --check-prefix=COUNTS --implicit-check-not=warning:
// clang-format on
// CHECK-MESSAGES: stats.c:90:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// LAST: stats.c:66:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// LAST: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES: if (rank == root) {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, vals, n, MPI_LONG, MPI_SUM, root, comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(vals, NULL, n, MPI_LONG, MPI_SUM, root, comm);
// FIXES-LAST: {{^#elif defined\(ALL_BUT_LAST\)$}}
// FIXES-LAST: ierr = MPI_Reduce(MPI_IN_PLACE, vals, n - 1, MPI_LONG, MPI_SUM, root, comm);
// OTHER: stats.c:42:5: warning: loop of point-to-point receives implements a reduction (static analysis and the trace); not rewritten: scale-independence refused [mpilift-manual-reduce]
// OTHER: stats.c:49:9: note: scale-independence: at 3 processes, process 0 holds more than one region of combined data
// OTHER: check-rewrite: unchanged
// COUNTS: stats.c:19:14: warning: point-to-point messages the trace shows as a reduction (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-reduce]
// COUNTS: stats.c:15:3: note: input-independence: the region's control flow depends on 3 inputs ('n', 'root', 'tag'); at most two are evaluated
// COUNTS: check-rewrite: unchanged
#include "stats.h"

#include <stdio.h>

#define TAG_STATS 4711

static void count_events(struct run *r) {
  for (int i = 0; i < STATS_LEN; i++)
    r->table[i] = (long)((r->rank + 1) * (i + 3)) % 11;
}

int main(int argc, char **argv) {
  struct run r;
  int ierr;
  MPI_Init(&argc, &argv);
  r.comm = MPI_COMM_WORLD;
  ierr = MPI_Comm_rank(r.comm, &r.rank);
  ierr = MPI_Comm_size(r.comm, &r.size);
  r.root = r.size - 1;
  count_events(&r);
  ierr = add_to_root(r.table, STATS_LEN, r.root, TAG_STATS, r.comm);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(r.comm, ierr);
  if (r.rank == r.root)
    for (int i = 0; i < STATS_LEN; i++)
      printf("stat %d: %ld\n", i, r.table[i]);
  MPI_Finalize();
  return 0;
}

//--- stats.h
#include <mpi.h>

#define STATS_LEN 6
#define STATS_MAX 64

struct run {
  int rank, size, root;
  MPI_Comm comm;
  long table[STATS_LEN];
};

int add_to_root(long *vals, int n, int root, int tag, MPI_Comm comm);

//--- stats.c
#include "stats.h"

/* Each variant is a function of its own: conditional code inside the
   pattern would keep it from being rewritten (source-form). */
#if defined(COUNTS_TOO)
int add_to_root(long *vals, int n, int root, int tag, MPI_Comm comm) {
  long part[STATS_MAX];
  int rank, size, p, i, ierr = MPI_SUCCESS;
  MPI_Status st;
  int added = 0;
  if (n <= 0 || n > STATS_MAX)
    return MPI_ERR_COUNT;
  ierr = MPI_Comm_rank(comm, &rank);
  ierr = MPI_Comm_size(comm, &size);
  if (rank == root) {
    for (p = 0; p < size; p++) {
      if (p == root)
        continue;
      ierr = MPI_Recv(part, n, MPI_LONG, p, tag, comm, &st);
      if (ierr != MPI_SUCCESS)
        return ierr;
      for (i = 0; i < n; i++) {
        vals[i] += part[i];
        added++;
      }
    }
  } else {
    ierr = MPI_Send(vals, n, MPI_LONG, root, tag, comm);
  }
  return ierr;
}
#elif defined(EVERY_OTHER)
int add_to_root(long *vals, int n, int root, int tag, MPI_Comm comm) {
  long part[STATS_MAX];
  int rank, size, p, i, ierr = MPI_SUCCESS;
  MPI_Status st;
  if (n <= 0 || n > STATS_MAX)
    return MPI_ERR_COUNT;
  ierr = MPI_Comm_rank(comm, &rank);
  ierr = MPI_Comm_size(comm, &size);
  if (rank == root) {
    for (p = 0; p < size; p++) {
      if (p == root)
        continue;
      ierr = MPI_Recv(part, n, MPI_LONG, p, tag, comm, &st);
      if (ierr != MPI_SUCCESS)
        return ierr;
      for (i = 0; i < n; i += 2)
        vals[i] += part[i];
    }
  } else {
    ierr = MPI_Send(vals, n, MPI_LONG, root, tag, comm);
  }
  return ierr;
}
#elif defined(ALL_BUT_LAST)
int add_to_root(long *vals, int n, int root, int tag, MPI_Comm comm) {
  long part[STATS_MAX];
  int rank, size, p, i, ierr = MPI_SUCCESS;
  MPI_Status st;
  if (n <= 0 || n > STATS_MAX)
    return MPI_ERR_COUNT;
  ierr = MPI_Comm_rank(comm, &rank);
  ierr = MPI_Comm_size(comm, &size);
  if (rank == root) {
    for (p = 0; p < size; p++) {
      if (p == root)
        continue;
      ierr = MPI_Recv(part, n, MPI_LONG, p, tag, comm, &st);
      if (ierr != MPI_SUCCESS)
        return ierr;
      for (i = 0; i < n - 1; i++)
        vals[i] += part[i];
    }
  } else {
    ierr = MPI_Send(vals, n, MPI_LONG, root, tag, comm);
  }
  return ierr;
}
#else
int add_to_root(long *vals, int n, int root, int tag, MPI_Comm comm) {
  long part[STATS_MAX];
  int rank, size, p, i, ierr = MPI_SUCCESS;
  MPI_Status st;
  if (n <= 0 || n > STATS_MAX)
    return MPI_ERR_COUNT;
  ierr = MPI_Comm_rank(comm, &rank);
  ierr = MPI_Comm_size(comm, &size);
  if (rank == root) {
    for (p = 0; p < size; p++) {
      if (p == root)
        continue;
      ierr = MPI_Recv(part, n, MPI_LONG, p, tag, comm, &st);
      if (ierr != MPI_SUCCESS)
        return ierr;
      for (i = 0; i < n; i++)
        vals[i] += part[i];
    }
  } else {
    ierr = MPI_Send(vals, n, MPI_LONG, root, tag, comm);
  }
  return ierr;
}
#endif
