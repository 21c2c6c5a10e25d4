// Issue 19, part 1: error codes declared by the call's own statement, the
// way codes written for C99 keep them: `int rc = MPI_Send(...);` in the
// root's loop, `int rc = MPI_Recv(...);` in the other branch, each checked
// right after. One name in two scopes: the rewrite declares it once where
// the collective goes and keeps the check after the call.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// RUN: %check-rewrite rewrite %s %t.nb --check-args="--collectives nonblocking" | FileCheck %s --check-prefix=CHECK-NB --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-NB-FIXES < %t.nb/prog.c
//
// Refused by source-form, the call's code being used otherwise: counted
// beside the check, or the name also declared outside the pattern (the
// codes would go to that variable), or the receive checked in place while
// the sends keep their codes.
// RUN: %check-rewrite refuse %s %t.counted --cflags=-DCOUNTED | FileCheck %s --check-prefix=COUNTED --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.outer --cflags=-DOUTER_RC | FileCheck %s --check-prefix=OUTER --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.mixed --cflags=-DCHECKED_IN_PLACE | FileCheck %s --check-prefix=MIXED --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define NPARAMS 4
#define TAG_PARAMS 21
#define PARAMS(c) ((c)->params)

struct config {
  MPI_Comm comm;
  int rank, size;
  int failures;
  double params[NPARAMS];
};

// Each variant is a function of its own: conditional code inside the
// pattern would keep it from being rewritten (source-form).
#if defined(OUTER_RC)
static int share_params(struct config *c) {
  int rc = MPI_SUCCESS;
  printf("sharing (%d)\n", rc);
  if (c->rank == 0) {
    // OUTER: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < c->size; p++) {
      // OUTER: :[[@LINE+1]]:16: note: source-form: the result of this call is used; removing the call would lose it
      int rc = MPI_Send(PARAMS(c), NPARAMS, MPI_DOUBLE, p, TAG_PARAMS, c->comm);
      if (rc != MPI_SUCCESS)
        return rc;
    }
  } else {
    int rc = MPI_Recv(PARAMS(c), NPARAMS, MPI_DOUBLE, 0, TAG_PARAMS, c->comm,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}
#elif defined(COUNTED)
static int share_params(struct config *c) {
  if (c->rank == 0) {
    // COUNTED: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < c->size; p++) {
      // COUNTED: :[[@LINE+1]]:16: note: source-form: the result of this call is used; removing the call would lose it
      int rc = MPI_Send(PARAMS(c), NPARAMS, MPI_DOUBLE, p, TAG_PARAMS, c->comm);
      c->failures += rc != MPI_SUCCESS;
      if (rc != MPI_SUCCESS)
        return rc;
    }
  } else {
    int rc = MPI_Recv(PARAMS(c), NPARAMS, MPI_DOUBLE, 0, TAG_PARAMS, c->comm,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}
#elif defined(CHECKED_IN_PLACE)
static int share_params(struct config *c) {
  if (c->rank == 0) {
    // MIXED: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); not rewritten: source-form refused [mpilift-manual-bcast]
    for (int p = 1; p < c->size; p++) {
      int rc = MPI_Send(PARAMS(c), NPARAMS, MPI_DOUBLE, p, TAG_PARAMS, c->comm);
      if (rc != MPI_SUCCESS)
        return rc;
    }
  } else {
    // MIXED: :[[@LINE+1]]:5: note: source-form: some calls of the pattern check their codes here and others keep them in a variable; the collective call can do only one
    if (MPI_Recv(PARAMS(c), NPARAMS, MPI_DOUBLE, 0, TAG_PARAMS, c->comm,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return -1;
  }
  return MPI_SUCCESS;
}
#else
static int share_params(struct config *c) {
  if (c->rank == 0) {
    // CHECK-MESSAGES: :[[@LINE+2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
    // CHECK-NB: :[[@LINE+1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Ibcast [mpilift-manual-bcast]
    for (int p = 1; p < c->size; p++) {
      int rc = MPI_Send(PARAMS(c), NPARAMS, MPI_DOUBLE, p, TAG_PARAMS, c->comm);
      if (rc != MPI_SUCCESS)
        return rc;
    }
  } else {
    int rc = MPI_Recv(PARAMS(c), NPARAMS, MPI_DOUBLE, 0, TAG_PARAMS, c->comm,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}
#endif
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES-NEXT: static int share_params(struct config *c) {
// CHECK-FIXES-NEXT: int rc;
// CHECK-FIXES-NEXT: rc = MPI_Bcast(PARAMS(c), NPARAMS, MPI_DOUBLE, 0, c->comm);
// CHECK-FIXES-NEXT: if (rc != MPI_SUCCESS)
// CHECK-FIXES-NEXT: return rc;
// CHECK-FIXES-NEXT: return MPI_SUCCESS;
// CHECK-NB-FIXES: {{^#else$}}
// CHECK-NB-FIXES-NEXT: static int share_params(struct config *c) {
// CHECK-NB-FIXES-NEXT: MPI_Request bcast_request;
// CHECK-NB-FIXES-NEXT: int rc;
// CHECK-NB-FIXES-NEXT: rc = MPI_Ibcast(PARAMS(c), NPARAMS, MPI_DOUBLE, 0, c->comm, &bcast_request);
// CHECK-NB-FIXES-NEXT: if (rc != MPI_SUCCESS)
// CHECK-NB-FIXES-NEXT: return rc;
// CHECK-NB-FIXES-NEXT: MPI_Wait(&bcast_request, MPI_STATUS_IGNORE);

int main(int argc, char **argv) {
  struct config c;
  int k;
  MPI_Init(&argc, &argv);
  c.comm = MPI_COMM_WORLD;
  c.failures = 0;
  MPI_Comm_rank(c.comm, &c.rank);
  MPI_Comm_size(c.comm, &c.size);
  for (k = 0; k < NPARAMS; k++)
    PARAMS(&c)[k] = c.rank == 0 ? 1.5 * k : 0.0;
  int status = share_params(&c);
  printf("rank %d: %g %g (%d, %d)\n", c.rank, c.params[1], c.params[3], status,
         c.failures);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-NB: check-rewrite: same output at np 1 2 3 4 5 7 8
