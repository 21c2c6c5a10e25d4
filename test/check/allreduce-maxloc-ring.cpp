// Issue 15: a C++ panel factorisation searches each of its columns for the
// pivot: the entry of largest magnitude and its global row, the smaller row
// on a tie. The team passes the pairs around a ring in std::vector buffers
// and keeps, element by element, the larger magnitude (`best[c] =
// incoming[c];`, C++'s trivial assignment of the pair). An allreduce with
// MPI_MAXLOC on MPI_DOUBLE_INT. Ties between ranks happen in every column.
// The exchange's code is declared in the loop (`int ierr = ...`): the
// rewrite declares it where the call goes and keeps its check.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// clang-format on
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kCols = 4;
constexpr int kRowsPerRank = 3;
constexpr int kTagPivot = 8;

struct Pivot {
  double magnitude;
  int row;
};

class Panel {
public:
  explicit Panel(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }

  /// This rank's candidate of each column: its largest entry, first row.
  std::vector<Pivot> local_candidates() const {
    std::vector<Pivot> mine(kCols);
    for (int c = 0; c < kCols; ++c) {
      int local = (rank_ + c) % kRowsPerRank;
      mine[c].magnitude = (double)((rank_ * 5 + c) % 4);
      mine[c].row = rank_ * kRowsPerRank + local;
    }
    return mine;
  }

  std::vector<Pivot> pivots(const std::vector<Pivot> &mine) const {
    std::vector<Pivot> best(mine), passing(mine), incoming(kCols);
    int right = (rank_ + 1) % nranks_;
    int left = (rank_ + nranks_ - 1) % nranks_;
    for (int step = 0; step < nranks_ - 1; ++step) {
      // clang-format off
      // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: ring of point-to-point messages implements an allreduce (static analysis); replace it with MPI_Allreduce [mpilift-manual-allreduce]
      // clang-format on
      int ierr = MPI_Sendrecv(passing.data(), kCols, MPI_DOUBLE_INT, right,
                              kTagPivot, incoming.data(), kCols,
                              MPI_DOUBLE_INT, left, kTagPivot, comm_,
                              MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        MPI_Abort(comm_, ierr);
      for (int c = 0; c < kCols; ++c) {
        if (incoming[c].magnitude > best[c].magnitude ||
            (incoming[c].magnitude == best[c].magnitude &&
             incoming[c].row < best[c].row))
          best[c] = incoming[c];
        passing[c] = incoming[c];
      }
    }
    return best;
    // clang-format off
    // CHECK-FIXES: std::vector<Pivot> best(mine), passing(mine), incoming(kCols);
    // CHECK-FIXES-NEXT: int ierr;
    // CHECK-FIXES-NEXT: ierr = MPI_Allreduce(mine.data(), best.data(), kCols, MPI_DOUBLE_INT,
    // CHECK-FIXES-NEXT: MPI_MAXLOC, comm_);
    // CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
    // CHECK-FIXES-NEXT: MPI_Abort(comm_, ierr);
    // CHECK-FIXES-NEXT: return best;
    // clang-format on
  }

  int rank() const { return rank_; }

private:
  MPI_Comm comm_;
  int rank_ = 0, nranks_ = 1;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    Panel panel(MPI_COMM_WORLD);
    std::vector<Pivot> best = panel.pivots(panel.local_candidates());
    std::printf("rank %d:", panel.rank());
    for (const Pivot &p : best)
      std::printf(" %g@%d", p.magnitude, p.row);
    std::printf("\n");
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
