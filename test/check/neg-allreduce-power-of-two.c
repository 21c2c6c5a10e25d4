// Issue 15: a recursive-doubling allreduce of flags (`flags |= theirs`)
// exchanges with rank ^ mask, right only where the size is a power of two.
// Refused by scale-independence with the first size it fails at.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define TAG_FLAGS 2

int main(int argc, char **argv) {
  int rank, size, mask;
  unsigned flags, theirs;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  flags = 1u << (rank % 5);
  for (mask = 1; mask < size; mask <<= 1) {
    // CHECK: :[[@LINE-1]]:3: warning: loop of point-to-point exchanges implements an allreduce (static analysis); not rewritten: scale-independence refused [mpilift-manual-allreduce]
    MPI_Sendrecv(&flags, 1, MPI_UNSIGNED, rank ^ mask, TAG_FLAGS, &theirs, 1,
                 MPI_UNSIGNED, rank ^ mask, TAG_FLAGS, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    // CHECK: :[[@LINE-3]]:43: note: scale-independence: at 3 processes, rank 1 sends to rank 3, which does not exist
    flags |= theirs;
  }
  printf("rank %d: %x\n", rank, flags);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
