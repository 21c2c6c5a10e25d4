// Long broadcasts the way HPL's blong writes them: the root's panel is cut
// into one piece per process and spread down a binomial tree (each holder
// sends the upper half of the pieces it holds), then the pieces roll around
// a ring until every process holds all of them; the root takes part in the
// roll and receives its own pieces back. The root moves with the panel, as
// HPL's column of the current panel does, or stays at 0 (argument F).
// Neither phase alone is a broadcast: the spread is a scatter, the roll an
// allgather; the dataflow of the two shows that every process ends with
// the root's panel. The pieces differ, so payload hashes (--hash) are not
// compared. blonM (argument M), where the root first hands the whole panel
// to the next process and the others spread and roll without it, is the
// `modified-binomial` template followed by the roll; a stale copy spread
// instead of the panel (argument S) is no broadcast. At 5 and 7 processes
// the spread is no template's binomial tree; the dataflow of all
// unexplained steps took the roll alone for a broadcast from the first
// root, as the trace does not show the roots refilling the panel, and must
// not: each occurrence's own dataflow has to form the collective. The
// steps the patterns leave to that dataflow must keep their order through
// the steps they claim (at 8 processes with the stale copy, the matching
// paired messages of different panels and warned that sizes differ).
// clang-format off
// RUN: %mpicc %s -o %t.exe
// RUN: rm -rf %t.d && %mpirun -np 4 %mpilift-run -o %t.d -- %t.exe > %t.out
// RUN: %mpilift detect %t.d | FileCheck %s --check-prefix=ROTATING
// RUN: rm -rf %t.d5 && %mpirun -np 5 %mpilift-run -o %t.d5 -- %t.exe > %t.out5
// RUN: %mpilift detect %t.d5 | FileCheck %s --check-prefix=NP5 --implicit-check-not=dataflow
// RUN: rm -rf %t.h && %mpirun -np 4 %mpilift-run --hash -o %t.h -- %t.exe > %t.outh
// RUN: %mpilift detect %t.h | FileCheck %s --check-prefix=ROTATING --implicit-check-not=contents
// RUN: rm -rf %t.f && %mpirun -np 4 %mpilift-run -o %t.f -- %t.exe F > %t.outf
// RUN: %mpilift detect %t.f | FileCheck %s --check-prefix=FIXED
// RUN: rm -rf %t.m && %mpirun -np 4 %mpilift-run -o %t.m -- %t.exe M > %t.outm
// RUN: %mpilift detect %t.m | FileCheck %s --check-prefix=MODIFIED
// RUN: rm -rf %t.m8 && %mpirun -np 8 %mpilift-run -o %t.m8 -- %t.exe M > %t.outm8
// RUN: %mpilift detect %t.m8 | FileCheck %s --check-prefix=MODIFIED
// RUN: rm -rf %t.m7 && %mpirun -np 7 %mpilift-run -o %t.m7 -- %t.exe M > %t.outm7
// RUN: %mpilift detect %t.m7 | FileCheck %s --check-prefix=NP5 --implicit-check-not=' bcast '
// RUN: rm -rf %t.s && %mpirun -np 4 %mpilift-run -o %t.s -- %t.exe S > %t.outs
// RUN: %mpilift detect %t.s | FileCheck %s --check-prefix=STALE --implicit-check-not=' bcast '
// RUN: rm -rf %t.s8 && %mpirun -np 8 %mpilift-run -o %t.s8 -- %t.exe S > %t.outs8
// RUN: %mpilift detect %t.s8 2>&1 | FileCheck %s --check-prefix=STALE8 --implicit-check-not=' bcast ' --implicit-check-not='no dataflow analysis'
// MODIFIED: bcast modified-scatter-allgather comm 1 roots 0-{{[35]}}, 7600 to 8000 bytes, 6 occurrences, evidence both (the root changes between occurrences)
// MODIFIED-DAG: send {{.*}}spread-roll-bcast.c:[[#WHOLE:]]:12 ranks 0-{{[35]}}
// MODIFIED-DAG: recv {{.*}}spread-roll-bcast.c:[[#WHOLE+2]]:12 ranks {{[01]}}-{{[36]}}
// MODIFIED-DAG: send {{.*}}spread-roll-bcast.c:[[#MSPREAD:]]:16 ranks 0-{{[37]}}
// MODIFIED-DAG: recv {{.*}}spread-roll-bcast.c:[[#MSPREAD+5]]:16 ranks 0-{{[37]}}
// MODIFIED-DAG: recv {{.*}}spread-roll-bcast.c:[[#MROLL:]]:12 ranks 0-{{[37]}}
// MODIFIED-DAG: send {{.*}}spread-roll-bcast.c:[[#MROLL+3]]:14 ranks 0-{{[37]}}
// STALE: unknown modified-binomial comm 1 roots 0-3, {{.*}}, 6 occurrences, evidence template (the root changes between occurrences; the root sends the whole message to the next rank first; the others' dataflow is a scatter that the steps after it do not complete to a broadcast)
// STALE8: unknown modified-binomial comm 1 roots 0-5, {{.*}}, 6 occurrences, evidence template
// ROTATING: bcast scatter-allgather comm 1 roots 0-{{[34]}}, 7600 to 8000 bytes, 6 occurrences, evidence both (the root changes between occurrences)
// FIXED: bcast scatter-allgather comm 1 root 0, 7600 to 8000 bytes, 6 occurrences, evidence both
// NP5: patterns in
// The sites of both phases, in any order:
// ROTATING-DAG: send {{.*}}spread-roll-bcast.c:[[#SPREAD_SEND:]]:16 ranks 0-{{[34]}}
// ROTATING-DAG: recv {{.*}}spread-roll-bcast.c:[[#SPREAD_SEND+5]]:16 ranks 0-{{[34]}}
// ROTATING-DAG: recv {{.*}}spread-roll-bcast.c:[[#ROLL_RECV:]]:12 ranks 0-{{[34]}}
// ROTATING-DAG: send {{.*}}spread-roll-bcast.c:[[#ROLL_RECV+3]]:14 ranks 0-{{[34]}}
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PANEL_TAG 2001
#define NPANELS 6

typedef struct {
  MPI_Comm row;
  int mycol, npcol;
} grid_t;

typedef struct {
  const grid_t *grid;
  double *buf;
  int len, pcol;
} panel_t;

/* Where piece i of n pieces of len elements starts. */
static int piece_at(int i, int n, int len) { return (int)((long)i * len / n); }

/* The process of relative rank r counted from first; with skip_next, the
   one after first is left out (it already holds the panel). */
static int member(const grid_t *g, int first, int r, int skip_next) {
  return (first + r + (skip_next && r > 0)) % g->npcol;
}

/* Spreads the pieces of the n processes first, first + 1, ... (relative
   rank me) from relative rank 0, then rolls them around the ring. */
static int spread_and_roll(panel_t *p, int first, int n, int me,
                           int skip_next) {
  const grid_t *g = p->grid;
  int ierr = MPI_SUCCESS, lo = 0, hi = n, k;
  while (ierr == MPI_SUCCESS && hi - lo > 1) {
    int mid = (lo + hi + 1) / 2;
    int at = piece_at(mid, n, p->len), end = piece_at(hi, n, p->len);
    if (me < mid) {
      if (me == lo)
        ierr = MPI_Send(p->buf + at, end - at, MPI_DOUBLE,
                        member(g, first, mid, skip_next), PANEL_TAG, g->row);
      hi = mid;
    } else {
      if (me == mid)
        ierr = MPI_Recv(p->buf + at, end - at, MPI_DOUBLE,
                        member(g, first, lo, skip_next), PANEL_TAG, g->row,
                        MPI_STATUS_IGNORE);
      lo = mid;
    }
  }
  int next = member(g, first, (me + 1) % n, skip_next);
  int prev = member(g, first, (me + n - 1) % n, skip_next);
  for (k = 0; ierr == MPI_SUCCESS && k < n - 1; k++) {
    int out = (me - k + n) % n, in = (me - k - 1 + n) % n;
    int oat = piece_at(out, n, p->len), iat = piece_at(in, n, p->len);
    MPI_Request req;
    ierr = MPI_Irecv(p->buf + iat, piece_at(in + 1, n, p->len) - iat,
                     MPI_DOUBLE, prev, PANEL_TAG, g->row, &req);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Send(p->buf + oat, piece_at(out + 1, n, p->len) - oat,
                      MPI_DOUBLE, next, PANEL_TAG, g->row);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  return ierr;
}

/* blong: every process spreads and rolls. */
static int bcast_long(panel_t *p) {
  const grid_t *g = p->grid;
  if (g->npcol <= 1)
    return MPI_SUCCESS;
  return spread_and_roll(p, p->pcol, g->npcol,
                         (g->mycol - p->pcol + g->npcol) % g->npcol, 0);
}

/* blonM: the root hands the whole panel to the next process first; the
   root and the others spread and roll without it. With stale, the root
   spreads an old copy of the panel instead (a bug: the next process gets
   other bytes than the rest). */
static int bcast_long_modified(panel_t *p, double *stale) {
  const grid_t *g = p->grid;
  int ierr = MPI_SUCCESS, size = g->npcol, root = p->pcol;
  int next = (root + 1) % size;
  if (size <= 1)
    return MPI_SUCCESS;
  if (g->mycol == root)
    ierr = MPI_Send(p->buf, p->len, MPI_DOUBLE, next, PANEL_TAG, g->row);
  else if (g->mycol == next)
    return MPI_Recv(p->buf, p->len, MPI_DOUBLE, root, PANEL_TAG, g->row,
                    MPI_STATUS_IGNORE);
  if (ierr != MPI_SUCCESS || size == 2)
    return ierr;
  /* Relative ranks among the size - 1 others, the root first. */
  int me = (g->mycol - root + size) % size;
  if (me > 1)
    me -= 1;
  double *panel = p->buf;
  if (stale && me == 0)
    p->buf = stale;
  ierr = spread_and_roll(p, root, size - 1, me, 1);
  p->buf = panel;
  return ierr;
}

int main(int argc, char **argv) {
  grid_t g;
  panel_t p;
  int k, i, modified = argc > 1 && (argv[1][0] == 'M' || argv[1][0] == 'S');
  int stale = argc > 1 && argv[1][0] == 'S';
  int fixed = argc > 1 && argv[1][0] == 'F';
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &g.row);
  MPI_Comm_rank(g.row, &g.mycol);
  MPI_Comm_size(g.row, &g.npcol);
  p.grid = &g;
  p.len = 1000;
  p.buf = malloc(p.len * sizeof(double));
  double *old = calloc(p.len, sizeof(double));
  for (k = 0; k < NPANELS; k++) {
    double sum = 0;
    p.pcol = fixed ? 0 : k % g.npcol;
    p.len = 1000 - 10 * k;
    for (i = 0; i < p.len; i++)
      p.buf[i] = g.mycol == p.pcol ? k * 1000.0 + i : -1.0;
    if (modified)
      bcast_long_modified(&p, stale ? old : NULL);
    else
      bcast_long(&p);
    for (i = 0; i < p.len; i++)
      sum += p.buf[i];
    printf("panel %d rank %d: %.0f\n", k, g.mycol, sum);
  }
  free(p.buf);
  free(old);
  MPI_Comm_free(&g.row);
  MPI_Finalize();
  return 0;
}
