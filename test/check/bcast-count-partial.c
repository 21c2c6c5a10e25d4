// A problem size kept as a size_t, as the allocation calls want it, read
// by process 0 and broadcast before a hand-written broadcast of that many
// values. MPI_UNSIGNED_LONG carries all eight bytes of it, so every
// process holds process 0's size and the loop is rewritten.
//
// Must not be rewritten: with HALF_SIZE the size goes out as one MPI_INT,
// four of its eight bytes. The others keep their own upper half, which is
// zero on this machine for a small size but is no value MPI promises; the
// note names the broadcast that carries the size only in part.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.half --trace --cflags=-DHALF_SIZE | FileCheck %s --check-prefix=HALF --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_VALUES 96
#define VALUES_TAG 17
#ifdef HALF_SIZE
#define SIZE_TYPE MPI_INT
#else
#define SIZE_TYPE MPI_UNSIGNED_LONG
#endif

/* Process 0's values to every process of comm. */
static int spread_values(double *values, int count, MPI_Comm comm) {
  int me, np, dest, ierr;
  ierr = MPI_Comm_rank(comm, &me);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(comm, &np);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (me == 0) {
    for (dest = 1; dest < np; dest++) {
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(values, count, MPI_DOUBLE, dest, VALUES_TAG, comm);
      // HALF: prog.c:[[#@LINE-1]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(values, count, MPI_DOUBLE, 0, VALUES_TAG, comm,
                    MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(values, count, MPI_DOUBLE, 0, comm);
  }
  return ierr;
}

int main(int argc, char **argv) {
  size_t n = 0;
  int rank, ierr, i;
  double values[MAX_VALUES];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    n = argc > 1 ? strtoul(argv[1], NULL, 10) : 40;
    if (n < 1 || n > MAX_VALUES)
      n = 40;
  }
  ierr = MPI_Bcast(&n, 1, SIZE_TYPE, 0, MPI_COMM_WORLD);
  for (i = 0; i < MAX_VALUES; i++)
    values[i] = rank == 0 ? 1.5 * i : 0.0;
  if (ierr == MPI_SUCCESS)
    ierr = spread_values(values, (int)n, MPI_COMM_WORLD);
  // HALF: prog.c:[[#@LINE-1]]:12: note: input-independence: the count 'count' cannot be evaluated: 'count' receives a value here that may differ between ranks: 'n' is carried by 'MPI_Bcast' only in part, as far as its count and datatype show
  double sum = 0;
  for (i = 0; i < MAX_VALUES; i++)
    sum += values[i];
  printf("rank %d: %zu values, sum %.1f\n", rank, n, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
