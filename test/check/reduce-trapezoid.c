// Issue 15: the textbook trapezoid rule. Every rank integrates its part and
// the workers send their areas to rank 0, which adds them up; error codes
// are kept, rank, size and communicator live in a structure, and the root's
// total is a pointer parameter. A floating-point sum is refused by
// reduction-order (MPI may add in another order and round differently);
// with --allow-reassociation it is rewritten and the results agree to
// 1e-12.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --check-prefix=CHECK-STRICT --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t.fast --check-args="--allow-reassociation" --rtol 1e-12 | FileCheck %s --check-prefix=CHECK-FAST --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t.fast/prog.c
#include <mpi.h>
#include <stdio.h>

#define A 0.0
#define B 3.0
#define N 1024
#define TAG_AREA 17

struct world {
  MPI_Comm comm;
  int rank, size;
};

static double f(double x) { return x * x; }

static double integrate(double left, double right, int n, double h) {
  double area = (f(left) + f(right)) / 2.0;
  for (int i = 1; i < n; i++)
    area += f(left + i * h);
  return area * h;
}

static int total_area(const struct world *w, double mine, double *total) {
  int ierr = MPI_SUCCESS, source;
  double theirs;
  if (w->rank == 0) {
    *total = mine;
    for (source = 1; source < w->size; source++) {
    // CHECK-STRICT: :[[@LINE-1]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: reduction-order refused [mpilift-manual-reduce]
    // CHECK-FAST: :[[@LINE-2]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
    // CHECK-FAST: :[[@LINE-3]]:5: note: reduction-order: allowed by --allow-reassociation; MPI_SUM may combine the values in another order than this code, and the result may differ in the last bits
      ierr = MPI_Recv(&theirs, 1, MPI_DOUBLE, source, TAG_AREA, w->comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        return ierr;
      *total += theirs;
      // CHECK-STRICT: :[[@LINE-1]]:7: note: reduction-order: a sum of 'double' values rounds differently when MPI combines them in another order than this code does; --allow-reassociation accepts results that may differ in the last bits
    }
  } else {
    ierr = MPI_Send(&mine, 1, MPI_DOUBLE, 0, TAG_AREA, w->comm);
    if (ierr != MPI_SUCCESS)
      return ierr;
  }
  return ierr;
}
// CHECK-FIXES: int ierr = MPI_SUCCESS, source;
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(&mine, total, 1, MPI_DOUBLE, MPI_SUM, 0, w->comm);
// CHECK-FIXES-NEXT: if (ierr != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return ierr;
// CHECK-FIXES-NEXT: return ierr;

int main(int argc, char **argv) {
  struct world w;
  double h, local, total = 0.0;
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  h = (B - A) / N;
  int n = N / w.size;
  double left = A + w.rank * n * h;
  local = integrate(left, left + n * h, n, h);
  if (total_area(&w, local, &total) != MPI_SUCCESS)
    MPI_Abort(w.comm, 1);
  if (w.rank == 0)
    printf("with n = %d trapezoids, the integral from %.1f to %.1f is %.15e\n",
           n * w.size, A, B, total);
  MPI_Finalize();
  return 0;
}
// CHECK-STRICT: check-rewrite: unchanged
// CHECK-FAST: check-rewrite: same output at np 1 2 3 4 5 7 8 (numbers to 1e-12 relative)
