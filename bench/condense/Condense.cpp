//===- Condense.cpp - Suffix-structure condensation speed and memory ------===//
//
// Part of mpilift. bench/condense: builds the enhanced suffix array of
// synthetic per-rank traces and enumerates their maximal repeats.
//  1. One rank of 10^7 events (target: <= 1 s on one core, <= 32 bytes per
//     event at peak), in a child process so its peak memory is its own.
//  2. 1024 ranks of 10^5 events on all cores (target: <= 30 s).
//  3. The loops (tandem repeats) of the one-rank trace, timed after its
//     suffix array exists, with their own peak memory (no target; reported
//     against the condensation time of step 1).
// Synthetic traces look like MPI programs: an iteration loop whose body is
// a broadcast star, a ring exchange and a reduction, with a few thousand
// distinct (operation, peer, call site) symbols, 1% noise events and loops
// whose trip counts vary per iteration.
//
// Usage: condense [EVENTS] [RANKS] [EVENTS_PER_RANK]
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/SuffixArray.h"

#include "../common/InChild.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

using namespace mpilift::patterns;
using Clock = std::chrono::steady_clock;

namespace {

constexpr Symbol Alphabet = 4096;

std::vector<Symbol> syntheticTrace(size_t N, unsigned Seed) {
  std::mt19937 Rng(Seed);
  std::vector<Symbol> T;
  T.reserve(N);
  Symbol Site = 0;
  auto emit = [&](Symbol S) {
    if (T.size() < N)
      T.push_back(S % Alphabet);
  };
  while (T.size() < N) {
    // One iteration: a star of 7..31 sends from one call site, a ring
    // exchange, an inner loop of varying trip count, a reduction.
    Symbol Star = 16 + Rng() % 24;
    for (Symbol P = 1; P < Star; ++P)
      emit(1000 + P);
    emit(2000 + Site % 8);
    emit(2100 + Site % 8);
    unsigned Inner = 1 + Rng() % 6;
    for (unsigned I = 0; I < Inner; ++I) {
      emit(3000 + Site % 3);
      emit(3100);
    }
    emit(4000);
    if (Rng() % 100 == 0) // Noise: an unrelated call.
      emit(Rng() % Alphabet);
    ++Site;
  }
  return T;
}

struct Result {
  double Seconds;
  long MaxRssKb;
  size_t Found;
  double RepeatSeconds = 0; ///< The part of Seconds spent on the repeats.
};

using mpilift::bench::peakRssKb;

Result condense(size_t N, unsigned Seed) {
  std::vector<Symbol> T = syntheticTrace(N, Seed);
  auto Start = Clock::now();
  EnhancedSuffixArray ESA(std::move(T), Alphabet);
  auto Built = Clock::now();
  size_t Repeats = ESA.maximalRepeats(2).size();
  auto Done = Clock::now();
  return {std::chrono::duration<double>(Done - Start).count(), peakRssKb(),
          Repeats, std::chrono::duration<double>(Done - Built).count()};
}

Result findLoops(size_t N, unsigned Seed) {
  EnhancedSuffixArray ESA(syntheticTrace(N, Seed), Alphabet);
  auto Start = Clock::now();
  size_t Runs = ESA.tandemRepeats().size();
  double Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
  return {Seconds, peakRssKb(), Runs};
}

/// Measures in a fresh child so that peak memory is this measurement's
/// alone; N = 0 measures the child's own baseline.
Result inChild(size_t N, Result (*Measure)(size_t, unsigned) = condense) {
  return mpilift::bench::inChild([&] {
    if (N)
      return Measure(N, 1);
    return Result{0, peakRssKb(), 0};
  });
}

} // namespace

int main(int Argc, char **Argv) {
  size_t Events = Argc > 1 ? strtoull(Argv[1], nullptr, 10) : 10000000;
  int Ranks = Argc > 2 ? atoi(Argv[2]) : 1024;
  size_t PerRank = Argc > 3 ? strtoull(Argv[3], nullptr, 10) : 100000;

  long Baseline = inChild(0).MaxRssKb;
  Result One = inChild(Events);
  double Bytes = double(One.MaxRssKb - Baseline) * 1024.0 / double(Events);
  printf("one rank: %zu events in %.3f s = %.2f M events/s, %.1f bytes/event "
         "peak (text included), %zu maximal repeats (%.3f s of the time)\n",
         Events, One.Seconds, Events / One.Seconds / 1e6, Bytes, One.Found,
         One.RepeatSeconds);
  printf("  time target 1 s: ratio %.2f; memory target 32 bytes/event: ratio "
         "%.2f\n",
         One.Seconds, Bytes / 32.0);

  unsigned Workers = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<int> Next{0};
  std::atomic<size_t> RepeatsFound{0};
  auto Start = Clock::now();
  std::vector<std::thread> Pool;
  for (unsigned W = 0; W < Workers; ++W)
    Pool.emplace_back([&] {
      for (int R; (R = Next++) < Ranks;)
        RepeatsFound += condense(PerRank, 1000 + R).Found;
    });
  for (std::thread &Th : Pool)
    Th.join();
  double All = std::chrono::duration<double>(Clock::now() - Start).count();
  printf("%d ranks x %zu events on %u threads: %.2f s (%.2f M events/s), "
         "%zu maximal repeats\n",
         Ranks, PerRank, Workers, All, Ranks * double(PerRank) / All / 1e6,
         RepeatsFound.load());
  printf("  time target 30 s: ratio %.2f\n", All / 30.0);

  Result Loops = inChild(Events, findLoops);
  printf("loops of the one-rank trace: %zu runs in %.3f s (%.2f x its "
         "condensation), %.1f bytes/event peak\n",
         Loops.Found, Loops.Seconds, Loops.Seconds / One.Seconds,
         double(Loops.MaxRssKb - Baseline) * 1024.0 / double(Events));
  return 0;
}
