// A getter whose field is not only what MPI_Comm_rank wrote: rebase()
// renumbers the ranks from a first one. It is called with 0 here, so the
// program broadcasts, but nothing proves that 'team.rank()' is the rank in
// every run: the pattern must not be rewritten, and with the trace the
// finding says what stopped the evaluation.
// RUN: %check-rewrite refuse %s %t --trace | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <cstdio>
#include <vector>

class Team {
public:
  explicit Team(MPI_Comm c) : comm_(c) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }
  void rebase(int first) { rank_ -= first; }
  int rank() const { return rank_; }
  int size() const { return nranks_; }
  MPI_Comm comm() const { return comm_; }

private:
  MPI_Comm comm_;
  int rank_, nranks_;
};

static int share(std::vector<long> &v, MPI_Comm comm, int me, int np) {
  int ierr = MPI_SUCCESS;
  if (me == 0) {
    for (int dest = 1; dest < np; ++dest) {
      // CHECK: :[[@LINE-1]]:5: warning: loop of point-to-point sends implements
      // a broadcast (static analysis and the trace); not rewritten:
      // input-independence refused [mpilift-manual-bcast]
      ierr = MPI_Send(v.data(), (int)v.size(), MPI_LONG, dest, 3, comm);
      if (ierr != MPI_SUCCESS)
        break;
    }
  } else {
    ierr = MPI_Recv(v.data(), (int)v.size(), MPI_LONG, 0, 3, comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Team team(MPI_COMM_WORLD);
  team.rebase(argc > 5 ? 1 : 0);
  std::vector<long> v(6, 0);
  if (team.rank() == 0)
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = 11L * (long)i;
  if (share(v, team.comm(), team.rank(), team.size()) != MPI_SUCCESS)
    // CHECK: :[[@LINE-1]]:7: note: input-independence: the region forms this
    // collective only if 'me' is the rank, which is not proven: the condition
    // 'me == 0' cannot be evaluated: 'me' receives a value here that may differ
    // between ranks: cannot prove that 'rank_' is the same on every rank
    MPI_Abort(team.comm(), 1);
  std::printf("rank %d: %ld %ld\n", team.rank(), v[1], v[5]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
