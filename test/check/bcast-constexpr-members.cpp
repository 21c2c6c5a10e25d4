// C++ codes keep their fixed ranks and tags as `constexpr` constants of a
// namespace or static members of a class, and fill their buffers through a
// std::vector constructed with a count and a starting value that differs
// between ranks (only the root's holds data). The constants are their
// initializers on every rank; the vector's size is its count alone, so the
// count handed to the broadcast is the same everywhere.
//
// Must not be rewritten: a vector whose count differs between ranks (the
// others post a receive for one element more than the root sends, which
// MPI_Recv accepts and MPI_Bcast does not); input-independence refuses.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// RUN: %check-rewrite refuse %s %t.uneven --trace --cflags=-DUNEVEN_COUNT | FileCheck %s --check-prefix=UNEVEN --implicit-check-not=warning:
// clang-format on
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace cfg {
constexpr int root = 0;
constexpr int params_tag = 9;
} // namespace cfg

class ParamExchange {
public:
  static constexpr int kFirstPeer = 1;

  explicit ParamExchange(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  int rank() const { return rank_; }

  /// Sends the root's n values to every other process.
  int share(double *values, int n) const {
    int ierr = MPI_SUCCESS;
    if (rank_ == cfg::root) {
      // CHECK-MESSAGES: prog.cpp:[[#@LINE+1]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      for (int peer = kFirstPeer; peer < size_; ++peer) {
        ierr = MPI_Send(values, n, MPI_DOUBLE, peer, cfg::params_tag, comm_);
        // UNEVEN: prog.cpp:[[#@LINE-1]]:16: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
        if (ierr != MPI_SUCCESS)
          return ierr;
      }
    } else {
      ierr = MPI_Recv(values, n, MPI_DOUBLE, cfg::root, cfg::params_tag, comm_,
                      MPI_STATUS_IGNORE);
    }
    // CHECK-FIXES: ierr = MPI_Bcast(values, n, MPI_DOUBLE, cfg::root, comm_);
    return ierr;
  }

private:
  MPI_Comm comm_;
  int rank_ = -1, size_ = 0;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    ParamExchange exchange(MPI_COMM_WORLD);
    bool root = exchange.rank() == cfg::root;
#ifdef UNEVEN_COUNT
    std::vector<double> params(root ? 4 : 5, root ? 2.5 : -1.0);
#else
    std::vector<double> params(4, root ? 2.5 : -1.0);
#endif
    // UNEVEN: prog.cpp:[[#@LINE+1]]:5: note: input-independence: the count 'n' cannot be evaluated: 'n' receives a value here that may differ between ranks: {{.*}}
    exchange.share(params.data(), static_cast<int>(params.size()));
    std::printf("rank %d: %.1f %.1f\n", exchange.rank(), params.front(),
                params.back());
  }
  MPI_Finalize();
  return 0;
}
