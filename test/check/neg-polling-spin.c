// A chain broadcast whose receivers spin on MPI_Iprobe before receiving
// (a code that polls so that it can print progress while it waits). Each
// probe does find the message in the end, so the messages form a broadcast,
// but this is not Listing 7's polling form: a rewrite that replaced the
// receive would leave the spin loop waiting for a message that no longer
// comes. Refused by polling-loop, naming the probe.
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define PANEL 5
#define TAG_PANEL 21

struct grid {
  MPI_Comm comm;
  int me, np;
  long spins;
};

static int pass_panel(struct grid *g, double *panel) {
  int ierr = MPI_SUCCESS, there = 0;
  if (g->me == 0) {
    if (g->np > 1)
      ierr = MPI_Send(panel, PANEL, MPI_DOUBLE, 1, TAG_PANEL, g->comm);
  } else {
    do {
      MPI_Iprobe(g->me - 1, TAG_PANEL, g->comm, &there, MPI_STATUS_IGNORE);
      g->spins++;
    } while (!there);
    ierr = MPI_Recv(panel, PANEL, MPI_DOUBLE, g->me - 1, TAG_PANEL, g->comm,
                    MPI_STATUS_IGNORE);
    if (g->me + 1 < g->np)
      ierr = MPI_Send(panel, PANEL, MPI_DOUBLE, g->me + 1, TAG_PANEL, g->comm);
  }
  return ierr;
}
// CHECK: :[[@LINE-14]]:5: warning: {{.*}}implements a broadcast (static analysis); not rewritten: polling-loop refused [mpilift-manual-bcast]
// CHECK: :[[@LINE-11]]:7: note: polling-loop: the region forms a broadcast once each MPI_Iprobe finds its message, but not in Listing 7's form (the probe, then `if (flag)` whose block starts with the receive, in the branch of a rank guard that is not the root's)

int main(int argc, char **argv) {
  struct grid g = {MPI_COMM_WORLD, 0, 1, 0};
  double panel[PANEL];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(g.comm, &g.me);
  MPI_Comm_size(g.comm, &g.np);
  for (int k = 0; k < PANEL; k++)
    panel[k] = g.me == 0 ? 1.5 * k : 0.0;
  if (pass_panel(&g, panel) != MPI_SUCCESS)
    MPI_Abort(g.comm, 1);
  printf("%d: %.1f %.1f\n", g.me, panel[0], panel[PANEL - 1]);
  MPI_Finalize();
  return 0;
}
// CHECK: check-rewrite: unchanged
