// Issue 14: an allgather written as a gather to rank 0 followed by a
// broadcast of the whole table from rank 0, both by hand. The evaluation
// judges the two together and names the result: one MPI_Allgather.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
#include <mpi.h>
#include <stdio.h>

#define B 2
#define MAXP 64
#define TAG_UP 1
#define TAG_DOWN 2

typedef struct {
  int rank, nprocs;
  MPI_Comm comm;
} team_t;

int main(int argc, char **argv) {
  team_t t;
  int all[MAXP * B];
  int ierr;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(t.comm, &t.rank);
  MPI_Comm_size(t.comm, &t.nprocs);
  for (int k = 0; k < B; k++)
    all[t.rank * B + k] = t.rank * 10 + k;
  if (t.rank == 0) {
    for (int p = 1; p < t.nprocs; p++)
      ierr = MPI_Recv(&all[p * B], B, MPI_INT, p, TAG_UP, t.comm,
                      MPI_STATUS_IGNORE);
  // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point exchanges implements an allgather (static analysis and the trace); replace it with MPI_Allgather [mpilift-manual-allgather]
  // CHECK-NB: :[[@LINE-4]]:5: warning: loop of point-to-point exchanges implements an allgather (static analysis); replace it with MPI_Iallgather [mpilift-manual-allgather]
  // CHECK-FIXES: ierr = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, B, MPI_INT,
  // CHECK-NB-FIXES: ierr = MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, B, MPI_INT,
    for (int p = 1; p < t.nprocs; p++)
      ierr = MPI_Send(all, t.nprocs * B, MPI_INT, p, TAG_DOWN, t.comm);
  } else {
    ierr = MPI_Send(&all[t.rank * B], B, MPI_INT, 0, TAG_UP, t.comm);
    ierr = MPI_Recv(all, t.nprocs * B, MPI_INT, 0, TAG_DOWN, t.comm,
                    MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < t.nprocs * B; i++)
    printf("%d %d\n", t.rank, all[i]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
