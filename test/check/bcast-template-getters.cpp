// Issue 14: the template of bcast-template.cpp called the way C++ codes
// call it: rank, size and communicator from a class's getters
// (`team.rank()`, `team.size()`, `team.comm()`), whose fields only
// MPI_Comm_rank and MPI_Comm_size write, and a root that is the last rank.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
#include <mpi.h>
#include <cstdio>
#include <vector>

template <typename T> struct MpiType;
template <> struct MpiType<double> {
  static MPI_Datatype get() { return MPI_DOUBLE; }
};
template <> struct MpiType<int> {
  static MPI_Datatype get() { return MPI_INT; }
};

class Team {
public:
  explicit Team(MPI_Comm c) : comm_(c) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }
  int rank() const { return rank_; }
  int size() const { return nranks_; }
  MPI_Comm comm() const { return comm_; }

private:
  MPI_Comm comm_;
  int rank_, nranks_;
};

// The root's values reach every rank; one template for every element type.
template <typename T>
int share(std::vector<T> &values, int root, MPI_Comm comm, int me, int np) {
  int ierr = MPI_SUCCESS;
  if (me == root) {
    for (int dest = 0; dest < np; ++dest) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
      if (dest == root)
        continue;
      ierr = MPI_Send(values.data(), (int)values.size(), MpiType<T>::get(),
                      dest, 42, comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(values.data(), (int)values.size(), MpiType<T>::get(), root,
                    42, comm, MPI_STATUS_IGNORE);
  }
  return ierr;
}
// CHECK-FIXES: int ierr = MPI_SUCCESS;
// CHECK-FIXES-NEXT: ierr = MPI_Bcast(values.data(), (int)values.size(), MpiType<T>::get(), root,
// CHECK-FIXES-NEXT: comm);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Team team(MPI_COMM_WORLD);
  std::vector<double> coeffs(5, 0.0);
  std::vector<int> flags(3, 0);
  int root = team.size() - 1;
  if (team.rank() == root) {
    for (size_t i = 0; i < coeffs.size(); ++i)
      coeffs[i] = 0.5 * (double)i + 1.0;
  }
  if (team.rank() == 0)
    for (size_t i = 0; i < flags.size(); ++i)
      flags[i] = (int)(7 * i + 3);
  if (share(coeffs, root, team.comm(), team.rank(), team.size()) != MPI_SUCCESS)
    MPI_Abort(team.comm(), 1);
  if (share(flags, 0, team.comm(), team.rank(), team.size()) != MPI_SUCCESS)
    MPI_Abort(team.comm(), 1);
  for (size_t i = 0; i < coeffs.size(); ++i)
    std::printf("rank %d coeffs[%zu] = %g\n", team.rank(), i, coeffs[i]);
  for (size_t i = 0; i < flags.size(); ++i)
    std::printf("rank %d flags[%zu] = %d\n", team.rank(), i, flags[i]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
