// Issue 15, seed 001's rules SS2-Scan and SR2-Reduction in C++: two scans
// whose first operation distributes over the second's are one scan on
// pairs (SS2-Scan, which pays when t_s > 2m: here 4 elements, which the
// default machine profile says it does, and the finding says by how much);
// a scan of products then an all-reduction of their sum in double is
// refused by default (reduction-order) and rewritten with
// --allow-reassociation, results equal to 1e-12 relative. Rank and
// communicator are class members, the buffers std::array and std::vector
// elements, the member functions defined in the class, so the operations
// go before the class.
// RUN: %check-rewrite rewrite %s %t.default --rtol 1e-12 | FileCheck %s --check-prefix=DEFAULT
// RUN: %check-rewrite rewrite %s %t --rtol 1e-12 --check-args="--allow-reassociation" | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>

#include <array>
#include <cstdio>
#include <vector>

namespace {

constexpr int kLanes = 4;

// CHECK-FIXES: /* MPI_BXOR of the prefixes MPI_BAND forms, on pairs (s, r) of unsigned (seed
// CHECK-FIXES: static void fused_pair_op_{{[0-9]+}}(void *in, void *inout, int *len,
// CHECK-FIXES: unsigned s = (a[2 * i] ^ (a[2 * i + 1] & b[2 * i]));
// CHECK-FIXES: /* MPI_SUM of the prefixes MPI_PROD forms, on pairs (s, r) of double (seed
// CHECK-FIXES: double s = (a[2 * i] + (a[2 * i + 1] * b[2 * i]));
// CHECK-FIXES: class Ledger {
class Ledger {
public:
  explicit Ledger(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  /// Parity of the lanes every rank up to each one keeps open.
  int parity(const std::array<unsigned, kLanes> &open,
             std::array<unsigned, kLanes> &parity) const {
    std::array<unsigned, kLanes> kept;
    int err = MPI_Scan(open.data(), kept.data(), kLanes, MPI_UNSIGNED,
                       MPI_BAND, comm_);
    if (err == MPI_SUCCESS)
      err = MPI_Scan(kept.data(), parity.data(), kLanes, MPI_UNSIGNED,
                     MPI_BXOR, comm_);
    // CHECK-MESSAGES: :[[@LINE-5]]:15: warning: MPI_Scan (MPI_BAND) followed by MPI_Scan (MPI_BXOR) of its result; replace them with one MPI_Scan on pairs with an operation of their own (SS2-Scan) [mpilift-fuse-collectives]
    // CHECK-MESSAGES: :[[@LINE-6]]:15: note: predicted on 2 processes: {{[0-9.]+}} us instead of {{[0-9.]+}} us (the default machine profile)
    // DEFAULT: :[[@LINE-7]]:15: warning: MPI_Scan (MPI_BAND) followed by MPI_Scan (MPI_BXOR) of its result; replace them with one MPI_Scan on pairs
    // CHECK-FIXES: err = MPI_Scan(fused_in, fused_out, kLanes, fused_pair, fused_op, comm_);
    // CHECK-FIXES-NEXT: for (int fused_i = 0; fused_i < (kLanes); ++fused_i)
    // CHECK-FIXES-NEXT: parity.data()[fused_i] = fused_out[fused_i][0];
    return err;
  }

  /// Expected survivors: the sum over ranks of the product of the survival
  /// rates up to each.
  double survivors(const std::vector<double> &rates) const {
    double alive = 0, expected = 0;
    MPI_Scan(&rates[rank_], &alive, 1, MPI_DOUBLE, MPI_PROD, comm_);
    MPI_Allreduce(&alive, &expected, 1, MPI_DOUBLE, MPI_SUM, comm_);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: MPI_Scan (MPI_PROD) followed by MPI_Allreduce (MPI_SUM) of its result; replace them with one MPI_Allreduce on pairs with an operation of their own (SR2-Reduction) [mpilift-fuse-collectives]
    // DEFAULT: :[[@LINE-3]]:5: warning: MPI_Scan (MPI_PROD) followed by MPI_Allreduce (MPI_SUM) of its result; not rewritten: reduction-order refused [mpilift-fuse-collectives]
    // DEFAULT: :[[@LINE-3]]:53: note: reduction-order: 'MPI_PROD' distributes over 'MPI_SUM' on real numbers, but one collective on pairs of 'MPI_DOUBLE' computes other sums and products than MPI_Scan and MPI_Allreduce do, which may round differently (allow it with --allow-reassociation)
    // CHECK-FIXES: fused_in[0][0] = fused_in[0][1] = rates[rank_];
    // CHECK-FIXES-NEXT: MPI_Allreduce(fused_in, fused_out, 1, fused_pair, fused_op, comm_);
    // CHECK-FIXES-NEXT: expected = fused_out[0][0];
    return expected;
  }

  int rank() const { return rank_; }
  int size() const { return size_; }

private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    Ledger ledger(MPI_COMM_WORLD);
    std::array<unsigned, kLanes> open{}, parity{};
    for (int l = 0; l < kLanes; ++l)
      open[l] = 0xFFFFu ^ (1u << ((ledger.rank() * 3 + l) % 16));
    int err = ledger.parity(open, parity);
    std::vector<double> rates(ledger.size());
    for (int r = 0; r < ledger.size(); ++r)
      rates[r] = 0.9 - 0.05 * (r % 7) + 1.0 / (3 + r);
    double expected = ledger.survivors(rates);
    std::printf("rank %d parity %x %x %x %x err %d expected %.15g\n",
                ledger.rank(), parity[0], parity[1], parity[2], parity[3], err,
                expected);
  }
  MPI_Finalize();
  return 0;
}
