// A sum collected on the coordinator, which starts from its own count plus
// a fixed offset (the entries every run reserves). The coordinator's own
// value is not its count alone: the rewrite must keep what it adds.
// Earlier versions took `total = counts->local + RESERVED` for a copy of
// the local count (its value unknown to the proof, the sum kept where the
// count was read from) and rewrote the loop to MPI_Reduce(&counts->local,
// ...) on every rank: the coordinator lost RESERVED. Now the coordinator
// reduces in place, after the statement that adds the offset.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define RESERVED 1000
#define TAG_COUNT 17
#define COORDINATOR 0

struct counts {
  long local;
  long total;
};

struct team {
  MPI_Comm comm;
  int rank, size;
};

static int count_entries(const struct team *t, struct counts *c) {
  int ierr = MPI_SUCCESS;
  long incoming;
  if (t->rank == COORDINATOR) {
    c->total = c->local + RESERVED;
    // CHECK-MESSAGES: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (int src = 1; src < t->size; ++src) {
      ierr = MPI_Recv(&incoming, 1, MPI_LONG, src, TAG_COUNT, t->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      c->total += incoming;
    }
  } else {
    ierr = MPI_Send(&c->local, 1, MPI_LONG, COORDINATOR, TAG_COUNT, t->comm);
  }
  return ierr;
}
// CHECK-FIXES: if (t->rank == COORDINATOR) {
// CHECK-FIXES-NEXT: c->total = c->local + RESERVED;
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, &c->total, 1, MPI_LONG, MPI_SUM,
// CHECK-FIXES-NEXT: COORDINATOR, t->comm);
// CHECK-FIXES: } else {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(&c->local, &c->total, 1, MPI_LONG, MPI_SUM, COORDINATOR,
// CHECK-FIXES-NEXT: t->comm);

int main(int argc, char **argv) {
  struct team t;
  struct counts c = {0, -1};
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.rank);
  MPI_Comm_size(t.comm, &t.size);
  c.local = 5 + 11 * t.rank % 7;
  int ierr = count_entries(&t, &c);
  if (t.rank == COORDINATOR)
    printf("%ld entries (%d)\n", c.total, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
