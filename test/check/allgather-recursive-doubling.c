// Issue 14: a recursive-doubling allgather that is right at every process
// count, not only at powers of two. The ranks past the largest power of two
// hand their block to a partner first, the power-of-two group doubles (each
// exchange moves the blocks a group holds, its partners' included), and the
// partners get the whole table back. Rank, size and communicator live in a
// structure, every call keeps its error code. The inner doubling loop alone
// is no collective; the whole exchange is one MPI_Allgather, and only that
// is reported.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BLK 3
#define MAXP 64

typedef struct {
  MPI_Comm comm;
  int me, np;
} team_t;

/* Recursive-doubling allgather that works for any number of processes:
   the ranks past the largest power of two first hand their block to a
   partner, the power-of-two group doubles, and the partners hand the
   whole table back. */
static int team_allgather(const team_t *t, long *table) {
  int ierr = MPI_SUCCESS;
  int pof2 = 1;
  while (pof2 * 2 <= t->np)
    pof2 *= 2;
  int rem = t->np - pof2;
  if (t->me >= pof2) {
    ierr = MPI_Send(&table[t->me * BLK], BLK, MPI_LONG, t->me - pof2, 7,
                    t->comm);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point exchanges implements an allgather (static analysis and the trace); replace it with MPI_Allgather [mpilift-manual-allgather]
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: evaluated at 68 process counts; not at 4099, whose runs would take too many operations
    // CHECK-NB: :[[@LINE-4]]:5: warning: loop of point-to-point exchanges implements an allgather (static analysis); replace it with MPI_Iallgather [mpilift-manual-allgather]
    if (ierr != MPI_SUCCESS)
      return ierr;
  } else {
    if (t->me < rem) {
      ierr = MPI_Recv(&table[(t->me + pof2) * BLK], BLK, MPI_LONG,
                      t->me + pof2, 7, t->comm, MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
    for (int mask = 1; mask < pof2; mask <<= 1) {
      int partner = t->me ^ mask;
      int mine = t->me & ~(mask - 1);
      int theirs = partner & ~(mask - 1);
      ierr = MPI_Sendrecv(&table[mine * BLK], mask * BLK, MPI_LONG, partner,
                          8, &table[theirs * BLK], mask * BLK, MPI_LONG,
                          partner, 8, t->comm, MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      /* The blocks of the ranks past pof2 that each group holds. */
      int my_extra = rem - mine < mask ? rem - mine : mask;
      int their_extra = rem - theirs < mask ? rem - theirs : mask;
      if (my_extra < 0)
        my_extra = 0;
      if (their_extra < 0)
        their_extra = 0;
      ierr = MPI_Sendrecv(&table[(mine + pof2) * BLK], my_extra * BLK,
                          MPI_LONG, partner, 9,
                          &table[(theirs + pof2) * BLK], their_extra * BLK,
                          MPI_LONG, partner, 9, t->comm, MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
    if (t->me < rem)
      ierr = MPI_Send(table, t->np * BLK, MPI_LONG, t->me + pof2, 10,
                      t->comm);
    return ierr;
  }
  ierr = MPI_Recv(table, t->np * BLK, MPI_LONG, t->me - pof2, 10, t->comm,
                  MPI_STATUS_IGNORE);
  return ierr;
}
// The error code of the collective takes the place of the messages' codes.
// CHECK-FIXES: while (pof2 * 2 <= t->np)
// CHECK-FIXES-NEXT: pof2 *= 2;
// CHECK-FIXES-NEXT: ierr = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table, BLK, MPI_LONG,
// CHECK-FIXES-NEXT: t->comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NOT: MPI_Send
// CHECK-FIXES-NOT: MPI_Sendrecv
// CHECK-NB-FIXES: ierr = MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, table, BLK,
// CHECK-NB-FIXES-NEXT: MPI_LONG, t->comm, &allgather_request);
// CHECK-NB-FIXES-NEXT: if (ierr == MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: ierr = MPI_Wait(&allgather_request, MPI_STATUS_IGNORE);
// CHECK-NB-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: return ierr;

int main(int argc, char **argv) {
  team_t t;
  long table[MAXP * BLK];
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  for (int k = 0; k < BLK; k++)
    table[t.me * BLK + k] = 100L * t.me + k;
  if (team_allgather(&t, table) != MPI_SUCCESS)
    MPI_Abort(t.comm, 1);
  for (int k = 0; k < t.np * BLK; k++)
    printf("rank %d table[%d] = %ld\n", t.me, k, table[k]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
