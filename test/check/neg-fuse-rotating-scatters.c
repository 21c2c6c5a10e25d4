// Issue 15: loops of MPI_Scatter over every root that MPI_Alltoall may not
// replace, each refused by the check that names why: a send buffer that
// depends on the root, a receive buffer that is not the root's block of the
// receive count (matching-arguments); an array whose elements are not the
// receive datatype's, a root that scatters in place, a loop variable read
// after the loop (source-form). A loop over some roots only is no
// alltoall and is not reported.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define BLK 2
#define MAXP 16

int main(int argc, char **argv) {
  int rank, size, r;
  int table[MAXP * MAXP * BLK], mine[MAXP * BLK], last[BLK];
  char bytes[MAXP * BLK * sizeof(int)];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < MAXP * MAXP * BLK; k++)
    table[k] = rank * 1000 + k;

  for (int root = 0; root < size; root++)
    MPI_Scatter(table + root * size * BLK, BLK, MPI_INT, mine + root * BLK,
                BLK, MPI_INT, root, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: MPI_Scatter from every rank of the communicator as the root in turn; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-3]]:17: note: matching-arguments: the scatter's argument 'table + root * size * BLK' depends on the root 'root'; MPI_Alltoall takes one for every block

  for (int root = 0; root < size; root++)
    MPI_Scatter(table, BLK, MPI_INT, last, BLK, MPI_INT, root, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:38: note: matching-arguments: the receive buffer 'last' is not seen to be block 'root' of one array, of the receive count 'BLK'

  for (int root = 0; root < size; root++)
    MPI_Scatter(table, BLK, MPI_INT, mine + 2 * root * BLK, BLK / 2, MPI_INT,
                root, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]

  for (int root = 0; root < size; root++)
    MPI_Scatter(table, BLK, MPI_INT, bytes + root * BLK, BLK, MPI_INT, root,
                MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: {{.*}}; not rewritten: source-form refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-3]]:38: note: source-form: the receive array's elements are not of the C type of 'MPI_INT', so that its blocks are not the receive count of them

  for (int root = 0; root < size; root++)
    MPI_Scatter(table, BLK, MPI_INT,
                root == rank ? MPI_IN_PLACE : mine + root * BLK, BLK, MPI_INT,
                root, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-3]]:5: warning: {{.*}}; not rewritten: source-form, matching-arguments refused [mpilift-fuse-collectives]

  for (r = 0; r < size; r++)
    MPI_Scatter(table, BLK, MPI_INT, mine + r * BLK, BLK, MPI_INT, r,
                MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: {{.*}}; not rewritten: source-form refused [mpilift-fuse-collectives]
  printf("rank %d: looped to %d\n", rank, r);
  // CHECK: :[[@LINE-1]]:43: note: source-form: 'r' is read after the loop, which the rewrite no longer runs

  for (int root = 0; root < 2 && root < size; root++)
    MPI_Scatter(table, BLK, MPI_INT, mine + root * BLK, BLK, MPI_INT, root,
                MPI_COMM_WORLD);

  printf("rank %d: %d %d %d %d\n", rank, mine[0], mine[1], last[0],
         (int)bytes[0]);
  MPI_Finalize();
  return 0;
}
