// Process 0 reads the sizes of a run and broadcasts them, checking both
// broadcasts in one condition the way C codes chain their error checks:
// `if (MPI_Bcast(&n, ...) != MPI_SUCCESS || MPI_Bcast(&reps, ...) !=
// MPI_SUCCESS)`. The second broadcast runs only where the first returned
// MPI_SUCCESS, which in a run without MPI errors (the runs a proof speaks
// of) is every process: both sizes are the same everywhere, and the star
// that sends the slab `reps` times, `n` numbers each, is rewritten. With
// AND_CHAIN the checks are spelled `== MPI_SUCCESS && ... == MPI_SUCCESS`,
// with the same result.
//
// Must not be rewritten: with LARGE_ONLY, the second broadcast runs only
// where `n` is large (`|| (n > 8 && MPI_Bcast(&reps, ...) != ...)`), which
// is no error test: `reps` is not proven the same on every process, and
// input-independence refuses.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.and --cflags=-DAND_CHAIN | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.and/prog.c
// RUN: %check-rewrite refuse %s %t.large --trace --cflags=-DLARGE_ONLY | FileCheck %s --check-prefix=REFUSED --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SLAB_MAX 32
#define SLAB_TAG 5

int main(int argc, char **argv) {
  int me, np, n = SLAB_MAX / 2, reps = 2, r, p, i, ierr = MPI_SUCCESS;
  double slab[SLAB_MAX];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (me == 0 && argc > 2) {
    n = atoi(argv[1]);
    reps = atoi(argv[2]);
    if (n < 1 || n > SLAB_MAX)
      n = SLAB_MAX;
  }
#if defined(AND_CHAIN)
  if (!(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS &&
        MPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS))
#elif defined(LARGE_ONLY)
  if (MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
      (n > 8 && MPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS))
#else
  if (MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
      MPI_Bcast(&reps, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
#endif
  {
    fprintf(stderr, "could not share the sizes\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (i = 0; i < SLAB_MAX; i++)
    slab[i] = me == 0 ? 3.0 * i - 1 : 0.0;
  for (r = 0; r < reps; r++) {
    if (me != 0) {
      ierr |= MPI_Recv(slab, n, MPI_DOUBLE, 0, SLAB_TAG + r, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
      // CHECK-FIXES: ierr |= MPI_Bcast(slab, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    } else {
      for (p = np - 1; p > 0; p--)
        // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
        ierr |= MPI_Send(slab, n, MPI_DOUBLE, p, SLAB_TAG + r, MPI_COMM_WORLD);
    }
  }
  double sum = 0;
  for (i = 0; i < n; i++)
    sum += slab[i];
  printf("rank %d: n %d reps %d sum %.1f\n", me, n, reps, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// Where 'reps' is not proven the same, the run computes what process 0
// alone gave it first, and stops at the condition it read it behind
// ('argc' is no longer taken for the rank to say what the region looks
// like: it never is).
// REFUSED: prog.c:[[#@LINE-20]]:15: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
// REFUSED: note: input-independence: the condition 'argc > 2' cannot be evaluated: 'argc' is written by a call of 'MPI_Init'
// REFUSED: check-rewrite: unchanged
