/*===- MPITiming.h - Medians and slowest-rank times for MPI benchmarks ----===*
 *
 * Part of mpilift. Shared by the C benchmarks that time MPI calls: the
 * median of repeated measurements, and the slowest rank's time of one.
 *
 *===----------------------------------------------------------------------===*/

#ifndef MPILIFT_BENCH_COMMON_MPITIMING_H
#define MPILIFT_BENCH_COMMON_MPITIMING_H

#include <mpi.h>
#include <stdlib.h>

static int mpiliftCompareDoubles(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

/* The median of the N values of V (sorts V). */
static double median(double *V, int N) {
  qsort(V, N, sizeof(double), mpiliftCompareDoubles);
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

/* The largest T of all ranks of MPI_COMM_WORLD. */
static double slowest(double T) {
  double Max;
  MPI_Allreduce(&T, &Max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return Max;
}

#endif /* MPILIFT_BENCH_COMMON_MPITIMING_H */
