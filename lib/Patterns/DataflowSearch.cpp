//===- DataflowSearch.cpp - Collectives in the dataflow of all steps ------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Search.h"

#include "mpilift/CommGraph/CommGraph.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

namespace mpilift {
namespace patterns {
namespace detail {
namespace {

namespace cg = commgraph;

/// A collective of the dataflow as occurrences of steps that recur.
struct Grouping {
  const cg::Collective *Coll;
  Candidate Cand;
  uint64_t Runs;
};

/// Of \p Groupings of steps into occurrences, those whose steps a finer
/// one (fewer steps per occurrence) already explains: for each, the
/// grouping that does (which is none of them).
std::vector<std::optional<size_t>>
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
    if (!Steps.empty() &&
        llvm::all_of(Steps, [&](const auto &S) { return OwnerOf.count(S); })) {
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
void addEmptyStepsBetween(const std::vector<Stream> &Streams,
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
bool selfContained(const std::vector<Stream> &Streams, const Candidate &Cand,
                   uint64_t Runs, const cg::Collective &Coll) {
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

/// What a failed matching of the steps \p Used of \p Streams means for
/// the user: receives with no send at all mean the trace lacks sends; a
/// matching that works once blocking sends may return unmatched means
/// the program relies on MPI buffering them; else the matching's own
/// message.
std::string whyUnmatched(const cg::Graph &G, const cg::Matching &M,
                         const cg::Status &St,
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
/// indices per rank, holding the partner of each matched step they hold:
/// leaveOutHalfClaimedMessages) may find a collective over the whole
/// communicator, or that they cannot be matched. Not when every step is
/// matched, none is a blocking send (the model of the analysis takes those
/// as synchronous, and says when the program relies on MPI buffering
/// them), and no rank sends from a buffer it receives into: a rank's data
/// then reaches only the ranks it sends to, and every collective needs a
/// rank that sends to, or receives from, every other rank (a halo
/// exchange has neither). The graph of such steps is the largest
/// `detect` would build (all the steps of a long run no template
/// explains), to find nothing.
bool dataflowMayFormACollective(const std::vector<Stream> &Streams,
                                const MessagePartners &Partners,
                                const std::vector<std::vector<size_t>> &Used) {
  size_t N = Streams.size();
  std::vector<bool> SendsTo(N), ReceivesFrom(N);
  for (size_t R = 0; R < N; ++R) {
    SendsTo.assign(N, false);
    ReceivesFrom.assign(N, false);
    size_t Out = 0, In = 0;
    std::vector<std::pair<uint64_t, uint64_t>> Received; // [begin, end).
    for (size_t K : Used[R]) {
      const StepEvent &E = Streams[R][K];
      if (E.Peer < 0 || size_t(E.Peer) >= N || E.BlockingSend ||
          Partners(R, K).first < 0)
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
      Received[I].second = std::max(Received[I].second, Received[I - 1].second);
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

/// Leaves out of \p Used (ascending step indices per rank) each step whose
/// message partner (\p Partners, as MPI matches them over all steps) is
/// left out. Patterns claim steps by rank and call site, and a call site
/// can serve a pattern and other messages (a send helper called by a
/// hand-written broadcast and elsewhere): the other end of such a message
/// would match no send, or the next message of its channel, among the
/// steps left. Steps MPI matched with nothing stay: the analysis says why.
void leaveOutHalfClaimedMessages(const std::vector<Stream> &Streams,
                                 const MessagePartners &Partners,
                                 std::vector<std::vector<size_t>> &Used) {
  StepSet UsedSteps(Streams);
  for (size_t R = 0; R < Used.size(); ++R)
    for (size_t K : Used[R])
      UsedSteps.insert(int(R), K);
  for (size_t R = 0; R < Used.size(); ++R)
    llvm::erase_if(Used[R], [&](size_t K) {
      auto [R2, K2] = Partners(R, K);
      return R2 >= 0 && !UsedSteps.contains(R2, K2);
    });
}

} // namespace

// A pattern is compact: on every rank its steps come in runs of one
// length, as many runs on every rank, with nothing else of the
// communicator inside.
void dataflowPatterns(CommSearch &S, std::vector<Pattern> &Found,
                      std::vector<std::string> &Warnings) {
  uint32_t C = S.Comm;
  const std::vector<Stream> &Streams = S.Streams;
  // Steps already explained by templates are left out.
  std::set<std::pair<int, uint32_t>> Claimed;
  const trace::Communicator &Comm = S.comm();
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
  }
  leaveOutHalfClaimedMessages(Streams, S.Partners, Used);
  for (const std::vector<size_t> &Steps : Used)
    HaveSteps |= !Steps.empty();
  if (!HaveSteps || !dataflowMayFormACollective(Streams, S.Partners, Used))
    return;
  S.Partners.release(); // Read no more.
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
    if (It == ByBlock.begin() || (--It)->Dst != B.Dst || It->Addr != B.DstAddr)
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
    noteDataflowOverGaps(P, Streams, Cand.Parts, Cand.Parts, Runs - 1,
                         /*Cut=*/false);
    judgeContents(P, Streams, Cand.Parts, 0, Cand.Parts, Runs - 1);
    addSites(P, Cand.Parts, Streams, Comm);
    FoundAt[I] = Found.size();
    Found.push_back(std::move(P));
  }
  for (size_t I = 0; I < Groupings.size(); ++I)
    if (CoveredBy[I])
      addSize(Found[FoundAt[*CoveredBy[I]]], Groupings[I].Coll->BlockSize);
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
