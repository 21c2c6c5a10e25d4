/* Old C that mpicc (GCC 12) builds with warnings: implicit int, K&R
   definitions, a call of an undeclared function. Clang 19 makes these
   errors; since the database's compiler is GCC behind the MPI wrapper, they
   stay warnings, as GCC has them, and the unit is checked and rewritten.
   RUN lines and CHECK lines are blanked in the copy the test builds. */
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

static count = 4;

main(argc, argv) int argc; char **argv; {
  int rank, size, i, buf[4];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (i = 0; i < 4; i++)
      buf[i] = i * count;
    for (i = 1; i < size; i++)
      MPI_Send(buf, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
    // CHECK-MESSAGES-NOT: error:
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-FIXES: MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  show(rank, buf[3]);
  MPI_Finalize();
  return 0;
}

show(r, v) { printf("rank %d: %d\n", r, v); }
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
