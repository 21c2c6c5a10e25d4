// Reductions written by hand, as a trace shows them: messages of one size
// go toward the root, and where a rank receives several they land on one
// buffer, because each is added in before the next arrives. The trace
// cannot show the addition; the shape and the reused buffer name it. A
// tree in the order of HPL_reduce (children by increasing distance, then
// the parent), the trapezoid program's star (every partial into one
// scalar at the root), and, not a reduction, a star gather whose blocks
// stay apart.
// RUN: %mpicc %s -o %t.exe
// RUN: rm -rf %t.d && %mpirun -np 4 %mpilift-run -o %t.d -- %t.exe > %t.out
// RUN: %mpilift detect %t.d | FileCheck %s
// RUN: %mpilift detect %t.d | grep -c '^  reduce ' | FileCheck %s --check-prefix=COUNT
// RUN: rm -rf %t.d7 && %mpirun -np 7 %mpilift-run -o %t.d7 -- %t.exe > %t.out7
// RUN: %mpilift detect %t.d7 | FileCheck %s
// RUN: %mpilift detect %t.d7 | grep -c '^  reduce ' | FileCheck %s --check-prefix=COUNT
// CHECK-DAG: reduce binomial comm 0 root 0, 64 bytes, 3 occurrences, evidence template
// CHECK-DAG: reduce star comm 0 root 0, 8 bytes, 2 occurrences, evidence template
// CHECK-DAG: gather star comm 0 root 0, 16 bytes, 2 occurrences, evidence both
// COUNT: {{^}}2{{$}}
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NV 8
#define TAG_TREE 11
#define TAG_STAR 12
#define TAG_GATHER 13

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

/* Sum of NV doubles onto rank 0 over a binomial tree: receive from the
   children at distance 1, 2, 4, ... below the lowest set bit, add, then
   send to the parent. */
static int tree_sum(double *v, const team_t *t) {
  double *in = malloc(NV * sizeof *in);
  int ierr = MPI_SUCCESS, bit, k;
  for (bit = 1; bit < t->np; bit <<= 1) {
    if (t->me & bit) {
      ierr = MPI_Send(v, NV, MPI_DOUBLE, t->me - bit, TAG_TREE, t->comm);
      break;
    }
    if (t->me + bit < t->np) {
      ierr = MPI_Recv(in, NV, MPI_DOUBLE, t->me + bit, TAG_TREE, t->comm,
                      MPI_STATUS_IGNORE);
      for (k = 0; k < NV; k++)
        v[k] += in[k];
    }
  }
  free(in);
  return ierr;
}

static double trapezoid(double a, double b, int n) {
  double h = (b - a) / n, s = (a * a + b * b) / 2;
  int i;
  for (i = 1; i < n; i++)
    s += (a + i * h) * (a + i * h);
  return s * h;
}

int main(int argc, char **argv) {
  team_t t;
  double v[NV], total, partial, pair[2], all[2 * 64];
  int round, k, p, ierr;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  for (round = 0; round < 3; round++) {
    for (k = 0; k < NV; k++)
      v[k] = t.me * 10 + k + round;
    ierr = tree_sum(v, &t);
    if (t.me == 0)
      printf("tree %d: %g %g\n", round, v[0], v[NV - 1]);
  }
  for (round = 0; round < 2; round++) {
    double h = 1.0 / t.np;
    total = trapezoid(t.me * h, (t.me + 1) * h, 100 * (round + 1));
    if (t.me == 0) {
      for (p = 1; p < t.np; p++) {
        ierr = MPI_Recv(&partial, 1, MPI_DOUBLE, p, TAG_STAR, t.comm,
                        MPI_STATUS_IGNORE);
        total += partial;
      }
      printf("integral %d: %.6f\n", round, total);
    } else {
      ierr = MPI_Send(&total, 1, MPI_DOUBLE, 0, TAG_STAR, t.comm);
    }
  }
  for (round = 0; round < 2; round++) {
    pair[0] = t.me;
    pair[1] = round;
    if (t.me == 0) {
      all[0] = pair[0];
      all[1] = pair[1];
      for (p = 1; p < t.np; p++)
        ierr = MPI_Recv(&all[2 * p], 2, MPI_DOUBLE, p, TAG_GATHER, t.comm,
                        MPI_STATUS_IGNORE);
      printf("gathered %d: %g (%d)\n", round, all[2 * t.np - 2], ierr);
    } else {
      ierr = MPI_Send(pair, 2, MPI_DOUBLE, 0, TAG_GATHER, t.comm);
    }
  }
  MPI_Finalize();
  return 0;
}
