// Issue 15: independent MPI_Bcast calls back to back (one datatype, root
// and communicator), as codes broadcast the parameters rank 0 read one by
// one, are one MPI_Bcast of a packed buffer the root fills; independent
// MPI_Reduce calls to one root with one operation are one MPI_Reduce whose
// result the root unpacks. Parameters in structure fields reached through
// a pointer, error codes kept, the root and counts behind macros, a helper
// in another function.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// CHECK-FIXES: #include <string.h>
#include <mpi.h>
#include <stdio.h>

#define ROOT 0
#define NBIN 4

struct params {
  int nx, ny, steps;
  double dt, tol;
};

struct world {
  MPI_Comm comm;
  int rank, size;
};

static void read_params(const struct world *w, struct params *p, int argc) {
  if (w->rank == ROOT) {
    p->nx = 60 + argc;
    p->ny = 30 + 2 * argc;
    p->steps = 5;
    p->dt = 0.25;
    p->tol = 1e-6 * argc;
  } else {
    p->nx = p->ny = p->steps = -1;
    p->dt = p->tol = -1.0;
  }
}

static int share_params(const struct world *w, struct params *p) {
  int ierr;
  ierr = MPI_Bcast(&p->nx, 1, MPI_INT, ROOT, w->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 3 MPI_Bcast calls back to back with the same datatype, root and communicator; replace them with one MPI_Bcast on a packed buffer [mpilift-fuse-collectives]
  ierr = MPI_Bcast(&p->ny, 1, MPI_INT, ROOT, w->comm);
  ierr = MPI_Bcast(&p->steps, 1, MPI_INT, ROOT, w->comm);
  // CHECK-FIXES: int packed_bcast[3];
  // CHECK-FIXES-NEXT: int pack_rank = -1;
  // CHECK-FIXES-NEXT: MPI_Comm_rank(w->comm, &pack_rank);
  // CHECK-FIXES-NEXT: if (pack_rank == (ROOT)) {
  // CHECK-FIXES-NEXT: memcpy(packed_bcast + 0, &p->nx, 1 * sizeof(int));
  // CHECK-FIXES: ierr = MPI_Bcast(packed_bcast, 3, MPI_INT, ROOT, w->comm);
  // CHECK-FIXES-NEXT: memcpy(&p->nx, packed_bcast + 0, 1 * sizeof(int));
  // CHECK-FIXES-NEXT: memcpy(&p->ny, packed_bcast + 1, 1 * sizeof(int));
  // CHECK-FIXES-NEXT: memcpy(&p->steps, packed_bcast + 2, 1 * sizeof(int));
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Bcast(&p->dt, 1, MPI_DOUBLE, ROOT, w->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 2 MPI_Bcast calls back to back with the same datatype, root and communicator; replace them with one MPI_Bcast on a packed buffer [mpilift-fuse-collectives]
  ierr = MPI_Bcast(&p->tol, 1, MPI_DOUBLE, ROOT, w->comm);
  // CHECK-FIXES: ierr = MPI_Bcast(packed_bcast, 2, MPI_DOUBLE, ROOT, w->comm);
  return ierr;
}

/// Totals of what each rank holds, known to the root.
static void census(const struct world *w, const struct params *p,
                   long totals[2], long hist[NBIN]) {
  long cells = (long)p->nx * (w->rank + 1);
  long faces = 2 * cells + w->rank;
  long mine[NBIN];
  for (int b = 0; b < NBIN; b++)
    mine[b] = (w->rank + b) % 3;
  MPI_Reduce(&cells, &totals[0], 1, MPI_LONG, MPI_SUM, w->size - 1, w->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 3 MPI_Reduce calls back to back with the same operation, datatype, root and communicator; replace them with one MPI_Reduce on a packed buffer [mpilift-fuse-collectives]
  MPI_Reduce(&faces, &totals[1], 1, MPI_LONG, MPI_SUM, w->size - 1, w->comm);
  MPI_Reduce(mine, hist, NBIN, MPI_LONG, MPI_SUM, w->size - 1, w->comm);
  // CHECK-FIXES: long packed_in[NBIN + 2], packed_out[NBIN + 2];
  // CHECK-FIXES-NEXT: int pack_rank = -1;
  // CHECK-FIXES-NEXT: MPI_Comm_rank(w->comm, &pack_rank);
  // CHECK-FIXES-NEXT: memcpy(packed_in + 0, &cells, 1 * sizeof(long));
  // CHECK-FIXES-NEXT: memcpy(packed_in + 1, &faces, 1 * sizeof(long));
  // CHECK-FIXES-NEXT: memcpy(packed_in + 2, mine, NBIN * sizeof(long));
  // CHECK-FIXES-NEXT: MPI_Reduce(packed_in, packed_out, NBIN + 2, MPI_LONG, MPI_SUM, w->size - 1,
  // CHECK-FIXES-NEXT: w->comm);
  // CHECK-FIXES-NEXT: if (pack_rank == (w->size - 1)) {
  // CHECK-FIXES-NEXT: memcpy(&totals[0], packed_out + 0, 1 * sizeof(long));
  // CHECK-FIXES-NEXT: memcpy(&totals[1], packed_out + 1, 1 * sizeof(long));
  // CHECK-FIXES-NEXT: memcpy(hist, packed_out + 2, NBIN * sizeof(long));
}

int main(int argc, char **argv) {
  struct world w;
  struct params p;
  long totals[2] = {-1, -1}, hist[NBIN] = {0, 0, 0, 0};
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  read_params(&w, &p, argc);
  int ierr = share_params(&w, &p);
  census(&w, &p, totals, hist);
  printf("rank %d: %d %d %d %g %g | %ld %ld | %ld %ld %ld %ld (%d)\n", w.rank,
         p.nx, p.ny, p.steps, p.dt, p.tol, totals[0], totals[1], hist[0],
         hist[1], hist[2], hist[3], ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
