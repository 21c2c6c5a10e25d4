// Reductions whose combine is spelled with the program's macros, the way
// codes share their vector and counter arithmetic in a header. The proof
// sees what the macros expand to; the rewrite spells the accumulator as
// the macro's argument is written (`&st->events`, `st->bins`), not as the
// text of the whole use. A macro defined inside a preprocessor conditional
// (`FOLD_PEAK` is a sum in one build and a maximum in another) is
// configuration: deleting its use would keep only what the proven build
// compiles, so source-form refuses, in either configuration, and names the
// macro and its definition. The header's include guard is no such
// conditional.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.peak --cflags=-DSTATS_PEAK_IS_MAX | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.peak/prog.c
// clang-format on
#include "stats_ops.h"

#include <stdio.h>

#ifdef STATS_PEAK_IS_MAX
#define FOLD_PEAK(acc, v) ((acc) = (acc) > (v) ? (acc) : (v))
#else
#define FOLD_PEAK(acc, v) ((acc) += (v))
#endif

struct stats {
  MPI_Comm comm;
  int rank, size;
  long events;
  long peak;
  long bins[NSTATS];
};

/* Each process's histogram goes to rank 0, added there by the header's
   macro. */
int collect_bins(struct stats *st) {
  int ierr = MPI_SUCCESS, src;
  long incoming[NSTATS];
  if (st->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (src = 1; src < st->size; src++) {
      ierr = MPI_Recv(incoming, NSTATS, MPI_LONG, src, STATS_TAG, st->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        break;
      STATS_ACCUMULATE(st->bins, incoming, NSTATS);
    }
  } else {
    ierr = MPI_Send(st->bins, NSTATS, MPI_LONG, 0, STATS_TAG, st->comm);
  }
  // CHECK-FIXES: ierr = MPI_Reduce(MPI_IN_PLACE, st->bins, NSTATS, MPI_LONG, MPI_SUM, 0,
  // CHECK-FIXES-NEXT: {{^ +}}st->comm);
  // CHECK-FIXES: ierr = MPI_Reduce(st->bins, NULL, NSTATS, MPI_LONG, MPI_SUM, 0, st->comm);
  return ierr;
}

/* A counter, added up by a macro whose accumulator is its argument. */
int count_events(struct stats *st) {
  long mine = st->events, theirs = 0;
  int ierr = MPI_SUCCESS, src;
  if (st->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (src = 1; src < st->size; src++) {
      ierr = MPI_Recv(&theirs, 1, MPI_LONG, src, STATS_TAG + 1, st->comm,
                      MPI_STATUS_IGNORE);
      STATS_ADD(st->events, theirs);
    }
  } else {
    ierr = MPI_Send(&mine, 1, MPI_LONG, 0, STATS_TAG + 1, st->comm);
  }
  // CHECK-FIXES: ierr = MPI_Reduce(MPI_IN_PLACE, &st->events, 1, MPI_LONG, MPI_SUM, 0,
  // CHECK-FIXES: ierr = MPI_Reduce(&mine, &st->events, 1, MPI_LONG, MPI_SUM, 0, st->comm);
  return ierr;
}

/* What FOLD_PEAK does depends on the build: never rewritten. */
int fold_peaks(struct stats *st) {
  long mine = st->peak, theirs = 0;
  int ierr = MPI_SUCCESS, src;
  if (st->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: source-form refused [mpilift-manual-reduce]
    for (src = 1; src < st->size; src++) {
      ierr = MPI_Recv(&theirs, 1, MPI_LONG, src, STATS_TAG + 2, st->comm,
                      MPI_STATUS_IGNORE);
      // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:7: note: source-form: the code the rewrite replaces uses 'FOLD_PEAK', which is defined inside a preprocessor conditional; what it stands for in other configurations would be lost
      FOLD_PEAK(st->peak, theirs);
    }
  } else {
    ierr = MPI_Send(&mine, 1, MPI_LONG, 0, STATS_TAG + 2, st->comm);
  }
  // CHECK-MESSAGES: prog.c:{{22|24}}:9: note: 'FOLD_PEAK' is defined here
  // CHECK-FIXES: {{^}}      FOLD_PEAK(st->peak, theirs);
  return ierr;
}

int main(int argc, char **argv) {
  struct stats st;
  int i, ierr;
  MPI_Init(&argc, &argv);
  st.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(st.comm, &st.rank);
  MPI_Comm_size(st.comm, &st.size);
  st.events = 100 + 7 * st.rank;
  st.peak = (st.rank * 37) % 11;
  for (i = 0; i < NSTATS; i++)
    st.bins[i] = (st.rank + 1) * (i + 2) % 7;
  ierr = collect_bins(&st);
  ierr |= count_events(&st);
  ierr |= fold_peaks(&st);
  if (st.rank == 0) {
    printf("events %ld peak %ld\n", st.events, st.peak);
    for (i = 0; i < NSTATS; i++)
      printf("bin[%d] %ld\n", i, st.bins[i]);
  }
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}

//--- stats_ops.h
#ifndef STATS_OPS_H
#define STATS_OPS_H

#include <mpi.h>

#define NSTATS 4
#define STATS_TAG 40

/* dst[k] += src[k] for the n bins. */
#define STATS_ACCUMULATE(dst, src, n)                                          \
  do {                                                                         \
    int k_;                                                                    \
    for (k_ = 0; k_ < (n); k_++)                                               \
      (dst)[k_] += (src)[k_];                                                  \
  } while (0)

#define STATS_ADD(counter, value) ((counter) += (value))

#endif
