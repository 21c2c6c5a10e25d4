//===- Detect.cpp - Collective patterns in MPI traces ---------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/Detect.h"

#include "Search.h"
#include "Streams.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace mpilift {
namespace patterns {
namespace {

using namespace detail;

/// The same pattern from the same call sites with different roots is one
/// pattern whose root varies, not several fixed-root ones.
void mergeVaryingRoots(std::vector<Pattern> &Found) {
  std::vector<Pattern> Out;
  std::map<std::tuple<std::string, std::string, uint32_t,
                      std::set<std::pair<uint32_t, bool>>>,
           size_t>
      Index;
  for (Pattern &P : Found) {
    std::set<std::pair<uint32_t, bool>> Sites;
    for (const PatternSite &S : P.Sites)
      Sites.insert({S.Site, S.Send});
    auto Key = std::make_tuple(P.Collective, P.Topology, P.Comm, Sites);
    auto It = Index.find(Key);
    if (It == Index.end() || P.Root < 0) {
      Index.emplace(Key, Out.size());
      Out.push_back(std::move(P));
      continue;
    }
    Pattern &Into = Out[It->second];
    Into.Occurrences += P.Occurrences;
    addSize(Into, P.Bytes);
    if (P.MaxBytes)
      addSize(Into, P.MaxBytes);
    if (Into.Root != P.Root && !llvm::is_contained(Into.Roots, P.Root)) {
      if (Into.Roots.empty())
        Into.Roots.push_back(Into.Root);
      Into.Roots.push_back(P.Root);
      Into.Root = -1;
      Into.Note = "the root changes between occurrences";
    }
    for (const PatternSite &S : P.Sites)
      for (PatternSite &T : Into.Sites)
        if (T.Site == S.Site && T.Send == S.Send) {
          std::set<int> All(T.Ranks.begin(), T.Ranks.end());
          All.insert(S.Ranks.begin(), S.Ranks.end());
          T.Ranks.assign(All.begin(), All.end());
        }
  }
  for (Pattern &P : Out)
    std::sort(P.Roots.begin(), P.Roots.end());
  Found = std::move(Out);
}

} // namespace

namespace detail {

CommStreams searchedComms(const trace::Trace &T) {
  CommStreams Work;
  for (uint32_t C = 0; C < T.Comms.size(); ++C) {
    const trace::Communicator &Comm = T.Comms[C];
    // With two processes every message is formally a broadcast: a
    // collective needs at least three.
    if (!Comm.IsInter && Comm.Members.size() >= 3)
      Work.emplace_back(C, std::vector<Stream>(Comm.Members.size()));
  }
  return Work;
}

void takeStreams(const trace::Trace &T, int World, CommStreams &Work) {
  for (auto &[C, Streams] : Work) {
    int32_t Member = commRank(T.Comms[C], World);
    if (Member >= 0)
      Streams[Member] = streamOf(T, World, C);
  }
}

DetectResult detectInStreams(const trace::Trace &T,
                             const DetectOptions &Options, CommStreams Work) {
  DetectResult Out;
  Out.Partial = T.FromMpilift && !T.Complete;
  if (Out.Partial)
    Out.Warnings.push_back("the trace is incomplete: patterns cover what was "
                           "recorded");
  // A compiler's copies of one call are one site (sitesBySource); known
  // only once every rank's sites are.
  std::vector<uint32_t> SourceSite = sitesBySource(T);
  for (auto &[C, Streams] : Work)
    llvm::parallelFor(0, Streams.size(),
                      [&](size_t R) { Streams[R].mapSites(SourceSite); });
  for (auto &[C, Streams] : Work) {
    std::vector<Pattern> Found;
    {
      CommSearch S(T, C, Streams);
      if (Options.UseTemplates)
        templatePatterns(S, Found);
      if (Options.UseDataflow)
        dataflowPatterns(S, Found, Out.Warnings);
    }
    mergeVaryingRoots(Found);
    Out.Patterns.insert(Out.Patterns.end(), Found.begin(), Found.end());
    std::vector<Stream>().swap(Streams);
  }
  return Out;
}

} // namespace detail

DetectResult detectPatterns(const trace::Trace &T,
                            const DetectOptions &Options) {
  CommStreams Work = searchedComms(T);
  for (int32_t World = 0; World < T.WorldSize; ++World)
    takeStreams(T, World, Work);
  return detectInStreams(T, Options, std::move(Work));
}

DetectResult detectPatternsReleasingEvents(trace::Trace &T,
                                           const DetectOptions &Options) {
  RankStepCollector Steps;
  for (int32_t World = 0; World < T.WorldSize; ++World)
    Steps.take(T, World);
  return Steps.detect(T, Options);
}

} // namespace patterns
} // namespace mpilift
