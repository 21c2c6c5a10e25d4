// Issue 14: a recursive-doubling allgather, right only when the number of
// processes is a power of two (at 3 processes rank 1 exchanges with rank 3).
// MPI_Allgather is right at every size: the rewrite would change what a
// program that is only ever run on powers of two does at other sizes, and
// what it does at 3 processes is erroneous. Refused, with the size named.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define CHUNK 3
#define MAX_PROCS 64

struct layout {
  int me;
  int nprocs;
  MPI_Comm comm;
};

static int block_start(int rank, int width) { return (rank / width) * width; }

int main(int argc, char **argv) {
  struct layout l;
  int ierr;
  double all[MAX_PROCS * CHUNK];
  MPI_Init(&argc, &argv);
  l.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(l.comm, &l.me);
  MPI_Comm_size(l.comm, &l.nprocs);
  for (int i = 0; i < CHUNK; i++)
    all[l.me * CHUNK + i] = l.me + 0.25 * i;
  for (int mask = 1; mask < l.nprocs; mask <<= 1) {
    int partner = l.me ^ mask;
    ierr = MPI_Sendrecv(&all[block_start(l.me, mask) * CHUNK], mask * CHUNK,
                        MPI_DOUBLE, partner, 11,
                        &all[block_start(partner, mask) * CHUNK],
                        mask * CHUNK, MPI_DOUBLE, partner, 11, l.comm,
                        MPI_STATUS_IGNORE);
    if (ierr != MPI_SUCCESS)
      MPI_Abort(l.comm, ierr);
  }
  // CHECK: :[[@LINE-10]]:3: warning: loop of point-to-point exchanges implements an allgather (static analysis); not rewritten: scale-independence refused [mpilift-manual-allgather]
  // CHECK: note: scale-independence: at 3 processes, rank 1 sends to rank 3, which does not exist
  for (int i = 0; i < l.nprocs * CHUNK; i++)
    printf("%d: %g\n", l.me, all[i]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
