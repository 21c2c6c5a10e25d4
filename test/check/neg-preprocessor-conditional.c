// The proof sees the code of one configuration: the one the compile
// database gives. A rewrite that replaced text holding `#ifdef TRACE_COMM
// ... #endif` would drop what a build with TRACE_COMM compiles there (here
// a message per peer, and a counter read after the loop), proven or not.
// source-form refuses such a rewrite and points at the directive, while a
// pattern of the same unit without conditional code in it is still
// rewritten, and so are patterns next to conditional code outside them.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include "params.h"

#include <stdio.h>

#define PARAM_TAG 31
#define TABLE_TAG 32
#define SEED_TAG 33
#define COUNT_TAG 34

int share_params(struct params *pr) {
  int ierr = MPI_SUCCESS;
  int dest;
  if (pr->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (dest = 1; dest < pr->size; dest++) {
// CHECK-MESSAGES: prog.c:[[#@LINE+1]]:2: note: source-form: the code the rewrite replaces holds this '#ifdef'; what other configurations compile here would be lost
#ifdef TRACE_COMM
      fprintf(stderr, "params to %d\n", dest);
      pr->sent++;
#endif
      ierr = MPI_Send(pr->values, NPARAMS, MPI_DOUBLE, dest, PARAM_TAG,
                      pr->comm);
    }
  } else {
    ierr = MPI_Recv(pr->values, NPARAMS, MPI_DOUBLE, 0, PARAM_TAG, pr->comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: {{^    }}for (dest = 1; dest < pr->size; dest++) {
  // CHECK-FIXES: {{^#}}ifdef TRACE_COMM
  return ierr;
}

int share_table(struct params *pr, int *table) {
  int ierr = MPI_SUCCESS;
  int dest;
#ifdef TRACE_COMM
  fprintf(stderr, "rank %d shares the table\n", pr->rank);
#endif
  if (pr->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (dest = 1; dest < pr->size; dest++)
      ierr |= MPI_Send(table, TABLE_LEN, MPI_INT, dest, TABLE_TAG, pr->comm);
  } else {
    ierr |= MPI_Recv(table, TABLE_LEN, MPI_INT, 0, TABLE_TAG, pr->comm,
                     MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: {{^  }}ierr |= MPI_Bcast(table, TABLE_LEN, MPI_INT, 0, pr->comm);
#ifdef TRACE_COMM
  fprintf(stderr, "rank %d has the table\n", pr->rank);
#endif
  return ierr;
}

// The loop counter is read after the loop only where TRACE_COMM is
// defined: the rewrite keeps the loop that leaves it at the number of
// processes, so that build still prints the count the original did.
int share_seed(struct params *pr, unsigned *seed) {
  int ierr = MPI_SUCCESS;
  int dest = 0;
  if (pr->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (dest = 1; dest < pr->size; dest++)
      ierr |= MPI_Send(seed, 1, MPI_UNSIGNED, dest, SEED_TAG, pr->comm);
  } else {
    ierr |= MPI_Recv(seed, 1, MPI_UNSIGNED, 0, SEED_TAG, pr->comm,
                     MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: {{^  }}ierr |= MPI_Bcast(seed, 1, MPI_UNSIGNED, 0, pr->comm);
  // CHECK-FIXES: for (dest = 1; dest < pr->size; dest++)
#ifdef TRACE_COMM
  if (pr->rank == 0)
    fprintf(stderr, "seed sent to %d peers\n", dest - 1);
#endif
  return ierr;
}

// A sum whose last part received is printed only where TRACE_COMM is
// defined: MPI_Reduce would leave another value there.
long add_counts(struct params *pr, long mine) {
  long total = mine, part = 0;
  int src;
  if (pr->rank == 0) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: scale-independence refused [mpilift-manual-reduce]
    for (src = 1; src < pr->size; src++) {
      MPI_Recv(&part, 1, MPI_LONG, src, COUNT_TAG, pr->comm, MPI_STATUS_IGNORE);
      total += part;
    }
  } else {
    MPI_Send(&mine, 1, MPI_LONG, 0, COUNT_TAG, pr->comm);
  }
  // CHECK-MESSAGES: note: scale-independence: at 3 processes, process 0 also receives 8 bytes of process 2's data unchanged, which no reduction moves
#ifdef TRACE_COMM
  if (pr->rank == 0)
    fprintf(stderr, "last part %ld\n", part);
#endif
  return total;
}

//--- params.h
#include <mpi.h>

#define NPARAMS 3
#define TABLE_LEN 5

struct params {
  int rank, size, sent;
  MPI_Comm comm;
  double values[NPARAMS];
};

int share_params(struct params *pr);
int share_table(struct params *pr, int *table);
int share_seed(struct params *pr, unsigned *seed);
long add_counts(struct params *pr, long mine);

//--- main.c
#include "params.h"

#include <stdio.h>

int main(int argc, char **argv) {
  struct params pr;
  int table[TABLE_LEN], i;
  unsigned seed;
  long total;
  MPI_Init(&argc, &argv);
  pr.comm = MPI_COMM_WORLD;
  pr.sent = 0;
  MPI_Comm_rank(pr.comm, &pr.rank);
  MPI_Comm_size(pr.comm, &pr.size);
  for (i = 0; i < NPARAMS; i++)
    pr.values[i] = pr.rank == 0 ? 2.5 * i + 1 : 0;
  for (i = 0; i < TABLE_LEN; i++)
    table[i] = pr.rank == 0 ? i * i : -1;
  seed = pr.rank == 0 ? 4711u : 0u;
  if (share_params(&pr) != MPI_SUCCESS || share_table(&pr, table) != MPI_SUCCESS ||
      share_seed(&pr, &seed) != MPI_SUCCESS)
    MPI_Abort(pr.comm, 1);
  total = add_counts(&pr, 2L * pr.rank + 1);
  if (pr.rank == 0)
    printf("total %ld seed %u\n", total, seed);
  printf("rank %d values %g %g table %d %d\n", pr.rank, pr.values[0],
         pr.values[NPARAMS - 1], table[1], table[TABLE_LEN - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
