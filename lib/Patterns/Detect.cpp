//===- Detect.cpp - Collective patterns in MPI traces ---------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/Detect.h"

#include "mpilift/CommGraph/CommGraph.h"
#include "mpilift/Patterns/SuffixArray.h"
#include "mpilift/Patterns/Templates.h"

#include "Streams.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace mpilift {
namespace patterns {
namespace {

namespace cg = commgraph;
using mpi::Family;
using namespace detail;

//===-- Template families
//--------------------------------------------------===//

/// How a collective derives from a template (section IV-B): as it is, with
/// sends and receives swapped (gather; also in reverse order, the natural
/// gather of rings and chains), or a gather followed by a broadcast.
enum class Derivation { AsIs, Swapped, SwappedReversed, GatherThenBcast };

std::vector<Step> swapped(std::vector<Step> S) {
  for (Step &X : S)
    X.Send = !X.Send;
  return S;
}

std::vector<Step> derive(Derivation D, std::vector<Step> S) {
  switch (D) {
  case Derivation::AsIs:
    return S;
  case Derivation::Swapped:
    return swapped(std::move(S));
  case Derivation::SwappedReversed: {
    std::vector<Step> R = swapped(std::move(S));
    std::reverse(R.begin(), R.end());
    return R;
  }
  case Derivation::GatherThenBcast: {
    std::vector<Step> R = swapped(S);
    R.insert(R.end(), S.begin(), S.end());
    return R;
  }
  }
  return S;
}

std::string familyName(const Template &T, Derivation D) {
  if (T.collective() != "bcast")
    return T.collective();
  switch (D) {
  case Derivation::AsIs:
    return "bcast";
  case Derivation::Swapped:
  case Derivation::SwappedReversed:
    return "gather";
  case Derivation::GatherThenBcast:
    return "allgather";
  }
  return "?";
}

using SymbolString = std::vector<std::tuple<bool, int32_t, uint32_t>>;

SymbolString symbols(const Stream &S, size_t P, size_t Len) {
  SymbolString Out;
  for (size_t K = 0; K < Len; ++K)
    Out.push_back(S[P + K].key());
  return Out;
}

/// A step's symbol in the condensed stream: what templates constrain,
/// direction and peer; 0 for what no template step matches (collectives,
/// peers outside the communicator).
Symbol shapeOf(bool Send, int64_t Peer, int64_t CommSize) {
  if (Peer < 0 || Peer >= CommSize)
    return 0;
  return 1 + 2 * static_cast<Symbol>(Peer) + (Send ? 1 : 0);
}

/// A rank's stream condensed into shape symbols and their suffix array:
/// every instance of a template's repeat is found there by two binary
/// searches instead of a scan of the stream.
struct CondensedStream {
  std::vector<Symbol> Text;
  std::vector<Index> SA;
};

CondensedStream condense(const Stream &S, int64_t CommSize) {
  CondensedStream C;
  C.Text.reserve(S.size());
  for (const StepEvent &E : S)
    C.Text.push_back(E.P2P ? shapeOf(E.Send, E.Peer, CommSize) : 0);
  C.SA = buildSuffixArray(C.Text, static_cast<Symbol>(2 * CommSize + 1));
  return C;
}

/// Occurrences of \p A in the stream \p S condensed as \p Condensed,
/// grouped by the call sites they use.
std::map<SymbolString, std::vector<size_t>>
occurrences(const Stream &S, const CondensedStream &Condensed,
            const std::vector<Step> &A, int64_t CommSize) {
  std::map<SymbolString, std::vector<size_t>> Groups;
  std::vector<Symbol> Shape;
  for (const Step &St : A) {
    Shape.push_back(shapeOf(St.Send, St.Peer, CommSize));
    if (Shape.back() == 0)
      return Groups; // A peer outside the communicator: never matches.
  }
  // Symbols and steps correspond one to one: a match is an occurrence.
  // Matches share their shape, so they differ in call sites alone; most
  // share them with the match before (a loop's), the rest are looked up
  // by a hash of their sites. Nothing is allocated per match: a halo
  // exchange matches a chain's repeat on every rank in every iteration.
  size_t Len = A.size();
  auto sameSites = [&](size_t P, size_t Q) {
    for (size_t K = 0; K < Len; ++K)
      if (S[P + K].Site != S[Q + K].Site)
        return false;
    return true;
  };
  std::vector<std::pair<size_t, std::vector<size_t>>> Found; // First, all.
  std::unordered_map<uint64_t, std::vector<size_t>> ByHash;  // Into Found.
  size_t Last = 0;
  for (Index P : findOccurrences(Condensed.Text, Condensed.SA, Shape)) {
    if (Found.empty() || !sameSites(Found[Last].first, P)) {
      uint64_t H = 0;
      for (size_t K = 0; K < Len; ++K)
        H = llvm::hash_combine(H, S[P + K].Site);
      std::vector<size_t> &Same = ByHash[H];
      auto It = llvm::find_if(
          Same, [&](size_t G) { return sameSites(Found[G].first, P); });
      if (It == Same.end()) {
        Same.push_back(Found.size());
        Found.emplace_back(P, std::vector<size_t>());
        It = std::prev(Same.end());
      }
      Last = *It;
    }
    Found[Last].second.push_back(P);
  }
  for (auto &[First, Starts] : Found)
    Groups.emplace(symbols(S, First, Len), std::move(Starts));
  return Groups;
}

/// The ranks of the communicator \p S exchanges messages with, ascending.
std::vector<int32_t> peersOf(const Stream &S, int64_t N) {
  std::vector<bool> Talks(N, false);
  for (const StepEvent &E : S)
    if (E.P2P && E.Peer >= 0 && E.Peer < N)
      Talks[E.Peer] = true;
  std::vector<int32_t> Peers;
  for (int32_t R = 0; R < N; ++R)
    if (Talks[R])
      Peers.push_back(R);
  return Peers;
}

/// The rotations of \p Tm worth trying for a root whose peers are \p
/// Peers (peersOf): those that put a peer the root talks to first (0 alone
/// for templates without rotation).
std::set<int64_t> rotationsToTry(const Template &Tm,
                                 const std::vector<int32_t> &Peers, int64_t N) {
  if (!Tm.hasRotation())
    return {0};
  std::set<int64_t> Rotations;
  for (int32_t Peer : Peers)
    for (int64_t Delta : {-2, -1, 0, 1})
      Rotations.insert(((Peer + Delta) % N + N) % N);
  return Rotations;
}

/// Whether occurrences of patterns (each a window start per rank of the
/// communicator) follow each other in one order on every rank. Stars from
/// every root interleaved on each rank are an all-to-all, not a broadcast
/// whose root changes.
bool sequentialOnEveryRank(std::vector<std::vector<size_t>> Occurrences) {
  std::sort(Occurrences.begin(), Occurrences.end());
  for (size_t I = 1; I < Occurrences.size(); ++I)
    for (size_t R = 0; R < Occurrences[I].size(); ++R)
      if (Occurrences[I - 1][R] >= Occurrences[I][R])
        return false;
  return true;
}

/// Whether the slave occurrence at \p SlaveStart of rank \p Slave matches,
/// message for message, the root's occurrence at \p RootStart: the first
/// message between them is matched (\p Partners, as MPI matches them) with
/// the root's first step of the opposite kind with the slave. Shapes alone
/// cannot tell apart two call sites that do the same thing; message order
/// can.
bool alignedWithRoot(const Stream &RootS, size_t RootStart, size_t RootLen,
                     int32_t Root, const Stream &SlaveS, size_t SlaveStart,
                     size_t SlaveLen, int32_t Slave,
                     const std::vector<std::vector<StepRef>> &Partners) {
  for (size_t J = 0; J < SlaveLen && SlaveStart + J < SlaveS.size(); ++J) {
    const StepEvent &X = SlaveS[SlaveStart + J];
    if (!X.P2P || X.Peer != Root)
      continue;
    for (size_t I = 0; I < RootLen && RootStart + I < RootS.size(); ++I) {
      const StepEvent &Y = RootS[RootStart + I];
      if (!Y.P2P || Y.Peer != Slave || Y.Send == X.Send || Y.Tag != X.Tag)
        continue;
      return Partners[Slave][SlaveStart + J] ==
             StepRef(Root, static_cast<uint32_t>(RootStart + I));
    }
    return false;
  }
  return true; // No message with the root: nothing to align.
}

//===-- Template evidence
//--------------------------------------------------===//

/// Each communicator of three processes or more that the search looks at,
/// with its members' streams (by communicator rank).
using CommStreams = std::vector<std::pair<uint32_t, std::vector<Stream>>>;

/// The communicators of \p T the search looks at, with empty streams.
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

/// Builds the streams of world rank \p World in \p Work from \p T, call
/// sites as recorded.
void takeStreams(const trace::Trace &T, int World, CommStreams &Work) {
  for (auto &[C, Streams] : Work) {
    int32_t Member = commRank(T.Comms[C], World);
    if (Member >= 0)
      Streams[Member] = streamOf(T, World, C);
  }
}

/// Releases the events and request records of world rank \p World.
void releaseEvents(trace::Trace &T, int World) {
  std::vector<trace::Event>().swap(T.Ranks[World].Events);
  std::vector<trace::RequestRecord>().swap(T.Ranks[World].Requests);
}

/// Gives the pages of released events back to the system.
void trimHeap() {
#ifdef __GLIBC__
  // The events' arrays came from the heap (glibc raises its mmap threshold
  // as large blocks are freed); give their pages back.
  malloc_trim(0);
#endif
}

class Detector {
public:
  Detector(const trace::Trace &T, const DetectOptions &O)
      : T(T), Options(O), SourceSite(sitesBySource(T)) {}

  /// The patterns of \p Work: every rank's streams (takeStreams), call
  /// sites as recorded.
  DetectResult run(CommStreams Work) {
    DetectResult Out;
    Out.Partial = T.FromMpilift && !T.Complete;
    if (Out.Partial)
      Out.Warnings.push_back("the trace is incomplete: patterns cover what was "
                             "recorded");
    // A compiler's copies of one call are one site (sitesBySource); known
    // only once every rank's sites are.
    for (auto &[C, Streams] : Work)
      llvm::parallelFor(0, Streams.size(),
                        [&](size_t R) { Streams[R].mapSites(SourceSite); });
    for (auto &[C, Streams] : Work) {
      std::vector<Pattern> Found;
      Partners = messagePartners(Streams);
      if (Options.UseTemplates) {
        // Each rank's stream is condensed on its own: on all cores.
        Condensed.assign(Streams.size(), CondensedStream());
        llvm::parallelFor(0, Streams.size(), [&](size_t R) {
          Condensed[R] = condense(Streams[R], int64_t(Streams.size()));
        });
        templatePatterns(C, Streams, Found);
        Condensed.clear();
      }
      if (Options.UseDataflow)
        dataflowPatterns(C, Streams, Found, Out.Warnings);
      Partners.clear();
      mergeVaryingRoots(Found);
      Out.Patterns.insert(Out.Patterns.end(), Found.begin(), Found.end());
      std::vector<Stream>().swap(Streams);
    }
    return Out;
  }

private:
  /// Template candidates compete: the one explaining most steps wins, and
  /// a step belongs to one pattern at most.
  void templatePatterns(uint32_t C, const std::vector<Stream> &Streams,
                        std::vector<Pattern> &Found) {
    int64_t N = static_cast<int64_t>(Streams.size());
    std::vector<Candidate> Candidates;
    Peers.assign(Streams.size(), {});
    llvm::parallelFor(0, Streams.size(),
                      [&](size_t R) { Peers[R] = peersOf(Streams[R], N); });
    for (const Template &Tm : builtinTemplates()) {
      bool AllToAll = Tm.collective() != "bcast";
      for (Derivation D :
           {Derivation::AsIs, Derivation::Swapped, Derivation::SwappedReversed,
            Derivation::GatherThenBcast}) {
        if (AllToAll && D != Derivation::AsIs)
          continue;
        GrownSteps.emplace(Streams);
        for (int64_t Root = 0; Root < (AllToAll ? 1 : N); ++Root) {
          tryRoot(Tm, D, C, Root, Streams, Candidates);
          for (const auto &[R, K] : GrownByThisRoot)
            GrownSteps->insert(R, K);
          GrownByThisRoot.clear();
        }
        GrownSteps.reset();
        SlaveOccurrences.clear();
      }
    }
    std::vector<RotatingGroup> Groups = rotatingRootGroups();
    // Fixed-root candidates and groups of changing roots compete: the one
    // explaining most steps wins (a fixed root first at a tie), and a step
    // belongs to one pattern at most.
    std::vector<std::pair<size_t, size_t>> Order; // Steps, index.
    for (size_t I = 0; I < Candidates.size(); ++I)
      Order.emplace_back(Candidates[I].coverage(), I);
    for (size_t I = 0; I < Groups.size(); ++I)
      Order.emplace_back(Groups[I].coverage(), Candidates.size() + I);
    std::stable_sort(
        Order.begin(), Order.end(), [](const auto &A, const auto &B) {
          return A.first != B.first ? A.first > B.first : A.second < B.second;
        });
    StepSet Claimed(Streams);
    std::vector<std::pair<size_t, const Candidate *>> Reported; // In Found.
    for (const auto &[Ignored, I] : Order) {
      if (I >= Candidates.size()) {
        reportRotating(C, Streams, Groups[I - Candidates.size()], Claimed,
                       Found);
        continue;
      }
      const Candidate &Cand = Candidates[I];
      std::vector<std::pair<int, size_t>> Steps;
      for (const RankPart &P : Cand.Parts)
        for (size_t Start : P.Starts)
          for (size_t K = 0; K < P.Length; ++K)
            Steps.emplace_back(P.CommRank, Start + K);
      bool Free = std::none_of(Steps.begin(), Steps.end(), [&](const auto &S) {
        return Claimed.contains(S.first, S.second);
      });
      // Candidates whose messages leave an occurrence, or whose dataflow
      // forms no collective, are gone already (tryRoot).
      std::vector<std::pair<int, size_t>> Following;
      if (!Free || !report(Cand, Streams, Claimed, Found, Following))
        continue;
      Reported.emplace_back(Found.size() - 1, &Cand);
      for (const auto &[R, K] : Steps)
        Claimed.insert(R, K);
      for (const auto &[R, K] : Following)
        Claimed.insert(R, K);
    }
    dropInterleavedRoots(Reported, Found);
    Peers.clear();
    Groups.clear();
    WindowLengths.clear();
  }

  /// Fixed-root patterns that mergeVaryingRoots will join (same collective,
  /// topology and call sites, other roots) must follow each other in one
  /// order on every rank; if they interleave, none of them is reported, and
  /// the dataflow analysis sees their steps.
  static void dropInterleavedRoots(
      const std::vector<std::pair<size_t, const Candidate *>> &Reported,
      std::vector<Pattern> &Found) {
    std::map<std::tuple<std::string, std::string,
                        std::set<std::pair<uint32_t, bool>>>,
             std::vector<std::pair<size_t, const Candidate *>>>
        Joined;
    for (const auto &[At, Cand] : Reported) {
      const Pattern &P = Found[At];
      std::set<std::pair<uint32_t, bool>> Sites;
      for (const PatternSite &S : P.Sites)
        Sites.insert({S.Site, S.Send});
      if (P.Root >= 0)
        Joined[{P.Collective, P.Topology, Sites}].emplace_back(At, Cand);
    }
    std::set<size_t> Drop;
    for (const auto &[Key, Members] : Joined) {
      if (Members.size() < 2)
        continue;
      std::vector<std::vector<size_t>> Occurrences;
      for (const auto &[At, Cand] : Members) {
        size_t Ranks = Cand->Parts.size();
        for (size_t Occ = 0; Occ < Cand->Parts[0].Starts.size(); ++Occ) {
          std::vector<size_t> Windows(Ranks);
          for (const RankPart &Part : Cand->Parts)
            Windows[Part.CommRank] = Part.Starts[Occ];
          Occurrences.push_back(std::move(Windows));
        }
      }
      if (!sequentialOnEveryRank(std::move(Occurrences)))
        for (const auto &[At, Cand] : Members)
          Drop.insert(At);
    }
    for (auto It = Drop.rbegin(); It != Drop.rend(); ++It)
      Found.erase(Found.begin() + *It);
  }

  /// Whether every message of every occurrence of \p Cand is matched (as
  /// MPI matches them) inside the same occurrence: windows that only look
  /// alike on each rank can take messages from different iterations (with
  /// a root that changes, a rank's sends as root and as forwarder).
  bool messagesStayInside(const Candidate &Cand) const {
    std::vector<int> PartOf(Partners.size(), -1);
    for (size_t I = 0; I < Cand.Parts.size(); ++I)
      PartOf[Cand.Parts[I].CommRank] = int(I);
    for (const RankPart &P : Cand.Parts)
      for (size_t Occ = 0; Occ < P.Starts.size(); ++Occ)
        for (size_t K = 0; K < P.Length; ++K) {
          auto [R2, K2] = Partners[P.CommRank][P.Starts[Occ] + K];
          if (R2 < 0 || PartOf[R2] < 0)
            return false;
          const RankPart &Other = Cand.Parts[PartOf[R2]];
          if (Occ >= Other.Starts.size() || K2 < Other.Starts[Occ] ||
              K2 >= Other.Starts[Occ] + Other.Length)
            return false;
        }
    return true;
  }

  void tryRoot(const Template &Tm, Derivation D, uint32_t C, int64_t Root,
               const std::vector<Stream> &Streams,
               std::vector<Candidate> &Candidates) {
    int64_t N = static_cast<int64_t>(Streams.size());
    const Stream &Mine = Streams[Root];
    std::set<std::vector<Step>> Seen; // Rotations giving the same repeat.
    for (int64_t Cr : rotationsToTry(Tm, Peers[Root], N)) {
      TemplateParams P{N, Root, Cr};
      std::vector<Step> A = derive(D, Tm.master(P));
      if (A.empty() || !Seen.insert(A).second)
        continue;
      auto Found = occurrences(Mine, Condensed[Root], A, N);
      if (Found.empty())
        continue;
      if (Tm.collective() == "bcast" && D != Derivation::GatherThenBcast)
        growRotating(Tm, D, P, Streams, Found);
      for (auto &[Sites, Starts] : Found) {
        Candidate Cand;
        Cand.Collective = familyName(Tm, D);
        Cand.Topology = Tm.topology();
        Cand.Comm = C;
        Cand.RootCommRank = Tm.collective() == "bcast" ? int(Root) : -1;
        Cand.Parts.push_back({int(Root), Starts, A.size()});
        Cand.Order = Candidates.size();
        if (growToSlaves(Tm, D, P, Streams, Cand) && messagesStayInside(Cand))
          Candidates.push_back(std::move(Cand));
      }
    }
  }

  /// Finds every other rank's slave repeat with as many occurrences, and
  /// whether the dataflow of the first and last occurrence (where the
  /// trace has buffers) forms a collective, as report decides: false when
  /// not, or when some rank has no such repeat. A candidate turned down
  /// never claims a step, so it is not kept: a halo exchange has the shape
  /// of a chain from every root, with every rank's occurrences, and
  /// forwards nothing. The dataflow is judged on those two occurrences
  /// before every rank's others are copied.
  bool growToSlaves(const Template &Tm, Derivation D, const TemplateParams &P,
                    const std::vector<Stream> &Streams, Candidate &Cand) {
    size_t K = Cand.Parts[0].Starts.size();
    std::set<int32_t> RootTags;
    const RankPart &Root = Cand.Parts[0];
    for (size_t J = 0; J < Root.Length; ++J)
      RootTags.insert(Streams[Root.CommRank][Root.Starts[0] + J].Tag);
    // A collective written by hand sends (and receives) with one tag; a
    // window that mixes tags mixes call sites that only look alike.
    std::set<int32_t> SendTags, RecvTags;
    for (size_t J = 0; J < Root.Length; ++J) {
      const StepEvent &E = Streams[Root.CommRank][Root.Starts[0] + J];
      (E.Send ? SendTags : RecvTags).insert(E.Tag);
    }
    if (SendTags.size() > 1 || RecvTags.size() > 1)
      return false;
    // Each rank's occurrences (found once per rank and shape: the same
    // for most roots), and its first and last one in Ends.
    std::vector<const std::vector<size_t> *> Chosen;
    std::vector<RankPart> Ends{{Root.CommRank,
                                {Root.Starts.front(), Root.Starts.back()},
                                Root.Length}};
    for (int64_t R = 0; R < P.N; ++R) {
      if (R == P.Root)
        continue;
      std::vector<Step> Alpha = derive(D, Tm.slave(P, R));
      if (Alpha.empty())
        return false; // Every rank of the communicator takes part.
      const std::vector<size_t> *Starts = chooseSlaveOccurrences(
          Streams, int(R), Alpha, K, RootTags, Root.CommRank,
          Root.Starts.front(), Root.Length, int32_t(P.Root));
      if (!Starts)
        return false;
      Chosen.push_back(Starts);
      Ends.push_back({int(R), {Starts->front(), Starts->back()}, Alpha.size()});
    }
    if (dataflowTurnsDown(Cand.Collective, Ends, Streams))
      return false;
    for (size_t I = 0; I < Chosen.size(); ++I)
      Cand.Parts.push_back(
          {Ends[I + 1].CommRank, *Chosen[I], Ends[I + 1].Length});
    return true;
  }

  /// Among the occurrences of rank \p R's slave repeat \p Alpha, the group
  /// (one call site each) with \p K occurrences that fits the root's best:
  /// one whose messages match the root's one for one (the root's
  /// occurrence at \p RootStart, \p RootLength steps), then one with the
  /// root's tags \p RootTags (the dataflow check rejects mismatches), then
  /// any; null if none has \p K.
  const std::vector<size_t> *
  chooseSlaveOccurrences(const std::vector<Stream> &Streams, int R,
                         const std::vector<Step> &Alpha, size_t K,
                         const std::set<int32_t> &RootTags, int RootRank,
                         size_t RootStart, size_t RootLength, int32_t Root) {
    auto [It, New] = SlaveOccurrences.try_emplace({R, Alpha});
    if (New)
      It->second =
          occurrences(Streams[R], Condensed[R], Alpha, int64_t(Streams.size()));
    const std::map<SymbolString, std::vector<size_t>> &Groups = It->second;
    for (int Need : {2, 1, 0})
      for (const auto &[Sites, Starts] : Groups) {
        if (Starts.size() != K)
          continue;
        bool TagsFit = true;
        for (size_t J = 0; J < Alpha.size(); ++J)
          TagsFit &= RootTags.count(Streams[R][Starts[0] + J].Tag) > 0;
        bool Aligned =
            TagsFit && alignedWithRoot(Streams[RootRank], RootStart, RootLength,
                                       Root, Streams[R], Starts[0],
                                       Alpha.size(), int32_t(R), Partners);
        if (Need == 0 || (Need == 1 && TagsFit) || (Need == 2 && Aligned))
          return &Starts;
      }
    return nullptr;
  }

  //===-- Roles that change with the root --------------------------------===//

  /// A grown occurrence as Rotating keeps it (its windows are the key):
  /// the root and each rank's window length (one of WindowLengths: every
  /// occurrence grown from one root's repeat has the same).
  struct Grown {
    int Root;
    const std::vector<uint32_t> *Lengths;
  };
  /// Grown occurrences by their windows (each rank's start).
  using GrownByWindows = std::map<std::vector<uint32_t>, Grown>;

  /// One occurrence of a pattern across ranks: a view of an entry of the
  /// group's GrownByWindows (one window per rank). Groups hold hundreds of
  /// thousands of them on long traces; RankPart lists are made only for
  /// the few a report reads.
  struct Instance {
    const std::vector<uint32_t> *Windows;
    const Grown *G;

    int root() const { return G->Root; }
    size_t ranks() const { return Windows->size(); }
    size_t start(size_t R) const { return (*Windows)[R]; }
    size_t length(size_t R) const { return (*G->Lengths)[R]; }
    std::vector<RankPart> parts() const {
      std::vector<RankPart> Out;
      Out.reserve(ranks());
      for (size_t R = 0; R < ranks(); ++R)
        Out.push_back({int(R), {start(R)}, length(R)});
      return Out;
    }
  };

  /// Occurrences of one collective and topology from several roots, using
  /// one set of call sites.
  struct RotatingGroup {
    std::string Collective, Topology;
    std::set<std::pair<uint32_t, bool>> Sites;
    /// Owns what Instances view (a map keeps its nodes where they are when
    /// the group moves).
    GrownByWindows Occurrences;
    /// In the order of rank 0's windows.
    std::vector<Instance> Instances;

    size_t coverage() const {
      size_t N = 0;
      for (const Instance &In : Instances)
        for (size_t R = 0; R < In.ranks(); ++R)
          N += In.length(R);
      return N;
    }
  };

  /// Patterns whose root changes between occurrences and takes the ranks'
  /// roles with it: a chain or ring that starts at another rank each time,
  /// as HPL's broadcasts do. A root's master repeat then also occurs where
  /// that rank forwards, so the occurrence counts of the ranks cannot agree
  /// as growToSlaves requires. Instead, each occurrence of a master repeat
  /// that tryRoot finds grows into an occurrence of the whole pattern by
  /// following its messages (growInstance), collected in Rotating by
  /// collective, topology and call sites; the occurrences of all roots make
  /// one pattern if reportRotating accepts them.
  void growRotating(const Template &Tm, Derivation D, const TemplateParams &P,
                    const std::vector<Stream> &Streams,
                    const std::map<SymbolString, std::vector<size_t>> &Found) {
    // Each rank's repeat, evaluated when the growth first reaches the rank
    // (most attempts stop after a few ranks).
    std::vector<std::optional<std::vector<Step>>> Shapes(P.N);
    auto shapeOf = [&](int R) -> const std::vector<Step> & {
      if (!Shapes[R])
        Shapes[R] = derive(D, R == P.Root ? Tm.master(P) : Tm.slave(P, R));
      return *Shapes[R];
    };
    std::vector<size_t> Windows;
    for (const auto &[Ignored, Starts] : Found)
      for (size_t Start : Starts) {
        // A start inside an occurrence grown from an earlier root is that
        // occurrence's step (where this rank forwards, or another reading
        // of the same messages): not grown again. A halo exchange forms a
        // chain from every root through the same steps; growing each would
        // cost every rank for every root.
        if (GrownSteps->contains(int(P.Root), Start))
          continue;
        if (!growInstance(Streams, Partners, shapeOf, int(P.Root), Start,
                          Windows))
          continue;
        RotatingKey Key{familyName(Tm, D), Tm.topology(), {}};
        std::vector<uint32_t> Lengths;
        for (size_t R = 0; R < Windows.size(); ++R) {
          Lengths.push_back(static_cast<uint32_t>(shapeOf(int(R)).size()));
          for (size_t K = 0; K < Lengths.back(); ++K) {
            const StepEvent &E = Streams[R][Windows[R] + K];
            std::get<2>(Key).insert({E.Site, E.Send});
            GrownByThisRoot.emplace_back(int32_t(R),
                                         static_cast<uint32_t>(Windows[R] + K));
          }
        }
        Grown G{int(P.Root), &*WindowLengths.insert(std::move(Lengths)).first};
        Rotating[Key].emplace(
            std::vector<uint32_t>(Windows.begin(), Windows.end()), G);
      }
  }

  /// The groups growRotating collected from two roots at least (one root
  /// is the fixed-root search's case), each with its occurrences in order.
  std::vector<RotatingGroup> rotatingRootGroups() {
    std::vector<RotatingGroup> Out;
    for (auto &[Key, ByWindows] : Rotating) {
      std::set<int> Roots;
      for (const auto &[W, G] : ByWindows)
        Roots.insert(G.Root);
      if (Roots.size() < 2)
        continue;
      RotatingGroup Group{std::get<0>(Key),
                          std::get<1>(Key),
                          std::get<2>(Key),
                          std::move(ByWindows),
                          {}};
      // The map's order is its windows' order, rank 0's first: the order
      // of the occurrences on rank 0. (Two that start at one step of rank 0
      // overlap, and reportRotating refuses them in any order.)
      for (const auto &[W, G] : Group.Occurrences)
        Group.Instances.push_back({&W, &G});
      Out.push_back(std::move(Group));
    }
    Rotating.clear();
    return Out;
  }

  /// Grows the occurrence of \p Root's master repeat at \p RootStart into
  /// an occurrence of the whole pattern, one window per rank in \p Window:
  /// every step of a window must match the rank's shape, and its message
  /// partner must sit in the peer's window where the peer's shape expects
  /// it; a window is placed by the first message that reaches its rank.
  /// Every rank must be reached, and each direction uses one tag.
  template <typename ShapeFn>
  static bool growInstance(const std::vector<Stream> &Streams,
                           const std::vector<std::vector<StepRef>> &Partner,
                           ShapeFn &&ShapeOf, int Root, size_t RootStart,
                           std::vector<size_t> &Window) {
    constexpr size_t None = ~size_t(0);
    size_t N = Streams.size();
    Window.assign(N, None);
    Window[Root] = RootStart;
    std::vector<int> Reached{Root};
    bool TagSeen[2] = {false, false};
    int32_t Tag[2] = {0, 0};
    for (size_t Q = 0; Q < Reached.size(); ++Q) {
      int R = Reached[Q];
      const std::vector<Step> &Shape = ShapeOf(R);
      if (Shape.empty())
        return false; // Every rank of the communicator takes part.
      if (Window[R] + Shape.size() > Streams[R].size())
        return false;
      for (size_t J = 0; J < Shape.size(); ++J) {
        uint32_t K = static_cast<uint32_t>(Window[R] + J);
        const StepEvent &E = Streams[R][K];
        if (!E.P2P || E.Send != Shape[J].Send || E.Peer != Shape[J].Peer)
          return false;
        if (TagSeen[E.Send] && Tag[E.Send] != E.Tag)
          return false;
        TagSeen[E.Send] = true;
        Tag[E.Send] = E.Tag;
        auto [R2, K2] = Partner[R][K];
        if (R2 < 0)
          return false;
        const std::vector<Step> &Other = ShapeOf(R2);
        auto partnerAt = [&](size_t J2) {
          return Other[J2].Send != E.Send && Other[J2].Peer == R;
        };
        if (Window[R2] != None) {
          if (K2 < Window[R2] || K2 - Window[R2] >= Other.size() ||
              !partnerAt(K2 - Window[R2]))
            return false;
          continue;
        }
        size_t Offset = None;
        for (size_t J2 = 0; J2 < Other.size(); ++J2)
          if (partnerAt(J2)) {
            if (Offset != None)
              return false; // Two places could take it: do not guess.
            Offset = J2;
          }
        if (Offset == None || K2 < Offset)
          return false;
        Window[R2] = K2 - Offset;
        Reached.push_back(R2);
      }
    }
    return Reached.size() == N; // Every rank of the communicator takes part.
  }

  /// Reports a group's occurrences (from two roots at least, as
  /// rotatingRootGroups keeps them) as one pattern if they are disjoint,
  /// unclaimed, follow each other in the same order on every rank, explain
  /// every step of their call sites, and the dataflow of the first and the
  /// last forms the same collective.
  void reportRotating(uint32_t C, const std::vector<Stream> &Streams,
                      const RotatingGroup &Group, StepSet &Claimed,
                      std::vector<Pattern> &Found) {
    const std::vector<Instance> &Instances = Group.Instances;
    const auto &Sites = Group.Sites;
    StepSet Mine(Streams);
    std::vector<std::pair<int, size_t>> Steps;
    for (const Instance &In : Instances)
      for (size_t R = 0; R < In.ranks(); ++R)
        for (size_t K = 0; K < In.length(R); ++K) {
          if (!Mine.insert(int(R), In.start(R) + K))
            return; // Overlapping occurrences.
          Steps.emplace_back(int(R), In.start(R) + K);
        }
    std::vector<std::vector<size_t>> Windows;
    for (const Instance &In : Instances)
      Windows.emplace_back(In.Windows->begin(), In.Windows->end());
    if (!sequentialOnEveryRank(std::move(Windows)))
      return;
    for (const auto &[R, K] : Steps)
      if (Claimed.contains(R, K))
        return;
    for (size_t R = 0; R < Streams.size(); ++R)
      for (size_t K = 0; K < Streams[R].size(); ++K) {
        const StepEvent &E = Streams[R][K];
        if (E.P2P && Sites.count({E.Site, E.Send}) && !Mine.contains(int(R), K))
          return; // A step of these call sites the pattern does not explain.
      }
    const trace::Communicator &Comm = T.Comms[C];
    Pattern P;
    P.Collective = Group.Collective;
    P.Topology = Group.Topology;
    P.Comm = C;
    P.Occurrences = Instances.size();
    P.Evidence = "template";
    P.Note = "the root changes between occurrences";
    std::set<int> Roots;
    for (const Instance &In : Instances)
      Roots.insert(In.root());
    for (int R : Roots)
      P.Roots.push_back(Comm.Members[R]);
    std::sort(P.Roots.begin(), P.Roots.end());
    std::vector<std::vector<RankPart>> Occurrences;
    for (const Instance &In : Instances)
      Occurrences.push_back(In.parts());
    P.Bytes = occurrenceBytes(Streams, Occurrences.front(), 0);
    for (const std::vector<RankPart> &Parts : Occurrences)
      addSize(P, occurrenceBytes(Streams, Parts, 0));
    // The dataflow of the first and the last occurrence, as for fixed roots.
    bool Checked;
    std::string Kind = dataflowOfBoth(Streams, Occurrences.front(), 0,
                                      Occurrences.back(), 0, Checked);
    if (Checked && (Kind == "scatter" || Kind == "scatterv"))
      if (std::optional<std::vector<std::vector<RankPart>>> Whole =
              scatterThenAllgather(Streams, Occurrences, Mine, Claimed)) {
        Occurrences = std::move(*Whole);
        Kind = "bcast";
        P.Topology = "scatter-allgather";
      }
    if (Checked) {
      if (Kind.empty())
        return;
      if (Kind != P.Collective)
        P.Note += "; the template suggests a " + P.Collective;
      P.Collective = Kind;
      P.Evidence = "both";
    } else if (P.Collective == "bcast") {
      P.Collective = "unknown"; // Broadcast or scatter: no data to tell.
    }
    // The messages of a scatter and a roll are pieces: their payloads
    // differ by design, and the dataflow has shown the broadcast.
    if (P.Topology != "scatter-allgather")
      judgeContents(P, Streams, Occurrences.front(), 0, Occurrences.back(), 0);
    Candidate Cand;
    Cand.Comm = C;
    for (std::vector<RankPart> &Parts : Occurrences)
      for (RankPart &Part : Parts) {
        for (size_t K = 0; K < Part.Length; ++K)
          Claimed.insert(Part.CommRank, Part.Starts[0] + K);
        Cand.Parts.push_back(std::move(Part));
      }
    addSites(P, Cand, Streams);
    Found.push_back(std::move(P));
  }

  /// scatterThenAllgather for the occurrences of a fixed-root candidate.
  std::optional<std::vector<std::vector<RankPart>>>
  scatterThenAllgather(const std::vector<Stream> &Streams,
                       const Candidate &Cand, const StepSet &Claimed) const {
    StepSet Mine(Streams);
    std::vector<std::vector<RankPart>> Occurrences(
        Cand.Parts.empty() ? 0 : Cand.Parts[0].Starts.size());
    for (size_t Occ = 0; Occ < Occurrences.size(); ++Occ)
      for (const RankPart &Part : Cand.Parts) {
        Occurrences[Occ].push_back(
            {Part.CommRank, {Part.Starts[Occ]}, Part.Length});
        for (size_t K = 0; K < Part.Length; ++K)
          Mine.insert(Part.CommRank, Part.Starts[Occ] + K);
      }
    return scatterThenAllgather(Streams, Occurrences, Mine, Claimed);
  }

  /// The occurrences of a scatter (\p Occurrences, one start per part)
  /// with the steps that follow them on every rank under the same tag, if
  /// those complete a broadcast: on every rank the first and the last
  /// occurrence, so extended, move the root's whole message (HPL's long
  /// broadcasts spread the pieces down a tree, then roll them around a
  /// ring). The steps added must be free: in no occurrence (\p Mine) and
  /// claimed by no pattern.
  std::optional<std::vector<std::vector<RankPart>>>
  scatterThenAllgather(const std::vector<Stream> &Streams,
                       const std::vector<std::vector<RankPart>> &Occurrences,
                       const StepSet &Mine, const StepSet &Claimed) const {
    std::optional<std::vector<std::vector<RankPart>>> Whole =
        withFollowingSteps(Streams, Occurrences);
    if (!Whole)
      return std::nullopt;
    for (size_t Occ = 0; Occ < Whole->size(); ++Occ)
      for (size_t I = 0; I < (*Whole)[Occ].size(); ++I) {
        const RankPart &Part = (*Whole)[Occ][I];
        for (size_t K = Occurrences[Occ][I].Length; K < Part.Length; ++K)
          if (Mine.contains(Part.CommRank, Part.Starts[0] + K) ||
              Claimed.contains(Part.CommRank, Part.Starts[0] + K))
            return std::nullopt;
      }
    bool Checked;
    std::string Kind =
        dataflowOfBoth(Streams, Whole->front(), 0, Whole->back(), 0, Checked);
    if (!Checked || Kind != "bcast")
      return std::nullopt;
    return Whole;
  }

  /// Whether the dataflow of the first and the last occurrence of \p Parts
  /// (of a candidate of \p Collective) forms no collective, where the
  /// trace has the buffers to tell, and is no gather that combines.
  static bool dataflowTurnsDown(const std::string &Collective,
                                const std::vector<RankPart> &Parts,
                                const std::vector<Stream> &Streams) {
    size_t Last = Parts[0].Starts.size() - 1;
    bool Checked;
    std::string Kind = dataflowOfBoth(Streams, Parts, 0, Parts, Last, Checked);
    return Checked && Kind.empty() &&
           !gatherThatCombines(Collective, Parts, Streams);
  }

  /// Whether \p Parts of a candidate of \p Collective is a gather whose
  /// first and last occurrences send messages of one size up a tree onto
  /// one buffer where a rank receives several: a reduction whose combines
  /// the trace does not show.
  static bool gatherThatCombines(const std::string &Collective,
                                 const std::vector<RankPart> &Parts,
                                 const std::vector<Stream> &Streams) {
    size_t Last = Parts[0].Starts.size() - 1;
    return Collective == "gather" &&
           combinesWhereItArrives(Streams, Parts, 0) &&
           combinesWhereItArrives(Streams, Parts, Last);
  }

  /// Turns a candidate into a pattern unless the dataflow of its
  /// occurrences says it is none. A scatter that the steps after it make a
  /// broadcast (scatterThenAllgather) takes those steps, which go to
  /// \p Following.
  bool report(const Candidate &Cand, const std::vector<Stream> &Streams,
              const StepSet &Claimed, std::vector<Pattern> &Found,
              std::vector<std::pair<int, size_t>> &Following) {
    const trace::Communicator &Comm = T.Comms[Cand.Comm];
    Pattern P;
    P.Collective = Cand.Collective;
    P.Topology = Cand.Topology;
    P.Comm = Cand.Comm;
    P.Root = Cand.RootCommRank >= 0 ? Comm.Members[Cand.RootCommRank] : -1;
    P.Occurrences = Cand.Parts[0].Starts.size();
    P.Evidence = "template";
    const RankPart &RootPart = Cand.Parts[0];
    const Stream &RootSteps = Streams[RootPart.CommRank];
    std::vector<size_t> RootSends;
    for (size_t K = 0; K < RootPart.Length; ++K)
      if (RootSteps[RootPart.Starts[0] + K].Send)
        RootSends.push_back(RootPart.Starts[0] + K);
    P.Bytes = occurrenceBytes(Streams, Cand.Parts, 0);
    for (size_t Occurrence = 1; Occurrence < P.Occurrences; ++Occurrence)
      addSize(P, occurrenceBytes(Streams, Cand.Parts, Occurrence));
    if (P.Collective == "bcast") {
      // A star root's sends tell broadcast from scatter; the dataflow
      // decides for the others (one send cannot tell).
      std::string Kind = RootSends.size() > 1
                             ? classifyRootSends(RootSteps, RootSends)
                             : std::string("unknown");
      P.Collective = Kind == "unknown" ? "bcast-or-scatter" : Kind;
    }
    // The dataflow of the first and last occurrence. Where the trace has
    // buffers, the steps of one occurrence must match each other and form
    // a collective: a shape alone (a ring shift looks like a chain) is not
    // enough. Without buffers (foreign traces) the template stands alone.
    bool Checked;
    std::string Kind = dataflowOfBoth(Streams, Cand.Parts, 0, Cand.Parts,
                                      P.Occurrences - 1, Checked);
    std::optional<std::vector<std::vector<RankPart>>> Rolled;
    if (Checked && (Kind == "scatter" || Kind == "scatterv"))
      Rolled = scatterThenAllgather(Streams, Cand, Claimed);
    if (Rolled) {
      Kind = "bcast";
      P.Collective = "bcast";
      P.Topology = "scatter-allgather";
    }
    if (Checked && Kind.empty() &&
        gatherThatCombines(Cand.Collective, Cand.Parts, Streams)) {
      P.Collective = "reduce";
      P.Note = "messages of one size go up the tree and land on one buffer "
               "where a rank receives several: the data is combined where "
               "it arrives, which a trace does not show";
    } else if (Checked) {
      if (Kind.empty())
        return false;
      bool Agrees =
          Kind == P.Collective || (P.Collective == "bcast-or-scatter" &&
                                   (Kind == "bcast" || Kind == "scatter"));
      if (!Agrees)
        P.Note = "the template suggests a " + P.Collective;
      P.Collective = Kind;
      P.Evidence = "both";
    }
    if (P.Collective == "bcast-or-scatter")
      P.Collective = "unknown";
    if (Rolled) {
      // The occurrences with the steps that complete them.
      Candidate Extended = Cand;
      Extended.Parts.clear();
      for (size_t Occ = 0; Occ < Rolled->size(); ++Occ)
        for (size_t I = 0; I < (*Rolled)[Occ].size(); ++I) {
          const RankPart &Part = (*Rolled)[Occ][I];
          for (size_t K = Cand.Parts[I].Length; K < Part.Length; ++K)
            Following.emplace_back(Part.CommRank, Part.Starts[0] + K);
          Extended.Parts.push_back(Part);
        }
      addSites(P, Extended, Streams);
      Found.push_back(std::move(P));
      return true;
    }
    judgeContents(P, Streams, Cand.Parts, 0, Cand.Parts, P.Occurrences - 1);
    uint64_t Whole = 0;
    size_t Segments = pipelineSegments(Cand, Streams, Whole);
    if (Segments > 1) {
      P.Segments = Segments;
      P.Occurrences /= Segments;
      P.Bytes = Whole;
      P.MaxBytes = 0;
      P.Note += std::string(P.Note.empty() ? "" : "; ") + "pipelined in " +
                std::to_string(Segments) + " segments";
    }
    addSites(P, Cand, Streams);
    Found.push_back(std::move(P));
    return true;
  }

  /// How many consecutive occurrences of \p Cand are one message sent in
  /// segments (a pipeline): on every rank each starts where the one before
  /// ends, and each of its steps uses the bytes right after those of the
  /// same step before it. Every run of such occurrences must be equally
  /// long; 1 if there are none. \p Whole gets the whole message's size.
  static size_t pipelineSegments(const Candidate &Cand,
                                 const std::vector<Stream> &Streams,
                                 uint64_t &Whole) {
    auto continues = [&](size_t Occ) {
      for (const RankPart &P : Cand.Parts) {
        if (P.Starts[Occ] + P.Length != P.Starts[Occ + 1])
          return false;
        for (size_t J = 0; J < P.Length; ++J) {
          const StepEvent &A = Streams[P.CommRank][P.Starts[Occ] + J];
          const StepEvent &B = Streams[P.CommRank][P.Starts[Occ + 1] + J];
          if (!A.Buffer || B.Buffer != A.Buffer + A.Bytes)
            return false;
        }
      }
      return true;
    };
    const RankPart &Root = Cand.Parts[0];
    auto bytesOf = [&](size_t Occ) {
      uint64_t Bytes = 0;
      for (size_t J = 0; J < Root.Length; ++J)
        Bytes =
            std::max(Bytes, Streams[Root.CommRank][Root.Starts[Occ] + J].Bytes);
      return Bytes;
    };
    size_t K = Root.Starts.size(), Segments = 0, Run = 0;
    uint64_t RunBytes = 0;
    for (size_t Occ = 0; Occ < K; ++Occ) {
      ++Run;
      RunBytes += bytesOf(Occ);
      if (Occ + 1 < K && continues(Occ))
        continue;
      if (Segments && Run != Segments)
        return 1; // Runs of different lengths: not one shape.
      Segments = Run;
      Whole = std::max(Whole, RunBytes);
      Run = 0;
      RunBytes = 0;
    }
    return Segments;
  }

  void addSites(Pattern &P, const Candidate &Cand,
                const std::vector<Stream> &Streams) {
    const trace::Communicator &Comm = T.Comms[Cand.Comm];
    std::map<std::pair<uint32_t, bool>, std::set<int>> Sites;
    for (const RankPart &Part : Cand.Parts)
      for (size_t Start : Part.Starts)
        for (size_t K = 0; K < Part.Length; ++K) {
          const StepEvent &S = Streams[Part.CommRank][Start + K];
          Sites[{S.Site, S.Send}].insert(Comm.Members[Part.CommRank]);
        }
    for (const auto &[Key, Ranks] : Sites)
      P.Sites.push_back({Key.first, Key.second,
                         std::vector<int>(Ranks.begin(), Ranks.end())});
  }

  //===-- Dataflow evidence ----------------------------------------------===//

  /// What a failed matching of the steps \p Used of \p Streams means for
  /// the user: receives with no send at all mean the trace lacks sends; a
  /// matching that works once blocking sends may return unmatched means
  /// the program relies on MPI buffering them; else the matching's own
  /// message.
  static std::string
  whyUnmatched(const cg::Graph &G, const cg::Matching &M, const cg::Status &St,
               const std::vector<Stream> &Streams,
               const std::vector<std::vector<size_t>> &Used) {
    size_t Sends = 0, Recvs = 0;
    for (cg::OpId Op : M.Unmatched)
      ++(G.ops()[Op].Kind == cg::OpKind::Send ? Sends : Recvs);
    // The receives stuck behind them wait for those sends as well.
    for (cg::OpId Op : M.NeverReady)
      Recvs += G.ops()[Op].Kind == cg::OpKind::Recv;
    if (Recvs > 0 && Sends == 0)
      return std::to_string(Recvs) + " receive" + (Recvs == 1 ? "" : "s") +
             " match no send of the trace, so the trace is incomplete: a "
             "program that defines MPI_Send (or another MPI function) "
             "itself and calls PMPI_Send from it hides those calls from the "
             "tracer (" +
             St.Message + ")";
    cg::Graph Buffered(G.numProcs());
    std::vector<StepRef> Unused;
    for (size_t R = 0; R < Streams.size(); ++R) {
      cg::LocalGraph L(static_cast<cg::Rank>(R));
      if (!addSteps(Streams[R], Used[R], L, Unused, int(R),
                    /*BufferedSends=*/true) ||
          !Buffered.add(L).ok())
        return St.Message;
    }
    cg::Matching Again;
    if (cg::match(Buffered, Again).ok())
      return "the program relies on MPI buffering its blocking sends (a "
             "rank's MPI_Send returns before the receive is posted, so "
             "ranks send before they receive); that is correct only while "
             "MPI buffers the messages, and the dataflow analysis takes "
             "sends as synchronous";
    return St.Message;
  }

  /// Whether the analysis of the steps \p Used of \p Streams (ascending
  /// indices per rank) may find a collective over the whole communicator,
  /// or that they cannot be matched. Not when every step is matched inside
  /// them, none is a blocking send (the model of the analysis takes those
  /// as synchronous, and says when the program relies on MPI buffering
  /// them), and no rank sends from a buffer it receives into: a rank's data
  /// then reaches only the ranks it sends to, and every collective needs a
  /// rank that sends to, or receives from, every other rank (a halo
  /// exchange has neither). The graph of such steps is the largest
  /// `detect` would build (all the steps of a long run no template
  /// explains), to find nothing.
  bool dataflowMayFormACollective(
      const std::vector<Stream> &Streams,
      const std::vector<std::vector<size_t>> &Used) const {
    size_t N = Streams.size();
    auto isUsed = [&](StepRef S) {
      return S.first >= 0 &&
             std::binary_search(Used[S.first].begin(), Used[S.first].end(),
                                size_t(S.second));
    };
    std::vector<bool> SendsTo(N), ReceivesFrom(N);
    for (size_t R = 0; R < N; ++R) {
      SendsTo.assign(N, false);
      ReceivesFrom.assign(N, false);
      size_t Out = 0, In = 0;
      std::vector<std::pair<uint64_t, uint64_t>> Received; // [begin, end).
      for (size_t K : Used[R]) {
        const StepEvent &E = Streams[R][K];
        if (E.Peer < 0 || size_t(E.Peer) >= N || E.BlockingSend ||
            !isUsed(Partners[R][K]))
          return true; // It may not match: the analysis says why.
        std::vector<bool> &Peers = E.Send ? SendsTo : ReceivesFrom;
        if (!Peers[E.Peer]) {
          Peers[E.Peer] = true;
          ++(E.Send ? Out : In);
        }
        if (!E.Send && E.Bytes > 0)
          Received.emplace_back(E.Buffer, E.Buffer + E.Bytes);
      }
      if (Out + 1 >= N || In + 1 >= N)
        return true;
      std::sort(Received.begin(), Received.end());
      // Each received region's end, as far as the regions before reach.
      for (size_t I = 1; I < Received.size(); ++I)
        Received[I].second =
            std::max(Received[I].second, Received[I - 1].second);
      for (size_t K : Used[R]) {
        const StepEvent &E = Streams[R][K];
        if (!E.Send || E.Bytes == 0)
          continue;
        // The last region starting before this send's end: does any region
        // up to it reach past the send's start?
        auto It =
            std::lower_bound(Received.begin(), Received.end(),
                             std::make_pair(E.Buffer + E.Bytes, uint64_t(0)));
        if (It != Received.begin() && std::prev(It)->second > E.Buffer)
          return true; // It may forward what it received.
      }
    }
    return false;
  }

  /// All point-to-point steps of the communicator as one graph; the
  /// collectives its dataflow forms over all ranks become patterns if they
  /// are compact: on every rank their steps come in runs of one length, as
  /// many runs on every rank, with nothing else of the communicator inside.
  void dataflowPatterns(uint32_t C, const std::vector<Stream> &Streams,
                        std::vector<Pattern> &Found,
                        std::vector<std::string> &Warnings) {
    // Steps already explained by templates are left out.
    std::set<std::pair<int, uint32_t>> Claimed;
    const trace::Communicator &Comm = T.Comms[C];
    for (const Pattern &P : Found)
      if (P.Comm == C)
        for (const PatternSite &S : P.Sites)
          for (int R : S.Ranks)
            Claimed.insert({commRank(Comm, R), S.Site});
    std::vector<RankPart> Parts;
    std::vector<std::vector<size_t>> Used(Streams.size());
    bool HaveSteps = false;
    for (size_t R = 0; R < Streams.size(); ++R) {
      for (size_t K = 0; K < Streams[R].size(); ++K)
        if (Streams[R][K].P2P && !Claimed.count({int(R), Streams[R][K].Site}))
          Used[R].push_back(K);
      HaveSteps |= !Used[R].empty();
    }
    if (!HaveSteps || !dataflowMayFormACollective(Streams, Used))
      return;
    std::vector<std::vector<StepRef>>().swap(Partners); // Read no more.
    // The graph: each rank's unclaimed steps with their dependencies.
    cg::Graph G(static_cast<cg::Rank>(Streams.size()));
    std::vector<StepRef> OpStep;
    size_t Operations = 0;
    for (const std::vector<size_t> &Steps : Used)
      Operations += Steps.size();
    G.reserve(Operations);
    OpStep.reserve(Operations);
    for (size_t R = 0; R < Streams.size(); ++R) {
      cg::LocalGraph L(static_cast<cg::Rank>(R));
      if (!addSteps(Streams[R], Used[R], L, OpStep, int(R)) || !G.add(L).ok())
        return;
    }
    cg::Matching M;
    cg::Status St = cg::match(G, M);
    if (!St.ok()) {
      Warnings.push_back(
          "communicator " + std::to_string(C) +
          ": no dataflow analysis: " + whyUnmatched(G, M, St, Streams, Used));
      return;
    }
    std::vector<cg::Transfer> SST;
    std::vector<cg::OpId> Writers;
    if (!cg::propagate(G, M, SST, nullptr, &Writers).ok())
      return;
    cg::DetectionOptions O;
    O.Subsets = false; // Patterns span the communicator.
    cg::Detection D = cg::detect(SST, G.numProcs(), O);
    if (D.Collectives.empty())
      return;
    // Which operation last wrote each block, found by (rank, address) in
    // the transfers sorted so (a map held a node per transfer: 10^6 of
    // them on a long halo exchange).
    struct Written {
      cg::Rank Dst;
      cg::Address Addr;
      uint32_t Transfer;
      bool operator<(const Written &O) const {
        return std::tie(Dst, Addr, Transfer) <
               std::tie(O.Dst, O.Addr, O.Transfer);
      }
    };
    std::vector<Written> ByBlock;
    ByBlock.reserve(SST.size());
    for (size_t I = 0; I < SST.size(); ++I)
      ByBlock.push_back({SST[I].Dst, SST[I].DstAddr, uint32_t(I)});
    std::sort(ByBlock.begin(), ByBlock.end());
    auto lastWriterOf = [&](const cg::Transfer &B) -> std::optional<cg::OpId> {
      auto It = std::upper_bound(ByBlock.begin(), ByBlock.end(),
                                 Written{B.Dst, B.DstAddr, UINT32_MAX});
      if (It == ByBlock.begin() || (--It)->Dst != B.Dst ||
          It->Addr != B.DstAddr)
        return std::nullopt;
      return Writers[It->Transfer];
    };
    // Each occurrence is a collective of the dataflow (or several, where
    // the dataflow combined neighbours of one shape into one), and each
    // recurs from the same steps as the others: the finest grouping of
    // the steps is the pattern, counted once, with the sizes of all.
    std::vector<Grouping> Groupings;
    for (const cg::Collective &Coll : D.Collectives) {
      // The steps of the collective: the receives that wrote its blocks and
      // the sends they matched.
      std::set<std::pair<int, size_t>> Steps;
      for (const cg::Transfer &B : Coll.Blocks) {
        std::optional<cg::OpId> Writer = lastWriterOf(B);
        if (!Writer)
          continue;
        Steps.insert(OpStep[*Writer]);
        Steps.insert(OpStep[M.PeerOf[*Writer]]);
      }
      addEmptyStepsBetween(Streams, Used, Steps);
      Grouping G{&Coll, Candidate(), 0};
      if (compact(Streams, Steps, G.Cand, G.Runs) &&
          selfContained(Streams, G.Cand, G.Runs, Coll))
        Groupings.push_back(std::move(G));
    }
    std::vector<std::optional<size_t>> CoveredBy = coarserGroupings(Groupings);
    std::vector<size_t> FoundAt(Groupings.size());
    for (size_t I = 0; I < Groupings.size(); ++I) {
      if (CoveredBy[I])
        continue;
      const cg::Collective &Coll = *Groupings[I].Coll;
      Candidate &Cand = Groupings[I].Cand;
      uint64_t Runs = Groupings[I].Runs;
      Pattern P;
      P.Collective = cg::name(Coll.Kind);
      P.Topology = "dataflow";
      P.Comm = C;
      P.Root = Coll.Root >= 0 ? Comm.Members[Coll.Root] : -1;
      P.Bytes = Coll.BlockSize;
      P.Occurrences = Runs;
      P.Evidence = "dataflow";
      judgeContents(P, Streams, Cand.Parts, 0, Cand.Parts, Runs - 1);
      Cand.Comm = C;
      addSites(P, Cand, Streams);
      FoundAt[I] = Found.size();
      Found.push_back(std::move(P));
    }
    for (size_t I = 0; I < Groupings.size(); ++I)
      if (CoveredBy[I])
        addSize(Found[FoundAt[*CoveredBy[I]]], Groupings[I].Coll->BlockSize);
  }

  /// A collective of the dataflow as occurrences of steps that recur.
  struct Grouping {
    const cg::Collective *Coll;
    Candidate Cand;
    uint64_t Runs;
  };

  /// Of \p Groupings of steps into occurrences, those whose steps a finer
  /// one (fewer steps per occurrence) already explains: for each, the
  /// grouping that does (which is none of them).
  static std::vector<std::optional<size_t>>
  coarserGroupings(const std::vector<Grouping> &Groupings) {
    size_t N = Groupings.size();
    auto StepsPerOccurrence = [&](size_t I) {
      size_t Steps = 0;
      for (const RankPart &Part : Groupings[I].Cand.Parts)
        Steps += Part.Length;
      return Steps;
    };
    std::vector<size_t> Finest(N);
    std::iota(Finest.begin(), Finest.end(), 0);
    std::stable_sort(Finest.begin(), Finest.end(), [&](size_t A, size_t B) {
      return StepsPerOccurrence(A) < StepsPerOccurrence(B);
    });
    std::map<std::pair<int, size_t>, size_t> OwnerOf;
    std::vector<std::optional<size_t>> CoveredBy(N);
    for (size_t I : Finest) {
      std::vector<std::pair<int, size_t>> Steps;
      for (const RankPart &Part : Groupings[I].Cand.Parts)
        for (size_t Start : Part.Starts)
          for (size_t J = 0; J < Part.Length; ++J)
            Steps.push_back({Part.CommRank, Start + J});
      if (!Steps.empty() && llvm::all_of(Steps, [&](const auto &S) {
            return OwnerOf.count(S);
          })) {
        CoveredBy[I] = OwnerOf[Steps.front()];
        continue;
      }
      for (const auto &S : Steps)
        OwnerOf.emplace(S, I);
    }
    return CoveredBy;
  }

  /// Adds to \p Steps the messages of no bytes that lie, on each rank,
  /// between the first and the last of its steps: they move no data, so
  /// the dataflow names no writer for them, but they are calls of the same
  /// exchange (a recursive doubling that sends the blocks a partner group
  /// lacks, none at a power of two).
  static void addEmptyStepsBetween(const std::vector<Stream> &Streams,
                                   const std::vector<std::vector<size_t>> &Used,
                                   std::set<std::pair<int, size_t>> &Steps) {
    std::map<int, std::pair<size_t, size_t>> Span;
    for (const auto &[R, K] : Steps) { // Ordered by rank, then position.
      auto [It, New] = Span.try_emplace(R, K, K);
      if (!New)
        It->second.second = K;
    }
    for (const auto &[R, FirstLast] : Span)
      for (size_t K : Used[R])
        if (K > FirstLast.first && K < FirstLast.second &&
            Streams[R][K].Bytes == 0)
          Steps.insert({R, K});
  }

  /// Whether the first and the last of the \p Runs occurrences of
  /// \p Cand, each on its own, form the collective \p Coll that the
  /// dataflow of all unexplained steps named. The data of an occurrence
  /// must come from that occurrence: the trace does not show a root
  /// refilling its buffer, so across occurrences data seems to flow from
  /// an earlier root (a ring that rolls the pieces of a broadcast whose
  /// root moves looks like a broadcast from the first root).
  static bool selfContained(const std::vector<Stream> &Streams,
                            const Candidate &Cand, uint64_t Runs,
                            const cg::Collective &Coll) {
    bool Checked;
    std::string Kind =
        dataflowOfBoth(Streams, Cand.Parts, 0, Cand.Parts, Runs - 1, Checked);
    return !Checked || Kind == cg::name(Coll.Kind);
  }

  /// Whether the occurrence \p Steps (one per rank: the last, which the
  /// dataflow saw) recurs compactly: on every rank, the steps with its call
  /// sites and peers form back-to-back copies of exactly its sequence,
  /// nothing else inside a copy, and every rank has as many copies. Fills
  /// \p Cand with the copies and \p Runs with their number.
  bool compact(const std::vector<Stream> &Streams,
               const std::set<std::pair<int, size_t>> &Steps, Candidate &Cand,
               uint64_t &Runs) {
    std::map<int, std::vector<std::tuple<bool, int32_t, uint32_t>>> Sequence;
    for (const auto &[R, K] : Steps) // Ordered by rank, then position.
      Sequence[R].push_back(Streams[R][K].key());
    Runs = 0;
    for (const auto &[R, Seq] : Sequence) {
      std::set<std::tuple<bool, int32_t, uint32_t>> KeySet(Seq.begin(),
                                                           Seq.end());
      const Stream &S = Streams[R];
      std::vector<size_t> Starts;
      for (size_t K = 0; K < S.size();) {
        if (!S[K].P2P || !KeySet.count(S[K].key())) {
          ++K;
          continue;
        }
        // A copy must start here and match the sequence step by step.
        if (K + Seq.size() > S.size())
          return false;
        for (size_t J = 0; J < Seq.size(); ++J)
          if (!S[K + J].P2P || S[K + J].key() != Seq[J])
            return false; // A step missing or something inside.
        Starts.push_back(K);
        K += Seq.size();
      }
      if (Runs && Starts.size() != Runs)
        return false; // Occurrence counts differ between ranks.
      Runs = Starts.size();
      Cand.Parts.push_back({R, Starts, Seq.size()});
    }
    return Runs > 0;
  }

  /// Whether occurrence \p Occurrence of a gather's shape whose dataflow is
  /// no gather is a reduction: all its messages are of one size, and every
  /// rank that receives several receives them into one buffer, so each
  /// must be folded into the rank's data before the next one overwrites it
  /// (a gather keeps the blocks apart, and its messages grow up a tree).
  static bool combinesWhereItArrives(const std::vector<Stream> &Streams,
                                     const std::vector<RankPart> &Parts,
                                     size_t Occurrence) {
    std::optional<uint64_t> Bytes;
    bool Reused = false;
    for (const RankPart &Part : Parts) {
      std::optional<uint64_t> Into;
      for (size_t K = 0; K < Part.Length; ++K) {
        const StepEvent &E =
            Streams[Part.CommRank][Part.Starts[Occurrence] + K];
        if (!Bytes)
          Bytes = E.Bytes;
        if (E.Bytes != *Bytes || E.Bytes == 0)
          return false;
        if (E.Send)
          continue;
        if (Into && *Into != E.Buffer)
          return false;
        Reused |= Into.has_value();
        Into = E.Buffer;
      }
    }
    return Reused;
  }

  /// The largest message of one occurrence of \p Parts.
  static uint64_t occurrenceBytes(const std::vector<Stream> &Streams,
                                  const std::vector<RankPart> &Parts,
                                  size_t Occurrence) {
    uint64_t Bytes = 0;
    for (const RankPart &Part : Parts)
      for (size_t K = 0; K < Part.Length; ++K)
        Bytes = std::max(
            Bytes, Streams[Part.CommRank][Part.Starts[Occurrence] + K].Bytes);
    return Bytes;
  }

  /// Widens the sizes \p P reports to take in an occurrence of \p Bytes.
  static void addSize(Pattern &P, uint64_t Bytes) {
    uint64_t Largest = std::max({P.Bytes, P.MaxBytes, Bytes});
    P.Bytes = std::min(P.Bytes, Bytes);
    P.MaxBytes = Largest > P.Bytes ? Largest : 0;
  }

  //===-- Roots that change ----------------------------------------------===//

  /// The same pattern from the same call sites with different roots is one
  /// pattern whose root varies, not several fixed-root ones.
  static void mergeVaryingRoots(std::vector<Pattern> &Found) {
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

  const trace::Trace &T;
  DetectOptions Options;
  /// Each call site's representative among those of its source location.
  std::vector<uint32_t> SourceSite;
  /// The condensed streams of the communicator being searched.
  std::vector<CondensedStream> Condensed;
  /// The message partners of its steps (messagePartners).
  std::vector<std::vector<StepRef>> Partners;
  /// Each rank's peers in its stream (peersOf).
  std::vector<std::vector<int32_t>> Peers;
  /// Occurrences grown from master repeats of every root, by group and by
  /// their windows (rotations giving the same repeat find them twice).
  using RotatingKey =
      std::tuple<std::string, std::string, std::set<std::pair<uint32_t, bool>>>;
  std::map<RotatingKey, GrownByWindows> Rotating;
  /// The window lengths of grown occurrences, each kept once (a set keeps
  /// its elements where they are); cleared with the groups.
  std::set<std::vector<uint32_t>> WindowLengths;
  /// The steps of the occurrences growRotating grew from the roots before
  /// the current one, for the template and derivation being tried, and
  /// those it grew from the current root.
  std::optional<StepSet> GrownSteps;
  /// The occurrences of each rank's slave repeats, by rank and repeat, for
  /// the template and derivation being tried: the same for most roots.
  std::map<std::pair<int, std::vector<Step>>,
           std::map<SymbolString, std::vector<size_t>>>
      SlaveOccurrences;
  std::vector<StepRef> GrownByThisRoot;
};

} // namespace

DetectResult detectPatterns(const trace::Trace &T,
                            const DetectOptions &Options) {
  CommStreams Work = searchedComms(T);
  for (int32_t World = 0; World < T.WorldSize; ++World)
    takeStreams(T, World, Work);
  return Detector(T, Options).run(std::move(Work));
}

DetectResult detectPatternsReleasingEvents(trace::Trace &T,
                                           const DetectOptions &Options) {
  RankStepCollector Steps;
  for (int32_t World = 0; World < T.WorldSize; ++World)
    Steps.take(T, World);
  return Steps.detect(T, Options);
}

struct RankStepCollector::Impl {
  std::optional<CommStreams> Work;
};

RankStepCollector::RankStepCollector() : I(std::make_unique<Impl>()) {}
RankStepCollector::~RankStepCollector() = default;

void RankStepCollector::take(trace::Trace &T, int World) {
  if (!I->Work)
    I->Work = searchedComms(T);
  takeStreams(T, World, *I->Work);
  releaseEvents(T, World);
}

DetectResult RankStepCollector::detect(const trace::Trace &T,
                                       const DetectOptions &Options) {
  if (!I->Work)
    I->Work = searchedComms(T); // A trace of no ranks.
  trimHeap();
  CommStreams Work = std::move(*I->Work);
  I->Work.reset();
  return Detector(T, Options).run(std::move(Work));
}

} // namespace patterns
} // namespace mpilift
