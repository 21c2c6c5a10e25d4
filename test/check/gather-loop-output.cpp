// Issue 18, item 1, in C++: the root's gather loop prints every block it
// receives and keeps a running total. The loop stays (without its receive)
// after the MPI_Gather that replaces the receives, so it prints the same.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>
#include <cstdio>
#include <vector>

class Collector {
public:
  explicit Collector(int per_rank) : per_rank_(per_rank) {}

  void run(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<double> mine(2);
    mine[0] = rank + 0.5;
    mine[1] = 10.0 * rank;
    results_.assign(2 * size, 0.0);
    double total = 0;
    if (rank == 0) {
      results_[0] = mine[0];
      results_[1] = mine[1];
      for (int src = 1; src < size; ++src) {
        MPI_Recv(results_.data() + src * 2, 2, MPI_DOUBLE, src, 4, comm,
                 MPI_STATUS_IGNORE);
        std::printf("root: block of %d is %.1f %.1f\n", src,
                    results_[2 * src], results_[2 * src + 1]);
        total += results_[2 * src + 1];
      }
      // CHECK-MESSAGES: :[[@LINE-7]]:7: warning: loop of point-to-point receives implements a gather (static analysis and the trace); replace it with MPI_Gather [mpilift-manual-gather]
      // CHECK-FIXES: MPI_Gather(MPI_IN_PLACE, 2, MPI_DOUBLE, results_.data(), 2, MPI_DOUBLE, 0,
      // CHECK-FIXES: for (int src = 1; src < size; ++src) {
      // CHECK-FIXES-NEXT: std::printf("root: block of %d is %.1f %.1f\n", src,
      std::printf("root: total %.1f\n", total);
    } else {
      MPI_Send(mine.data(), 2, MPI_DOUBLE, 0, 4, comm);
    }
  }

private:
  int per_rank_;
  std::vector<double> results_;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Collector c(2);
  c.run(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
