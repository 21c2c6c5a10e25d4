// Issue 14: a gather in a class. The communicator, rank and size are
// members set in the constructor (the size and rank with default values
// first), the buffers are std::vector, the local block arrives by const
// reference, and the root sizes the result and copies its own block with
// std::copy before receiving the others.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

class Collector {
public:
  explicit Collector(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }

  std::vector<int> collect(const std::vector<int> &local) const {
    const int n = static_cast<int>(local.size());
    std::vector<int> all;
    if (rank_ == 0) {
      all.resize(static_cast<size_t>(n) * nranks_);
      std::copy(local.begin(), local.end(), all.begin());
      for (int src = 1; src < nranks_; ++src) {
        int ierr = MPI_Recv(all.data() + src * n, n, MPI_INT, src, 4, comm_,
                            MPI_STATUS_IGNORE);
        (void)ierr;
      }
      // CHECK-MESSAGES: :[[@LINE-5]]:7: warning: loop of point-to-point receives implements a gather (static analysis and the trace); replace it with MPI_Gather [mpilift-manual-gather]
    } else {
      MPI_Send(local.data(), n, MPI_INT, 0, 4, comm_);
    }
    // CHECK-FIXES: std::copy(local.begin(), local.end(), all.begin());
    // CHECK-FIXES-NEXT: MPI_Gather(MPI_IN_PLACE, n, MPI_INT, all.data(), n, MPI_INT, 0, comm_);
    // CHECK-FIXES: } else {
    // CHECK-FIXES-NEXT: MPI_Gather(local.data(), n, MPI_INT, NULL, 0, MPI_INT, 0, comm_);
    // CHECK-FIXES-NEXT: }
    return all;
  }

  int rank() const { return rank_; }

private:
  MPI_Comm comm_;
  int rank_ = 0;
  int nranks_ = 1;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    Collector c(MPI_COMM_WORLD);
    std::vector<int> mine(3);
    for (int k = 0; k < 3; ++k)
      mine[k] = 10 * c.rank() + k;
    std::vector<int> all = c.collect(mine);
    for (size_t k = 0; k < all.size(); ++k)
      std::printf("all[%zu] = %d\n", k, all[k]);
    std::printf("rank %d done\n", c.rank());
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
