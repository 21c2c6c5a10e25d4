// One send routine (in another file) serves a hand-written broadcast and a
// residual rank 0 sends rank 1 after it, which rank 1 receives elsewhere.
// The broadcast claims the routine's call site on rank 0, and with it the
// residual's send; its receive is left to the dataflow of unexplained
// steps, where it matched no send, and detect said the trace was
// incomplete (a program hiding its sends from the tracer). A message one
// end of which a pattern claims is now left out whole.
// RUN: %mpicc %s %inputs/send-helper/blocks.c -I%inputs/send-helper -o %t.exe
// RUN: rm -rf %t.d && %mpirun -np 4 %mpilift-run -o %t.d -- %t.exe > %t.out
// RUN: %mpilift detect %t.d > %t.txt 2> %t.err
// RUN: FileCheck %s < %t.txt
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty < %t.err
// CHECK: bcast star comm 0 root 0, 512 bytes, 4 occurrences, evidence both
// CHECK-NEXT: send {{.*}}blocks.c:5:{{[0-9]+}} ranks 0
// CHECK-NEXT: recv {{.*}}send-helper-shared.c:[[#@LINE+16]]:{{[0-9]+}} ranks 1-3
// QUIET-NOT: warning
// (Receives that match no send of the trace at all are still reported:
// unmatched.test.)
#include "blocks.h"

#include <stdio.h>

#define PANEL 64

static int bcast_panel(layer_t *l, double *panel) {
  int ierr = MPI_SUCCESS;
  if (l->rank == 0) {
    for (int p = 1; p < l->size && ierr == MPI_SUCCESS; ++p)
      ierr = layer_send(l, panel, PANEL, p, TAG_PANEL);
  } else {
    ierr = MPI_Recv(panel, PANEL, BLOCK_TYPE, 0, TAG_PANEL, l->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}

int main(int argc, char **argv) {
  layer_t l;
  double panel[PANEL], residual[8] = {0};
  MPI_Init(&argc, &argv);
  l.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(l.comm, &l.rank);
  MPI_Comm_size(l.comm, &l.size);
  for (int it = 0; it < 4; ++it) {
    for (int i = 0; i < PANEL; ++i)
      panel[i] = l.rank == 0 ? 100.0 * it + i : -1.0;
    if (bcast_panel(&l, panel) != MPI_SUCCESS)
      MPI_Abort(l.comm, 1);
    if (l.rank == 0)
      layer_send(&l, panel, 8, 1, TAG_RESIDUAL);
    else if (l.rank == 1)
      MPI_Recv(residual, 8, BLOCK_TYPE, 0, TAG_RESIDUAL, l.comm,
               MPI_STATUS_IGNORE);
  }
  double sum = 0;
  for (int i = 0; i < PANEL; ++i)
    sum += panel[i];
  printf("rank %d: %g %g\n", l.rank, sum, residual[0]);
  MPI_Finalize();
  return 0;
}
