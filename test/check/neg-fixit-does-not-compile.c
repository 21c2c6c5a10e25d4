/* Issue 18, item 4: the project is C89 with declarations after statements
   made an error. The nonblocking rewrite would declare its request in the
   middle of the block, which --fix refuses to write because the unit no
   longer compiles; so the finding offers no fix-it either, in text or in
   SARIF. */
// RUN: %check-rewrite refuse %s %t --cflags="-std=c89 -Werror=declaration-after-statement" --check-args="--collectives nonblocking" | FileCheck %s --implicit-check-not=warning:
// RUN: %mpilift check -p %t --collectives nonblocking --format sarif %t/prog.c | FileCheck %s --check-prefix=SARIF
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, i;
  double coef[5];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 0; i < 5; i++)
    coef[i] = 0.0;
  if (rank == 0) {
    for (i = 0; i < 5; i++)
      coef[i] = 1.0 / (i + 1);
    for (i = 1; i < size; i++)
      MPI_Send(coef, 5, MPI_DOUBLE, i, 3, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: the rewritten code does not compile ({{.*}}prog.c:[[@LINE-5]]:{{[0-9]+}}: error: mixing declarations and code {{.*}}) [mpilift-manual-bcast]
    // CHECK-NOT: MPI_Ibcast
  } else {
    MPI_Recv(coef, 5, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("rank %d: %.3f\n", rank, coef[4]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
// SARIF: "ruleId": "mpilift-manual-bcast"
// SARIF-NOT: "fixes"
