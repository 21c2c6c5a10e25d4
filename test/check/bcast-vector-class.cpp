// C++: the buffer is a std::vector member of a class; the root sends
// values_.data() and the others receive into the same expression.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>
#include <cstdio>
#include <vector>

class Parameters {
public:
  explicit Parameters(int n) : values_(n, 0.0) {}

  void load(int rank) {
    for (size_t k = 0; k < values_.size(); ++k)
      values_[k] = rank + 0.25 * k;
  }

  void distribute(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int n = static_cast<int>(values_.size());
    if (rank == 0) {
      load(rank);
      for (int r = 1; r < size; ++r)
        MPI_Send(values_.data(), n, MPI_DOUBLE, r, 5, comm);
      // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
    } else {
      MPI_Recv(values_.data(), n, MPI_DOUBLE, 0, 5, comm, MPI_STATUS_IGNORE);
    }
    // CHECK-FIXES: load(rank);
    // CHECK-FIXES-NEXT: MPI_Bcast(values_.data(), n, MPI_DOUBLE, 0, comm);
    // CHECK-FIXES: } else {
    // CHECK-FIXES-NEXT: MPI_Bcast(values_.data(), n, MPI_DOUBLE, 0, comm);
  }

  double sum() const {
    double s = 0;
    for (double v : values_)
      s += v;
    return s;
  }

private:
  std::vector<double> values_;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Parameters p(6);
  p.distribute(MPI_COMM_WORLD);
  std::printf("rank %d sum %.2f\n", rank, p.sum());
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
