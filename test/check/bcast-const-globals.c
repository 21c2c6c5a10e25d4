// Codes name their fixed ranks and tags as constants of the file (`static
// const int MASTER = 0;`, `const int FIRST_WORKER = 1;`) rather than as
// macros. A const object is never written by a conforming program, so its
// initializer is its value on every rank: the master's loop over the
// workers is a broadcast, and the reduction to the master a reduction, with
// the constants kept as written. Until they were read as constants, both
// patterns were passed over in silence.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// clang-format on
#include <mpi.h>
#include <stdio.h>

static const int MASTER = 0;
const int FIRST_WORKER = 1;
static const int CONFIG_TAG = 17, TOTAL_TAG = 18;
enum { NCONFIG = 3 };

typedef struct {
  MPI_Comm comm;
  int rank, nprocs;
} context_t;

static int share_config(const context_t *ctx, int config[NCONFIG]) {
  int ierr = MPI_SUCCESS, w;
  if (ctx->rank == MASTER) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (w = FIRST_WORKER; w < ctx->nprocs; w++) {
      ierr = MPI_Send(config, NCONFIG, MPI_INT, w, CONFIG_TAG, ctx->comm);
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(config, NCONFIG, MPI_INT, MASTER, CONFIG_TAG, ctx->comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(config, NCONFIG, MPI_INT, MASTER, ctx->comm);
  return ierr;
}

static long total_work(const context_t *ctx, long mine) {
  long total = mine, theirs;
  int w;
  if (ctx->rank == MASTER) {
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    for (w = FIRST_WORKER; w < ctx->nprocs; w++) {
      MPI_Recv(&theirs, 1, MPI_LONG, w, TOTAL_TAG, ctx->comm,
               MPI_STATUS_IGNORE);
      total += theirs;
    }
  } else {
    MPI_Send(&mine, 1, MPI_LONG, MASTER, TOTAL_TAG, ctx->comm);
  }
  // CHECK-FIXES: MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MASTER, ctx->comm);
  return total;
}

int main(int argc, char **argv) {
  context_t ctx;
  int config[NCONFIG] = {0, 0, 0}, i;
  MPI_Init(&argc, &argv);
  ctx.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(ctx.comm, &ctx.rank);
  MPI_Comm_size(ctx.comm, &ctx.nprocs);
  if (ctx.rank == MASTER)
    for (i = 0; i < NCONFIG; i++)
      config[i] = 10 * (i + 1);
  if (share_config(&ctx, config) != MPI_SUCCESS)
    MPI_Abort(ctx.comm, 1);
  long total = total_work(&ctx, (long)config[ctx.rank % NCONFIG] + ctx.rank);
  if (ctx.rank == MASTER)
    printf("total %ld\n", total);
  printf("rank %d config %d %d %d\n", ctx.rank, config[0], config[1],
         config[2]);
  MPI_Finalize();
  return 0;
}
