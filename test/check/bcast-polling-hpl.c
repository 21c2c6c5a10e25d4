// HPL 2.3's polling ring broadcast (src/comm/HPL_1ring.c) as HPL writes
// it: every error code kept and tested, rank, size and communicator in
// the grid structure (the communicator copied to a local first), root and
// message id in the panel structure, buffer, count and type behind macros,
// the neighbours computed by HPL's `?:` macros, C89 declarations assigned
// later, and early returns for a missing panel and a single process. The
// rewrite keeps the error flow: each new call's code goes to 'ierr', and a
// call that failed is not waited for or tested.
//
// Variants that must not be rewritten, each naming the check that refused:
// the status kept in the panel (HPL's own `&PANEL->status[0]`, which other
// files may read), the rank queried on another communicator than the
// messages use, a root field some ranks set differently, and a
// communicator copied from two different fields.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.status --cflags=-DPANEL_STATUS --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=STATUS --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.world --trace --cflags=-DWORLD_RANK --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=WORLD --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.root --trace --cflags=-DROOT_SET_BY_SOME --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=ROOT --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.comm --trace --cflags=-DCOMM_TWO_FIELDS --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=COMM --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HPL_SUCCESS 0
#define HPL_FAILURE 1
#define HPL_KEEP_TESTING 2

#define MModAdd1(I, d) (((I) != (d) - 1) ? (I) + 1 : 0)
#define MModSub1(I, d) (((I) != 0) ? (I) - 1 : (d) - 1)

typedef struct {
  MPI_Comm row_comm, col_comm;
  int mycol, npcol;
} HPL_T_grid;

typedef struct {
  HPL_T_grid *grid;
  double *L2;
  int len, pcol, msgid;
  MPI_Status status[1];
} HPL_T_panel;

#define _M_BUFF (void *)(PANEL->L2)
#define _M_COUNT PANEL->len
#define _M_TYPE MPI_DOUBLE

static int HPL_grid_init(MPI_Comm comm, HPL_T_grid *GRID) {
  int ierr = MPI_Comm_dup(comm, &GRID->row_comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Comm_dup(comm, &GRID->col_comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
#ifdef WORLD_RANK
  ierr = MPI_Comm_rank(MPI_COMM_WORLD, &GRID->mycol);
#else
  ierr = MPI_Comm_rank(GRID->row_comm, &GRID->mycol);
#endif
  if (ierr != MPI_SUCCESS)
    return ierr;
  return MPI_Comm_size(GRID->row_comm, &GRID->npcol);
}

// The status kept in the panel is a variant of its own, the macro defined
// beside the function that uses it: a macro defined otherwise by another
// build would refuse both (source-form), as the rewrite of the one would
// drop the status the other keeps.
#ifdef PANEL_STATUS
#define _M_STATUS &PANEL->status[0]
static int HPL_bcast_1ring(HPL_T_panel *PANEL, int *IFLAG) {
  MPI_Comm comm;
  MPI_Status status;
  int ierr, go, next, msgid, prev, rank, root, size;

  if (PANEL == NULL) {
    *IFLAG = HPL_SUCCESS;
    return HPL_SUCCESS;
  }
  if ((size = PANEL->grid->npcol) <= 1) {
    *IFLAG = HPL_SUCCESS;
    return HPL_SUCCESS;
  }
  rank = PANEL->grid->mycol;
#ifdef COMM_TWO_FIELDS
  if (PANEL->msgid % 2)
    comm = PANEL->grid->col_comm;
  else
#endif
    comm = PANEL->grid->row_comm;
  root = PANEL->pcol;
  msgid = PANEL->msgid;

  if (rank == root) {
    ierr = MPI_Send(_M_BUFF, _M_COUNT, _M_TYPE, MModAdd1(rank, size), msgid,
                    comm);
    // STATUS: :[[@LINE-2]]:5: warning: polling ring {{.*}}not rewritten: status-use refused [mpilift-manual-bcast]
    // STATUS: note: status-use: the status _M_STATUS may be read outside this function
  } else {
    prev = MModSub1(rank, size);
    ierr = MPI_Iprobe(prev, msgid, comm, &go, _M_STATUS);
    if (ierr == MPI_SUCCESS) {
      if (go != 0) {
        ierr =
            MPI_Recv(_M_BUFF, _M_COUNT, _M_TYPE, prev, msgid, comm, _M_STATUS);
        next = MModAdd1(rank, size);
        if ((ierr == MPI_SUCCESS) && (next != root)) {
          ierr = MPI_Send(_M_BUFF, _M_COUNT, _M_TYPE, next, msgid, comm);
        }
      } else {
        *IFLAG = HPL_KEEP_TESTING;
        return *IFLAG;
      }
    }
  }
  *IFLAG = (ierr == MPI_SUCCESS ? HPL_SUCCESS : HPL_FAILURE);
  return *IFLAG;
}
#else
#define _M_STATUS &status
static int HPL_bcast_1ring(HPL_T_panel *PANEL, int *IFLAG) {
  MPI_Comm comm;
  MPI_Status status;
  int ierr, go, next, msgid, prev, rank, root, size;

  if (PANEL == NULL) {
    *IFLAG = HPL_SUCCESS;
    return HPL_SUCCESS;
  }
  if ((size = PANEL->grid->npcol) <= 1) {
    *IFLAG = HPL_SUCCESS;
    return HPL_SUCCESS;
  }
  rank = PANEL->grid->mycol;
#ifdef COMM_TWO_FIELDS
  if (PANEL->msgid % 2)
    comm = PANEL->grid->col_comm;
  else
#endif
    comm = PANEL->grid->row_comm;
  root = PANEL->pcol;
  msgid = PANEL->msgid;
  // CHECK-FIXES: static MPI_Request bcast_request = MPI_REQUEST_NULL;

  if (rank == root) {
    ierr = MPI_Send(_M_BUFF, _M_COUNT, _M_TYPE, MModAdd1(rank, size), msgid,
                    comm);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: polling ring of point-to-point messages implements a broadcast (static analysis); replace it with MPI_Ibcast polled by MPI_Test [mpilift-manual-bcast]
    // WORLD: :[[@LINE-3]]:12: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
    // WORLD: note: input-independence: {{.*}}'mycol' is the rank in another communicator than the region's messages use
    // ROOT: :[[@LINE-5]]:12: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
    // ROOT: note: input-independence: the condition 'rank == root' cannot be evaluated: 'pcol' is given a value here that may differ between ranks: the condition 'grid.mycol > 0' may differ between ranks
    // COMM: :[[@LINE-7]]:12: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
    // COMM: note: input-independence: {{.*}}'npcol' is the size in another communicator than the region's messages use
    // CHECK-FIXES: if (rank == root) {
    // CHECK-FIXES-NEXT: ierr = MPI_Ibcast(_M_BUFF, _M_COUNT, _M_TYPE, root, comm, &bcast_request);
    // CHECK-FIXES-NEXT: if (ierr == MPI_SUCCESS)
    // CHECK-FIXES-NEXT: ierr = MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  } else {
    prev = MModSub1(rank, size);
    ierr = MPI_Iprobe(prev, msgid, comm, &go, _M_STATUS);
    // CHECK-FIXES: ierr = MPI_SUCCESS;
    // CHECK-FIXES-NEXT: if (bcast_request == MPI_REQUEST_NULL)
    // CHECK-FIXES-NEXT: ierr = MPI_Ibcast(_M_BUFF, _M_COUNT, _M_TYPE, root, comm, &bcast_request);
    // CHECK-FIXES-NEXT: if (ierr == MPI_SUCCESS)
    // CHECK-FIXES-NEXT: ierr = MPI_Test(&bcast_request, &go, MPI_STATUS_IGNORE);
    // CHECK-FIXES: if (ierr == MPI_SUCCESS) {
    // CHECK-FIXES-NEXT: if (go != 0) {
    // CHECK-FIXES-NEXT: } else {
    if (ierr == MPI_SUCCESS) {
      if (go != 0) {
        ierr =
            MPI_Recv(_M_BUFF, _M_COUNT, _M_TYPE, prev, msgid, comm, _M_STATUS);
        next = MModAdd1(rank, size);
        if ((ierr == MPI_SUCCESS) && (next != root)) {
          ierr = MPI_Send(_M_BUFF, _M_COUNT, _M_TYPE, next, msgid, comm);
        }
      } else {
        *IFLAG = HPL_KEEP_TESTING;
        return *IFLAG;
      }
    }
  }
  *IFLAG = (ierr == MPI_SUCCESS ? HPL_SUCCESS : HPL_FAILURE);
  return *IFLAG;
}
#endif

/// The look-ahead loop: a column of the trailing update per poll until the
/// panel is there, the rest after.
#define NWORK 40
static double HPL_pdupdate(HPL_T_panel *PANEL) {
  double work[NWORK];
  int test = HPL_KEEP_TESTING, done = 0;
  const int mycol = PANEL->grid->mycol, msgid = PANEL->msgid;
  while (test == HPL_KEEP_TESTING) {
    if (done < NWORK) {
      work[done] = (mycol + 1) * 0.5 * (done + msgid);
      done++;
    }
    (void)HPL_bcast_1ring(PANEL, &test);
  }
  if (test != HPL_SUCCESS)
    return -1;
  for (; done < NWORK; done++)
    work[done] = (mycol + 1) * 0.5 * (done + msgid);
  double sum = 0;
  for (int k = 0; k < NWORK; k++)
    sum += work[k] * PANEL->L2[k % PANEL->len];
  return sum;
}

#ifdef ROOT_SET_BY_SOME
/// The same root, but set again on some ranks only: not provably alike.
static void set_root(HPL_T_panel *PANEL, int root) { PANEL->pcol = root; }
#endif

int main(int argc, char **argv) {
  HPL_T_grid grid;
  double panel[12];
  MPI_Init(&argc, &argv);
  if (HPL_grid_init(MPI_COMM_WORLD, &grid) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int k = 0; k < 5; k++) {
    HPL_T_panel P = {&grid, panel, 12, k % grid.npcol, 1000 + k};
#ifdef ROOT_SET_BY_SOME
    if (grid.mycol > 0)
      set_root(&P, k % grid.npcol);
#endif
    if (grid.mycol == P.pcol)
      for (int i = 0; i < P.len; i++)
        panel[i] = 100.0 * k + i + 0.25;
    double sum = HPL_pdupdate(&P);
    printf("step %d rank %d: %.3f\n", k, grid.mycol, sum);
  }
  MPI_Comm_free(&grid.row_comm);
  MPI_Comm_free(&grid.col_comm);
  MPI_Finalize();
  return 0;
}
