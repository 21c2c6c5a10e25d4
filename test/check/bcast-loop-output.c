// Issue 18, item 1: the root's loop prints a line per destination and counts
// what it sent, besides sending. The rewrite keeps that loop without its
// send and puts the broadcast before it, so every line is still printed, in
// blocking and in nonblocking mode (where the broadcast completes at once:
// 'coef' is a parameter, so the calls in the root's loop might reach it).
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define NCOEF 6
#define TAG_COEF 21

struct stats {
  int messages;
  long bytes;
};

static void fill(double *coef, int n, int rank) {
  for (int k = 0; k < n; k++)
    coef[k] = rank == 0 ? 0.5 * k + 1 : -1.0;
}

static void share_coefficients(double *coef, int me, int np,
                               struct stats *sent) {
  if (me == 0) {
    for (int dest = 1; dest < np; dest++) {
      printf("root: sending %d coefficients to %d\n", NCOEF, dest);
      MPI_Send(coef, NCOEF, MPI_DOUBLE, dest, TAG_COEF, MPI_COMM_WORLD);
      fprintf(stdout, "root: %d done\n", dest);
      sent->messages++;
      sent->bytes += NCOEF * sizeof(double);
    }
    // CHECK-MESSAGES: :[[@LINE-7]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-FIXES: struct stats *sent) {
    // CHECK-FIXES-NEXT: MPI_Bcast(coef, NCOEF, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    // CHECK-FIXES-NEXT: if (me == 0) {
    // CHECK-FIXES-NEXT: for (int dest = 1; dest < np; dest++) {
    // CHECK-FIXES-NEXT: printf("root: sending %d coefficients to %d\n", NCOEF, dest);
    // CHECK-FIXES-NEXT: fprintf(stdout, "root: %d done\n", dest);
    // CHECK-FIXES-NEXT: sent->messages++;
    // CHECK-NB: :[[@LINE-15]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    // CHECK-NB-FIXES: struct stats *sent) {
    // CHECK-NB-FIXES-NEXT: MPI_Request bcast_request;
    // CHECK-NB-FIXES-NEXT: MPI_Ibcast(coef, NCOEF, MPI_DOUBLE, 0, MPI_COMM_WORLD, &bcast_request);
    // CHECK-NB-FIXES-NEXT: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
    // CHECK-NB-FIXES-NEXT: if (me == 0) {
    // CHECK-NB-FIXES-NEXT: for (int dest = 1; dest < np; dest++) {
    // CHECK-NB-FIXES-NEXT: printf("root: sending %d coefficients to %d\n", NCOEF, dest);
    // CHECK-NB-FIXES-NOT: MPI_Wait
  } else {
    MPI_Recv(coef, NCOEF, MPI_DOUBLE, 0, TAG_COEF, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  int rank, nprocs;
  double coef[NCOEF];
  struct stats sent = {0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  fill(coef, NCOEF, rank);
  share_coefficients(coef, rank, nprocs, &sent);
  printf("rank %d: %d messages, %ld bytes, last coefficient %.2f\n", rank,
         sent.messages, sent.bytes, coef[NCOEF - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
