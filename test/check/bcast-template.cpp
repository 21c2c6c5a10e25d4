// Issue 14: a broadcast in a function template, proven through its
// instantiations (std::vector<double> with a root that is the last rank,
// std::vector<int> from rank 0): each is evaluated as a function of its
// own, both give the same rewrite of the template's text, and the datatype
// comes from a traits class whose get() only returns a handle. The error
// code of the removed calls goes to the collective.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.cpp
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
      // CHECK-NB: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
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
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: return ierr;
// CHECK-NB-FIXES: ierr = MPI_Ibcast(values.data(), (int)values.size(),

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Team team(MPI_COMM_WORLD);
  int rk, sz;
  MPI_Comm_rank(MPI_COMM_WORLD, &rk);
  MPI_Comm_size(MPI_COMM_WORLD, &sz);
  std::vector<double> coeffs(5, 0.0);
  std::vector<int> flags(3, 0);
  int root = sz - 1;
  if (team.rank() == root) {
    for (size_t i = 0; i < coeffs.size(); ++i)
      coeffs[i] = 0.5 * (double)i + 1.0;
  }
  if (team.rank() == 0)
    for (size_t i = 0; i < flags.size(); ++i)
      flags[i] = (int)(7 * i + 3);
  if (share(coeffs, root, MPI_COMM_WORLD, rk, sz) != MPI_SUCCESS)
    MPI_Abort(team.comm(), 1);
  if (share(flags, 0, MPI_COMM_WORLD, rk, sz) != MPI_SUCCESS)
    MPI_Abort(team.comm(), 1);
  for (size_t i = 0; i < coeffs.size(); ++i)
    std::printf("rank %d coeffs[%zu] = %g\n", team.rank(), i, coeffs[i]);
  for (size_t i = 0; i < flags.size(); ++i)
    std::printf("rank %d flags[%zu] = %d\n", team.rank(), i, flags[i]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
