// Issue 14: a star broadcast inside node-like groups made by
// MPI_Comm_split, written in a class that keeps its communicator, rank and
// size as members; the data is a std::vector.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>
#include <cstdio>
#include <vector>

class Group {
public:
  explicit Group(int color) {
    MPI_Comm_split(MPI_COMM_WORLD, color, 0, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~Group() { MPI_Comm_free(&comm_); }

  void share(std::vector<double> &v) {
    int ierr = MPI_SUCCESS;
    if (rank_ == 0) {
      for (int p = 1; p < size_; ++p)
        ierr = MPI_Send(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, p,
                        42, comm_);
    } else {
      ierr = MPI_Recv(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0, 42,
                      comm_, MPI_STATUS_IGNORE);
    }
    // CHECK-MESSAGES: :[[@LINE-7]]:7: warning: {{.*}}implements a broadcast {{.*}}; replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-FIXES: MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0,
    if (ierr != MPI_SUCCESS)
      MPI_Abort(MPI_COMM_WORLD, ierr);
  }
  int rank() const { return rank_; }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  {
    Group g(world_rank % 2);
    std::vector<double> v(5, -1.0);
    if (g.rank() == 0)
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = world_rank * 100.0 + i;
    g.share(v);
    std::printf("world %d group-rank %d: %g %g\n", world_rank, g.rank(), v[0],
                v[4]);
  }
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
