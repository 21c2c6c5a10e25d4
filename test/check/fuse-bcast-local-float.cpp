// Issue 15: BR-Alllocal and BS-Comcast in C++ on floating-point values: a
// solver class keeps rank, size and communicator as members, broadcasts
// its coefficients in a std::vector and then sums them with MPI_Allreduce
// (the total weight every rank uses) and MPI_Scan (its prefix). A
// floating-point sum of p copies computed as p * x rounds differently from
// MPI's additions, so both are refused by reduction-order by default; with
// --allow-reassociation they are rewritten, and the outputs agree to 1e-12.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --check-prefix=CHECK-STRICT --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t.fast --rtol 1e-12 --check-args="--allow-reassociation" | FileCheck %s --check-prefix=CHECK-FAST --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.fast/prog.cpp
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kRoot = 0;

class Solver {
public:
  explicit Solver(MPI_Comm Comm) : comm_(Comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  /// The coefficients the root chose, their total over the ranks and this
  /// rank's running total.
  int weigh(int n, std::vector<double> &total, std::vector<double> &upto) {
    std::vector<double> coeffs(n);
    for (int i = 0; i < n; ++i)
      coeffs[i] = 0.1 * (i + 1) + rank_ / 3.0;
    int ierr = MPI_Bcast(coeffs.data(), n, MPI_DOUBLE, kRoot, comm_);
    // CHECK-STRICT: :[[@LINE-1]]:16: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; not rewritten: reduction-order refused [mpilift-fuse-collectives]
    // CHECK-FAST: :[[@LINE-2]]:16: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; each rank combines the p copies of the value itself (BR-Alllocal) [mpilift-fuse-collectives]
    if (ierr == MPI_SUCCESS)
      ierr = MPI_Allreduce(coeffs.data(), total.data(), n, MPI_DOUBLE,
                           MPI_SUM, comm_);
    // CHECK-STRICT: :[[@LINE-1]]:28: note: reduction-order: a sum of 'MPI_DOUBLE' may round differently when the local combination combines the values in another order than MPI_Allreduce did; --allow-reassociation accepts results that differ in the last bits
    // CHECK-FIXES: ierr = MPI_Comm_size(comm_, &fold_size);
    // CHECK-FIXES-NEXT: if (ierr == MPI_SUCCESS) {
    // CHECK-FIXES-NEXT: for (int fold_i = 0; fold_i < (n); ++fold_i) {
    // CHECK-FIXES-NEXT: total.data()[fold_i] = fold_size * coeffs.data()[fold_i];
    // CHECK-FIXES-NOT: MPI_Allreduce
    ierr = MPI_Bcast(coeffs.data(), n, MPI_DOUBLE, size_ - 1, comm_);
    // CHECK-STRICT: :[[@LINE-1]]:12: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; not rewritten: reduction-order refused [mpilift-fuse-collectives]
    // CHECK-FAST: :[[@LINE-2]]:12: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; each rank combines its rank + 1 copies of the value itself (BS-Comcast) [mpilift-fuse-collectives]
    ierr = MPI_Scan(coeffs.data(), upto.data(), n, MPI_DOUBLE, MPI_SUM, comm_);
    // CHECK-STRICT: :[[@LINE-1]]:64: note: reduction-order
    // CHECK-FIXES: upto.data()[fold_i] = (fold_rank + 1) * coeffs.data()[fold_i];
    // CHECK-FIXES-NOT: MPI_Scan
    return ierr;
  }

  int rank() const { return rank_; }

private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    Solver solver(MPI_COMM_WORLD);
    const int n = 3 + argc;
    std::vector<double> total(n), upto(n);
    int ierr = solver.weigh(n, total, upto);
    std::printf("rank %d (%d):", solver.rank(), ierr);
    for (int i = 0; i < n; ++i)
      std::printf(" %.17g/%.17g", total[i], upto[i]);
    std::printf("\n");
  }
  MPI_Finalize();
  return 0;
}
