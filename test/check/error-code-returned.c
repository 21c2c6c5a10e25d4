// Issue 19, part 1: helpers that return their last call's error code, the
// way wrappers around MPI are written: the others' `return MPI_Recv(...)`
// beside the root's checked sends, a worker's `return MPI_Send(...)` to the
// rank that adds the counts up, a chain that returns the code of its
// forwarding send. The return stays and returns the collective's code: in
// the variable the other calls keep theirs in, or in one the rewrite
// declares when they keep none.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
//
// Refused by source-form: the root's codes accumulated (the returned code
// would then be the sum of the root's), checked in place, or its code
// variable also written by a size query in the pattern; a returned call
// spelled by a macro.
// RUN: %check-rewrite refuse %s %t.acc --cflags=-DACCUMULATED | FileCheck %s --check-prefix=ACC --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.inplace --cflags=-DCHECKED_IN_PLACE | FileCheck %s --check-prefix=INPLACE --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.size --cflags=-DSIZE_IN_PATTERN | FileCheck %s --check-prefix=SIZE --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.macro --cflags=-DRECV_MACRO | FileCheck %s --check-prefix=MACRO --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define NROW 4
#define TAG_ROW 11
#define TAG_SUM 12
#define TAG_PREFIX 13
#define RECV_ROW(t, row, from)                                                 \
  MPI_Recv(row, NROW, MPI_LONG, from, TAG_ROW, (t)->comm, MPI_STATUS_IGNORE)

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

#if defined(ACCUMULATED) || defined(CHECKED_IN_PLACE) ||                       \
    defined(SIZE_IN_PATTERN) || defined(RECV_MACRO)
#define REFUSED_FORMS
#endif

/* The root's row goes to every member; a member returns its receive's
   code, the root the first failure of its sends. Each variant is a
   function of its own: conditional code inside the pattern would keep it
   from being rewritten (source-form). */
#if defined(ACCUMULATED)
static int team_share_row(const team_t *t, long *row, int root) {
  int ierr = MPI_SUCCESS;
  if (t->me == root) {
    int np = t->np;
    // ACC: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 0; p < np; ++p) {
      if (p == root)
        continue;
      ierr |= MPI_Send(row, NROW, MPI_LONG, p, TAG_ROW, t->comm);
    }
    return ierr;
  }
  // ACC: :[[@LINE+1]]:10: note: source-form: the function returns this call's code, and the other calls accumulate theirs in 'ierr'; the collective call's code can go only one way
  return MPI_Recv(row, NROW, MPI_LONG, root, TAG_ROW, t->comm,
                  MPI_STATUS_IGNORE);
}
#elif defined(CHECKED_IN_PLACE)
static int team_share_row(const team_t *t, long *row, int root) {
  if (t->me == root) {
    int np = t->np;
    // INPLACE: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 0; p < np; ++p) {
      if (p == root)
        continue;
      // INPLACE: :[[@LINE+1]]:7: note: source-form: some calls of the pattern check their codes here and others return them; the collective call can do only one
      if (MPI_Send(row, NROW, MPI_LONG, p, TAG_ROW, t->comm) != MPI_SUCCESS)
        return -1;
    }
    return MPI_SUCCESS;
  }
  return MPI_Recv(row, NROW, MPI_LONG, root, TAG_ROW, t->comm,
                  MPI_STATUS_IGNORE);
}
#elif defined(SIZE_IN_PATTERN)
static int team_share_row(const team_t *t, long *row, int root) {
  int ierr = MPI_SUCCESS;
  if (t->me == root) {
    int np = t->np;
    ierr = MPI_Comm_size(t->comm, &np);
    // SIZE: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 0; p < np; ++p) {
      if (p == root)
        continue;
      ierr = MPI_Send(row, NROW, MPI_LONG, p, TAG_ROW, t->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
    return ierr;
  }
  // SIZE: :[[@LINE+1]]:10: note: source-form: the function returns this call's code, and 'ierr', where the other calls keep theirs, is written in the pattern by other statements too
  return MPI_Recv(row, NROW, MPI_LONG, root, TAG_ROW, t->comm,
                  MPI_STATUS_IGNORE);
}
#elif defined(RECV_MACRO)
static int team_share_row(const team_t *t, long *row, int root) {
  int ierr = MPI_SUCCESS;
  if (t->me == root) {
    int np = t->np;
    // MACRO: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 0; p < np; ++p) {
      if (p == root)
        continue;
      ierr = MPI_Send(row, NROW, MPI_LONG, p, TAG_ROW, t->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
    return ierr;
  }
  // MACRO: :[[@LINE+1]]:10: note: source-form: this call's code is returned from a macro's expansion; the collective's cannot take its place as written
  return RECV_ROW(t, row, root);
}
#else
static int team_share_row(const team_t *t, long *row, int root) {
  int ierr = MPI_SUCCESS;
  if (t->me == root) {
    int np = t->np;
    // CHECK-MESSAGES: :[[@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-NB: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    for (int p = 0; p < np; ++p) {
      if (p == root)
        continue;
      ierr = MPI_Send(row, NROW, MPI_LONG, p, TAG_ROW, t->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
    return ierr;
  }
  return MPI_Recv(row, NROW, MPI_LONG, root, TAG_ROW, t->comm,
                  MPI_STATUS_IGNORE);
}
#endif
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES-NEXT: static int team_share_row(
// CHECK-FIXES-NEXT: int ierr = MPI_SUCCESS;
// CHECK-FIXES-NEXT: ierr = MPI_Bcast(row, NROW, MPI_LONG, root, t->comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: if (t->me == root) {
// CHECK-FIXES-EMPTY:
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: }
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: }
// CHECK-NB-FIXES: {{^#else$}}
// CHECK-NB-FIXES-NEXT: static int team_share_row(
// CHECK-NB-FIXES: int ierr = MPI_SUCCESS;
// CHECK-NB-FIXES-NEXT: MPI_Request bcast_request;
// CHECK-NB-FIXES-NEXT: ierr = MPI_Ibcast(row, NROW, MPI_LONG, root, t->comm, &bcast_request);
// CHECK-NB-FIXES-NEXT: if (ierr == MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: ierr = MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
// CHECK-NB-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: return ierr;

#ifndef REFUSED_FORMS
/* Every member's count goes to rank 0, which adds them up; a member
   returns its send's code. */
static int team_total(const team_t *t, long mine, long *total) {
  if (t->me != 0)
    return MPI_Send(&mine, 1, MPI_LONG, 0, TAG_SUM, t->comm);
  *total = mine;
  for (int p = 1; p < t->np; ++p) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    // CHECK-NB: :[[@LINE-2]]:3: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Ireduce [mpilift-manual-reduce]
    long got;
    MPI_Recv(&got, 1, MPI_LONG, p, TAG_SUM, t->comm, MPI_STATUS_IGNORE);
    *total += got;
  }
  return MPI_SUCCESS;
}
// CHECK-FIXES-LABEL: static int team_total(
// CHECK-FIXES-NEXT: int rc3 = MPI_Reduce(&mine, total, 1, MPI_LONG, MPI_SUM, 0, t->comm);
// CHECK-FIXES-NEXT: if (t->me != 0)
// CHECK-FIXES-NEXT: return rc3;
// CHECK-FIXES-NEXT: return MPI_SUCCESS;
// CHECK-NB-FIXES-LABEL: static int team_total(
// CHECK-NB-FIXES-NEXT: MPI_Request reduction_request;
// CHECK-NB-FIXES-NEXT: int rc3 = MPI_Ireduce(&mine, total, 1, MPI_LONG, MPI_SUM, 0, t->comm,
// CHECK-NB-FIXES-NEXT: &reduction_request);
// CHECK-NB-FIXES-NEXT: if (rc3 == MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: rc3 = MPI_Wait(&reduction_request, MPI_STATUS_IGNORE);
// CHECK-NB-FIXES-NEXT: if (t->me != 0)
// CHECK-NB-FIXES-NEXT: return rc3;

/* Prefix sums along the ranks: each adds its own to what the previous
   passed on, and returns the code of passing the running value on. */
static int team_prefix(const team_t *t, int mine, int *upto) {
  int before = 0;
  // CHECK-MESSAGES: :[[@LINE+2]]:3: warning: chain of point-to-point messages implements a scan (static analysis); replace it with MPI_Scan [mpilift-manual-scan]
  // CHECK-NB: :[[@LINE+1]]:3: warning: chain of point-to-point messages implements a scan (static analysis); replace it with MPI_Iscan [mpilift-manual-scan]
  if (t->me > 0)
    MPI_Recv(&before, 1, MPI_INT, t->me - 1, TAG_PREFIX, t->comm,
             MPI_STATUS_IGNORE);
  *upto = before + mine;
  if (t->me < t->np - 1)
    return MPI_Send(upto, 1, MPI_INT, t->me + 1, TAG_PREFIX, t->comm);
  return MPI_SUCCESS;
}
// CHECK-FIXES-LABEL: static int team_prefix(
// CHECK-FIXES: int rc4 = MPI_Scan(&mine, upto, 1, MPI_INT, MPI_SUM, t->comm);
// CHECK-FIXES-NEXT: if (t->me < t->np - 1)
// CHECK-FIXES-NEXT: return rc4;
#endif

int main(int argc, char **argv) {
  team_t t;
  long row[NROW] = {0, 0, 0, 0}, total = -1;
  int upto = -1, rc = 0, rc2 = 0;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  if (t.me == t.np - 1)
    for (int i = 0; i < NROW; i++)
      row[i] = 100 * i + 7;
  rc = team_share_row(&t, row, t.np - 1);
#ifndef REFUSED_FORMS
  rc2 = team_total(&t, row[1] + t.me, &total) +
        team_prefix(&t, 3 * t.me + 1, &upto);
#endif
  printf("%d: codes %d %d row %ld %ld total %ld prefix %d\n", t.me, rc, rc2,
         row[0], row[3], t.me == 0 ? total : -1L, upto);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
