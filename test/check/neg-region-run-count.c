// A master hands parameter blocks to its workers with a broadcast written
// by hand, one block per round. The workers run a fixed number of rounds;
// the master runs one more, for the closing block, which the workers take
// at the end with a receive of their own. The hand-written messages match:
// the closing block's sends meet the workers' last receives. An MPI_Bcast
// in their place would not: the master's extra broadcast waits for workers
// that never call it, and their last receive waits for a message that
// never comes (the rewritten program hangs). Some ranks run the region
// more often than others, which input-independence refuses.
//
// With SAME_ROUNDS every process runs every round through the helper and
// the closing block is its own collective call: then it is rewritten.
// clang-format off
// RUN: %check-rewrite refuse %s %t | FileCheck %s --check-prefix=EXTRA --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t.same --cflags=-DSAME_ROUNDS | FileCheck %s --check-prefix=SAME --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define BLOCK 6
#define BLOCK_TAG 7
#define ROUNDS 3

typedef struct {
  int rank, size;
} team_t;

/* The master's block to every worker. */
static int share_block(const team_t *t, double *block) {
  int w, ierr = MPI_SUCCESS;
  if (t->rank == 0) {
    for (w = 1; w < t->size; w++)
      // EXTRA: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
      // SAME: prog.c:[[#@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(block, BLOCK, MPI_DOUBLE, w, BLOCK_TAG, MPI_COMM_WORLD);
  } else {
    ierr = MPI_Recv(block, BLOCK, MPI_DOUBLE, 0, BLOCK_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}

int main(int argc, char **argv) {
  team_t t;
  double block[BLOCK], sum = 0;
  int r, i, rounds;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
#ifdef SAME_ROUNDS
  rounds = ROUNDS + 1;
#else
  rounds = t.rank == 0 ? ROUNDS + 1 : ROUNDS;
#endif
  for (r = 0; r < rounds; r++) {
    // EXTRA: prog.c:[[#@LINE-1]]:15: note: input-independence: some ranks may call 'share_block' and others not, or not as often: the condition 'r < rounds' may differ between ranks
    for (i = 0; i < BLOCK; i++)
      block[i] = t.rank == 0 ? 10.0 * r + i : -1.0;
    share_block(&t, block);
    sum += block[0];
  }
#ifndef SAME_ROUNDS
  if (t.rank != 0) {
    MPI_Recv(block, BLOCK, MPI_DOUBLE, 0, BLOCK_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    sum += block[0];
  }
#endif
  printf("rank %d: closing block %.0f, sum %.0f\n", t.rank, block[0], sum);
  MPI_Finalize();
  return 0;
}
