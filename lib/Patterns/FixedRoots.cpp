//===- FixedRoots.cpp - Template patterns from a fixed root ---------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Search.h"

#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

namespace mpilift {
namespace patterns {
namespace detail {
namespace {

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

/// Whether the slave occurrence at \p SlaveStart of rank \p Slave matches,
/// message for message, the root's occurrence at \p RootStart: the first
/// message between them is matched (\p Partners, as MPI matches them) with
/// the root's first step of the opposite kind with the slave. Shapes alone
/// cannot tell apart two call sites that do the same thing; message order
/// can.
bool alignedWithRoot(const Stream &RootS, size_t RootStart, size_t RootLen,
                     int32_t Root, const Stream &SlaveS, size_t SlaveStart,
                     size_t SlaveLen, int32_t Slave,
                     const MessagePartners &Partners) {
  for (size_t J = 0; J < SlaveLen && SlaveStart + J < SlaveS.size(); ++J) {
    const StepEvent &X = SlaveS[SlaveStart + J];
    if (!X.P2P || X.Peer != Root)
      continue;
    for (size_t I = 0; I < RootLen && RootStart + I < RootS.size(); ++I) {
      const StepEvent &Y = RootS[RootStart + I];
      if (!Y.P2P || Y.Peer != Slave || Y.Send == X.Send || Y.Tag != X.Tag)
        continue;
      return Partners(Slave, SlaveStart + J) ==
             StepRef(Root, static_cast<uint32_t>(RootStart + I));
    }
    return false;
  }
  return true; // No message with the root: nothing to align.
}

/// The template search of one communicator: on the rank that would be the
/// root, the occurrences of a template's master repeat for some (n, root,
/// c); on every other rank, the slave repeat with as many occurrences.
class FixedRootSearch {
public:
  explicit FixedRootSearch(const CommSearch &S)
      : S(S), Partners(S.Partners), Rotating(S) {}

  /// Template candidates compete: the one explaining most steps wins, and
  /// a step belongs to one pattern at most.
  void run(std::vector<Pattern> &Found) {
    uint32_t C = S.Comm;
    const std::vector<Stream> &Streams = S.Streams;
    int64_t N = static_cast<int64_t>(Streams.size());
    // Each rank's stream is condensed on its own: on all cores.
    Condensed.assign(Streams.size(), CondensedStream());
    llvm::parallelFor(0, Streams.size(), [&](size_t R) {
      Condensed[R] = condense(Streams[R], N);
    });
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
        Rotating.beginDerivation();
        for (int64_t Root = 0; Root < (AllToAll ? 1 : N); ++Root) {
          tryRoot(Tm, D, C, Root, Streams, Candidates);
          Rotating.endRoot();
        }
        Rotating.endDerivation();
        SlaveOccurrences.clear();
      }
    }
    std::vector<RotatingGroup> Groups = Rotating.takeGroups();
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
        Rotating.report(Groups[I - Candidates.size()], Claimed, Found);
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
  }

private:
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
          auto [R2, K2] = Partners(P.CommRank, P.Starts[Occ] + K);
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
      std::vector<SymbolString> NoCollective;
      const std::string Collective = familyName(Tm, D);
      for (auto &[Sites, Starts] : Found) {
        std::vector<RankPart> Slaves;
        SlaveGrowth Grown = growToSlaves(Tm, D, P, Streams, Collective,
                                         {int(Root), Starts, A.size()}, Slaves);
        if (Grown == SlaveGrowth::FormsNone)
          NoCollective.push_back(Sites);
        if (Grown != SlaveGrowth::Complete)
          continue;
        // Only now are the root's occurrences copied: a root's repeat
        // occurs in every iteration, and most candidates are turned down.
        Candidate Cand;
        Cand.Collective = Collective;
        Cand.Topology = Tm.topology();
        Cand.Comm = C;
        Cand.RootCommRank = Tm.collective() == "bcast" ? int(Root) : -1;
        Cand.Parts.push_back({int(Root), Starts, A.size()});
        std::move(Slaves.begin(), Slaves.end(), std::back_inserter(Cand.Parts));
        Cand.Order = Candidates.size();
        if (messagesStayInside(Cand))
          Candidates.push_back(std::move(Cand));
      }
      // Occurrences that every rank completes from this root, and whose
      // dataflow forms no collective, are not grown as occurrences of a
      // pattern whose root changes either: a group takes every occurrence
      // grown into it, and report judges the dataflow of its first and
      // last only. A halo exchange read as a chain from the first root it
      // is tried from would otherwise grow in every iteration over every
      // rank, to be dropped at the end as a pattern of one root (over a
      // quarter of the time of a long trace of 1024 ranks).
      for (const SymbolString &Sites : NoCollective)
        Found.erase(Sites);
      if (Tm.collective() == "bcast" && D != Derivation::GatherThenBcast)
        Rotating.grow(Tm, D, P, Found, Condensed);
    }
  }

  /// The root's part of a candidate while growToSlaves judges it: a view
  /// of the root's occurrences (RankPart would copy them).
  struct RootPart {
    int CommRank;
    const std::vector<size_t> &Starts;
    size_t Length;
  };

  /// What growToSlaves found.
  enum class SlaveGrowth {
    Complete,   ///< Every rank has its part; the dataflow forms one.
    Incomplete, ///< Some rank has no part with as many occurrences.
    FormsNone,  ///< Complete, but the dataflow forms no collective.
  };

  /// Finds every other rank's slave repeat with as many occurrences as
  /// \p Root has of its master repeat, and whether the dataflow of the
  /// first and last occurrence (where the trace has buffers) forms a
  /// \p Collective, as report decides: Complete if it does (each other
  /// rank's part then goes to \p Slaves), FormsNone if not, Incomplete
  /// when some rank has no such repeat (or the root's window mixes tags).
  /// A candidate turned down never claims a step, so it is not kept: a
  /// halo exchange has the shape of a chain from every root, with every
  /// rank's occurrences, and forwards nothing. The dataflow is judged on
  /// those two occurrences before every rank's others are copied.
  SlaveGrowth growToSlaves(const Template &Tm, Derivation D,
                           const TemplateParams &P,
                           const std::vector<Stream> &Streams,
                           const std::string &Collective, RootPart Root,
                           std::vector<RankPart> &Slaves) {
    size_t K = Root.Starts.size();
    std::set<int32_t> RootTags;
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
      return SlaveGrowth::Incomplete;
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
        return SlaveGrowth::Incomplete; // Every rank takes part.
      const std::vector<size_t> *Starts = chooseSlaveOccurrences(
          Streams, int(R), Alpha, K, RootTags, Root.CommRank,
          Root.Starts.front(), Root.Length, int32_t(P.Root));
      if (!Starts)
        return SlaveGrowth::Incomplete;
      Chosen.push_back(Starts);
      Ends.push_back({int(R), {Starts->front(), Starts->back()}, Alpha.size()});
    }
    if (dataflowTurnsDown(Collective, Ends, Streams))
      return SlaveGrowth::FormsNone;
    for (size_t I = 0; I < Chosen.size(); ++I)
      Slaves.push_back({Ends[I + 1].CommRank, *Chosen[I], Ends[I + 1].Length});
    return SlaveGrowth::Complete;
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
    return detail::scatterThenAllgather(Streams, Occurrences, Mine, Claimed);
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
    const trace::Communicator &Comm = S.comm();
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
      P.Topology = scatterAllgatherTopology(Cand.Topology);
      setAssembledSizes(P, Streams, *Rolled);
    }
    if (Checked && !Rolled && (Kind == "scatter" || Kind == "scatterv") &&
        isModifiedTemplate(Cand.Topology)) {
      markUnconfirmedModified(P, movesUndescribedGaps(Streams, Cand.Parts, 0));
    } else if (Checked && Kind.empty() &&
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
      noteDataflowOverGaps(P, Streams, Cand.Parts, Cand.Parts,
                           P.Occurrences - 1, /*Cut=*/true);
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
      addSites(P, Extended.Parts, Streams, S.comm());
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
    addSites(P, Cand.Parts, Streams, S.comm());
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
          if (!A.Buffer || A.Noncontiguous || B.Buffer != A.Buffer + A.Bytes)
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

  const CommSearch &S;
  const MessagePartners &Partners;
  /// Each rank's condensed stream.
  std::vector<CondensedStream> Condensed;
  /// Each rank's peers in its stream (peersOf).
  std::vector<std::vector<int32_t>> Peers;
  /// The occurrences of each rank's slave repeats, by rank and repeat, for
  /// the template and derivation being tried: the same for most roots.
  std::map<std::pair<int, std::vector<Step>>,
           std::map<SymbolString, std::vector<size_t>>>
      SlaveOccurrences;
  /// What grows from the master repeats into patterns whose root changes;
  /// the groups it gives point into it.
  RotatingRoots Rotating;
};

} // namespace

void templatePatterns(const CommSearch &S, std::vector<Pattern> &Found) {
  FixedRootSearch(S).run(Found);
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
