// A star broadcast written with `while`: the loop variable is set by the
// statement before the loop and stepped by the last statement of its body.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, dest;
  unsigned char key[6] = "-----";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int k = 0; k < 5; k++)
      key[k] = (unsigned char)('a' + 3 * k);
    dest = 1;
    while (dest < size) {
      MPI_Send(key, 6, MPI_UNSIGNED_CHAR, dest, 2, MPI_COMM_WORLD);
      dest++;
    }
    // CHECK-MESSAGES: :[[@LINE-4]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(key, 6, MPI_UNSIGNED_CHAR, 0, 2, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  }
  // The loop's counter goes with the loop: only the loop used it.
  // CHECK-FIXES: key[k] = (unsigned char)('a' + 3 * k);
  // CHECK-FIXES-NEXT: MPI_Bcast(key, 6, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
  // CHECK-FIXES-NOT: dest = 1;
  printf("rank %d key %s\n", rank, (char *)key);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
