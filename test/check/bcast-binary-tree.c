// Issue 14: a binary-tree broadcast as heap-indexed codes write it: rank r
// receives from (r - 1) / 2 and forwards to 2r + 1 and 2r + 2; error codes
// are kept and checked.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define N 5
#define TAG_TREE 4
#define CHECK_MPI(call)                                                        \
  do {                                                                         \
    if ((call) != MPI_SUCCESS)                                                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
  } while (0)

struct proc {
  int me, np;
};

int main(int argc, char **argv) {
  struct proc p;
  int ierr = MPI_SUCCESS;
  int buf[N];
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &p.me);
  MPI_Comm_size(MPI_COMM_WORLD, &p.np);
  for (int i = 0; i < N; i++)
    buf[i] = p.me == 0 ? 3 * i + 1 : 0;
  if (p.me > 0)
    ierr = MPI_Recv(buf, N, MPI_INT, (p.me - 1) / 2, TAG_TREE, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  for (int c = 2 * p.me + 1; c <= 2 * p.me + 2 && c < p.np; c++)
    ierr = MPI_Send(buf, N, MPI_INT, c, TAG_TREE, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-5]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  // CHECK-NB: :[[@LINE-6]]:3: warning: tree of point-to-point messages implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
  // CHECK-FIXES: ierr = MPI_Bcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK-NB-FIXES: ierr = MPI_Ibcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD, &bcast_request);
  // CHECK-NB-FIXES: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  printf("%d: %d %d\n", p.me, buf[0], buf[N - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
