// Issue 19, part 1: collective sequences whose calls check their codes in
// place, the way codes that test every call write them: `if
// (MPI_Reduce(...) != MPI_SUCCESS) return -1;` then the broadcast checked
// alike, also with the code assigned in the condition and a block of
// statements as the branch, and a first call checked while the second's
// code is dropped. The fused call is checked the way the first call was;
// the second call's check goes with it.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
//
// Refused by source-form: checks that differ in more than the call, a
// second call checked while the first's code is dropped, a first call
// checked while the function returns the second's.
// RUN: %check-rewrite refuse %s %t.diff --cflags=-DDIFFERENT_BRANCHES | FileCheck %s --check-prefix=DIFF --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.second --cflags=-DSECOND_ONLY | FileCheck %s --check-prefix=SECOND --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.ret --cflags=-DRETURNED | FileCheck %s --check-prefix=RET --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define ROOT 0
#define NB 3

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

#if defined(DIFFERENT_BRANCHES) || defined(SECOND_ONLY) || defined(RETURNED)
#define REFUSED_FORMS
#endif

static int team_sum(const team_t *t, long mine, long *sum) {
#if defined(SECOND_ONLY)
  MPI_Reduce(&mine, sum, 1, MPI_LONG, MPI_SUM, ROOT, t->comm);
  // SECOND: :[[@LINE-1]]:3: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: source-form refused [mpilift-fuse-collectives]
  // SECOND: :[[@LINE+1]]:7: note: source-form: MPI_Bcast's code is checked in place and MPI_Reduce's is not; the fused call's code can go only one way
  if (MPI_Bcast(sum, 1, MPI_LONG, ROOT, t->comm) != MPI_SUCCESS)
    return -1;
#else
  if (MPI_Reduce(&mine, sum, 1, MPI_LONG, MPI_SUM, ROOT, t->comm) !=
      MPI_SUCCESS)
    // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
    // DIFF: :[[@LINE-3]]:7: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: source-form refused [mpilift-fuse-collectives]
    // RET: :[[@LINE-4]]:7: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: source-form refused [mpilift-fuse-collectives]
    return -1;
#if defined(RETURNED)
  // RET: :[[@LINE+1]]:10: note: source-form: the function returns MPI_Bcast's code, and MPI_Reduce's is checked in place; the fused call's code can go only one way
  return MPI_Bcast(sum, 1, MPI_LONG, ROOT, t->comm);
#elif defined(DIFFERENT_BRANCHES)
  // DIFF: :[[@LINE+1]]:7: note: source-form: the two calls' codes are checked in different ways; the fused call can be checked only one way
  if (MPI_Bcast(sum, 1, MPI_LONG, ROOT, t->comm) != MPI_SUCCESS)
    return -2;
#else
  if (MPI_Bcast(sum, 1, MPI_LONG, ROOT, t->comm) != MPI_SUCCESS)
    return -1;
#endif
#endif
  return 0;
}
// CHECK-FIXES-LABEL: static int team_sum(
// CHECK-FIXES: if (MPI_Allreduce(&mine, sum, 1, MPI_LONG, MPI_SUM, t->comm) != MPI_SUCCESS)
// CHECK-FIXES: return -2;
// CHECK-FIXES-NEXT: #else
// CHECK-FIXES-NEXT: #endif
// CHECK-FIXES-NEXT: #endif
// CHECK-FIXES-NEXT: return 0;

#ifndef REFUSED_FORMS
static int team_blocks(const team_t *t, const int mine[NB], int *all) {
  int rc;
  if ((rc = MPI_Gather(mine, NB, MPI_INT, all, NB, MPI_INT, ROOT,
                       t->comm)) != MPI_SUCCESS) {
    // CHECK-MESSAGES: :[[@LINE-2]]:13: warning: MPI_Gather followed by MPI_Bcast of the gathered buffer from the same root; replace them with MPI_Allgather [mpilift-fuse-collectives]
    fprintf(stderr, "rank %d: sharing the blocks failed\n", t->me);
    return rc;
  }
  if ((rc = MPI_Bcast(all, NB * t->np, MPI_INT, ROOT, t->comm)) !=
      MPI_SUCCESS) {
    fprintf(stderr, "rank %d: sharing the blocks failed\n", t->me);
    return rc;
  }
  return MPI_SUCCESS;
}
// CHECK-FIXES-LABEL: static int team_blocks(
// CHECK-FIXES: if ((rc = MPI_Allgather(mine, NB, MPI_INT, all, NB, MPI_INT, t->comm)) !=
// CHECK-FIXES-NEXT: MPI_SUCCESS) {
// CHECK-FIXES-NOT: MPI_Bcast
// CHECK-FIXES: return MPI_SUCCESS;

static void team_max(const team_t *t, int mine, int *max) {
  if (MPI_Reduce(&mine, max, 1, MPI_INT, MPI_MAX, ROOT, t->comm))
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
    MPI_Abort(t->comm, 3);
  MPI_Bcast(max, 1, MPI_INT, ROOT, t->comm);
}
// CHECK-FIXES-LABEL: static void team_max(
// CHECK-FIXES-NEXT: if (MPI_Allreduce(&mine, max, 1, MPI_INT, MPI_MAX, t->comm))
// CHECK-FIXES: MPI_Abort(t->comm, 3);
// CHECK-FIXES-NEXT: }
#endif

int main(int argc, char **argv) {
  team_t t;
  long sum = -1;
  int mine[NB], all[NB * 8] = {0}, max = -1, rc = 0;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  rc = team_sum(&t, 5L * t.me + 2, &sum);
#ifndef REFUSED_FORMS
  for (int i = 0; i < NB; i++)
    mine[i] = 100 * t.me + i;
  if (t.np <= 8)
    rc += team_blocks(&t, mine, all);
  team_max(&t, (3 * t.me) % 4, &max);
#endif
  printf("%d: %d sum %ld max %d blocks %d %d\n", t.me, rc, sum, max, all[1],
         t.np <= 8 ? all[NB * t.np - 1] : -1);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
