// Error codes checked in place, the way codes that test every call write
// them: `if (MPI_Send(...) != MPI_SUCCESS) { report; return -1; }`. The
// split send is checked there, and its wait is checked the same way where
// it lands; a wait checked in place moves with its check. The check's copy
// reads what the original read, so the wait stops before a statement that
// writes it ('step' below).
// clang-format off
// RUN: %check-rewrite rewrite %s %t --np 1,2,3,4,5,7,8 --check-args="--checks=mpilift-split-send,mpilift-sink-wait" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
//
// Refused: a check that counts the failure (`nerr++`) cannot follow the
// wait as written.
// RUN: %check-rewrite refuse %s %t.count --np 1,2,3 --cflags=-DCOUNTED --check-args="--checks=mpilift-split-send" | FileCheck %s --check-prefix=COUNT --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define HALO 96
#define TAG_HALO 3

struct ring {
  MPI_Comm comm;
  int me, nprocs;
};

/// Sends the halo right and works while it goes; the receive from the
/// left is completed by a wait checked in place, which moves below work
/// that does not touch its buffer.
static int exchange(const struct ring *R, const double *halo, double *in,
                    double *acc, int step) {
  MPI_Request req;
  int right = (R->me + 1) % R->nprocs;
  int left = (R->me + R->nprocs - 1) % R->nprocs;
  int nerr = 0;
  if (MPI_Irecv(in, HALO, MPI_DOUBLE, left, TAG_HALO, R->comm, &req) !=
      MPI_SUCCESS)
    return -1;
#ifdef COUNTED
  if (MPI_Send(halo, HALO, MPI_DOUBLE, right, TAG_HALO, R->comm) !=
      MPI_SUCCESS)
    // COUNT: :[[@LINE-2]]:7: remark: blocking MPI_Send: nothing to overlap [mpilift-split-send]
    // COUNT: :[[@LINE+1]]:5: note: the check of the call's code cannot follow the wait as written (it writes, declares or jumps)
    nerr++;
#else
  if (MPI_Send(halo, HALO, MPI_DOUBLE, right, TAG_HALO, R->comm) !=
      MPI_SUCCESS) {
    // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: blocking MPI_Send can overlap the next 2 statements; split it into MPI_Isend and MPI_Wait [mpilift-split-send]
    fprintf(stderr, "rank %d: sending the halo failed at step %d\n", R->me,
            step);
    return -1;
  }
#endif
  // CHECK-FIXES: if (MPI_Isend(halo, HALO, MPI_DOUBLE, right, TAG_HALO, R->comm,
  // CHECK-FIXES-NEXT: &send_request) != MPI_SUCCESS) {
  double w = 0;
  for (int k = 1; k <= 800 + R->me; k++)
    w += 1.0 / k;
  // CHECK-FIXES: w += 1.0 / k;
  // CHECK-FIXES-NEXT: if (MPI_Wait(&send_request, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: fprintf(stderr, "rank %d: sending the halo failed at step %d\n", R->me,
  // CHECK-FIXES-NEXT: step);
  // CHECK-FIXES-NEXT: return -1;
  // CHECK-FIXES-NEXT: }
  // CHECK-FIXES: step++;
  step++;
  *acc += w;
  if (MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: MPI_Wait can move past the next 2 statements [mpilift-sink-wait]
    return -2;
  double v = 0;
  for (int k = 1; k <= 600; k++)
    v += 1.0 / k;
  // CHECK-FIXES: v += 1.0 / k;
  // CHECK-FIXES-NEXT: if (MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
  // CHECK-FIXES-EMPTY:
  // CHECK-FIXES-NEXT: return -2;
  // CHECK-FIXES: *acc -= v * step;
  *acc -= v * step;
  return nerr + in[0] > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  struct ring R;
  double halo[HALO], in[HALO], acc = 0, check = 0;
  int bad = 0;
  MPI_Init(&argc, &argv);
  R.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(R.comm, &R.me);
  MPI_Comm_size(R.comm, &R.nprocs);
  for (int step = 0; step < 3; step++) {
    for (int k = 0; k < HALO; k++)
      halo[k] = R.me * 1000 + step * 10 + k + 1;
    bad += exchange(&R, halo, in, &acc, step);
    for (int k = 0; k < HALO; k++)
      check += in[k] * (k + 1);
  }
  printf("rank %d: check %.1f work %.6f bad %d\n", R.me, check, acc, bad);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
