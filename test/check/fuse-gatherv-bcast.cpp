// Issue 15: MPI_Gatherv then MPI_Bcast of the gathered buffer in C++: rank
// and size as class members, counts and displacements in std::vector (the
// displacements a running sum), the result sized from them, error codes
// kept and turned into exceptions. One MPI_Allgatherv replaces the pair.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>

#include <cstdio>
#include <stdexcept>
#include <vector>

namespace {

class Directory {
public:
  explicit Directory(MPI_Comm Comm) : Comm(Comm) {
    MPI_Comm_rank(Comm, &Rank);
    MPI_Comm_size(Comm, &Size);
  }

  /// How many keys process \p P owns.
  static int keysOn(int P) { return P % 4 + 2; }

  std::vector<long> ownKeys() const {
    std::vector<long> Keys;
    for (int K = 0; K < keysOn(Rank); ++K)
      Keys.push_back(1000L * Rank + 7 * K);
    return Keys;
  }

  std::vector<long> allKeys(const std::vector<long> &Mine) const {
    std::vector<int> Counts(Size), Displs(Size);
    for (int P = 0; P < Size; ++P)
      Counts[P] = keysOn(P);
    for (int P = 1; P < Size; ++P)
      Displs[P] = Displs[P - 1] + Counts[P - 1];
    std::vector<long> All(Displs.back() + Counts.back());
    int Err = MPI_Gatherv(Mine.data(), static_cast<int>(Mine.size()),
                          MPI_LONG, All.data(), Counts.data(), Displs.data(),
                          MPI_LONG, 0, Comm);
    // CHECK-MESSAGES: :[[@LINE-3]]:15: warning: MPI_Gatherv followed by MPI_Bcast of the gathered buffer from the same root; replace them with MPI_Allgatherv [mpilift-fuse-collectives]
    if (Err == MPI_SUCCESS)
      Err = MPI_Bcast(All.data(), static_cast<int>(All.size()), MPI_LONG, 0,
                      Comm);
    // CHECK-FIXES: int Err = MPI_Allgatherv(Mine.data(), static_cast<int>(Mine.size()),
    // CHECK-FIXES-NEXT: MPI_LONG, All.data(), Counts.data(), Displs.data(),
    // CHECK-FIXES-NEXT: MPI_LONG, Comm);
    // CHECK-FIXES-NOT: MPI_Bcast
    if (Err != MPI_SUCCESS)
      throw std::runtime_error("gathering the keys failed");
    return All;
  }

  int rank() const { return Rank; }

private:
  MPI_Comm Comm;
  int Rank = 0, Size = 1;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    Directory Dir(MPI_COMM_WORLD);
    std::vector<long> All = Dir.allKeys(Dir.ownKeys());
    std::printf("rank %d:", Dir.rank());
    for (long K : All)
      std::printf(" %ld", K);
    std::printf("\n");
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
