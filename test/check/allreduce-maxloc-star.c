// Issue 15: a load balancer finds the busiest rank. Workers report a
// (load, rank) pair to the coordinator, which keeps the larger load (`>`
// alone: of equal loads, the pair it already holds) and sends the winner
// back to everyone: a reduction of MPI_LONG_INT pairs followed by a
// broadcast, by hand, is one MPI_Allreduce with MPI_MAXLOC. The ties keep
// the first pair combined, which is MPI's smallest index here: each index
// is the rank, and the coordinator (rank 0) receives in rank order. Several
// ranks share the largest load at every size from 3 up.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define COORDINATOR 0
#define TAG_LOAD 7
#define TAG_BUSIEST 8

typedef struct {
  long load;
  int rank;
} busiest_t;

typedef struct {
  MPI_Comm comm;
  int me, nprocs;
} balancer_t;

static long queued_work(int rank) { return (rank * 5) % 3; }

static int find_busiest(const balancer_t *b, busiest_t *best) {
  busiest_t mine, in;
  int p, ierr = MPI_SUCCESS;
  mine.load = queued_work(b->me);
  mine.rank = b->me;
  if (b->me == COORDINATOR) {
    *best = mine;
    for (p = 1; p < b->nprocs; p++) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: loop of point-to-point messages implements an allreduce (static analysis); replace it with MPI_Allreduce [mpilift-manual-allreduce]
      ierr = MPI_Recv(&in, 1, MPI_LONG_INT, p, TAG_LOAD, b->comm,
                      MPI_STATUS_IGNORE);
      if (in.load > best->load)
        *best = in;
    }
    for (p = 1; p < b->nprocs; p++)
      ierr = MPI_Send(best, 1, MPI_LONG_INT, p, TAG_BUSIEST, b->comm);
  } else {
    ierr = MPI_Send(&mine, 1, MPI_LONG_INT, COORDINATOR, TAG_LOAD, b->comm);
    ierr = MPI_Recv(best, 1, MPI_LONG_INT, COORDINATOR, TAG_BUSIEST, b->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}
// CHECK-FIXES: mine.rank = b->me;
// CHECK-FIXES-NEXT: ierr = MPI_Allreduce(&mine, best, 1, MPI_LONG_INT, MPI_MAXLOC, b->comm);
// CHECK-FIXES-NEXT: return ierr;

int main(int argc, char **argv) {
  balancer_t b;
  busiest_t busiest;
  MPI_Init(&argc, &argv);
  b.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(b.comm, &b.me);
  MPI_Comm_size(b.comm, &b.nprocs);
  int ierr = find_busiest(&b, &busiest);
  printf("rank %d: busiest is %d with %ld (%d)\n", b.me, busiest.rank,
         busiest.load, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
