// Issue 15: MPI_Reduce to a root followed by MPI_Bcast of the result from
// that root is MPI_Allreduce. Here in a helper, on the communicators of
// MPI_Comm_split, with error codes kept, a statement between that does not
// touch the result, a max over an array, and the root reducing in place.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define NSTATS 3
#define ROOT 0

struct team {
  MPI_Comm comm;
  int rank, size;
};

static long count_local(int rank) { return 10 * rank + 7; }

static int summarize(const struct team *t, long stats[NSTATS]) {
  long mine[NSTATS], worst[NSTATS];
  int ierr, k;
  for (k = 0; k < NSTATS; k++)
    mine[k] = count_local(t->rank) + k;
  ierr = MPI_Reduce(mine, stats, NSTATS, MPI_LONG, MPI_SUM, ROOT, t->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  k = NSTATS;
  ierr = MPI_Bcast(stats, NSTATS, MPI_LONG, ROOT, t->comm);
  // CHECK-FIXES: ierr = MPI_Allreduce(mine, stats, NSTATS, MPI_LONG, MPI_SUM, t->comm);
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: k = NSTATS;
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: for (k = 0; k < NSTATS; k++)
  for (k = 0; k < NSTATS; k++)
    worst[k] = mine[k] * (t->rank % 2 ? -1 : 1);
  MPI_Reduce(t->rank == ROOT ? MPI_IN_PLACE : worst, worst, NSTATS, MPI_LONG,
             MPI_MAX, ROOT, t->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  MPI_Bcast(worst, NSTATS, MPI_LONG, ROOT, t->comm);
  // CHECK-FIXES: MPI_Allreduce(MPI_IN_PLACE, worst, NSTATS, MPI_LONG, MPI_MAX, t->comm);
  // CHECK-FIXES-NOT: MPI_Bcast(worst
  for (k = 0; k < NSTATS; k++)
    stats[k] += worst[k];
  return ierr;
}

int main(int argc, char **argv) {
  int world;
  struct team t;
  long stats[NSTATS];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_split(MPI_COMM_WORLD, world % 3, world, &t.comm);
  MPI_Comm_rank(t.comm, &t.rank);
  MPI_Comm_size(t.comm, &t.size);
  int ierr = summarize(&t, stats);
  printf("world %d team %d/%d: %ld %ld %ld (%d)\n", world, t.rank, t.size,
         stats[0], stats[1], stats[2], ierr);
  MPI_Comm_free(&t.comm);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
