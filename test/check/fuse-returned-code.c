// Issue 19, part 1: collective sequences in helpers that return the
// second call's code (`return MPI_Bcast(...);`). The fused call takes the
// first call's place, and the function returns its code: from the variable
// the first call's statement declares or assigns, or from one that
// statement now declares when the first call's code was dropped.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
//
// Refused: the first call accumulating its code (the function returned
// the broadcast's alone), by source-form; a correction of the reduced
// value on the root between the two, by message-integrity.
// RUN: %check-rewrite refuse %s %t.acc --cflags=-DACCUMULATED | FileCheck %s --check-prefix=ACC --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.fix --cflags=-DROOT_CORRECTION | FileCheck %s --check-prefix=FIX --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define ROOT 0
#define NBLOCK 2

struct solver {
  MPI_Comm comm;
  int rank, size;
};

#if defined(ACCUMULATED) || defined(ROOT_CORRECTION)
#define REFUSED_FORMS
#endif

static int global_sum(const struct solver *s, int local, int *sum) {
#ifdef ACCUMULATED
  int ierr = MPI_SUCCESS;
  ierr |= MPI_Reduce(&local, sum, 1, MPI_INT, MPI_SUM, ROOT, s->comm);
  // ACC: :[[@LINE-1]]:11: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: source-form refused [mpilift-fuse-collectives]
  // ACC: :[[@LINE+1]]:10: note: source-form: the function returns MPI_Bcast's code, and 'ierr' accumulates MPI_Reduce's; the fused call's code can go only one way
  return MPI_Bcast(sum, 1, MPI_INT, ROOT, s->comm);
#else
  int ierr = MPI_Reduce(&local, sum, 1, MPI_INT, MPI_SUM, ROOT, s->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  // FIX: :[[@LINE-2]]:14: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  if (ierr != MPI_SUCCESS)
    return ierr;
#ifdef ROOT_CORRECTION
  // FIX: :[[@LINE+1]]:3: note: message-integrity: this statement uses 'sum' between MPI_Reduce and MPI_Bcast, where only the root holds the reduced value; after MPI_Allreduce every rank would
  if (s->rank == ROOT)
    *sum -= 1;
#endif
  return MPI_Bcast(sum, 1, MPI_INT, ROOT, s->comm);
#endif
}
// CHECK-FIXES-LABEL: static int global_sum(
// CHECK-FIXES: int ierr = MPI_Allreduce(&local, sum, 1, MPI_INT, MPI_SUM, s->comm);
// CHECK-FIXES: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES: return ierr;
// CHECK-FIXES-NEXT: #endif
// CHECK-FIXES-NEXT: }

#ifndef REFUSED_FORMS
static int global_max(const struct solver *s, int local, int *max) {
  MPI_Reduce(&local, max, 1, MPI_INT, MPI_MAX, ROOT, s->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
  return MPI_Bcast(max, 1, MPI_INT, ROOT, s->comm);
}
// CHECK-FIXES-LABEL: static int global_max(
// CHECK-FIXES-NEXT: int rc2 = MPI_Allreduce(&local, max, 1, MPI_INT, MPI_MAX, s->comm);
// CHECK-FIXES: return rc2;
// CHECK-FIXES-NEXT: }

static int all_blocks(const struct solver *s, const long mine[NBLOCK],
                      long *all) {
  int ierr;
  ierr = MPI_Gather(mine, NBLOCK, MPI_LONG, all, NBLOCK, MPI_LONG, ROOT,
                    s->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: MPI_Gather followed by MPI_Bcast of the gathered buffer from the same root; replace them with MPI_Allgather [mpilift-fuse-collectives]
  if (ierr != MPI_SUCCESS)
    return ierr;
  return MPI_Bcast(all, NBLOCK * s->size, MPI_LONG, ROOT, s->comm);
}
// CHECK-FIXES-LABEL: static int all_blocks(
// CHECK-FIXES: ierr = MPI_Allgather(mine, NBLOCK, MPI_LONG, all, NBLOCK, MPI_LONG, s->comm);
// CHECK-FIXES: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: }
#endif

int main(int argc, char **argv) {
  struct solver s;
  int sum = -1, max = -1, rc = 0;
  long mine[NBLOCK], all[NBLOCK * 8] = {0};
  MPI_Init(&argc, &argv);
  s.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(s.comm, &s.rank);
  MPI_Comm_size(s.comm, &s.size);
  rc = global_sum(&s, 3 * s.rank + 1, &sum);
#ifndef REFUSED_FORMS
  rc += global_max(&s, (7 * s.rank) % 5, &max);
  mine[0] = s.rank;
  mine[1] = 10 * s.rank;
  if (s.size <= 8)
    rc += all_blocks(&s, mine, all);
#endif
  printf("%d: codes %d sum %d max %d blocks %ld %ld\n", s.rank, rc, sum, max,
         all[1], s.size <= 8 ? all[NBLOCK * s.size - 1] : -1L);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
