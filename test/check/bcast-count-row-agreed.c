// A process grid whose rows agree on a block size: each process proposes
// one for its row's share of the matrix, and the row takes its first
// process's (MPI_Bcast on the row communicator). The panel then goes from
// process 0 to every process of the world by a hand-written loop with that
// block size as its count. Agreeing within a row is not agreeing across
// the world: rows take different sizes, process 0 sends its row's, and the
// others post receives for their own (MPI_Recv accepts a shorter message;
// MPI_Bcast does not). Must not be rewritten.
//
// With WORLD_AGREES the block size is broadcast on MPI_COMM_WORLD instead,
// which makes it one value everywhere: the loop is rewritten.
// clang-format off
// RUN: %check-rewrite refuse %s %t.row | FileCheck %s --check-prefix=ROW --implicit-check-not=warning:
// RUN: %check-rewrite rewrite %s %t --cflags=-DWORLD_AGREES | FileCheck %s --check-prefix=WORLD --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define PANEL_TAG 5
#define MAX_NB 32
#define NPCOL 2

#ifdef WORLD_AGREES
#define AGREE_ON MPI_COMM_WORLD
#else
#define AGREE_ON row
#endif

int main(int argc, char **argv) {
  double panel[MAX_NB];
  int i, p, ierr, rank, size, myrow, nb;
  MPI_Comm row;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  myrow = rank / NPCOL;
  ierr = MPI_Comm_split(MPI_COMM_WORLD, myrow, rank % NPCOL, &row);
  for (i = 0; i < MAX_NB; i++)
    panel[i] = rank == 0 ? i + 0.25 : -1.0;
  nb = 4 + 4 * myrow; // Row 0, the root's, takes the least.
  ierr = MPI_Bcast(&nb, 1, MPI_INT, 0, AGREE_ON);
  if (rank == 0) {
    for (p = 1; p < size; p++)
      ierr = MPI_Send(panel, nb, MPI_DOUBLE, p, PANEL_TAG, MPI_COMM_WORLD);
    // ROW: prog.c:[[#@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
    // ROW: prog.c:[[#@LINE-5]]:3: note: input-independence: 'ierr' is not proven the same on every rank (the count 'nb' cannot be evaluated: 'nb' is broadcast by 'MPI_Bcast', but is not proven the same on every rank where the region reads it: 'nb' is made the same only on the processes of 'AGREE_ON', which may be fewer than those it must agree on)
    // WORLD: prog.c:[[#@LINE-4]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    ierr = MPI_Recv(panel, nb, MPI_DOUBLE, 0, PANEL_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  }
  double sum = 0;
  for (i = 0; i < MAX_NB; i++)
    sum += panel[i];
  printf("rank %d: ierr %d sum %.2f\n", rank, ierr, sum);
  MPI_Comm_free(&row);
  MPI_Finalize();
  return 0;
}
