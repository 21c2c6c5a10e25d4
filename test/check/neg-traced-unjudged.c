// Issue 14, "no silence": a chain broadcast along an order the ranks agree
// on at start-up (received data sorted by a key, as node-aware codes do).
// The evaluator cannot follow received data; the trace shows a broadcast
// on these lines, so mpilift says what it saw and why it could not judge
// it.
// RUN: %check-rewrite refuse %s %t --trace | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXP 64
#define LEN 6

struct ctx {
  int rank, size;
  int order[MAXP]; /* the chain's order, agreed on at start-up */
};

static int by_key(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static void agree_order(struct ctx *c) {
  int mine[2] = {c->rank % 2, c->rank}, all[2 * MAXP];
  MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
  qsort(all, c->size, 2 * sizeof(int), by_key);
  for (int i = 0; i < c->size; i++)
    c->order[i] = all[2 * i + 1];
}

int main(int argc, char **argv) {
  struct ctx c;
  double buf[LEN];
  int ierr, pos = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  agree_order(&c);
  while (c.order[pos] != c.rank)
    pos++;
  for (int i = 0; i < LEN; i++)
    buf[i] = pos == 0 ? 1.5 * i : 0.0;
  if (pos > 0)
    ierr = MPI_Recv(buf, LEN, MPI_DOUBLE, c.order[pos - 1], 9, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-2]]:12: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
  // CHECK: :27:3: note: input-independence: the condition 'c.order[pos] != c.rank' cannot be evaluated: 'all' is written by a call of 'qsort'
  if (pos < c.size - 1)
    ierr = MPI_Send(buf, LEN, MPI_DOUBLE, c.order[pos + 1], 9, MPI_COMM_WORLD);
  printf("%d: %g %g\n", c.rank, buf[1], buf[LEN - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
