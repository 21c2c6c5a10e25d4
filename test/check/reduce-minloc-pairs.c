// Issue 15: a solver reports which rank holds the largest residual. Each
// rank fills a (value, rank) pair; the root receives the others' pairs in
// rank order and keeps the larger value, the smaller rank on a tie: the
// operation of MPI_MAXLOC on MPI_DOUBLE_INT, written out. Rank, size and
// communicator live in a structure, the result goes through a pointer, the
// error code of every call is kept, and ties happen (ranks 0, 3 and 6 share
// the largest value).
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
//
// The same pair copied whole (`*worst = in;`) instead of field by field:
// RUN: %check-rewrite rewrite %s %t.whole --cflags=-DCOPY_WHOLE | FileCheck %s --check-prefix=WHOLE --implicit-check-not=warning:
//
// Ties kept by whichever pair came first (`>` alone): MPI_MAXLOC keeps the
// smaller index, this code the pair combined first. The same here, because
// each pair's index is its rank and the root, rank 0, combines the others
// in rank order after its own:
// RUN: %check-rewrite rewrite %s %t.first --cflags=-DKEEP_FIRST | FileCheck %s --check-prefix=FIRST --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=FIRST-FIXES < %t.first/prog.c
//
// ... but not when the root receives in descending rank order, nor when the
// index is a row of the rank's data rather than the rank: refused by
// reduction-order.
// RUN: %check-rewrite refuse %s %t.descending --cflags="-DKEEP_FIRST -DDESCENDING" | FileCheck %s --check-prefix=DESCENDING --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.row --cflags="-DKEEP_FIRST -DROW_INDEX" | FileCheck %s --check-prefix=ROW --implicit-check-not=warning:
//
// Ties settled by the larger index: no operation of MPI's.
// RUN: %check-rewrite refuse %s %t.larger --cflags=-DLARGER_INDEX | FileCheck %s --check-prefix=LARGER --implicit-check-not=warning:
//
// The index before the value: not the layout of MPI_DOUBLE_INT.
// RUN: %check-rewrite refuse %s %t.swapped --cflags=-DINDEX_FIRST | FileCheck %s --check-prefix=SWAPPED --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define TAG_WORST 11
#define ROOT 0


struct solver {
  MPI_Comm comm;
  int me, np;
};

static double local_residual(int rank) { return (double)((rank * 7) % 3); }
#define ROWS 4
static int largest_row(int rank) { return rank % ROWS; }

// Each variant is a function of its own, with the types and macros it
// uses defined in the same arm of the conditional: what a rewrite uses may
// not be defined otherwise by a build that compiles the rewritten text
// (source-form, reduce-combine-macros.c), and conditional code inside the
// pattern would keep it from being rewritten too.
#ifdef INDEX_FIRST
typedef struct {
  int rank;
  double value;
} located_t;
#define PAIR_T MPI_BYTE
#define PAIR_COUNT sizeof(located_t)
/* The index before the value, ties settled by the smaller index. */
static int worst_residual(const struct solver *s, located_t *worst) {
  located_t mine, in;
  int ierr = MPI_SUCCESS, k, p;
  mine.value = local_residual(s->me);
#ifdef ROW_INDEX
  mine.rank = s->me * ROWS + largest_row(s->me);
#else
  mine.rank = s->me;
#endif
  if (s->me == ROOT) {
    *worst = mine;
    // SWAPPED: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: reduction-order refused [mpilift-manual-reduce]
    for (k = 1; k < s->np; k++) {
      p = k;
      ierr = MPI_Recv(&in, PAIR_COUNT, PAIR_T, p, TAG_WORST, s->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      // SWAPPED: :[[@LINE+1]]:7: note: reduction-order: this statement combines the values by an operation that is none of MPI's
      if (in.value > worst->value ||
          (in.value == worst->value && in.rank < worst->rank))
      {
        worst->value = in.value;
        worst->rank = in.rank;
      }
    }
  } else {
    ierr = MPI_Send(&mine, PAIR_COUNT, PAIR_T, ROOT, TAG_WORST, s->comm);
  }
  return ierr;
}
#else
typedef struct {
  double value;
  int rank;
} located_t;
#define PAIR_T MPI_DOUBLE_INT
#define PAIR_COUNT 1
#if defined(KEEP_FIRST) && defined(DESCENDING)
/* Received in descending order, ties kept by the pair combined first. */
static int worst_residual(const struct solver *s, located_t *worst) {
  located_t mine, in;
  int ierr = MPI_SUCCESS, k, p;
  mine.value = local_residual(s->me);
#ifdef ROW_INDEX
  mine.rank = s->me * ROWS + largest_row(s->me);
#else
  mine.rank = s->me;
#endif
  if (s->me == ROOT) {
    *worst = mine;
    // DESCENDING: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: reduction-order refused [mpilift-manual-reduce]
    for (k = 1; k < s->np; k++) {
      p = s->np - k;
      ierr = MPI_Recv(&in, PAIR_COUNT, PAIR_T, p, TAG_WORST, s->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      // DESCENDING: :[[@LINE+1]]:7: note: reduction-order: of pairs with equal values this code keeps the pair combined first, MPI_MAXLOC the one with the smaller index; at 3 processes, the pairs are not combined in the order of their ranks, so which index wins depends on the order of combination (compare the indices when the values are equal to make it MPI's)
      if (in.value > worst->value)
      {
        worst->value = in.value;
        worst->rank = in.rank;
      }
    }
  } else {
    ierr = MPI_Send(&mine, PAIR_COUNT, PAIR_T, ROOT, TAG_WORST, s->comm);
  }
  return ierr;
}
#elif defined(KEEP_FIRST)
/* Ties kept by the pair combined first. */
static int worst_residual(const struct solver *s, located_t *worst) {
  located_t mine, in;
  int ierr = MPI_SUCCESS, k, p;
  mine.value = local_residual(s->me);
#ifdef ROW_INDEX
  mine.rank = s->me * ROWS + largest_row(s->me);
#else
  mine.rank = s->me;
#endif
  if (s->me == ROOT) {
    *worst = mine;
    // FIRST: :[[@LINE+2]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    // ROW: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: reduction-order refused [mpilift-manual-reduce]
    for (k = 1; k < s->np; k++) {
      p = k;
      ierr = MPI_Recv(&in, PAIR_COUNT, PAIR_T, p, TAG_WORST, s->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      // ROW: :[[@LINE+1]]:7: note: reduction-order: of pairs with equal values this code keeps the pair combined first, MPI_MAXLOC the one with the smaller index; at 3 processes, a rank's pairs do not all hold its rank as their index (or are sent with another datatype), so which index wins depends on the order of combination (compare the indices when the values are equal to make it MPI's)
      if (in.value > worst->value)
      {
        worst->value = in.value;
        worst->rank = in.rank;
      }
    }
  } else {
    ierr = MPI_Send(&mine, PAIR_COUNT, PAIR_T, ROOT, TAG_WORST, s->comm);
  }
  return ierr;
}
#elif defined(LARGER_INDEX)
static int worst_residual(const struct solver *s, located_t *worst) {
  located_t mine, in;
  int ierr = MPI_SUCCESS, k, p;
  mine.value = local_residual(s->me);
#ifdef ROW_INDEX
  mine.rank = s->me * ROWS + largest_row(s->me);
#else
  mine.rank = s->me;
#endif
  if (s->me == ROOT) {
    *worst = mine;
    // LARGER: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: reduction-order refused [mpilift-manual-reduce]
    for (k = 1; k < s->np; k++) {
      p = k;
      ierr = MPI_Recv(&in, PAIR_COUNT, PAIR_T, p, TAG_WORST, s->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      // LARGER: :[[@LINE+1]]:7: note: reduction-order: this statement combines the values by an operation that is none of MPI's
      if (in.value > worst->value ||
          (in.value == worst->value && in.rank > worst->rank))
      {
        worst->value = in.value;
        worst->rank = in.rank;
      }
    }
  } else {
    ierr = MPI_Send(&mine, PAIR_COUNT, PAIR_T, ROOT, TAG_WORST, s->comm);
  }
  return ierr;
}
#elif defined(COPY_WHOLE)
static int worst_residual(const struct solver *s, located_t *worst) {
  located_t mine, in;
  int ierr = MPI_SUCCESS, k, p;
  mine.value = local_residual(s->me);
#ifdef ROW_INDEX
  mine.rank = s->me * ROWS + largest_row(s->me);
#else
  mine.rank = s->me;
#endif
  if (s->me == ROOT) {
    *worst = mine;
    // WHOLE: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (k = 1; k < s->np; k++) {
      p = k;
      ierr = MPI_Recv(&in, PAIR_COUNT, PAIR_T, p, TAG_WORST, s->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      if (in.value > worst->value ||
          (in.value == worst->value && in.rank < worst->rank))
        *worst = in;
    }
  } else {
    ierr = MPI_Send(&mine, PAIR_COUNT, PAIR_T, ROOT, TAG_WORST, s->comm);
  }
  return ierr;
}
#else
/* Ties settled by the smaller index: MPI_MAXLOC. */
static int worst_residual(const struct solver *s, located_t *worst) {
  located_t mine, in;
  int ierr = MPI_SUCCESS, k, p;
  mine.value = local_residual(s->me);
#ifdef ROW_INDEX
  mine.rank = s->me * ROWS + largest_row(s->me);
#else
  mine.rank = s->me;
#endif
  if (s->me == ROOT) {
    *worst = mine;
    // CHECK-MESSAGES: :[[@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (k = 1; k < s->np; k++) {
      p = k;
      ierr = MPI_Recv(&in, PAIR_COUNT, PAIR_T, p, TAG_WORST, s->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      if (in.value > worst->value ||
          (in.value == worst->value && in.rank < worst->rank))
      {
        worst->value = in.value;
        worst->rank = in.rank;
      }
    }
  } else {
    ierr = MPI_Send(&mine, PAIR_COUNT, PAIR_T, ROOT, TAG_WORST, s->comm);
  }
  return ierr;
}
#endif
#endif
// CHECK-FIXES: {{^/\* Ties settled by the smaller index}}
// CHECK-FIXES-NEXT: static int worst_residual(
// CHECK-FIXES: mine.rank = s->me;
// CHECK-FIXES-NEXT: #endif
// CHECK-FIXES-NEXT: ierr =
// CHECK-FIXES-NEXT: MPI_Reduce(&mine, worst, PAIR_COUNT, PAIR_T, MPI_MAXLOC, ROOT, s->comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: return ierr;
// FIRST-FIXES: {{^/\* Ties kept by the pair combined first}}
// FIRST-FIXES-NEXT: static int worst_residual(
// FIRST-FIXES: mine.rank = s->me;
// FIRST-FIXES-NEXT: #endif
// FIRST-FIXES-NEXT: ierr =
// FIRST-FIXES-NEXT: MPI_Reduce(&mine, worst, PAIR_COUNT, PAIR_T, MPI_MAXLOC, ROOT, s->comm);
// FIRST-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// FIRST-FIXES-NEXT: return ierr;
// FIRST-FIXES-NEXT: return ierr;

int main(int argc, char **argv) {
  struct solver s;
  located_t worst;
  int ierr;
  MPI_Init(&argc, &argv);
  s.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(s.comm, &s.me);
  MPI_Comm_size(s.comm, &s.np);
  ierr = worst_residual(&s, &worst);
  if (s.me == ROOT)
    printf("largest residual %g on rank %d (%d)\n", worst.value, worst.rank,
           ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// WHOLE: check-rewrite: same output at np 1 2 3 4 5 7 8
// FIRST: check-rewrite: same output at np 1 2 3 4 5 7 8
