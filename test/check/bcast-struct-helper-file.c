// A broadcast written by hand from a root kept in a structure that a
// header declares and that helpers in another file of the program receive
// (as HPL hands its panel to HPL_copyL in another file). Only the project
// index over the compile database can show that no other unit writes the
// root: here none does, and the loop is rewritten. A helper there that
// clamps the root to 0 where it is out of range is rewritten too: the
// index says the write gives a value every rank shares where every rank
// runs the helper, main calls it on every rank, and the root and size its
// condition reads are proven here.
//
// Must not be rewritten: a helper in the other file that sets the root
// from the rank (the ranks then disagree on the root; a single-unit view
// would have rewritten this); one that changes the root in a way the
// proof does not follow there (the trace shows the broadcast; the refusal
// names the other file); and one that lets the structure's address go to
// the C library (fread), which may write any field, also when the address
// is cast to void * or char * first, moved by pointer arithmetic (memset of
// the bytes of one field) or is an array of such structures.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.rank --cflags=-DHELPER_ROOT_FROM_RANK | FileCheck %s --check-prefix=RANK --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t.clamps --cflags=-DHELPER_CLAMPS_ROOT | FileCheck %s --check-prefix=CLAMPS --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.writes --trace --cflags=-DHELPER_WRAPS_ROOT | FileCheck %s --check-prefix=WRITES --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.escape --trace --cflags=-DHELPER_READS_FILE | FileCheck %s --check-prefix=ESCAPE --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.cast --trace --cflags=-DHELPER_READS_FILE_CAST | FileCheck %s --check-prefix=CAST --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.bytes --trace --cflags=-DHELPER_CLEARS_BYTES | FileCheck %s --check-prefix=BYTES --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.table --trace --cflags=-DHELPER_READS_TABLE | FileCheck %s --check-prefix=TABLE --implicit-check-not=warning:
// clang-format on
#include "exchange.h"

#include <stdio.h>
#include <stdlib.h>

#define XBUF(x) ((x)->data)
#define XCOUNT(x) ((x)->count)
#define XTAG 7

static int exchange_bcast(struct exchange *x) {
  int i, ierr = MPI_SUCCESS;
  if (x->rank == x->root) {
    // CLAMPS: prog.c:[[#@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-MESSAGES: prog.c:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (i = 0; i < x->size; ++i) {
      if (i == x->root)
        continue;
      ierr = MPI_Send(XBUF(x), XCOUNT(x), MPI_INT, i, XTAG, x->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(XBUF(x), XCOUNT(x), MPI_INT, x->root, XTAG, x->comm,
                    MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(XBUF(x), XCOUNT(x), MPI_INT, x->root, x->comm);
  return ierr;
}

int main(int argc, char **argv) {
  struct exchange x;
  int i, ierr;
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &x.comm);
  MPI_Comm_rank(x.comm, &x.rank);
  MPI_Comm_size(x.comm, &x.size);
  x.root = x.size / 2;
  x.count = EXCHANGE_MAX;
  for (i = 0; i < EXCHANGE_MAX; ++i)
    x.data[i] = x.rank == x.root ? 100 * i + 1 : -1;
  if (exchange_validate(&x) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  ierr = exchange_bcast(&x);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  exchange_print(&x);
  MPI_Comm_free(&x.comm);
  MPI_Finalize();
  return 0;
}

// clang-format off
// RANK: check-rewrite: unchanged
// WRITES: prog.c:[[#@LINE-36]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// WRITES: note: input-independence: the condition 'x->rank == x->root' cannot be evaluated: 'root' is given a value in {{.*}}util.c:20:5 that may differ between ranks: it is changed in a way that cannot be followed
// ESCAPE: prog.c:[[#@LINE-38]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// ESCAPE: note: input-independence: the condition 'x->rank == x->root' cannot be evaluated: the address of a 'exchange' goes to code outside the project at {{.*}}util.c:35:16, which may write 'rank'
// CAST: prog.c:[[#@LINE-40]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// CAST: note: input-independence: the condition 'x->rank == x->root' cannot be evaluated: the address of a 'exchange' goes to code outside the project at {{.*}}util.c:40:16, which may write 'rank'
// BYTES: prog.c:[[#@LINE-42]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// BYTES: note: input-independence: the condition 'x->rank == x->root' cannot be evaluated: the address of a 'exchange' goes to code outside the project at {{.*}}util.c:45:10, which may write 'rank'
// TABLE: prog.c:[[#@LINE-44]]:14: warning: point-to-point messages the trace shows as a broadcast {{.*}}not rewritten: input-independence refused [mpilift-manual-bcast]
// TABLE: note: input-independence: the condition 'x->rank == x->root' cannot be evaluated: the address of a 'exchange' goes to code outside the project at {{.*}}util.c:51:16, which may write 'rank'
// clang-format on

//--- exchange.h
#include <mpi.h>

#define EXCHANGE_MAX 16

struct exchange {
  MPI_Comm comm;
  int rank, size, root, count;
  int data[EXCHANGE_MAX];
};

int exchange_validate(struct exchange *x);
void exchange_print(struct exchange *x);
//--- util.c
#include "exchange.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

int exchange_validate(struct exchange *x) {
  if (x->count > EXCHANGE_MAX || x->root < 0 || x->root >= x->size)
    return 1;
#ifdef HELPER_ROOT_FROM_RANK
  if (x->size > 2)
    x->root = x->rank % 2;
#endif
#ifdef HELPER_CLAMPS_ROOT
  if (x->root >= x->size)
    x->root = 0;
#endif
#ifdef HELPER_WRAPS_ROOT
  if (x->root >= x->size)
    x->root -= x->size;
#endif
  return 0;
}

void exchange_print(struct exchange *x) {
  int i;
  printf("rank %d of %d, root %d:", x->rank, x->size, x->root);
  for (i = 0; i < x->count; ++i)
    printf(" %d", x->data[i]);
  printf("\n");
}

#ifdef HELPER_READS_FILE
int exchange_load(struct exchange *x, FILE *f) {
  return fread(x, sizeof *x, 1, f) == 1 ? 0 : 1;
}
#endif
#ifdef HELPER_READS_FILE_CAST
int exchange_load(struct exchange *x, FILE *f) {
  return fread((void *)x, sizeof *x, 1, f) == 1 ? 0 : 1;
}
#endif
#ifdef HELPER_CLEARS_BYTES
void exchange_reset(struct exchange *x) {
  memset((char *)x + offsetof(struct exchange, root), 0, sizeof(int));
}
#endif
#ifdef HELPER_READS_TABLE
struct exchange saved[2];
int exchange_restore(FILE *f) {
  return fread(saved, sizeof saved, 1, f) == 1 ? 0 : 1;
}
#endif
