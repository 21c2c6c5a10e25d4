// A reduction tree as HPL_reduce writes it: external linkage, the count a
// parameter whose callers other files may hold, the operation a function
// pointer. Static analysis cannot judge it; the trace shows the calls as a
// reduction (a gather's shape on one buffer), so the finding says that
// and which check refused, instead of nothing (HPL's src/grid/HPL_reduce.c
// got nothing before `detect` named reductions).
// clang-format off
// RUN: %check-rewrite refuse %s %t --trace | FileCheck %s
// clang-format on
// CHECK: prog.c:[[#@LINE+30]]:14: warning: point-to-point messages the trace shows as a reduction (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-reduce]
// CHECK: note: input-independence: 
// CHECK: check-rewrite: unchanged
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_SUM 9001

typedef void (*combine_fn)(int, const double *, double *);

static void add(int n, const double *in, double *inout) {
  for (int k = 0; k < n; k++)
    inout[k] += in[k];
}

/* Children at distance 1, 2, 4, ... below the lowest set bit of the
   distance to the root, then the parent. */
int tree_reduce(double *buf, int count, combine_fn op, int root,
                MPI_Comm comm) {
  int ierr = MPI_SUCCESS, rank, size, bit;
  double *in;
  if (count <= 0)
    return MPI_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int me = (rank - root + size) % size;
  in = malloc((size_t)count * sizeof *in);
  for (bit = 1; bit < size && ierr == MPI_SUCCESS; bit <<= 1) {
    if (me & bit) {
      ierr = MPI_Send(buf, count, MPI_DOUBLE, (me - bit + root) % size,
                      TAG_SUM, comm);
      break;
    }
    if (me + bit < size) {
      ierr = MPI_Recv(in, count, MPI_DOUBLE, (me + bit + root) % size,
                      TAG_SUM, comm, MPI_STATUS_IGNORE);
      op(count, in, buf);
    }
  }
  free(in);
  return ierr;
}

int main(int argc, char **argv) {
  int rank, round;
  double v[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (round = 0; round < 3; round++) {
    for (int k = 0; k < 4; k++)
      v[k] = rank + k + round;
    if (tree_reduce(v, 4, add, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
      MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
      printf("%d: %g %g\n", round, v[0], v[3]);
  }
  MPI_Finalize();
  return 0;
}
