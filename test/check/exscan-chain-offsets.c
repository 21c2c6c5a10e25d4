// Issue 15: where each rank writes its records in a shared file. The byte
// offset of a rank is the sum of the sizes of the ranks before it: an
// exclusive prefix sum, passed down a chain by hand. Rank 0 starts at 0.
// The context lives in a structure behind a pointer, the result is written
// through a pointer parameter, error codes are kept and checked, the tag
// and record size are macros. Rewritten to MPI_Exscan; MPI_Exscan leaves
// rank 0's result undefined, so the rewrite sets it to 0 again there.
// FIRST_SENDS_OWN spells the chain's first link apart: rank 0 sends its own
// size.
//
// Must not be rewritten: a header before rank 0's records (every offset is
// shifted; the first link sends no rank's own value); rank 0's result left
// as the caller had it (MPI_Exscan would leave it undefined); rank 0's
// result a constant on several processes but another one when it runs
// alone (the fix-up after MPI_Exscan would write the wrong one there). With
// --collectives nonblocking, not rewritten: rank 0's result must be set
// again after the wait, and the wait is sunk away from the call.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.own --cflags=-DFIRST_SENDS_OWN | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=OWN-FIXES < %t.own/prog.c
// RUN: %check-rewrite refuse %s %t.header --cflags=-DHEADER_FIRST | FileCheck %s --check-prefix=HEADER --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.alone --cflags=-DALONE_MARKED | FileCheck %s --check-prefix=LEFT --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.left --cflags=-DFIRST_LEFT | FileCheck %s --check-prefix=LEFT --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=NONBLOCKING --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define TAG_OFFSET 31
#define RECORD_BYTES 48
#define HEADER_BYTES 512

typedef struct {
  MPI_Comm comm;
  int me, np;
  long records;
} io_ctx;

static int file_offset(const io_ctx *io, long *where) {
  int ierr = MPI_SUCCESS;
  long nbytes = io->records * RECORD_BYTES;
#if defined(HEADER_FIRST)
  *where = HEADER_BYTES;
#elif defined(ALONE_MARKED)
  *where = io->np == 1 ? -1 : 0;
#elif !defined(FIRST_LEFT)
  *where = 0;
#endif
#ifdef FIRST_SENDS_OWN
  if (io->me == 0) {
    if (io->np > 1)
      ierr = MPI_Send(&nbytes, 1, MPI_LONG, 1, TAG_OFFSET, io->comm);
  } else {
    ierr = MPI_Recv(where, 1, MPI_LONG, io->me - 1, TAG_OFFSET, io->comm,
                    MPI_STATUS_IGNORE);
    if (ierr == MPI_SUCCESS && io->me < io->np - 1) {
      long next = *where + nbytes;
      ierr = MPI_Send(&next, 1, MPI_LONG, io->me + 1, TAG_OFFSET, io->comm);
    }
  }
#else
  if (io->me > 0) {
    ierr = MPI_Recv(where, 1, MPI_LONG, io->me - 1, TAG_OFFSET, io->comm,
                    MPI_STATUS_IGNORE);
    if (ierr != MPI_SUCCESS)
      return ierr;
  }
  if (io->me < io->np - 1) {
    long next = *where + nbytes;
    ierr = MPI_Send(&next, 1, MPI_LONG, io->me + 1, TAG_OFFSET, io->comm);
  }
#endif
  return ierr;
}
// CHECK-MESSAGES: warning: chain of point-to-point messages implements an exclusive scan (static analysis); replace it with MPI_Exscan [mpilift-manual-scan]

// CHECK-FIXES: #else
// CHECK-FIXES-NEXT: ierr = MPI_Exscan(&nbytes, where, 1, MPI_LONG, MPI_SUM, io->comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: if (io->me == 0)
// CHECK-FIXES-NEXT: *where = 0;
// CHECK-FIXES-NEXT: #endif
// CHECK-FIXES-NEXT: return ierr;

// OWN-FIXES: #ifdef FIRST_SENDS_OWN
// OWN-FIXES-NEXT: ierr = MPI_Exscan(&nbytes, where, 1, MPI_LONG, MPI_SUM, io->comm);
// OWN-FIXES-NEXT: if (io->me == 0)
// OWN-FIXES-NEXT: *where = 0;
// OWN-FIXES-NEXT: #else

// HEADER: warning: chain of point-to-point messages implements an exclusive scan (static analysis); not rewritten: matching-arguments refused [mpilift-manual-scan]
// HEADER: note: matching-arguments: no expression in scope at the pattern's start has the value of the buffer each rank contributes on every rank at every size
// NONBLOCKING: warning: chain of point-to-point messages implements an exclusive scan (static analysis); not rewritten: rank 0's result of the exclusive scan must be set again after the wait, which does not follow the call here [mpilift-manual-scan]
// LEFT: warning: chain of point-to-point messages implements an exclusive scan (static analysis); not rewritten: matching-arguments refused [mpilift-manual-scan]
// LEFT: note: matching-arguments: MPI_Exscan leaves the result of rank 0 undefined, where this region leaves it holding a value that is not one constant of one element

int main(int argc, char **argv) {
  io_ctx io;
  long where = -7;
  MPI_Init(&argc, &argv);
  io.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(io.comm, &io.me);
  MPI_Comm_size(io.comm, &io.np);
  io.records = 1000 + 37 * io.me % 11;
  int ierr = file_offset(&io, &where);
  printf("rank %d: %ld records at byte %ld (%d)\n", io.me, io.records, where,
         ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
