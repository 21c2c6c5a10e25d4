// Issue 15: each rank of a pipeline learns the least value among the ranks
// before it and itself, and where it is: a chain passes the running
// (value, rank) pair down, each rank folding its own in with MPI's own
// rule for ties (the smaller rank). MPI_Scan with MPI_MINLOC on
// MPI_DOUBLE_INT; the running pair is a field of the stage's state.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define TAG_RUNNING 3

typedef struct {
  double value;
  int rank;
} located_t;

struct stage {
  MPI_Comm comm;
  int rank, size;
  located_t running;
};

static double sample(int rank) { return (double)((rank * 5) % 3); }

static int least_so_far(struct stage *s) {
  located_t mine;
  int ierr = MPI_SUCCESS;
  mine.value = sample(s->rank);
  mine.rank = s->rank;
  if (s->rank > 0) {
    // CHECK-MESSAGES: :[[@LINE+1]]:5: warning: chain of point-to-point messages implements a scan (static analysis); replace it with MPI_Scan [mpilift-manual-scan]
    ierr = MPI_Recv(&s->running, 1, MPI_DOUBLE_INT, s->rank - 1, TAG_RUNNING,
                    s->comm, MPI_STATUS_IGNORE);
    if (mine.value < s->running.value ||
        (mine.value == s->running.value && mine.rank < s->running.rank))
      s->running = mine;
  } else {
    s->running = mine;
  }
  if (s->rank < s->size - 1)
    ierr = MPI_Send(&s->running, 1, MPI_DOUBLE_INT, s->rank + 1, TAG_RUNNING,
                    s->comm);
  return ierr;
}
// CHECK-FIXES: mine.rank = s->rank;
// CHECK-FIXES-NEXT: ierr = MPI_Scan(&mine, &s->running, 1, MPI_DOUBLE_INT, MPI_MINLOC, s->comm);
// CHECK-FIXES-NEXT: return ierr;

int main(int argc, char **argv) {
  struct stage s;
  MPI_Init(&argc, &argv);
  s.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(s.comm, &s.rank);
  MPI_Comm_size(s.comm, &s.size);
  int ierr = least_so_far(&s);
  printf("rank %d: least %g on rank %d (%d)\n", s.rank, s.running.value,
         s.running.rank, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
