// Issue 15: calls of one collective back to back that one call on a packed
// buffer may not replace, each refused by the check that names why: a call
// whose buffer address depends on what an earlier one computed, or two
// calls that write one array (message-integrity); a count that is no
// constant, a call in place, error codes kept in two variables or in one
// variable assigned by one call and accumulated by the next, a derived
// datatype (source-form); a floating-point sum (reduction-order). Calls
// that differ in their root or operation are no sequence at all.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define NV 4

int main(int argc, char **argv) {
  int rank, size, e1 = 0, e2 = 0;
  int lo, idx, best, n, vals[NV], pair[2], sums[2];
  double x, y, sx, sy;
  MPI_Datatype two;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < NV; k++)
    vals[k] = (rank * 7 + k * 3) % 5;
  lo = (rank + 1) % NV;

  // The second call's buffer is chosen by the first one's result.
  MPI_Allreduce(&lo, &idx, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 2 MPI_Allreduce calls back to back with the same operation, datatype and communicator; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  MPI_Allreduce(&vals[idx], &best, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: note: message-integrity: this call reads 'idx', which an earlier call of the sequence writes; the calls depend on each other

  // Two broadcasts into one array.
  MPI_Bcast(&vals[0], 1, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 2 MPI_Bcast calls back to back with the same datatype, root and communicator; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  MPI_Bcast(vals, 2, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: note: message-integrity: two calls of the sequence write 'vals'

  // A count the program computes.
  n = 1 + rank % 2;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 2 MPI_Bcast calls back to back with the same datatype, root and communicator; not rewritten: source-form, message-integrity refused [mpilift-fuse-collectives]
  MPI_Bcast(pair, n, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: note: source-form: the count 'n' is no constant; the packed buffer is an array of a constant size
  // CHECK: :[[@LINE-2]]:3: note: message-integrity: this call reads 'n', which an earlier call of the sequence writes; the calls depend on each other

  // In place, and error codes in two variables.
  pair[0] = rank;
  pair[1] = -rank;
  MPI_Allreduce(MPI_IN_PLACE, pair, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 2 MPI_Allreduce calls back to back with the same operation, datatype and communicator; not rewritten: source-form refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:3: note: source-form: a call reduces in place; the packed form copies from its send buffer
  MPI_Allreduce(&lo, &best, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  e1 = MPI_Reduce(&lo, &sums[0], 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:8: warning: 2 MPI_Reduce calls back to back with the same operation, datatype, root and communicator; not rewritten: source-form refused [mpilift-fuse-collectives]
  e2 = MPI_Reduce(&idx, &sums[1], 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:8: note: source-form: the calls keep their error codes in different places; one call has one
  // One variable, assigned by one call and accumulated by the next.
  e1 = MPI_Reduce(&lo, &sums[0], 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:8: warning: 2 MPI_Reduce calls back to back with the same operation, datatype, root and communicator; not rewritten: source-form refused [mpilift-fuse-collectives]
  e1 |= MPI_Reduce(&idx, &sums[1], 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:9: note: source-form: the calls keep their error codes in different places; one call has one

  // A floating-point sum.
  x = 0.1 * rank;
  y = 1.0 / (rank + 3);
  MPI_Reduce(&x, &sx, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 2 MPI_Reduce calls back to back with the same operation, datatype, root and communicator; not rewritten: reduction-order refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:3: note: reduction-order: a sum of 'MPI_DOUBLE' may round differently when one MPI_Reduce of more values combines the values in another order than the calls it replaces did; --allow-reassociation accepts results that differ in the last bits
  MPI_Reduce(&y, &sy, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

  // A derived datatype.
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_commit(&two);
  MPI_Bcast(pair, 1, two, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 2 MPI_Bcast calls back to back with the same datatype, root and communicator; not rewritten: source-form refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:3: note: source-form: 'two' is no predefined datatype; the packed buffer needs the C type of its elements
  MPI_Bcast(sums, 1, two, 0, MPI_COMM_WORLD);
  MPI_Type_free(&two);

  // Other roots, other operations: no sequence.
  MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&y, 1, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
  MPI_Allreduce(&lo, &idx, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&lo, &best, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  printf("rank %d: %d %d %d %d %d %d %d %d %g %g %d %d\n", rank, idx, best,
         vals[0], vals[1], pair[0], pair[1], rank == 0 ? sums[0] : 0,
         rank == 0 ? sums[1] : 0, x + y, rank == 0 ? sx + sy : 0.0, e1, e2);
  MPI_Finalize();
  return 0;
}
