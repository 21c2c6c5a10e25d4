// Issue 15: MPI_Reduce then MPI_Bcast of the result that one MPI_Allreduce
// may not replace, each refused by the check that names why: a correction
// the root alone makes between the two calls (message-integrity), a message
// between them (message-order), a count changed between them
// (matching-arguments), an operation the program defines
// (reduction-order), and a check between them that may leave on a
// success too, as it reads more than the reduction's code (source-form).
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

static void pick_first(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)in;
  (void)inout;
  (void)len;
  (void)type;
}

int main(int argc, char **argv) {
  int rank, size, n = 1, token = 0, ierr = MPI_SUCCESS;
  int local, total, counts[2], sums[2];
  MPI_Op first;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  local = rank + 1;

  MPI_Reduce(&local, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  if (rank == 0)
    total -= size; // Only the root holds the sum here.
  // CHECK: :[[@LINE-2]]:3: note: message-integrity: this statement uses 'total' between MPI_Reduce and MPI_Bcast, where only the root holds the reduced value; after MPI_Allreduce every rank would
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);

  MPI_Reduce(&local, &total, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: {{.*}}; not rewritten: message-order refused [mpilift-fuse-collectives]
  if (rank == 1)
    MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  else if (rank == 0 && size > 1)
    MPI_Recv(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-3]]:5: note: message-order: 'MPI_Send' between MPI_Reduce and MPI_Bcast: one MPI_Allreduce would move the broadcast before it
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);

  counts[0] = counts[1] = local;
  MPI_Reduce(counts, sums, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: {{.*}}; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  n = 2;
  // CHECK: :[[@LINE-1]]:3: note: matching-arguments: this statement changes 'n', which the broadcast reads, between MPI_Reduce and MPI_Bcast
  MPI_Bcast(sums, n, MPI_INT, 0, MPI_COMM_WORLD);

  MPI_Op_create(pick_first, 0, &first);
  MPI_Reduce(&local, &total, 1, MPI_INT, first, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: {{.*}}; not rewritten: reduction-order refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE-2]]:3: note: reduction-order: 'first' is an operation the program defines; whether it gives the same result in any order of combination is not known
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Op_free(&first);

  ierr = MPI_Reduce(&local, &total, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:10: warning: {{.*}}; not rewritten: source-form refused [mpilift-fuse-collectives]
  if (ierr != MPI_SUCCESS || total < 0)
    goto done;
  // CHECK: :[[@LINE-1]]:5: note: source-form: this statement can leave the code between MPI_Reduce and MPI_Bcast, where the ranks that leave would have taken part in the broadcast already once the two are one MPI_Allreduce
  ierr = MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);

done:

  printf("rank %d: %d %d %d (%d)\n", rank, total, sums[0], token, ierr);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
