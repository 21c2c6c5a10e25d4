// One template text, two collectives: relay<Forward> is a chain broadcast
// from rank 0, relay<Backward> one from the last rank. Each instantiation
// alone is proven, but with different roots ('0' and 'last'), and one edit
// of the text would serve both: refused, naming both instantiations.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <cstdio>
#include <vector>

// Routing policies: where a rank takes the values from and hands them to.
struct Forward {
  static int source(int me, int last) {
    return me > 0 ? me - 1 : MPI_PROC_NULL;
  }
  static int dest(int me, int last) {
    return me < last ? me + 1 : MPI_PROC_NULL;
  }
};
struct Backward {
  static int source(int me, int last) {
    return me < last ? me + 1 : MPI_PROC_NULL;
  }
  static int dest(int me, int last) { return me > 0 ? me - 1 : MPI_PROC_NULL; }
};

template <class Route>
int relay(std::vector<double> &v, int me, int np, MPI_Comm comm) {
  int ierr = MPI_SUCCESS;
  int last = np - 1;
  int src = Route::source(me, last);
  int dst = Route::dest(me, last);
  // CHECK: :[[@LINE+3]]:5: warning: chain of point-to-point messages implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
  // CHECK: :[[@LINE+1]]:3: note: source-form: the instantiations 'relay<Forward>' and 'relay<Backward>' of this template are not proven alike; one edit of its text serves them all
  if (src != MPI_PROC_NULL) {
    ierr = MPI_Recv(v.data(), (int)v.size(), MPI_DOUBLE, src, 5, comm,
                    MPI_STATUS_IGNORE);
    if (ierr != MPI_SUCCESS)
      return ierr;
  }
  if (dst != MPI_PROC_NULL)
    ierr = MPI_Send(v.data(), (int)v.size(), MPI_DOUBLE, dst, 5, comm);
  return ierr;
}

int main(int argc, char **argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  std::vector<double> head(4, 0.0), tail(4, 0.0);
  if (me == 0)
    for (size_t i = 0; i < head.size(); ++i)
      head[i] = 1.5 + (double)i;
  if (me == np - 1)
    for (size_t i = 0; i < tail.size(); ++i)
      tail[i] = 10.0 * (double)i - 2.0;
  if (relay<Forward>(head, me, np, MPI_COMM_WORLD) != MPI_SUCCESS ||
      relay<Backward>(tail, me, np, MPI_COMM_WORLD) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < head.size(); ++i)
    std::printf("rank %d head[%zu] = %g tail[%zu] = %g\n", me, i, head[i], i,
                tail[i]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
