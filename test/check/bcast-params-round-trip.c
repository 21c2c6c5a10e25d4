// Parameters read by process 0 reach the others the way HPL_pdinfo sends
// them: process 0 parses them and packs them into an int array (the
// order as a code, 0 for rows), one MPI_Bcast carries the array, and the
// other processes unpack it (the code decoded back into the order). No
// single write of the block size or the order runs on every process; the
// round trip as a whole gives every process process 0's values, so the
// hand-written broadcast of the panel, whose count comes from both, is
// rewritten.
//
// Must not be rewritten, each with the check that refuses it named:
// - with SWAPPED, the decoding maps code 0 to columns, the encoding rows
//   to 0: process 0 keeps rows, the others take columns and expect a
//   longer panel (their receives take the shorter one; MPI_Bcast would
//   not);
// - with WRONG_SLOT, the order is unpacked from the block size's slot;
// - with LATE_CHANGE, process 0 halves the block size after packing it,
//   so it sends less than the others expect.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.swapped --trace --cflags=-DSWAPPED | FileCheck %s --check-prefix=SWAPPED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.slot --trace --cflags=-DWRONG_SLOT | FileCheck %s --check-prefix=SLOT --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.late --trace --cflags=-DLATE_CHANGE | FileCheck %s --check-prefix=LATE --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef enum { ROW_MAJOR = 101, COLUMN_MAJOR = 102 } order_t;

#define NPARAMS 3
#define MAX_NB 64
#define PANEL_TAG 11
/* Column-major panels carry a pivot block after the values. */
#define COUNT_OF(nb, order) ((nb) + ((order) == ROW_MAJOR ? 0 : 8))

#ifdef SWAPPED
#define DECODE(code) ((code) == 0 ? COLUMN_MAJOR : ROW_MAJOR)
#else
#define DECODE(code) ((code) == 0 ? ROW_MAJOR : COLUMN_MAJOR)
#endif

#ifdef WRONG_SLOT
#define ORDER_SLOT 0
#else
#define ORDER_SLOT 1
#endif

/* Process 0's panel to every process of comm. */
static int send_panel(double *panel, int nb, int tag, MPI_Comm comm) {
  int me, np, p, ierr = MPI_SUCCESS;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  if (me == 0) {
    for (p = 1; p < np; p++)
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      // SWAPPED: prog.c:[[#@LINE+3]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      // SLOT: prog.c:[[#@LINE+2]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      // LATE: prog.c:[[#@LINE+1]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      ierr = MPI_Send(panel, nb, MPI_DOUBLE, p, tag, comm);
  } else {
    ierr = MPI_Recv(panel, nb, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(panel, nb, MPI_DOUBLE, 0, comm);
  }
  return ierr;
}

int main(int argc, char **argv) {
  int rank, ierr, i, nb = 0, depth = 1;
  int iwork[NPARAMS];
  order_t order = ROW_MAJOR;
  double panel[2 * MAX_NB];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    nb = argc > 1 ? atoi(argv[1]) : 24;
    if (nb < 1 || nb > MAX_NB)
      nb = 24;
    order = (argc > 2 && argv[2][0] == 'C') ? COLUMN_MAJOR : ROW_MAJOR;
    depth = argc > 3 ? atoi(argv[3]) : 1;
  }
  if (rank == 0) {
    iwork[0] = nb;
    iwork[1] = (order == ROW_MAJOR ? 0 : 1);
    iwork[2] = depth;
  }
  ierr = MPI_Bcast(iwork, NPARAMS, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    nb = iwork[0];
    order = DECODE(iwork[ORDER_SLOT]);
    depth = iwork[2];
  }
#ifdef LATE_CHANGE
  if (rank == 0)
    nb = nb / 2;
#endif
  for (i = 0; i < 2 * MAX_NB; i++)
    panel[i] = rank == 0 ? i * 0.5 : -1.0;
  if (ierr == MPI_SUCCESS)
    ierr = send_panel(panel, COUNT_OF(nb, order), PANEL_TAG, MPI_COMM_WORLD);
  // SWAPPED: prog.c:[[#@LINE-1]]:12: note: input-independence: the count 'nb' cannot be evaluated: 'nb' receives a value here that may differ between ranks: 'order' reaches the other ranks through element 1 of 'iwork' and the broadcast at line [[#@LINE-14]], but decoding does not give back the value 101 the root may hold
  // SLOT: prog.c:[[#@LINE-2]]:12: note: input-independence: the count 'nb' cannot be evaluated: 'nb' receives a value here that may differ between ranks: 'order' reaches the other ranks through element 0 of 'iwork' and the broadcast at line [[#@LINE-15]], but the root packs another value there
  // LATE: prog.c:[[#@LINE-3]]:12: note: input-independence: the count 'nb' cannot be evaluated: 'nb' receives a value here that may differ between ranks: 'nb' reaches the other ranks through element 0 of 'iwork' and the broadcast at line [[#@LINE-16]], but it is written again after the root packs it
  double sum = 0;
  for (i = 0; i < 2 * MAX_NB; i++)
    sum += panel[i];
  printf("rank %d: nb %d order %d depth %d sum %.1f\n", rank, nb, (int)order,
         depth, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
