// The last rank is the root, the guard is `!=` with the receive first, and
// the loop skips the root with `continue`.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, nprocs;
  char word[8] = "-------";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int last = nprocs - 1;
  if (rank != last) {
    MPI_Recv(word, 8, MPI_CHAR, last, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    snprintf(word, sizeof word, "from%d", rank);
    for (int dest = 0; dest < nprocs; dest++) {
      if (dest == last)
        continue;
      MPI_Send(word, 8, MPI_CHAR, dest, 0, MPI_COMM_WORLD);
    }
    // CHECK-MESSAGES: :[[@LINE-5]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  }
  // CHECK-FIXES: if (rank != last) {
  // CHECK-FIXES-NEXT: MPI_Bcast(word, 8, MPI_CHAR, last, MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: } else {
  // CHECK-FIXES-NEXT: snprintf(word, sizeof word, "from%d", rank);
  // CHECK-FIXES-NEXT: MPI_Bcast(word, 8, MPI_CHAR, last, MPI_COMM_WORLD);
  // CHECK-FIXES-NEXT: }
  printf("rank %d got %s\n", rank, word);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
