// Issue 15: a broadcast followed by a reduction or scan of its buffer that
// the ranks may not compute locally, each refused by the check that names
// why: the buffer changed on one rank between the calls, or by an MPI
// message into it, or possibly by a function while its address is known
// elsewhere (message-integrity); a count or root changed between them, or
// counts that differ (matching-arguments); a rank that can return between
// them, an operation without a C operator, a derived datatype
// (source-form); a floating-point sum (reduction-order).
// RUN: %check-rewrite refuse %s %t | FileCheck %s --implicit-check-not=warning:
#include <mpi.h>
#include <stdio.h>

#define NVAL 4

static double history[NVAL];
static int rounds;

static void log_round(void) {
  history[rounds % NVAL] += 1.0;
  rounds++;
}

struct world {
  MPI_Comm comm;
  int rank, size;
};

static int one_rank_changes(const struct world *w, int *total) {
  int n = 10 + w->rank;
  MPI_Bcast(&n, 1, MPI_INT, 0, w->comm);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Reduce of the broadcast buffer; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  if (w->rank == 1)
    n += 1;
  // CHECK: :[[@LINE-1]]:5: note: message-integrity: this statement changes 'n' between MPI_Bcast and MPI_Reduce, so that the ranks may no longer hold the broadcast value
  int rc = MPI_Reduce(&n, total, 1, MPI_INT, MPI_SUM, 0, w->comm);
  return rc;
}

static int message_into_buffer(const struct world *w, int *most) {
  int n = 3 * w->rank;
  MPI_Bcast(&n, 1, MPI_INT, 0, w->comm);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  if (w->size > 1 && w->rank == 0)
    MPI_Send(&w->size, 1, MPI_INT, 1, 7, w->comm);
  else if (w->size > 1 && w->rank == 1)
    MPI_Recv(&n, 1, MPI_INT, 0, 7, w->comm, MPI_STATUS_IGNORE);
  // CHECK: :[[@LINE-1]]:5: note: message-integrity: this statement changes 'n' between MPI_Bcast and MPI_Allreduce
  int ierr = MPI_Allreduce(&n, most, 1, MPI_INT, MPI_MAX, w->comm);
  return ierr;
}

static int shared_buffer(const struct world *w, double *sums) {
  int ierr;
  for (int k = 0; k < NVAL; k++)
    history[k] = w->rank + k;
  ierr = MPI_Bcast(history, NVAL, MPI_DOUBLE, 0, w->comm);
  // CHECK: :[[@LINE-1]]:10: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; not rewritten: reduction-order, message-integrity refused [mpilift-fuse-collectives]
  // CHECK: :[[@LINE+3]]:52: note: reduction-order: a sum of 'MPI_DOUBLE' may round differently when the local combination combines the values in another order than MPI_Scan did; --allow-reassociation accepts results that differ in the last bits
  log_round();
  // CHECK: :[[@LINE-1]]:3: note: message-integrity: this statement calls 'log_round' between MPI_Bcast and MPI_Scan, which may change 'history': its address is known outside MPI calls
  ierr = MPI_Scan(history, sums, NVAL, MPI_DOUBLE, MPI_SUM, w->comm);
  return ierr;
}

static int through_pointer(const struct world *w, long *vals, long *out,
                           long *spare) {
  MPI_Bcast(vals, 2, MPI_LONG, 0, w->comm);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; not rewritten: message-integrity refused [mpilift-fuse-collectives]
  *spare = w->rank;
  // CHECK: :[[@LINE-1]]:3: note: message-integrity: this statement writes through a pointer or a field between MPI_Bcast and MPI_Allreduce, which may change 'vals': its address is known outside MPI calls
  MPI_Allreduce(vals, out, 2, MPI_LONG, MPI_BOR, w->comm);
  return 0;
}

static int arguments_change(const struct world *w, int *least, int *firsts) {
  int root = 0, n = 2, pair[2] = {w->rank, -w->rank};
  int rc = MPI_Bcast(pair, n, MPI_INT, root, w->comm);
  // CHECK: :[[@LINE-1]]:12: warning: MPI_Bcast followed by MPI_Reduce of the broadcast buffer; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  root = w->size - 1;
  // CHECK: :[[@LINE-1]]:3: note: matching-arguments: this statement changes 'root', which the MPI_Reduce reads, between MPI_Bcast and MPI_Reduce
  rc = MPI_Reduce(pair, least, n, MPI_INT, MPI_MIN, root, w->comm);
  rc = MPI_Bcast(pair, n, MPI_INT, root, w->comm);
  // CHECK: :[[@LINE-1]]:8: warning: MPI_Bcast followed by MPI_Scan of the broadcast buffer; not rewritten: matching-arguments refused [mpilift-fuse-collectives]
  rc = MPI_Scan(pair, firsts, 1, MPI_INT, MPI_BAND, w->comm);
  // CHECK: :[[@LINE-1]]:8: note: matching-arguments: the MPI_Scan's count '1' is not the broadcast's 'n'
  return rc;
}

static int may_return(const struct world *w, int *sum) {
  int n = w->rank + 5;
  MPI_Bcast(&n, 1, MPI_INT, 0, w->comm);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; not rewritten: source-form refused [mpilift-fuse-collectives]
  if (n < 0)
    return -1;
  // CHECK: :[[@LINE-1]]:5: note: source-form: this statement can leave the code between MPI_Bcast and MPI_Allreduce: a rank that leaves takes part in the broadcast and no longer in the MPI_Allreduce
  int rc = MPI_Allreduce(&n, sum, 1, MPI_INT, MPI_SUM, w->comm);
  return rc;
}

static int pairs(const struct world *w, int best[2], int *twice) {
  int mine[2] = {100 - w->rank, w->rank};
  MPI_Datatype two;
  MPI_Bcast(mine, 1, MPI_2INT, 0, w->comm);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; not rewritten: source-form refused [mpilift-fuse-collectives]
  MPI_Allreduce(mine, best, 1, MPI_2INT, MPI_MAXLOC, w->comm);
  // CHECK: :[[@LINE-1]]:3: note: source-form: 'MPI_2INT' is no predefined datatype of one C type; the local combination needs the C type of the elements
  // CHECK: :[[@LINE-2]]:42: note: source-form: 'MPI_MAXLOC' is no operation of MPI's with a C operator the local combination could use
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_commit(&two);
  MPI_Bcast(mine, 1, two, 0, w->comm);
  // CHECK: :[[@LINE-1]]:3: warning: MPI_Bcast followed by MPI_Allreduce of the broadcast buffer; not rewritten: source-form, reduction-order refused [mpilift-fuse-collectives]
  MPI_Allreduce(mine, twice, 1, two, MPI_SUM, w->comm);
  // CHECK: :[[@LINE-1]]:3: note: source-form: 'two' is no predefined datatype of one C type; the local combination needs the C type of the elements
  MPI_Type_free(&two);
  return 0;
}

int main(int argc, char **argv) {
  struct world w;
  int total = 0, most = 0, least[2] = {0, 0}, firsts[2] = {0, 0}, sum = 0;
  int best[2], twice[2] = {0, 0};
  long vals[2], out[2], spare = 0;
  double sums[NVAL];
  MPI_Init(&argc, &argv);
  w.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);
  vals[0] = w.rank + 1;
  vals[1] = 3 * w.rank;
  one_rank_changes(&w, &total);
  message_into_buffer(&w, &most);
  shared_buffer(&w, sums);
  through_pointer(&w, vals, out, &spare);
  arguments_change(&w, least, firsts);
  may_return(&w, &sum);
  pairs(&w, best, twice);
  printf("rank %d: %d %d %g %g %ld %ld %d %d %d %d %d %d %d\n", w.rank, total,
         most, sums[0], sums[NVAL - 1], out[0], out[1], least[0], least[1],
         firsts[0], sum, best[0], best[1], twice[0] + twice[1]);
  MPI_Finalize();
  return 0;
}
