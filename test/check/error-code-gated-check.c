// Issue 19, part 1: codes checked in place inside a larger condition, `if
// (MPI_Send(...) != MPI_SUCCESS && t->verbose) fprintf(...)`: the call is
// made first, and the rest of the condition is evaluated only when it
// failed, like the branch. The collective call is checked the same way, in
// a hand-written broadcast and in a fused reduction and broadcast.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
//
// Refused by source-form: `||` (the branch also runs after calls that
// succeeded: the code is used otherwise), and a rest of the condition that
// names the root loop's peer, which the collective call has none of.
// RUN: %check-rewrite refuse %s %t.or --cflags=-DOR_TEST | FileCheck %s --check-prefix=OR --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.peer --cflags=-DPEER_TEST | FileCheck %s --check-prefix=PEER --implicit-check-not=warning:
// clang-format on
#include <mpi.h>
#include <stdio.h>

#define NPAR 3
#define TAG_PAR 5
#define COMPLAIN(t) fprintf(stderr, "rank %d: communication failed\n", (t)->me)

typedef struct {
  MPI_Comm comm;
  int me, np, verbose;
  long par[NPAR];
} team_t;

// Each variant is a function of its own: conditional code inside the
// pattern would keep it from being rewritten (source-form).
#if defined(OR_TEST)
static void team_share(team_t *t) {
  if (t->me == 0) {
    // OR: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < t->np; p++) {
      // OR: :[[@LINE+1]]:11: note: source-form: the result of this call is used; removing the call would lose it
      if (MPI_Send(t->par, NPAR, MPI_LONG, p, TAG_PAR, t->comm) !=
              MPI_SUCCESS ||
          t->verbose)
        COMPLAIN(t);
    }
  } else {
    if (MPI_Recv(t->par, NPAR, MPI_LONG, 0, TAG_PAR, t->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        t->verbose)
      COMPLAIN(t);
  }
}
#elif defined(PEER_TEST)
static void team_share(team_t *t) {
  if (t->me == 0) {
    // PEER: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < t->np; p++) {
      // PEER: :[[@LINE+2]]:30: note: source-form: this part of the condition, evaluated when the call fails, cannot follow the collective call as written
      if (MPI_Send(t->par, NPAR, MPI_LONG, p, TAG_PAR, t->comm) !=
              MPI_SUCCESS && p > 1)
        COMPLAIN(t);
    }
  } else {
    if (MPI_Recv(t->par, NPAR, MPI_LONG, 0, TAG_PAR, t->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS && t->np > 1)
      COMPLAIN(t);
  }
}
#else
static void team_share(team_t *t) {
  if (t->me == 0) {
    // CHECK-MESSAGES: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    for (int p = 1; p < t->np; p++) {
      if (MPI_Send(t->par, NPAR, MPI_LONG, p, TAG_PAR, t->comm) !=
              MPI_SUCCESS &&
          t->verbose)
        COMPLAIN(t);
    }
  } else {
    if (MPI_Recv(t->par, NPAR, MPI_LONG, 0, TAG_PAR, t->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS &&
        t->verbose)
      COMPLAIN(t);
  }
}
#endif
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES-NEXT: static void team_share(
// CHECK-FIXES-NEXT: if (MPI_Bcast(t->par, NPAR, MPI_LONG, 0, t->comm) != MPI_SUCCESS &&
// CHECK-FIXES-NEXT: t->verbose)
// CHECK-FIXES-NEXT: COMPLAIN(t);
// CHECK-FIXES-NOT: MPI_Send

#if !defined(OR_TEST) && !defined(PEER_TEST)
static int team_total(team_t *t, long mine, long *total) {
  if (MPI_Reduce(&mine, total, 1, MPI_LONG, MPI_SUM, 0, t->comm) !=
          MPI_SUCCESS &&
      t->verbose)
    // CHECK-MESSAGES: :[[@LINE-3]]:7: warning: MPI_Reduce followed by MPI_Bcast of its result from the same root; replace them with MPI_Allreduce [mpilift-fuse-collectives]
    return -1;
  if (MPI_Bcast(total, 1, MPI_LONG, 0, t->comm) != MPI_SUCCESS && t->verbose)
    return -1;
  return 0;
}
// CHECK-FIXES-LABEL: static int team_total(
// CHECK-FIXES-NEXT: if (MPI_Allreduce(&mine, total, 1, MPI_LONG, MPI_SUM, t->comm) !=
// CHECK-FIXES-NEXT: MPI_SUCCESS &&
// CHECK-FIXES-NEXT: t->verbose)
// CHECK-FIXES: return -1;
// CHECK-FIXES-NEXT: return 0;
#endif

int main(int argc, char **argv) {
  team_t t;
  long total = -1;
  int rc = 0;
  MPI_Init(&argc, &argv);
  t.comm = MPI_COMM_WORLD;
  t.verbose = 1;
  MPI_Comm_rank(t.comm, &t.me);
  MPI_Comm_size(t.comm, &t.np);
  for (int i = 0; i < NPAR; i++)
    t.par[i] = t.me == 0 ? 11 * i + 4 : -1;
  team_share(&t);
#if !defined(OR_TEST) && !defined(PEER_TEST)
  rc = team_total(&t, t.par[2] * (t.me + 1), &total);
#endif
  printf("%d: %ld %ld %ld total %ld (%d)\n", t.me, t.par[0], t.par[1],
         t.par[2], total, rc);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
