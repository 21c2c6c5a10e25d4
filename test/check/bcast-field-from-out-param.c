// A chunk size kept in a configuration structure, set up in setup.c from
// a problem size that input.c's input_size returns through a pointer
// (process 0 parses it, MPI_Bcast gives it to the others). The checked
// file reads only the field; setup.c's summary leaves what input_size
// returns to the reader, which finds it in input.c's summary.
//
// Must not be rewritten: with ROOT_ONLY, input_size never broadcasts the
// size it parsed on process 0; the note follows the field into setup.c
// and the size into input.c.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite refuse %s %t.root --trace --cflags=-DROOT_ONLY | FileCheck %s --check-prefix=ROOT --implicit-check-not=warning:
// clang-format on
#include "config.h"

#include <stdio.h>

#define WORK_TAG 5
#define WORK(c) ((c)->work)

/* Process 0's work array to every other process. */
static int work_share(config_t *cfg) {
  int me, np, p, ierr;
  ierr = MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (me == 0) {
    for (p = 1; p < np; ++p) {
      // CHECK-MESSAGES: prog.c:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(WORK(cfg), cfg->chunk, MPI_DOUBLE, p, WORK_TAG,
                      MPI_COMM_WORLD);
      // ROOT: prog.c:[[#@LINE-2]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      if (ierr != MPI_SUCCESS)
        return ierr;
    }
  } else {
    ierr = MPI_Recv(WORK(cfg), cfg->chunk, MPI_DOUBLE, 0, WORK_TAG,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(WORK(cfg), cfg->chunk, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  return ierr;
}

int main(int argc, char **argv) {
  config_t cfg;
  int me, i, ierr;
  MPI_Init(&argc, &argv);
  config_setup(&cfg, argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (i = 0; i < CONFIG_MAX_CHUNK; i++)
    cfg.work[i] = me == 0 ? 2.0 * i : 0.0;
  ierr = work_share(&cfg);
  double sum = 0;
  for (i = 0; i < CONFIG_MAX_CHUNK; i++)
    sum += cfg.work[i];
  printf("rank %d: chunk %d sum %.1f\n", me, cfg.chunk, sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// ROOT: note: input-independence: {{.*}}'chunk' is given a value in {{.*}}setup.c:11:3 that may differ between ranks: it reads what 'input_size' returns through parameter 3, which may differ between ranks: '*n' is written where not every rank may get: the condition 'me == 0' may differ between ranks

//--- config.h
#include <mpi.h>

#define CONFIG_MAX_CHUNK 40

typedef struct {
  int chunk;
  double work[CONFIG_MAX_CHUNK];
} config_t;

void config_setup(config_t *cfg, int argc, char **argv);
int input_size(int argc, char **argv, int *n);
//--- setup.c
#include "config.h"

/* The run's configuration, the same on every process. */
void config_setup(config_t *cfg, int argc, char **argv) {
  int n, ierr;
  ierr = input_size(argc, argv, &n);
  if (ierr != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, ierr);
  if (n > CONFIG_MAX_CHUNK)
    n = CONFIG_MAX_CHUNK;
  cfg->chunk = n;
}
//--- input.c
#include "config.h"

#include <stdlib.h>

/* The problem size: process 0 parses it, everybody gets it. */
int input_size(int argc, char **argv, int *n) {
  int me, ierr = MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (ierr != MPI_SUCCESS)
    return ierr;
  *n = 24;
  if (me == 0 && argc > 1)
    *n = atoi(argv[1]);
  if (me == 0 && *n < 1)
    *n = 24;
#ifndef ROOT_ONLY
  ierr = MPI_Bcast(n, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return ierr;
}
