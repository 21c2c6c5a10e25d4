// Three helpers broadcast the same way from three call sites, once each.
// Shapes cannot tell their receives apart; message order can: each root
// occurrence is grown with the receives that match its sends, and all
// three are reported.
// RUN: %mpicc %s -o %t.exe
// RUN: rm -rf %t.d && %mpirun -np 4 %mpilift-run -o %t.d -- %t.exe
// RUN: %mpilift detect %t.d | FileCheck %s
// CHECK: bcast star comm 0 root 0, 32 bytes, 1 occurrence, evidence both
// CHECK-NEXT: send {{.*}}same-shape-sites.c:22:
// CHECK-NEXT: recv {{.*}}same-shape-sites.c:24:
// CHECK: bcast star comm 0 root 0, 32 bytes, 1 occurrence, evidence both
// CHECK-NEXT: send {{.*}}same-shape-sites.c:29:
// CHECK-NEXT: recv {{.*}}same-shape-sites.c:31:
// CHECK: bcast star comm 0 root 0, 32 bytes, 1 occurrence, evidence both
// CHECK-NEXT: send {{.*}}same-shape-sites.c:36:
// CHECK-NEXT: recv {{.*}}same-shape-sites.c:38:
#include <mpi.h>

static void s0(double *p, int rank, int size) {
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(p, 4, MPI_DOUBLE, i, 77, MPI_COMM_WORLD);
  } else
    MPI_Recv(p, 4, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void s1(double *p, int rank, int size) {
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(p, 4, MPI_DOUBLE, i, 77, MPI_COMM_WORLD);
  } else
    MPI_Recv(p, 4, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void s2(double *p, int rank, int size) {
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(p, 4, MPI_DOUBLE, i, 77, MPI_COMM_WORLD);
  } else
    MPI_Recv(p, 4, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
int main(int argc, char **argv) {
  int rank, size;
  double p[4] = {0}, x = 1, y;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  s0(p, rank, size);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  s1(p, rank, size);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  s2(p, rank, size);
  MPI_Finalize();
  return 0;
}
