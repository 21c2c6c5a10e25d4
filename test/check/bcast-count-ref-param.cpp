// A C++ code's set-up hands its sizes back through references: the block
// size is parsed by process 0 and broadcast inside solver::read_block, the
// number of rounds is set by solver::set_rounds, both in another file.
// The halo values then go out from process 0 by hand, from a std::vector.
// No write of 'block' or 'rounds' in main shows them the same everywhere;
// every write the helpers make of the object they are bound to does, so
// the loop is rewritten. With SEND_PACKED, read_block sends the block size in
// an array that process 0 fills and the others unpack (the round trip of
// bcast-count-packed-params.c, through a reference).
//
// Must not be rewritten, each with the check that refuses it named:
// - with ODD_RANKS_LARGER, read_block gives the odd processes the largest
//   block after the broadcast (they post larger receives than process 0
//   sends, which MPI_Recv accepts and MPI_Bcast does not);
// - with KEEP_BLOCK, read_block keeps the reference's address for later
//   tuning, so what is written through it cannot be followed.
// clang-format off
// RUN: %check-rewrite rewrite %s %t | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.cpp
// RUN: %check-rewrite rewrite %s %t.packed --cflags=-DSEND_PACKED | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.odd --trace --cflags=-DODD_RANKS_LARGER | FileCheck %s --check-prefix=ODD --implicit-check-not=warning:
// RUN: %check-rewrite refuse %s %t.keep --trace --cflags=-DKEEP_BLOCK | FileCheck %s --check-prefix=KEEP --implicit-check-not=warning:
// clang-format on
#include "solver.hpp"

#include <cstdio>
#include <vector>

namespace {

constexpr int HaloTag = 12;

// Process 0's halo to every other process of comm.
int share_halo(std::vector<double> &halo, int count, MPI_Comm comm) {
  int me = 0, np = 1, ierr = MPI_Comm_rank(comm, &me);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_size(comm, &np);
  if (ierr != MPI_SUCCESS)
    return ierr;
  if (me == 0) {
    for (int p = 1; p < np; ++p)
      // CHECK-MESSAGES: prog.cpp:[[#@LINE-1]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis); replace it with MPI_Bcast [mpilift-manual-bcast]
      ierr = MPI_Send(halo.data(), count, MPI_DOUBLE, p, HaloTag, comm);
      // ODD: prog.cpp:[[#@LINE-1]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
      // KEEP: prog.cpp:[[#@LINE-2]]:14: warning: point-to-point messages the trace shows as a broadcast (the trace; static analysis could not judge them); not rewritten: input-independence refused [mpilift-manual-bcast]
  } else {
    ierr = MPI_Recv(halo.data(), count, MPI_DOUBLE, 0, HaloTag, comm,
                    MPI_STATUS_IGNORE);
    // CHECK-FIXES: ierr = MPI_Bcast(halo.data(), count, MPI_DOUBLE, 0, comm);
  }
  return ierr;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int block = 0, rounds = 0, me = 0, ierr = MPI_SUCCESS;
  solver::read_block(argc, argv, block);
  solver::set_rounds(rounds);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  std::vector<double> halo(solver::MaxBlock);
  for (std::size_t i = 0; i < halo.size(); ++i)
    halo[i] = me == 0 ? 0.5 * static_cast<double>(i) : 0.0;
  for (int r = 0; r < rounds && ierr == MPI_SUCCESS; ++r)
    ierr = share_halo(halo, block, MPI_COMM_WORLD);
  double sum = 0;
  for (double x : halo)
    sum += x;
  std::printf("rank %d: block %d rounds %d sum %.1f\n", me, block, rounds,
              sum);
  MPI_Finalize();
  return ierr == MPI_SUCCESS ? 0 : 1;
}
// ODD: note: input-independence: {{.*}}'block' is written by 'read_block' in another unit, which says: 'block' is written where not every rank may get: the condition 'me % 2 == 1' may differ between ranks
// KEEP: note: input-independence: {{.*}}'block' is written by 'read_block' in another unit, which says: 'block' is used in 'read_block' where writes through it cannot be followed

//--- solver.hpp
#include <mpi.h>

namespace solver {

constexpr int MaxBlock = 48;

void read_block(int argc, char **argv, int &block);
void set_rounds(int &rounds);

} // namespace solver
//--- solver.cpp
#include "solver.hpp"

#include <cstdlib>

namespace solver {

#ifdef KEEP_BLOCK
int *tuned_block;
#endif

void read_block(int argc, char **argv, int &block) {
#ifdef KEEP_BLOCK
  tuned_block = &block;
#endif
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  block = 16;
  if (me == 0 && argc > 1)
    block = std::atoi(argv[1]);
  if (me == 0 && (block < 1 || block > MaxBlock))
    block = 16;
#ifdef SEND_PACKED
  int work[2] = {0, 0};
  if (me == 0)
    work[0] = block;
  MPI_Bcast(work, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (me != 0)
    block = work[0];
#else
  MPI_Bcast(&block, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
#ifdef ODD_RANKS_LARGER
  if (me % 2 == 1)
    block = MaxBlock;
#endif
}

void set_rounds(int &rounds) { rounds = 2; }

} // namespace solver
