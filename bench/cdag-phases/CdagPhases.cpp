//===- CdagPhases.cpp - Cost of the cDAG phases per process ---------------===//
//
// Part of mpilift. bench/cdag-phases: binomial-tree broadcast graphs for p
// from 2^4 to 2^20 processes, analyzed in one process as rank 0 of
// cDAG_Compile does. Times matching, dataflow and detection separately,
// fits t = a * p * log2(p) per phase over the largest sizes, and measures
// memory per process as the peak resident size of a child process that
// builds and analyzes one graph, minus that of a child that does not.
//
// Usage: cdag-phases [MAX_LOG2_P]   (default 20)
//
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include "../common/InChild.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace mpilift::commgraph;
namespace bench = mpilift::bench;
using Clock = std::chrono::steady_clock;

namespace {

struct Sample {
  double MatchNs = 0, DataflowNs = 0, DetectNs = 0;
  long MaxRssKb = 0;
  int Collectives = 0;
};

/// A broadcast from rank 0 along a binomial tree, as each process would
/// post it: receive from the parent, then forward to the children.
Graph binomialBroadcast(Rank P) {
  Graph G(P);
  uint64_t HighestBelow = 1;
  while (HighestBelow * 2 < static_cast<uint64_t>(P))
    HighestBelow *= 2;
  for (Rank R = 0; R < P; ++R) {
    LocalGraph L(R);
    uint64_t V = R, Low = V & (~V + 1);
    uint32_t Recv = UINT32_MAX;
    if (V)
      Recv = L.addRecv(0x1000, 1024, static_cast<Rank>(V - Low), 0);
    for (uint64_t M = V ? Low / 2 : HighestBelow; M; M /= 2) {
      if (V + M >= static_cast<uint64_t>(P))
        continue;
      uint32_t S = L.addSend(0x1000, 1024, static_cast<Rank>(V + M), 0);
      if (Recv != UINT32_MAX)
        L.addDependency(Recv, S);
    }
    if (!G.add(L).ok())
      abort();
  }
  return G;
}

double nsSince(Clock::time_point T) {
  return std::chrono::duration<double, std::nano>(Clock::now() - T).count();
}

/// Runs in a child process: builds and analyzes the graph Reps times.
Sample measure(Rank P, int Reps) {
  Sample S;
  for (int I = 0; I < Reps; ++I) {
    Graph G = binomialBroadcast(P);
    Matching M;
    auto T0 = Clock::now();
    if (!match(G, M).ok())
      abort();
    S.MatchNs += nsSince(T0);
    std::vector<Transfer> SST;
    auto T1 = Clock::now();
    if (!propagate(G, M, SST).ok())
      abort();
    S.DataflowNs += nsSince(T1);
    auto T2 = Clock::now();
    Detection D = detect(SST, P);
    S.DetectNs += nsSince(T2);
    S.Collectives = static_cast<int>(D.Collectives.size());
  }
  S.MatchNs /= Reps;
  S.DataflowNs /= Reps;
  S.DetectNs /= Reps;
  S.MaxRssKb = bench::peakRssKb();
  return S;
}

/// Measures in a fresh child so that peak memory is this size's alone;
/// P = 0 measures the child's own baseline.
Sample inChild(Rank P, int Reps) {
  return bench::inChild([&] {
    if (P)
      return measure(P, Reps);
    Sample S;
    S.MaxRssKb = bench::peakRssKb();
    return S;
  });
}

} // namespace

int main(int Argc, char **Argv) {
  int MaxLog = Argc > 1 ? atoi(Argv[1]) : 20;
  long BaselineKb = inChild(0, 0).MaxRssKb;
  printf("%8s %12s %12s %12s %12s %14s\n", "p", "match(ms)", "dataflow(ms)",
         "detect(ms)", "collectives", "bytes/process");
  double SumX2 = 0, SumMatch = 0, SumFlow = 0, SumDetect = 0;
  double LastBytes = 0;
  for (int Log = 4; Log <= MaxLog; ++Log) {
    Rank P = Rank(1) << Log;
    int Reps = Log < 14 ? (1 << (14 - Log)) : 1;
    Sample S = inChild(P, Reps);
    double Bytes = double(S.MaxRssKb - BaselineKb) * 1024.0 / P;
    printf("%8d %12.3f %12.3f %12.3f %12d %14.0f\n", P, S.MatchNs / 1e6,
           S.DataflowNs / 1e6, S.DetectNs / 1e6, S.Collectives, Bytes);
    if (S.Collectives != 1)
      fprintf(stderr, "p=%d: expected one broadcast\n", P);
    if (Log >= MaxLog - 4) { // Fit over the five largest sizes.
      double X = double(P) * Log;
      SumX2 += X * X;
      SumMatch += S.MatchNs * X;
      SumFlow += S.DataflowNs * X;
      SumDetect += S.DetectNs * X;
    }
    LastBytes = Bytes;
  }
  double A[3] = {SumMatch / SumX2 / 1000, SumFlow / SumX2 / 1000,
                 SumDetect / SumX2 / 1000};
  const double Paper[3] = {0.19, 0.59, 0.15}; // us, Cray XE6 (Hopper)
  const char *Names[3] = {"matching", "dataflow", "detection"};
  printf("\nfit t = a * p * log2(p) over p = 2^%d..2^%d:\n", MaxLog - 4,
         MaxLog);
  for (int I = 0; I < 3; ++I)
    printf("  a(%s) = %.4f us   paper %.2f us   ratio %.2f\n", Names[I], A[I],
           Paper[I], A[I] / Paper[I]);
  printf("  memory at p = 2^%d: %.0f bytes per process   paper 283   ratio "
         "%.2f\n",
         MaxLog, LastBytes, LastBytes / 283.0);
  return 0;
}
