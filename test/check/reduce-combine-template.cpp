// A C++ reduction of per-process tallies kept in std::vectors, folded on
// process 0 by a function template of a header (`fold_into<T>`, the loop
// over the elements and nothing else) given the vectors' data(): the
// instantiation is a combine function, the accessors only read, and the
// call goes with the loop. Rank and size are members of a struct passed by
// reference, every error code is kept.
//
// Must not be rewritten: with CHECKED, the count passed to the helper comes
// from `checked_count`, which also counts how often it ran (printed by
// main): deleting the call would lose that, so source-form refuses.
// clang-format off
// RUN: %check-rewrite rewrite %s %t --all-units | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/tally.cpp
// RUN: %check-rewrite refuse %s %t.checked --all-units --cflags=-DCHECKED | FileCheck %s --check-prefix=CHECKED --implicit-check-not=warning:
// clang-format on
// CHECK-MESSAGES: tally.cpp:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); replace it with MPI_Reduce [mpilift-manual-reduce]
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
// CHECK-FIXES: {{^#else$}}
// CHECK-FIXES: if (team.rank == 0) {
// CHECK-FIXES-NEXT: std::vector<long> part(n);
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(MPI_IN_PLACE, tallies.data(), n, MPI_LONG, MPI_SUM, 0,
// CHECK-FIXES-NEXT: team.comm);
// CHECK-FIXES-NEXT: } else {
// CHECK-FIXES-NEXT: ierr = MPI_Reduce(tallies.data(), NULL, n, MPI_LONG, MPI_SUM, 0, team.comm);
// CHECK-FIXES-NEXT: }
// CHECKED: tally.cpp:[[#]]:5: warning: loop of point-to-point receives implements a reduction (static analysis); not rewritten: source-form refused [mpilift-manual-reduce]
// CHECKED: note: source-form: the arguments of the call of 'fold_into' that combines the values have effects of their own
// CHECKED: check-rewrite: unchanged
#include "tally.hpp"

#include <cstdio>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Team team;
  team.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(team.comm, &team.rank);
  MPI_Comm_size(team.comm, &team.size);
  std::vector<long> tallies(TALLY_KINDS);
  for (int k = 0; k < TALLY_KINDS; ++k)
    tallies[k] = 100L * team.rank + 3 * k;
  if (sumTallies(team, tallies) != MPI_SUCCESS)
    MPI_Abort(team.comm, 1);
  if (team.rank == 0) {
    for (long v : tallies)
      std::printf("%ld\n", v);
    std::printf("checked %d times\n", checks_made);
  }
  MPI_Finalize();
  return 0;
}

//--- tally.hpp
#include <mpi.h>

#include <vector>

#define TALLY_KINDS 5
#define TALLY_TAG 17

struct Team {
  MPI_Comm comm;
  int rank, size;
};

extern int checks_made;

template <typename T> void fold_into(int n, const T *in, T *inout) {
  for (int i = 0; i < n; ++i)
    inout[i] += in[i];
}

int sumTallies(const Team &team, std::vector<long> &tallies);

//--- tally.cpp
#include "tally.hpp"

int checks_made = 0;

static int checked_count(int n) {
  ++checks_made;
  return n;
}

#if defined(CHECKED)
int sumTallies(const Team &team, std::vector<long> &tallies) {
  int ierr = MPI_SUCCESS;
  const int n = TALLY_KINDS;
  if (team.rank == 0) {
    std::vector<long> part(n);
    for (int p = 1; p < team.size; ++p) {
      ierr = MPI_Recv(part.data(), n, MPI_LONG, p, TALLY_TAG, team.comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        break;
      fold_into(checked_count(n), part.data(), tallies.data());
    }
  } else {
    ierr = MPI_Send(tallies.data(), n, MPI_LONG, 0, TALLY_TAG, team.comm);
  }
  return ierr;
}
#else
int sumTallies(const Team &team, std::vector<long> &tallies) {
  int ierr = MPI_SUCCESS;
  const int n = TALLY_KINDS;
  if (team.rank == 0) {
    std::vector<long> part(n);
    for (int p = 1; p < team.size; ++p) {
      ierr = MPI_Recv(part.data(), n, MPI_LONG, p, TALLY_TAG, team.comm,
                      MPI_STATUS_IGNORE);
      if (ierr != MPI_SUCCESS)
        break;
      fold_into(n, part.data(), tallies.data());
    }
  } else {
    ierr = MPI_Send(tallies.data(), n, MPI_LONG, 0, TALLY_TAG, team.comm);
  }
  return ierr;
}
#endif
