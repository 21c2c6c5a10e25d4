// A C++ code keeps its coefficients in a std::vector and spreads them with
// a helper that takes the vector by reference and sends as many values as
// it holds (`c.size()`), called from another file. The helper's unit
// cannot see its callers; the project index records, for each call, whether the
// container it passes has the same size on every rank (here: a member
// constructed with a count, its starting value differing between ranks),
// and the helper's proof reads that record.
//
// Must not be rewritten: the caller's vector grows on the other ranks
// (`resize` with a size that depends on the rank), so the processes
// would disagree on the count; input-independence refuses, naming it.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// RUN: %check-rewrite refuse %s %t.uneven --trace --cflags=-DUNEVEN | FileCheck %s --check-prefix=UNEVEN --implicit-check-not=warning:
// clang-format on
#include "coefficients.h"

int share_coefficients(std::vector<double> &c, MPI_Comm comm) {
  int rank, size, ierr = MPI_SUCCESS;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = static_cast<int>(c.size());
  if (rank == 0) {
    // CHECK-MESSAGES: prog.cpp:[[#@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (int p = 1; p < size; ++p) {
      ierr = MPI_Send(c.data(), n, MPI_DOUBLE, p, 3, comm);
      // UNEVEN: prog.cpp:[[#@LINE-1]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(c.data(), n, MPI_DOUBLE, 0, 3, comm, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: ierr = MPI_Bcast(c.data(), n, MPI_DOUBLE, 0, comm);
  // UNEVEN: note: input-independence: {{.*}}'c' is given a container in {{.*}} whose size may differ between ranks: {{.*}}
  return ierr;
}

//--- coefficients.h
#ifndef COEFFICIENTS_H
#define COEFFICIENTS_H

#include <mpi.h>

#include <vector>

/// Sends rank 0's coefficients to every process of comm.
int share_coefficients(std::vector<double> &c, MPI_Comm comm);

#endif

//--- model.cpp
#include "coefficients.h"

#include <cstdio>

namespace {

constexpr std::size_t kTerms = 6;

class Model {
public:
  Model(MPI_Comm comm, int rank)
      : comm_(comm), rank_(rank), coeffs_(kTerms, rank == 0 ? 0.25 : 0.0) {}

  int setup() {
    if (rank_ == 0)
      for (std::size_t i = 0; i < coeffs_.size(); ++i)
        coeffs_[i] = 0.25 * static_cast<double>(i + 1);
#ifdef UNEVEN
    if (rank_ != 0)
      coeffs_.resize(kTerms + 1);
#endif
    return share_coefficients(coeffs_, comm_);
  }

  double sum() const {
    double s = 0;
    for (double c : coeffs_)
      s += c;
    return s;
  }
  int rank() const { return rank_; }

private:
  MPI_Comm comm_;
  int rank_;
  std::vector<double> coeffs_;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Model model(MPI_COMM_WORLD, rank);
    int ierr = model.setup();
    std::printf("rank %d: ierr %d sum %.2f\n", model.rank(), ierr,
                model.sum());
  }
  MPI_Finalize();
  return 0;
}
