// Issue 14: the last rank posts a nonblocking send to every other rank,
// but the receivers expect the data from master(), which is rank 0. The
// program only works on one process; one MPI_Bcast has one root for all.
// Refused by matching-arguments.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kTagParams = 42;
constexpr int kNumParams = 6;

class ParamExchange {
public:
  explicit ParamExchange(MPI_Comm comm)
      : comm_(comm), params_(kNumParams, 0.0) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }

  int master() const { return 0; }
  int reader() const { return nranks_ - 1; }

  int share() {
    int ierr = MPI_SUCCESS;
    if (rank_ == reader()) {
      for (std::size_t i = 0; i < params_.size(); ++i)
        params_[i] = 0.25 * static_cast<double>(i + 1);
      std::vector<MPI_Request> reqs(nranks_);
      int n = 0;
      for (int r = 0; r < nranks_; ++r) {
        if (r == reader())
          continue;
        ierr = MPI_Isend(params_.data(), kNumParams, MPI_DOUBLE, r, kTagParams,
                         comm_, &reqs[n++]);
      }
      ierr = MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE);
    } else {
      ierr = MPI_Recv(params_.data(), kNumParams, MPI_DOUBLE, master(),
                      kTagParams, comm_, MPI_STATUS_IGNORE);
    }
    return ierr;
  }
  // CHECK: :[[@LINE-13]]:7: warning: {{.*}}implements a broadcast (static analysis); not rewritten: matching-arguments refused [mpilift-manual-bcast]
  // CHECK: :[[@LINE-6]]:14: note: matching-arguments: at 3 processes, rank 0 waits for a message from rank 0 (source 'master()', tag 42), and the one sent to it comes from rank 2; the ranks do not agree on who sends to whom

  double param(int i) const { return params_[i]; }

private:
  MPI_Comm comm_;
  int rank_ = 0, nranks_ = 1;
  std::vector<double> params_;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ParamExchange ex(MPI_COMM_WORLD);
  int ierr = ex.share();
  std::printf("%g %g\n", ex.param(0), ex.param(5));
  MPI_Finalize();
  return ierr;
}
// CHECK: check-rewrite: unchanged
