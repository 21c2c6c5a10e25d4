// Issue 14: the most copied hand-written broadcast. The root loops over
// every rank and skips itself; rank, size and communicator live in a
// context structure handed around by pointer; error codes are kept and
// checked after every send; the root is the last rank.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define NPARAM 5
#define PARAM_TAG 3

typedef struct {
  MPI_Comm comm;
  int rank;
  int size;
} context_t;

static double params[NPARAM];

static int distribute_parameters(const context_t *ctx, int root) {
  int ierr = MPI_SUCCESS;
  if (ctx->rank == root) {
    for (int i = 0; i < ctx->size; i++) {
      if (i != ctx->rank) {
        ierr = MPI_Send(params, NPARAM, MPI_DOUBLE, i, PARAM_TAG, ctx->comm);
        if (ierr != MPI_SUCCESS)
          return ierr;
      }
    }
    // CHECK-MESSAGES: :[[@LINE-7]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    ierr = MPI_Recv(params, NPARAM, MPI_DOUBLE, root, PARAM_TAG, ctx->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
  // CHECK-FIXES: int ierr = MPI_SUCCESS;
  // CHECK-FIXES-NEXT: ierr = MPI_Bcast(params, NPARAM, MPI_DOUBLE, root, ctx->comm);
  // CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
  // CHECK-FIXES-NEXT: return ierr;
  // CHECK-FIXES-NEXT: return ierr;
}

int main(int argc, char **argv) {
  context_t ctx;
  MPI_Init(&argc, &argv);
  ctx.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(ctx.comm, &ctx.rank);
  MPI_Comm_size(ctx.comm, &ctx.size);
  for (int k = 0; k < NPARAM; k++)
    params[k] = ctx.rank == ctx.size - 1 ? 1.5 * k : 0.0;
  int err = distribute_parameters(&ctx, ctx.size - 1);
  printf("rank %d: err %d params %.1f %.1f\n", ctx.rank, err, params[1],
         params[NPARAM - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
