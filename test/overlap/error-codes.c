// Error codes kept, the way production codes write every call: the result
// of each MPI call goes to 'ierr' and is checked. The split send's wait and
// the moved wait give their own code to 'ierr' where they land; a read of
// 'ierr' may be passed by a split call's wait (it sees the start's code),
// a write may not (the wait would overwrite a newer code), and a moved
// wait passes no use of 'ierr' at all. Codes accumulated over the calls
// (`rc |= MPI_Send(...)`) are accumulated by the split call and its wait.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --np 1,2,3,4,5,7,8 --check-args="--checks=mpilift-split-send,mpilift-sink-wait" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HALO 128
#define TAG_HALO 7

struct ring {
  MPI_Comm comm;
  int me, nprocs;
};

static void fail(int ierr, const char *what) {
  if (ierr != MPI_SUCCESS) {
    fprintf(stderr, "%s failed: %d\n", what, ierr);
    MPI_Abort(MPI_COMM_WORLD, ierr);
  }
}

static int exchange(const struct ring *R, double *halo, double *in,
                    double *acc) {
  int ierr, nerr = 0;
  MPI_Status status;
  MPI_Request req;
  int right = (R->me + 1) % R->nprocs;
  int left = (R->me + R->nprocs - 1) % R->nprocs;
  ierr = MPI_Irecv(in, HALO, MPI_DOUBLE, left, TAG_HALO, R->comm, &req);
  fail(ierr, "MPI_Irecv");
  ierr = MPI_Send(halo, HALO, MPI_DOUBLE, right, TAG_HALO, R->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: blocking MPI_Send can overlap the next 4 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
  // CHECK-FIXES: MPI_Request send_request = MPI_REQUEST_NULL;
  // CHECK-FIXES-NEXT: ierr = MPI_Isend(halo, HALO, MPI_DOUBLE, right, TAG_HALO, R->comm,
  // CHECK-FIXES-NEXT: &send_request);
  if (ierr != MPI_SUCCESS)
    nerr++;
  double w = 0, v = 0;
  for (int k = 1; k <= 2000 + R->me; k++)
    w += 1.0 / k;
  for (int k = 1; k <= 1000; k++)
    v += 1.0 / k;
  // CHECK-FIXES: v += 1.0 / k;
  // CHECK-FIXES-NEXT: ierr = MPI_Wait(&send_request, MPI_STATUS_IGNORE);
  // CHECK-FIXES: ierr = MPI_Wait(&req, &status);
  ierr = MPI_Wait(&req, &status);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: remark: MPI_Wait: nothing to overlap [mpilift-sink-wait]
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the wait cannot move: this statement uses 'ierr'
  if (ierr != MPI_SUCCESS)
    nerr++;
  *acc += w - v;
  return nerr;
}

/// Passes the received halo on with a nonblocking send; its wait, whose
/// code is checked only after some computation, moves down to the check.
static int forward(const struct ring *R, const double *in, double *out,
                   double *acc) {
  int ierr, nerr = 0;
  MPI_Request sreq, rreq;
  int right = (R->me + 1) % R->nprocs;
  int left = (R->me + R->nprocs - 1) % R->nprocs;
  for (int k = 0; k < HALO; k++)
    out[k] = in[k] + 1;
  ierr = MPI_Irecv(out + HALO, HALO, MPI_DOUBLE, left, TAG_HALO + 1, R->comm,
                   &rreq);
  fail(ierr, "MPI_Irecv");
  ierr = MPI_Isend(out, HALO, MPI_DOUBLE, right, TAG_HALO + 1, R->comm, &sreq);
  fail(ierr, "MPI_Isend");
  ierr = MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: MPI_Wait can move past the next 3 statements [mpilift-sink-wait]
  double w = 0, v = 0;
  for (int k = 1; k <= 500 + R->me; k++)
    w += 1.0 / k;
  for (int k = 1; k <= 700; k++)
    v += 1.0 / k;
  // CHECK-FIXES: v += 1.0 / k;
  // CHECK-FIXES-NEXT: ierr = MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  // CHECK-FIXES: nerr += ierr != MPI_SUCCESS;
  nerr += ierr != MPI_SUCCESS;
  ierr = MPI_Wait(&rreq, MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: remark: MPI_Wait: nothing to overlap [mpilift-sink-wait]
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the wait cannot move: this statement uses 'ierr'
  nerr += ierr != MPI_SUCCESS;
  *acc += (w - v) * out[HALO];
  return nerr;
}

/// Keeps one code for all its calls, or-ed together.
static int shift(const struct ring *R, const double *in, double *back,
                 double *acc) {
  int rc = MPI_SUCCESS;
  MPI_Request req;
  int right = (R->me + 1) % R->nprocs;
  int left = (R->me + R->nprocs - 1) % R->nprocs;
  rc |= MPI_Irecv(back, HALO, MPI_DOUBLE, right, TAG_HALO + 2, R->comm, &req);
  rc |= MPI_Send(in, HALO, MPI_DOUBLE, left, TAG_HALO + 2, R->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: blocking MPI_Send can overlap the next 2 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
  // CHECK-FIXES: rc |= MPI_Isend(in, HALO, MPI_DOUBLE, left, TAG_HALO + 2, R->comm,
  double w = 0;
  for (int k = 1; k <= 900 + R->me; k++)
    w += 1.0 / k;
  // CHECK-FIXES: w += 1.0 / k;
  // CHECK-FIXES-NEXT: rc |= MPI_Wait(&send_request{{[0-9]*}}, MPI_STATUS_IGNORE);
  rc |= MPI_Wait(&req, MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: remark: MPI_Wait: nothing to overlap [mpilift-sink-wait]
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the wait cannot move: this statement uses 'back'
  *acc += w * back[0];
  return rc != MPI_SUCCESS;
}

int main(int argc, char **argv) {
  struct ring R;
  double halo[HALO], in[HALO], out[2 * HALO], back[HALO];
  int ierr = MPI_Init(&argc, &argv);
  fail(ierr, "MPI_Init");
  R.comm = MPI_COMM_WORLD;
  ierr = MPI_Comm_rank(R.comm, &R.me);
  ierr = MPI_Comm_size(R.comm, &R.nprocs);
  double acc = 0, check = 0;
  int nerr = 0;
  for (int step = 0; step < 3; step++) {
    for (int k = 0; k < HALO; k++)
      halo[k] = R.me * 1000 + step * 10 + k;
    nerr += exchange(&R, halo, in, &acc);
    nerr += forward(&R, in, out, &acc);
    nerr += shift(&R, in, back, &acc);
    for (int k = 0; k < HALO; k++)
      check += in[k] * (k + 1) + out[HALO + k] + back[k];
  }
  printf("rank %d: check %.1f work %.6f errors %d\n", R.me, check, acc, nerr);
  ierr = MPI_Finalize();
  return ierr == MPI_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}
