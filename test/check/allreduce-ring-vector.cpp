// Issue 15: a C++ team whose members hold the communicator, rank and size
// adds up a histogram around a ring, element by element, in std::vector
// buffers: the total and the vector passed on start as copies of the
// rank's own (`std::vector<long> total(mine), passing(mine)`). An allreduce
// of the vectors' elements.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// clang-format on
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kBins = 6;
constexpr int kTag = 21;

class Team {
public:
  explicit Team(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }

  std::vector<long> histogram_total(const std::vector<long> &mine) const {
    std::vector<long> total(mine), passing(mine), incoming(kBins);
    int right = (rank_ + 1) % nranks_;
    int left = (rank_ + nranks_ - 1) % nranks_;
    for (int step = 0; step < nranks_ - 1; ++step) {
      // clang-format off
      // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: ring of point-to-point messages implements an allreduce (static analysis); replace it with MPI_Allreduce [mpilift-manual-allreduce]
      // clang-format on
      MPI_Sendrecv(passing.data(), kBins, MPI_LONG, right, kTag,
                   incoming.data(), kBins, MPI_LONG, left, kTag, comm_,
                   MPI_STATUS_IGNORE);
      for (int b = 0; b < kBins; ++b) {
        total[b] += incoming[b];
        passing[b] = incoming[b];
      }
    }
    return total;
    // clang-format off
    // CHECK-FIXES: std::vector<long> total(mine), passing(mine), incoming(kBins);
    // CHECK-FIXES-NEXT: MPI_Allreduce(mine.data(), total.data(), kBins, MPI_LONG, MPI_SUM, comm_);
    // CHECK-FIXES-NEXT: return total;
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
    Team team(MPI_COMM_WORLD);
    std::vector<long> mine(kBins);
    for (int b = 0; b < kBins; ++b)
      mine[b] = (team.rank() + 1) * (b + 2) % 7;
    std::vector<long> total = team.histogram_total(mine);
    std::printf("rank %d:", team.rank());
    for (long t : total)
      std::printf(" %ld", t);
    std::printf("\n");
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
