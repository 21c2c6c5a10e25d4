// The send is spelled by a macro that other code uses too (and a later
// message with the same tag could match differently after a rewrite).
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>

#define SEND_TO(dest, value) MPI_Send(&(value), 1, MPI_INT, dest, 0, MPI_COMM_WORLD)

int main(int argc, char **argv) {
  int rank, size, data = 5;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      SEND_TO(i, data);
    // CHECK: :[[@LINE-2]]:5: warning: {{.*}}not rewritten: source-form, message-order refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-2]]:7: note: source-form: the call is spelled inside a macro; rewriting it would change every use of the macro
  } else {
    MPI_Recv(&data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (size > 1 && rank == 1)
    SEND_TO(0, data);
  // CHECK: :[[@LINE-1]]:5: note: message-order: another message on the same communicator and a tag the pattern's may be; the rewrite could change which receive it matches
  if (size > 1 && rank == 0)
    MPI_Recv(&data, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
