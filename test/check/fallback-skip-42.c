// --fallback cdag on Listing 1 of the paper: the skip of rank 42 makes the
// loop a broadcast only below 43 processes, so it cannot become MPI_Bcast;
// the trace shows it is a broadcast, so it becomes a libcdag graph, built
// once (the report is printed once for three iterations) and run as
// MPI_Bcast where the run makes it one.
// RUN: %check-rewrite rewrite %s %t --trace --check-args="--fallback cdag" --new-build-args="%cdag_flags" --report 4 | FileCheck %s --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, data[4] = {0, 0, 0, 0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int iter = 0; iter < 3; iter++) {
    if (rank == 0)
      for (int k = 0; k < 4; k++)
        data[k] = 10 * iter + k;
    if (rank == 0) {
      for (int i = 1; i < size; i++) {
        if (i == 42)
          continue;
        MPI_Send(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
      }
      // CHECK: :[[@LINE-5]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); not proven: scale-independence refused; run it through libcdag instead (build with `pkg-config --cflags --libs cdag`) [mpilift-manual-bcast]
      // CHECK: :[[@LINE-7]]:5: note: scale-independence: at 43 processes the messages form a broadcast over 42 of them; rank 42 takes no part
    } else if (rank != 42) {
      MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("iter %d rank %d: %d %d\n", iter, rank, data[0], data[3]);
  }
  // CHECK-FIXES: #include <cdag/cdag.h>
  // CHECK-FIXES: static cDAG_Schedule cdag_schedule = NULL;
  // CHECK-FIXES: MPI_Allreduce(MPI_IN_PLACE, &cdag_stale, 1, MPI_INT, MPI_LOR,
  // CHECK-FIXES: cDAG_Create(MPI_COMM_WORLD, &cdag_graph);
  // CHECK-FIXES: if (i == 42)
  // CHECK-FIXES: cDAG_Send(cdag_graph, data, (size_t)(4) * sizeof(int), i, 0, NULL);
  // CHECK-FIXES: } else if (rank != 42) {
  // CHECK-FIXES-NEXT: cDAG_Recv(cdag_graph, data, (size_t)(4) * sizeof(int), 0, 0, NULL);
  // CHECK-FIXES: cDAG_Compile(cdag_graph, &cdag_schedule);
  // CHECK-FIXES: if (cDAG_Run(cdag_schedule) != CDAG_SUCCESS)
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK: report: cdag: bcast root 0 on all 4 processes (3 transfers, 48 bytes) as MPI_Bcast
// CHECK-NOT: report: cdag: bcast
