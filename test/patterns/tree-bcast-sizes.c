// Tree broadcasts written once and called with messages of different
// sizes, the way HPL's setup calls HPL_broadcast: one int, a table of 11
// and of 15, two doubles on the world, with HPL's own tree (the binomial
// template); then eight times on a duplicate of the world, six of them
// back to back with the same size, with a binary tree in heap order, which
// is the hypercube's shape at 4 processes and no template's at 5: only the
// dataflow finds it there. Each call is one occurrence, reported with the
// smallest and largest size: the dataflow finds every call as a collective
// of its own, and the ones it joins with a neighbour of the same shape are
// the same calls again, not more of them. The root never changes.
// clang-format off
// RUN: %mpicc %s -o %t.exe
// RUN: rm -rf %t.d && %mpirun -np 4 %mpilift-run -o %t.d -- %t.exe
// RUN: %mpilift detect %t.d | FileCheck %s --check-prefixes=CHECK,NP4 --implicit-check-not=roots
// RUN: %mpilift detect %t.d --format json | FileCheck %s --check-prefix=JSON
// RUN: rm -rf %t.d5 && %mpirun -np 5 %mpilift-run -o %t.d5 -- %t.exe
// RUN: %mpilift detect %t.d5 | FileCheck %s --check-prefixes=CHECK,NP5 --implicit-check-not=roots
// CHECK: bcast binomial comm 0 root 0, 4 to 60 bytes, 5 occurrences, evidence both
// CHECK-NEXT: send {{.*}}tree-bcast-sizes.c:[[#SEND:]]:
// CHECK-NEXT: recv {{.*}}tree-bcast-sizes.c:[[#SEND+3]]:
// NP4: bcast hypercube comm 1 root 0, 4 to 12 bytes, 8 occurrences, evidence both
// NP5: bcast dataflow comm 1 root 0, 4 to 12 bytes, 8 occurrences, evidence dataflow
// JSON: "bytes": 4,
// JSON: "max_bytes": 60,
// JSON: "occurrences": 5,
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define TREE_TAG 9001
#define NPARAMS 11
#define NFLAGS 15

typedef struct {
  MPI_Comm comm;
  int iam, nprocs;
} grid_t;

/* A binary tree in heap order over ranks relative to the root: rank v
   receives from (v - 1) / 2 and sends to 2v + 1 and 2v + 2. */
static int heap_bcast(void *buf, int count, MPI_Datatype type, int root,
                      const grid_t *g) {
  int ierr = MPI_SUCCESS, child;
  int me = (g->iam - root + g->nprocs) % g->nprocs;
  if (me > 0)
    ierr = MPI_Recv(buf, count, type, ((me - 1) / 2 + root) % g->nprocs,
                    TREE_TAG, g->comm, MPI_STATUS_IGNORE);
  for (child = 2 * me + 1; ierr == MPI_SUCCESS && child <= 2 * me + 2; child++)
    if (child < g->nprocs)
      ierr = MPI_Send(buf, count, type, (child + root) % g->nprocs, TREE_TAG,
                      g->comm);
  return ierr;
}

/* Top down: the root sends half-way across first, then every rank that
   holds the data halves its span (the order of HPL's tree). */
static int halving_bcast(void *buf, int count, MPI_Datatype type, int root,
                         const grid_t *g) {
  int ierr = MPI_SUCCESS, span = 1;
  int me = (g->iam - root + g->nprocs) % g->nprocs;
  while (span < g->nprocs)
    span <<= 1;
  for (span >>= 1; span > 0; span >>= 1) {
    if (me % (2 * span) == 0) {
      if (me + span < g->nprocs)
        ierr = MPI_Send(buf, count, type, (me + span + root) % g->nprocs,
                        TREE_TAG, g->comm);
    } else if (me % (2 * span) == span) {
      ierr = MPI_Recv(buf, count, type, (me - span + root) % g->nprocs,
                      TREE_TAG, g->comm, MPI_STATUS_IGNORE);
    }
    if (ierr != MPI_SUCCESS)
      return ierr;
  }
  return ierr;
}

static int read_params(const grid_t *g, int params[NPARAMS],
                       int flags[NFLAGS]) {
  int i, ierr;
  for (i = 0; i < NPARAMS; i++)
    params[i] = g->iam == 0 ? 3 * i + 1 : -1;
  for (i = 0; i < NFLAGS; i++)
    flags[i] = g->iam == 0 ? i % 2 : -1;
  ierr = halving_bcast(params, NPARAMS, MPI_INT, 0, g);
  if (ierr == MPI_SUCCESS)
    ierr = halving_bcast(flags, NFLAGS, MPI_INT, 0, g);
  return ierr;
}

int main(int argc, char **argv) {
  grid_t world, copy;
  int n = 0, params[NPARAMS], flags[NFLAGS], i, ierr;
  double tol = 0.0, scale = 0.0, sum = 0.0;
  float pair[3] = {0, 0, 0};
  MPI_Init(&argc, &argv);
  world.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(world.comm, &world.iam);
  MPI_Comm_size(world.comm, &world.nprocs);
  if (world.iam == 0) {
    n = 1500;
    tol = 16.0;
    scale = 0.5;
  }
  ierr = halving_bcast(&n, 1, MPI_INT, 0, &world);
  ierr = read_params(&world, params, flags);
  ierr = halving_bcast(&tol, 1, MPI_DOUBLE, 0, &world);
  ierr = halving_bcast(&scale, 1, MPI_DOUBLE, 0, &world);

  MPI_Comm_dup(MPI_COMM_WORLD, &copy.comm);
  MPI_Comm_rank(copy.comm, &copy.iam);
  MPI_Comm_size(copy.comm, &copy.nprocs);
  for (i = 0; i < 6; i++) {
    double mine = copy.iam == 0 ? i * scale : 0.0;
    ierr = heap_bcast(&mine, 1, MPI_DOUBLE, 0, &copy);
    sum += mine;
  }
  if (copy.iam == 0)
    pair[0] = pair[1] = pair[2] = 2.0f;
  ierr = heap_bcast(pair, 3, MPI_FLOAT, 0, &copy);
  ierr = heap_bcast(&n, 1, MPI_INT, 0, &copy);
  printf("%d: n %d tol %g params %d flags %d sum %g pair %g (%d)\n", world.iam,
         n, tol, params[NPARAMS - 1], flags[NFLAGS - 2], sum, pair[0], ierr);
  MPI_Comm_free(&copy.comm);
  MPI_Finalize();
  return 0;
}
