// HPL's long broadcasts as HPL sends them: the panel is a block of columns
// with a leading dimension larger than its rows, and every message is one
// element of a datatype built like HPL_packL's, one block per column a
// piece touches, addressed from the piece's first element. The data of a
// message therefore has gaps (the rows past the panel's end in each
// column); the trace records its runs of bytes, and the dataflow follows
// them.
//
// blong (argument L): the pieces spread down a binomial tree and roll
// around a ring. blonM (argument M): the root first sends the whole panel
// to the next process; the others spread and roll without it. Taken as
// one range of memory from its first byte, a piece lies further into the
// whole than its place in the message, so without the runs blonM was
// reported as a scatter that the roll does not complete. With U, the
// whole panel goes as a subarray, a type the tracer does not decode: the
// trace marks the gaps without runs, and detect says that is what it
// cannot follow. With S the root spreads a stale copy (a bug).
// clang-format off
// RUN: %mpicc %s -o %t.exe
// RUN: rm -rf %t.l && %mpirun -np 4 %mpilift-run -o %t.l -- %t.exe L > %t.outl
// RUN: FileCheck %s --check-prefix=RAN --implicit-check-not=wrong < %t.outl
// RUN: %mpilift detect %t.l | FileCheck %s --check-prefix=LONG
// RUN: rm -rf %t.m && %mpirun -np 4 %mpilift-run -o %t.m -- %t.exe M > %t.outm
// RUN: FileCheck %s --check-prefix=RAN --implicit-check-not=wrong < %t.outm
// RUN: %mpilift detect %t.m | FileCheck %s --check-prefix=MODIFIED
// RUN: %mpilift trace dump %t.m --rank 0 | FileCheck %s --check-prefix=DUMP
// RUN: rm -rf %t.m5 && %mpirun -np 5 %mpilift-run -o %t.m5 -- %t.exe M > %t.outm5
// RUN: FileCheck %s --check-prefix=RAN --implicit-check-not=wrong < %t.outm5
// RUN: rm -rf %t.u && %mpirun -np 4 %mpilift-run -o %t.u -- %t.exe MU > %t.outu
// RUN: FileCheck %s --check-prefix=RAN --implicit-check-not=wrong < %t.outu
// RUN: %mpilift detect %t.u | FileCheck %s --check-prefix=UNDECODED --implicit-check-not=' bcast '
// RUN: %mpilift detect %t.m5 | FileCheck %s --check-prefix=MODIFIED5
// RUN: rm -rf %t.s && %mpirun -np 4 %mpilift-run -o %t.s -- %t.exe MS > %t.outs
// RUN: %mpilift detect %t.s | FileCheck %s --check-prefix=STALE --implicit-check-not=' bcast '
// RAN: panel 5 rank 3: ok
// LONG: bcast scatter-allgather comm 1 roots 0-3, 6000 to 8000 bytes, 6 occurrences, evidence both (the root changes between occurrences)
// MODIFIED: bcast modified-scatter-allgather comm 1 roots 0-3, 6000 to 8000 bytes, 6 occurrences, evidence both (the root changes between occurrences)
// MODIFIED5: bcast modified-scatter-allgather comm 1 roots 0-4, 6000 to 8000 bytes, 6 occurrences, evidence both (the root changes between occurrences)
// With S the root spreads an old copy of the panel, laid out alike: the
// next process gets other bytes than the rest, and no broadcast is claimed.
// STALE: unknown modified-binomial comm 1 roots 0-3, {{.*}}, 6 occurrences, evidence template (the root changes between occurrences; the root sends the whole message to the next rank first; the others' dataflow is a scatter that the steps after it do not complete to a broadcast)
// A whole panel of 20 columns of 50 rows, 57 apart: 20 runs of 400 bytes.
// DUMP: MPI_Send peer=1 tag=2001 comm=1 bytes=8000 buf={{0x[0-9a-f]+}} gaps=0+400,456+400,912+400,{{.*}},8664+400 at
// UNDECODED: unknown modified-binomial comm 1 roots 0-3, {{.*}}, 6 occurrences, evidence template (the root changes between occurrences; the root sends the whole message to the next rank first; the messages use datatypes with gaps the trace does not describe, so the dataflow cannot show whether the steps after them complete a broadcast)
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PANEL_TAG 2001
#define NPANELS 6
#define ROWS 50
#define COLS 20
#define LDA (ROWS + 7)
#define UNSENT -7.0

typedef struct {
  MPI_Comm row;
  int mycol, npcol;
} grid_t;

typedef struct {
  const grid_t *grid;
  double *a; /* COLS columns of ROWS rows, LDA apart */
  int len, pcol;
} panel_t;

/* Where piece i of n pieces of len elements starts. */
static int piece_at(int i, int n, int len) { return (int)((long)i * len / n); }

/* The address of element e of the panel, counted down the columns. */
static double *element(const panel_t *p, int e) {
  return p->a + (e / ROWS) * LDA + e % ROWS;
}

/* Elements [at, end) as one element of a new datatype, one block per
   column, with displacements from the first element (HPL_packL). */
static double *piece_type(const panel_t *p, int at, int end,
                          MPI_Datatype *type) {
  int lens[COLS + 1], n = 0, e = at;
  MPI_Aint disps[COLS + 1], base, here;
  MPI_Get_address(element(p, at), &base);
  while (e < end) {
    int len = ROWS - e % ROWS;
    if (len > end - e)
      len = end - e;
    MPI_Get_address(element(p, e), &here);
    lens[n] = len;
    disps[n++] = here - base;
    e += len;
  }
  MPI_Type_create_hindexed(n, lens, disps, MPI_DOUBLE, type);
  MPI_Type_commit(type);
  return element(p, at);
}

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
    MPI_Datatype t;
    double *piece = piece_type(p, at, end, &t);
    if (me < mid) {
      if (me == lo)
        ierr = MPI_Send(piece, 1, t, member(g, first, mid, skip_next),
                        PANEL_TAG, g->row);
      hi = mid;
    } else {
      if (me == mid)
        ierr = MPI_Recv(piece, 1, t, member(g, first, lo, skip_next),
                        PANEL_TAG, g->row, MPI_STATUS_IGNORE);
      lo = mid;
    }
    MPI_Type_free(&t);
  }
  int next = member(g, first, (me + 1) % n, skip_next);
  int prev = member(g, first, (me + n - 1) % n, skip_next);
  for (k = 0; ierr == MPI_SUCCESS && k < n - 1; k++) {
    int out = (me - k + n) % n, in = (me - k - 1 + n) % n;
    int oat = piece_at(out, n, p->len), iat = piece_at(in, n, p->len);
    MPI_Datatype rt, st;
    MPI_Request req;
    double *into = piece_type(p, iat, piece_at(in + 1, n, p->len), &rt);
    double *from = piece_type(p, oat, piece_at(out + 1, n, p->len), &st);
    ierr = MPI_Irecv(into, 1, rt, prev, PANEL_TAG, g->row, &req);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Send(from, 1, st, next, PANEL_TAG, g->row);
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&rt);
    MPI_Type_free(&st);
  }
  return ierr;
}

static int bcast_long(panel_t *p) {
  const grid_t *g = p->grid;
  if (g->npcol <= 1)
    return MPI_SUCCESS;
  return spread_and_roll(p, p->pcol, g->npcol,
                         (g->mycol - p->pcol + g->npcol) % g->npcol, 0);
}

static int bcast_long_modified(panel_t *p, int undecoded, double *stale) {
  const grid_t *g = p->grid;
  int ierr = MPI_SUCCESS, size = g->npcol, root = p->pcol;
  int next = (root + 1) % size;
  MPI_Datatype whole;
  double *panel = p->a;
  if (size <= 1)
    return MPI_SUCCESS;
  if (undecoded) {
    int sizes[2] = {COLS, LDA}, sub[2] = {p->len / ROWS, ROWS},
        starts[2] = {0, 0};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE,
                             &whole);
    MPI_Type_commit(&whole);
  } else {
    panel = piece_type(p, 0, p->len, &whole);
  }
  if (g->mycol == root)
    ierr = MPI_Send(panel, 1, whole, next, PANEL_TAG, g->row);
  else if (g->mycol == next)
    ierr = MPI_Recv(panel, 1, whole, root, PANEL_TAG, g->row,
                    MPI_STATUS_IGNORE);
  MPI_Type_free(&whole);
  if (ierr != MPI_SUCCESS || size == 2 || g->mycol == next)
    return ierr;
  int me = (g->mycol - root + size) % size;
  if (me > 1)
    me -= 1;
  double *own = p->a;
  if (stale && me == 0)
    p->a = stale;
  ierr = spread_and_roll(p, root, size - 1, me, 1);
  p->a = own;
  return ierr;
}

int main(int argc, char **argv) {
  grid_t g;
  panel_t p;
  int k, e, ierr = MPI_SUCCESS;
  int modified = argc > 1 && argv[1][0] == 'M';
  int undecoded = modified && argv[1][1] == 'U';
  int stale = modified && argv[1][1] == 'S';
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &g.row);
  MPI_Comm_rank(g.row, &g.mycol);
  MPI_Comm_size(g.row, &g.npcol);
  p.grid = &g;
  p.a = malloc(sizeof(double) * LDA * COLS);
  double *old = calloc(LDA * COLS, sizeof(double));
  for (k = 0; k < NPANELS && ierr == MPI_SUCCESS; k++) {
    int ok = 1;
    p.pcol = k % g.npcol;
    p.len = ROWS * (COLS - k);
    for (e = 0; e < LDA * COLS; e++)
      p.a[e] = UNSENT;
    for (e = 0; e < p.len; e++)
      *element(&p, e) = g.mycol == p.pcol ? k * 10000.0 + e : -1.0;
    ierr = modified ? bcast_long_modified(&p, undecoded, stale ? old : NULL)
                    : bcast_long(&p);
    for (e = 0; e < p.len; e++)
      ok &= *element(&p, e) == k * 10000.0 + e;
    for (e = 0; e < LDA * COLS; e++)
      if (e % LDA >= ROWS || e / LDA >= COLS - k)
        ok &= p.a[e] == UNSENT;
    printf("panel %d rank %d: %s\n", k, g.mycol, ok ? "ok" : "wrong");
  }
  free(p.a);
  free(old);
  MPI_Comm_free(&g.row);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
