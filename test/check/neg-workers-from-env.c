// The number of workers comes from the environment, through a helper that
// clamps it to the communicator's size. Taken as the same on every rank,
// the loop would broadcast the job to the workers; nothing proves that
// every rank reads the same environment, so input independence refuses it
// and names the variable and why its value is unknown.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define JOB_LEN 6
#define TAG_JOB 21

struct world {
  int me, np;
  MPI_Comm comm;
};

static int workers_wanted(int np) {
  const char *s = getenv("APP_WORKERS");
  int w = s ? atoi(s) : np;
  return w < 1 ? 1 : (w > np ? np : w);
}

int main(int argc, char **argv) {
  struct world w;
  double job[JOB_LEN];
  int ierr;
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.me);
  MPI_Comm_size(w.comm, &w.np);
  int nworkers = workers_wanted(w.np);
  for (int k = 0; k < JOB_LEN; k++)
    job[k] = w.me == 0 ? 1.5 * k : 0.0;
  if (w.me == 0) {
    for (int dst = 1; dst < nworkers; ++dst) {
      ierr = MPI_Send(job, JOB_LEN, MPI_DOUBLE, dst, TAG_JOB, w.comm);
      if (ierr != MPI_SUCCESS)
        MPI_Abort(w.comm, ierr);
    }
    // CHECK: :[[@LINE-5]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: input-independence refused [mpilift-manual-bcast]
    // CHECK: :[[@LINE-10]]:7: note: input-independence: 'nworkers' is not proven the same on every rank (the condition 's' cannot be evaluated: the result of a call of 'getenv')
  } else if (w.me < nworkers) {
    ierr = MPI_Recv(job, JOB_LEN, MPI_DOUBLE, 0, TAG_JOB, w.comm,
                    MPI_STATUS_IGNORE);
  }
  printf("rank %d: %.1f %.1f\n", w.me, job[1], job[JOB_LEN - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
