// HPL's modified increasing ring (HPL_1rinM.c: the root sends to its two
// successors, every other rank but the last forwards), written as HPL
// writes it and built with -O2. GCC gives the root's first MPI_Send two
// copies, one per value of the `?:` in MODADD1, so one call of the source
// has two call sites in the trace: the roots that wrap around seem to use
// another call. Patterns group call sites by source location and do not
// depend on that. Plain -O2 also turns the two sends in tail position
// into jumps: their site is then the caller's call of ring_bcast, which
// the docs tell users to avoid with -fno-optimize-sibling-calls; the
// pattern is still found.
// The first RUN line checks that the compiler still makes four calls of
// three: otherwise this test no longer tests what it says.
// clang-format off
// RUN: %mpicc -O2 -fno-optimize-sibling-calls %s -o %t.exe
// RUN: objdump -d --no-show-raw-insn %t.exe | awk '/<ring_bcast>:/,/^$/' | grep -c 'call.*MPI_Send' | FileCheck %s --check-prefix=CALLS
// RUN: rm -rf %t.d && %mpirun -np 4 %mpilift-run -o %t.d -- %t.exe > %t.out
// RUN: %mpilift detect %t.d | FileCheck %s
// RUN: rm -rf %t.d5 && %mpirun -np 5 %mpilift-run -o %t.d5 -- %t.exe > %t.out5
// RUN: %mpilift detect %t.d5 | FileCheck %s --check-prefix=NP5
// RUN: %mpicc -O2 %s -o %t.tail
// RUN: rm -rf %t.dt && %mpirun -np 4 %mpilift-run -o %t.dt -- %t.tail > %t.outt
// RUN: %mpilift detect %t.dt | FileCheck %s --check-prefix=TAIL
// clang-format on
// CALLS: {{^}}4{{$}}
// CHECK: bcast increasing-ring comm 0 roots 0-3, 160 to 512 bytes, 12 occurrences, evidence both
// CHECK-NEXT: send {{.*}}ring-bcast-optimised.c:60:
// CHECK-NEXT: send {{.*}}ring-bcast-optimised.c:62:
// CHECK-NEXT: recv {{.*}}ring-bcast-optimised.c:70:
// CHECK-NEXT: send {{.*}}ring-bcast-optimised.c:73:
// NP5: bcast increasing-ring comm 0 roots 0-4, 160 to 512 bytes, 12 occurrences, evidence both
// TAIL: bcast increasing-ring comm 0 roots 0-3, 160 to 512 bytes, 12 occurrences, evidence both
// TAIL-DAG: send {{.*}}ring-bcast-optimised.c:60:
// TAIL-DAG: send {{.*}}ring-bcast-optimised.c:95:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MODADD1(a, n) (((a) == (n) - 1) ? 0 : (a) + 1)
#define MODSUB1(a, n) (((a) == 0) ? (n) - 1 : (a) - 1)

typedef struct {
  MPI_Comm comm;
  int mycol, npcol;
} grid_t;

typedef struct {
  grid_t *grid;
  double *buf;
  int len, root, tag;
} panel_t;

int ring_bcast(panel_t *p) {
  int ierr = MPI_SUCCESS, next, prev, partner, rank, size, root;
  if ((size = p->grid->npcol) <= 1)
    return ierr;
  rank = p->grid->mycol;
  root = p->root;
  next = MODADD1(rank, size);
  if (rank == root) {
    ierr = MPI_Send(p->buf, p->len, MPI_DOUBLE, next, p->tag, p->grid->comm);
    if (ierr == MPI_SUCCESS && size > 2)
      ierr = MPI_Send(p->buf, p->len, MPI_DOUBLE, MODADD1(next, size), p->tag,
                      p->grid->comm);
  } else {
    prev = MODSUB1(rank, size);
    if (size > 2 && MODSUB1(prev, size) == root)
      partner = root;
    else
      partner = prev;
    ierr = MPI_Recv(p->buf, p->len, MPI_DOUBLE, partner, p->tag, p->grid->comm,
                    MPI_STATUS_IGNORE);
    if (ierr == MPI_SUCCESS && prev != root && next != root)
      ierr = MPI_Send(p->buf, p->len, MPI_DOUBLE, next, p->tag, p->grid->comm);
  }
  return ierr;
}

int main(int argc, char **argv) {
  grid_t g;
  panel_t p;
  int k, i;
  double sum = 0;
  MPI_Init(&argc, &argv);
  g.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(g.comm, &g.mycol);
  MPI_Comm_size(g.comm, &g.npcol);
  p.grid = &g;
  p.buf = malloc(64 * sizeof(double));
  for (k = 0; k < 12; k++) {
    p.root = k % g.npcol;
    p.tag = 100 + k;
    p.len = 64 - 4 * k;
    for (i = 0; i < p.len; i++)
      p.buf[i] = g.mycol == p.root ? k * 100 + i : -1;
    if (ring_bcast(&p) != MPI_SUCCESS)
      MPI_Abort(g.comm, 1);
    for (i = 0; i < p.len; i++)
      sum += p.buf[i];
  }
  printf("%d: %g\n", g.mycol, sum);
  free(p.buf);
  MPI_Finalize();
  return 0;
}
