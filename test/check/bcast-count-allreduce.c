// A block size agreed on with MPI_Allreduce before a hand-written broadcast
// of a work array: every process proposes a size from its own share of the
// rows, the all-reduction takes the largest, and the root sends that many
// values. The result (the receive buffer) is the same on every process, so
// the loop is rewritten.
//
// Must not be rewritten: with OWN_PROPOSAL the loop sends and receives the
// process's own proposal, which the all-reduction only read (its send
// buffer keeps what each process had). The root then sends fewer values
// than some others post a receive for, which MPI_Recv accepts and
// MPI_Bcast does not: the counts differ between processes.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.own --cflags=-DOWN_PROPOSAL | FileCheck %s --check-prefix=OWN --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define WORK_TAG 41
#define MAX_BLOCK 64

typedef struct {
  MPI_Comm comm;
  int rank, size;
} team_t;

// A function of its own per variant: a macro defined under the conditional
// would make both builds refused (source-form; see
// reduce-combine-macros.c), as it should: the rewrite of the one would be
// wrong in the other.
#ifdef OWN_PROPOSAL
static int share_work(const team_t *t, double *work, int rows) {
  int ierr, p, proposal, block;
  proposal = rows / t->size + (t->rank < rows % t->size);
  if (proposal > MAX_BLOCK)
    proposal = MAX_BLOCK;
  ierr = MPI_Allreduce(&proposal, &block, 1, MPI_INT, MPI_MAX, t->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (t->rank == 0) {
    for (p = 1; p < t->size; p++) {
      // OWN: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: matching-arguments refused [mpilift-manual-bcast]
      ierr = MPI_Send(work, proposal, MPI_DOUBLE, p, WORK_TAG, t->comm);
      // OWN: prog.c:[[#@LINE-1]]:14: note: matching-arguments: at {{[0-9]+}} processes, rank 0 sends {{[0-9]+}} bytes to rank {{[0-9]+}}, which receives {{[0-9]+}}
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(work, proposal, MPI_DOUBLE, 0, WORK_TAG, t->comm,
                    MPI_STATUS_IGNORE);
  }
  return ierr;
}
#else
static int share_work(const team_t *t, double *work, int rows) {
  int ierr, p, proposal, block;
  proposal = rows / t->size + (t->rank < rows % t->size);
  if (proposal > MAX_BLOCK)
    proposal = MAX_BLOCK;
  ierr = MPI_Allreduce(&proposal, &block, 1, MPI_INT, MPI_MAX, t->comm);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (t->rank == 0) {
    for (p = 1; p < t->size; p++) {
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(work, block, MPI_DOUBLE, p, WORK_TAG, t->comm);
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(work, block, MPI_DOUBLE, 0, WORK_TAG, t->comm,
                    MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(work, block, MPI_DOUBLE, 0, t->comm);
  }
  return ierr;
}
#endif

int main(int argc, char **argv) {
  team_t team;
  double work[MAX_BLOCK];
  int i, ierr;
  MPI_Init(&argc, &argv);
  team.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(team.comm, &team.rank);
  MPI_Comm_size(team.comm, &team.size);
  for (i = 0; i < MAX_BLOCK; i++)
    work[i] = team.rank == 0 ? 0.5 * i : -1.0;
  ierr = share_work(&team, work, 10);
  double sum = 0;
  for (i = 0; i < MAX_BLOCK; i++)
    sum += work[i];
  printf("rank %d: ierr %d sum %.1f\n", team.rank, ierr, sum);
  MPI_Finalize();
  return 0;
}
