// Issue 15: MPI_Gather to a root then MPI_Bcast of every gathered block from
// it is MPI_Allgather; three independent MPI_Allreduce calls back to back
// (same operation, datatype and communicator, error codes kept) are one
// MPI_Allreduce on a packed buffer. Rank and size in a structure filled by
// MPI_Comm_rank and MPI_Comm_size, counts behind macros.
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
// CHECK-FIXES: #include <string.h>
#include <mpi.h>
#include <stdio.h>

#define NSTAT 2
#define MAXP 16

struct grid {
  MPI_Comm comm;
  int rank, size;
};

static int census(const struct grid *g, int table[MAXP * NSTAT]) {
  int mine[NSTAT] = {g->rank, g->rank * g->rank};
  int ierr = MPI_Gather(mine, NSTAT, MPI_INT, table, NSTAT, MPI_INT, 0,
                        g->comm);
  // CHECK-MESSAGES: :[[@LINE-2]]:14: warning: MPI_Gather followed by MPI_Bcast of the gathered buffer from the same root; replace them with MPI_Allgather [mpilift-fuse-collectives]
  ierr = MPI_Bcast(table, g->size * NSTAT, MPI_INT, 0, g->comm);
  // CHECK-FIXES: int ierr =
  // CHECK-FIXES-NEXT: MPI_Allgather(mine, NSTAT, MPI_INT, table, NSTAT, MPI_INT, g->comm);
  // CHECK-FIXES-NOT: MPI_Bcast
  return ierr;
}

static void extremes(const struct grid *g, long lo, long hi, long n,
                     long out[3]) {
  long least, most, count;
  int ierr;
  ierr = MPI_Allreduce(&lo, &least, 1, MPI_LONG, MPI_MIN, g->comm);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 3 MPI_Allreduce calls back to back with the same operation, datatype and communicator; replace them with one MPI_Allreduce on a packed buffer [mpilift-fuse-collectives]
  ierr = MPI_Allreduce(&hi, &most, 1, MPI_LONG, MPI_MIN, g->comm);
  ierr = MPI_Allreduce(&n, &count, 1, MPI_LONG, MPI_MIN, g->comm);
  // CHECK-FIXES: long packed_in[3], packed_out[3];
  // CHECK-FIXES: ierr = MPI_Allreduce(packed_in, packed_out, 3, MPI_LONG, MPI_MIN, g->comm);
  // CHECK-FIXES: memcpy(&count, packed_out + 2, 1 * sizeof(long));
  out[0] = least;
  out[1] = most;
  out[2] = count + ierr;
}

int main(int argc, char **argv) {
  struct grid g;
  int table[MAXP * NSTAT];
  long out[3];
  MPI_Init(&argc, &argv);
  g.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(g.comm, &g.rank);
  MPI_Comm_size(g.comm, &g.size);
  census(&g, table);
  extremes(&g, 10 - g.rank, -3 * g.rank, 100 + g.rank % 3, out);
  printf("rank %d:", g.rank);
  for (int k = 0; k < g.size * NSTAT; k++)
    printf(" %d", table[k]);
  printf(" | %ld %ld %ld\n", out[0], out[1], out[2]);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
