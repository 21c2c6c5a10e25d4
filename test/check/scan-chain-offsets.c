// Issue 15: offsets for a parallel write. Every rank needs the number of
// records up to and including its own; the running count travels down a
// chain (`end = before + records`), rank 0 starts it with its own count.
// Counts and rank live in a structure reached through a pointer, error codes
// are kept. Rewritten to MPI_Scan.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

#define TAG_PREFIX 9

struct part {
  MPI_Comm comm;
  int rank, size;
  long records;
  long end; // Records up to and including this rank's.
};

static int prefix_end(struct part *p) {
  int ierr = MPI_SUCCESS;
  long before;
  if (p->rank > 0) {
    ierr = MPI_Recv(&before, 1, MPI_LONG, p->rank - 1, TAG_PREFIX, p->comm,
                    MPI_STATUS_IGNORE);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: chain of point-to-point messages implements a scan (static analysis); replace it with MPI_Scan [mpilift-manual-scan]
    p->end = before + p->records;
  } else {
    p->end = p->records;
  }
  if (p->rank < p->size - 1)
    ierr = MPI_Send(&p->end, 1, MPI_LONG, p->rank + 1, TAG_PREFIX, p->comm);
  return ierr;
}
// CHECK-FIXES: int ierr = MPI_SUCCESS;
// CHECK-FIXES-NEXT: ierr = MPI_Scan(&p->records, &p->end, 1, MPI_LONG, MPI_SUM, p->comm);
// CHECK-FIXES-NEXT: return ierr;

int main(int argc, char **argv) {
  struct part p;
  MPI_Init(&argc, &argv);
  p.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(p.comm, &p.rank);
  MPI_Comm_size(p.comm, &p.size);
  p.records = 100 + 7 * p.rank % 13;
  int ierr = prefix_end(&p);
  printf("rank %d: records %ld, end %ld (%d)\n", p.rank, p.records, p.end,
         ierr);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
