// A broadcast helper written by hand whose count comes from a solver step
// in another file written the way HPL_pdtrsv is: the scalars are declared
// at the top and reused. `tmp1` first walks this process's rows of a
// block-cyclic column (so its values differ between processes), then is
// written anew with the number of full blocks, from which the size of the
// last block is computed. Only the writes that can reach a read count, so
// the count is the same on every rank, and the loop is rewritten.
//
// Must not be rewritten: with ROWS_WHEN_SHORT, the last block's size
// replaces a default of this process's own row count only when there is
// more than one block, so the default reaches the call on the other path.
// The run uses one block: the root (process 0, which is dealt the fewest
// rows) sends fewer values than the others receive, which MPI_Recv takes
// and MPI_Bcast does not.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.short --trace --cflags=-DROWS_WHEN_SHORT | FileCheck %s --check-prefix=SHORT --implicit-check-not=warning:
// clang-format on
#include "solve.h"

#include <stdio.h>

#define X_TAG 17

#ifdef ROWS_WHEN_SHORT
#define PROBLEM_N 6
#else
#define PROBLEM_N 37
#endif
#define PROBLEM_NB 8

int col_bcast(double *x, int count, int root, MPI_Comm comm) {
  int ierr, me, np, p;
  ierr = MPI_Comm_rank(comm, &me);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Comm_size(comm, &np);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (me == root) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // SHORT: prog.c:[[#@LINE+4]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
    for (p = 0; p < np; ++p) {
      if (p == root)
        continue;
      ierr = MPI_Send(x, count, MPI_DOUBLE, p, X_TAG, comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(x, count, MPI_DOUBLE, root, X_TAG, comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(x, count, MPI_DOUBLE, root, comm);
  return ierr;
}
// SHORT: note: input-independence: the count 'count' cannot be evaluated: 'count' receives a value in {{.*}}solve.c:{{[0-9]+}}:{{[0-9]+}} that may differ between ranks: it reads 'me', which may differ between ranks: 'me' is given a value in {{.*}}solve.c:{{[0-9]+}}:{{[0-9]+}}, the rank, which differs between ranks

int main(int argc, char **argv) {
  solver_t s;
  double x[X_MAX];
  int i, ierr;
  MPI_Init(&argc, &argv);
  solver_init(&s, MPI_COMM_WORLD);
  ierr = solve_last_block(&s, x, PROBLEM_N, PROBLEM_NB);
  printf("rank %d of %d: ierr %d x", s.me, s.np, ierr);
  for (i = 0; i < X_MAX; ++i)
    printf(" %g", x[i]);
  printf("\n");
  MPI_Finalize();
  return 0;
}

//--- solve.h
#ifndef SOLVE_H
#define SOLVE_H
#include <mpi.h>

#define X_MAX 8

typedef struct {
  MPI_Comm comm;
  int me, np;
} solver_t;

int col_bcast(double *x, int count, int root, MPI_Comm comm);
void solver_init(solver_t *s, MPI_Comm comm);
int solve_last_block(const solver_t *s, double *x, int n, int nb);

#endif

//--- solve.c
#include "solve.h"

void solver_init(solver_t *s, MPI_Comm comm) {
  s->comm = comm;
  MPI_Comm_rank(comm, &s->me);
  MPI_Comm_size(comm, &s->np);
}

// Fills this process's rows of the last column block, then replicates the
// first process's over the column.
int solve_last_block(const solver_t *s, double *x, int n, int nb) {
  int tmp1, kb, nloc = 0;
  for (tmp1 = 0; tmp1 < X_MAX; tmp1++)
    x[tmp1] = 0.0;
  // This process's rows, dealt round robin from the last process.
  for (tmp1 = s->np - 1 - s->me; tmp1 < n; tmp1 += s->np)
    nloc++;
  for (tmp1 = 0; tmp1 < nloc && tmp1 < X_MAX; tmp1++)
    x[tmp1] = s->me + 0.25 * tmp1;
  kb = nloc;
#ifdef ROWS_WHEN_SHORT
  if (n > nb)
#endif
  {
    tmp1 = (n - 1) / nb;
    kb = n - tmp1 * nb;
  }
  return col_bcast(x, kb, 0, s->comm);
}
