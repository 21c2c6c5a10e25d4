//===- Streams.cpp - Ranks' point-to-point steps, from traces -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Streams.h"

#include "mpilift/MPI/Vocabulary.h"
#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/TraceRuntime/TraceFormat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace mpilift {
namespace patterns {
namespace detail {

namespace cg = commgraph;
using mpi::Family;

int32_t commRank(const trace::Communicator &C, int32_t World) {
  for (size_t I = 0; I < C.Members.size(); ++I)
    if (C.Members[I] == World)
      return static_cast<int32_t>(I);
  return -1;
}

namespace {

/// For each event of \p R that posted a request, its first completion
/// record: the peer, tag and size a nonblocking receive got.
llvm::DenseMap<uint32_t, const trace::RequestRecord *>
completions(const trace::RankTrace &R) {
  llvm::DenseMap<uint32_t, const trace::RequestRecord *> Out;
  for (const trace::RequestRecord &Rec : R.Requests)
    if (!Rec.Started && Rec.PostedBy != trace::NoEvent)
      Out.try_emplace(Rec.PostedBy, &Rec);
  return Out;
}

/// The rank in \p C of each world rank of a run of \p WorldSize, -1 for
/// none (commRank, for every world rank at once).
std::vector<int32_t> commRanks(const trace::Communicator &C,
                               int32_t WorldSize) {
  std::vector<int32_t> Out(std::max(WorldSize, int32_t(0)), -1);
  for (size_t I = C.Members.size(); I-- > 0;)
    if (C.Members[I] >= 0 && C.Members[I] < WorldSize)
      Out[C.Members[I]] = static_cast<int32_t>(I);
  return Out;
}

/// Tracks what has completed on a rank: the frontier every new step must
/// follow. A blocking step replaces it; a posted (nonblocking) step does
/// not join it until a wait completes its request.
class Frontier {
public:
  void blocking(uint32_t Step) { Steps.assign(1, Step); }
  void completed(uint32_t Step) {
    Steps.push_back(Step);
    if (Steps.size() > 64) // Old completions are implied by newer ones.
      Steps.erase(Steps.begin());
  }
  const std::vector<uint32_t> &steps() const { return Steps; }

private:
  std::vector<uint32_t> Steps;
};

} // namespace

std::vector<uint32_t> sitesBySource(const trace::Trace &T) {
  std::vector<uint32_t> Same(T.Sites.size());
  std::iota(Same.begin(), Same.end(), 0);
  trace::Symbolizer Symbols(T);
  std::map<std::tuple<std::string, unsigned, unsigned>, uint32_t> First;
  for (uint32_t Site = 0; Site < T.Sites.size(); ++Site) {
    llvm::Expected<trace::SourceLocation> L = Symbols.symbolize(Site);
    if (!L) {
      llvm::consumeError(L.takeError()); // `detect` names it when printing.
      continue;
    }
    if (L->Line == 0)
      continue;
    Same[Site] =
        First.try_emplace({L->File, L->Line, L->Column}, Site).first->second;
  }
  return Same;
}

Stream streamOf(const trace::Trace &T, int World, uint32_t Comm) {
  const trace::Communicator &C = T.Comms[Comm];
  const trace::RankTrace &R = T.Ranks[World];
  Stream S;
  Frontier F;
  std::map<uint32_t, uint32_t> StepOfPost; // Posting event -> step.
  const llvm::DenseMap<uint32_t, const trace::RequestRecord *> Completion =
      completions(R);
  const std::vector<int32_t> RankIn = commRanks(C, T.WorldSize);
  auto commRankOf = [&](int32_t World) {
    if (World >= 0 && World < int32_t(RankIn.size()))
      return RankIn[World];
    return World >= 0 ? commRank(C, World) : -1;
  };
  auto add = [&](const StepEvent &St, bool Blocking, uint64_t Hash,
                 llvm::ArrayRef<trace::LayoutRun> Layout = {}) {
    uint32_t Index = S.push(St, F.steps(), Hash, Layout);
    if (Blocking)
      F.blocking(Index);
    return Index;
  };
  for (uint32_t I = 0; I < R.Events.size(); ++I) {
    const trace::Event &E = R.Events[I];
    Family F0 = mpi::familyOf(E.Function);
    if (F0 == Family::Wait || F0 == Family::Test) {
      for (const trace::RequestRecord &Rec : T.requestsOf(World, E)) {
        auto It = StepOfPost.find(Rec.PostedBy);
        if (!Rec.Started && It != StepOfPost.end())
          F.completed(It->second);
      }
      continue;
    }
    if (E.Comm != Comm)
      continue;
    StepEvent St;
    St.Site = E.Site;
    St.Tag = E.Tag;
    St.Bytes = E.Bytes;
    St.Buffer = E.Buffer;
    St.Noncontiguous = E.Flags & traceformat::FlagNoncontiguous;
    St.HasHash = E.HasHash;
    uint64_t Hash = E.Hash;
    llvm::ArrayRef<trace::LayoutRun> Layout = R.layoutOf(E, /*Recv=*/false);
    switch (F0) {
    case Family::BlockingSend:
      St.Send = true;
      St.BlockingSend = true;
      St.Peer = commRankOf(E.Peer);
      add(St, /*Blocking=*/true, Hash, Layout);
      break;
    case Family::NonblockingSend:
      St.Send = true;
      St.Peer = commRankOf(E.Peer);
      StepOfPost[I] = add(St, /*Blocking=*/false, Hash, Layout);
      break;
    case Family::BlockingRecv:
      St.Peer = commRankOf(E.Peer);
      add(St, /*Blocking=*/true, Hash, Layout);
      break;
    case Family::NonblockingRecv: {
      int32_t Peer = E.Peer;
      if (const trace::RequestRecord *Done = Completion.lookup(I)) {
        Peer = Done->Peer;
        St.Tag = Done->Tag;
        St.Bytes = Done->Bytes;
        St.HasHash = Done->HasHash;
        Hash = Done->Hash;
      }
      St.Peer = commRankOf(Peer);
      StepOfPost[I] = add(St, /*Blocking=*/false, Hash, Layout);
      break;
    }
    case Family::SendRecv: {
      // Both halves run concurrently; what follows waits for both.
      St.Send = true;
      St.Peer = commRankOf(E.Peer);
      uint32_t First = add(St, /*Blocking=*/false, Hash, Layout);
      StepEvent Rv = St;
      Rv.Send = false;
      Rv.Peer = commRankOf(E.RecvPeer);
      Rv.Tag = E.RecvTag;
      Rv.Bytes = E.RecvBytes;
      Rv.Buffer = E.RecvBuffer;
      Rv.Noncontiguous = E.Flags & traceformat::FlagRecvNoncontiguous;
      Rv.HasHash = E.HasRecvHash;
      add(Rv, /*Blocking=*/true, E.RecvHash, R.layoutOf(E, /*Recv=*/true));
      F.completed(First);
      break;
    }
    case Family::BlockingCollective:
    case Family::NonblockingCollective:
      St.P2P = false;
      add(St, /*Blocking=*/false, Hash);
      break;
    default:
      break; // Probes and the like: no step, no break in a pattern.
    }
  }
  S.shrinkToFit();
  return S;
}

bool addSteps(
    const Stream &S, const std::vector<size_t> &Steps, cg::LocalGraph &L,
    std::vector<StepRef> &OpStep, int Rank, bool BufferedSends,
    const llvm::DenseMap<uint32_t, llvm::SmallVector<Piece, 4>> *Pieces) {
  if (Steps.empty())
    return true;
  // For each step from the first added to the last: the added steps' ops
  // that what follows it must follow. "Follows" is transitive: a step left
  // out (another pattern's, a collective) passes on what it followed, or
  // an op after it could be issued before an op before it, and match the
  // wrong message of a channel.
  size_t First = Steps.front();
  std::vector<llvm::SmallVector<uint32_t, 2>> Reach(Steps.back() - First + 1);
  auto reachOf = [&](uint32_t Before) -> llvm::ArrayRef<uint32_t> {
    if (Before < First)
      return {};
    return Reach[Before - First];
  };
  auto follows = [&](size_t K) {
    llvm::SmallVector<uint32_t, 2> Out;
    for (uint32_t Before : S.after(K))
      for (uint32_t Op : reachOf(Before))
        if (!llvm::is_contained(Out, Op))
          Out.push_back(Op);
    return Out;
  };
  size_t Next = 0; // Into Steps.
  for (size_t K = First; K <= Steps.back(); ++K) {
    llvm::SmallVector<uint32_t, 2> After = follows(K);
    if (K != Steps[Next]) {
      Reach[K - First] = std::move(After);
      continue;
    }
    ++Next;
    const StepEvent &St = S[K];
    if (St.Peer < 0 || !St.Buffer)
      return false; // Unresolved wildcard, or no buffers: no dataflow.
    llvm::SmallVector<Piece, 4> Whole{{St.Buffer, St.Bytes}};
    const llvm::SmallVector<Piece, 4> *Parts = &Whole;
    if (Pieces) {
      auto It = Pieces->find(uint32_t(K));
      if (It != Pieces->end())
        Parts = &It->second;
    }
    llvm::SmallVector<uint32_t, 2> Ops;
    for (const Piece &P : *Parts) {
      uint32_t Op = St.Send ? L.addSend(P.Address, P.Length, St.Peer, St.Tag)
                            : L.addRecv(P.Address, P.Length, St.Peer, St.Tag);
      for (uint32_t Before : After)
        L.addDependency(Before, Op);
      OpStep.emplace_back(Rank, static_cast<uint32_t>(K));
      Ops.push_back(Op);
    }
    // With buffered sends, what follows a blocking send waits only for
    // what the send waited for.
    if (BufferedSends && St.BlockingSend)
      Reach[K - First] = std::move(After);
    else
      Reach[K - First] = std::move(Ops);
  }
  return true;
}

MessagePartners::MessagePartners(const std::vector<Stream> &Streams)
    : Streams(&Streams), Index(Streams.size()) {
  size_t N = Streams.size();
  // Each rank's sends by (receiver, tag) and receives by (sender, tag),
  // each channel's steps chained in order through Index itself (while a
  // step waits for its partner, its entry holds the next step of its
  // channel, in the same rank): no list of steps besides the result (a
  // halo exchange has tens of millions).
  constexpr uint32_t End = Unmatched;
  struct Channel {
    uint32_t Head = End, Tail = End;
    bool Matched = false;
  };
  std::vector<llvm::DenseMap<uint64_t, Channel>> SendsOf(N), RecvsOf(N);
  auto channelKey = [](int32_t Peer, int32_t Tag) {
    return (uint64_t(uint32_t(Peer)) << 32) | uint32_t(Tag);
  };
  // Ranks in parallel, each filling its own channels and entries.
  llvm::parallelFor(0, N, [&](size_t R) {
    Index[R].assign(Streams[R].size(), Unmatched);
    for (uint32_t K = 0; K < Streams[R].size(); ++K) {
      const StepEvent &E = Streams[R][K];
      if (!E.P2P || E.Peer < 0 || size_t(E.Peer) >= N)
        continue;
      Channel &C = (E.Send ? SendsOf : RecvsOf)[R][channelKey(E.Peer, E.Tag)];
      if (C.Tail == End)
        C.Head = K;
      else
        Index[R][C.Tail] = K;
      C.Tail = K;
    }
  });
  // The next step of a channel after \p K, which the walk overwrites.
  auto next = [&](size_t R, uint32_t K, const Channel &C) {
    return K == C.Tail ? End : Index[R][K];
  };
  // What is left of either side of a channel is unmatched.
  auto unmatch = [&](size_t R, uint32_t K, const Channel &C) {
    while (K != End) {
      uint32_t Next = next(R, K, C);
      Index[R][K] = Unmatched;
      K = Next;
    }
  };
  // Senders in parallel: each channel pair, and so each entry of either
  // side and the receiving side's Matched, is walked by its sender's
  // iteration alone; the receivers' maps are only searched.
  llvm::parallelFor(0, N, [&](size_t P) {
    for (auto &[Key, Sends] : SendsOf[P]) {
      int32_t R = int32_t(Key >> 32), Tag = int32_t(uint32_t(Key));
      auto It = RecvsOf[R].find(channelKey(int32_t(P), Tag));
      if (It == RecvsOf[R].end()) {
        unmatch(P, Sends.Head, Sends);
        continue;
      }
      Channel &Recvs = It->second;
      Recvs.Matched = true;
      uint32_t S = Sends.Head, Rv = Recvs.Head;
      while (S != End && Rv != End) {
        uint32_t NextS = next(P, S, Sends), NextR = next(R, Rv, Recvs);
        Index[P][S] = Rv;
        Index[R][Rv] = S;
        S = NextS;
        Rv = NextR;
      }
      unmatch(P, S, Sends);
      unmatch(R, Rv, Recvs);
    }
  });
  llvm::parallelFor(0, N, [&](size_t R) {
    for (auto &[Key, Recvs] : RecvsOf[R])
      if (!Recvs.Matched)
        unmatch(R, Recvs.Head, Recvs);
  });
}

//===-- Classification ----------------------------------------------------===//

std::string classifyRootSends(const Stream &S,
                              const std::vector<size_t> &Sends) {
  if (Sends.empty())
    return "unknown";
  const StepEvent &First = S[Sends[0]];
  bool SameBuffer = true, SameHash = true;
  for (size_t K : Sends) {
    SameBuffer &= S[K].Buffer == First.Buffer && S[K].Bytes == First.Bytes;
    SameHash &= !S[K].HasHash || S.hash(K) == S.hash(Sends[0]);
  }
  if (SameBuffer && First.Buffer)
    return SameHash ? "bcast" : "unknown";
  // base + peer * size: a scatter (of one range of memory).
  uint64_t Size = First.Bytes;
  if (Size == 0 || !First.Buffer ||
      llvm::any_of(Sends, [&](size_t K) { return S[K].Noncontiguous; }))
    return "unknown";
  uint64_t Base = First.Buffer - uint64_t(First.Peer) * Size;
  for (size_t K : Sends)
    if (S[K].Bytes != Size || S[K].Buffer - uint64_t(S[K].Peer) * Size != Base)
      return "unknown";
  return "scatter";
}

namespace {

/// Whether every message of occurrence \p Occurrence of \p Parts carried
/// the same bytes, by the payload hashes of its sends and receives; nothing
/// when the trace has no hash for some of them.
std::optional<bool> sameContents(const std::vector<Stream> &Streams,
                                 const std::vector<RankPart> &Parts,
                                 size_t Occurrence) {
  std::optional<uint64_t> First;
  for (const RankPart &P : Parts) {
    if (Occurrence >= P.Starts.size())
      continue;
    for (size_t K = 0; K < P.Length; ++K) {
      size_t At = P.Starts[Occurrence] + K;
      const StepEvent &S = Streams[P.CommRank][At];
      if (!S.P2P)
        continue;
      if (!S.HasHash)
        return std::nullopt;
      uint64_t Hash = Streams[P.CommRank].hash(At);
      if (First && *First != Hash)
        return false;
      First = Hash;
    }
  }
  return true;
}

} // namespace

void judgeContents(Pattern &P, const std::vector<Stream> &Streams,
                   const std::vector<RankPart> &FirstParts,
                   size_t FirstOccurrence,
                   const std::vector<RankPart> &LastParts,
                   size_t LastOccurrence) {
  if (P.Collective != "bcast")
    return;
  std::optional<bool> Same[] = {
      sameContents(Streams, FirstParts, FirstOccurrence),
      sameContents(Streams, LastParts, LastOccurrence)};
  if ((Same[0] && !*Same[0]) || (Same[1] && !*Same[1])) {
    P.Collective = "unknown";
    P.Contents = "differ";
    P.Note += std::string(P.Note.empty() ? "" : "; ") +
              "its messages carry different bytes (payload hashes), so it "
              "is no broadcast";
    return;
  }
  P.Contents = Same[0] && Same[1] ? "same" : "not recorded";
}

//===-- Communication graphs from traces
//-----------------------------------===//

bool buildWindowGraph(const std::vector<Stream> &Streams,
                      const std::vector<RankPart> &Parts, size_t Occurrence,
                      cg::Graph &G, bool &Cut) {
  std::vector<std::vector<size_t>> Steps(Streams.size());
  for (const RankPart &P : Parts)
    for (size_t K = 0; K < P.Length; ++K)
      Steps[P.CommRank].push_back(P.Starts[Occurrence] + K);
  StepPieces Pieces;
  Cut = hasLayouts(Streams, Steps);
  if (Cut && !piecesOf(Streams, messagesInOrder(Streams, Steps), Pieces))
    return false;
  std::vector<StepRef> OpStep;
  for (size_t R = 0; R < Streams.size(); ++R) {
    cg::LocalGraph L(static_cast<cg::Rank>(R));
    if (!addSteps(Streams[R], Steps[R], L, OpStep, int(R), false,
                  Pieces.empty() ? nullptr : &Pieces[R]) ||
        !G.add(L).ok())
      return false;
  }
  return true;
}

std::string collectiveOfRanges(const std::vector<cg::Transfer> &SST,
                               cg::Rank NumProcs) {
  std::optional<cg::Rank> Root;
  // Each other process's ranges of the root's memory, [begin, end).
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> Got(NumProcs);
  for (const cg::Transfer &T : SST) {
    if (T.Src == T.Dst)
      continue;
    if (Root && *Root != T.Src)
      return "";
    Root = T.Src;
    if (T.Dst != T.Src)
      Got[T.Dst].emplace_back(T.SrcAddr, T.SrcAddr + T.Size);
  }
  if (!Root || NumProcs < 2)
    return "";
  for (auto &Ranges : Got) { // Merged, ascending.
    std::sort(Ranges.begin(), Ranges.end());
    std::vector<std::pair<uint64_t, uint64_t>> Merged;
    for (const auto &R : Ranges)
      if (!Merged.empty() && R.first <= Merged.back().second)
        Merged.back().second = std::max(Merged.back().second, R.second);
      else
        Merged.push_back(R);
    Ranges = std::move(Merged);
  }
  bool Same = true;
  std::vector<std::pair<uint64_t, uint64_t>> All;
  const auto *First = static_cast<decltype(&Got[0])>(nullptr);
  for (cg::Rank R = 0; R < NumProcs; ++R) {
    if (R == *Root)
      continue;
    if (Got[R].empty())
      return "";
    if (!First)
      First = &Got[R];
    Same &= Got[R] == *First;
    All.insert(All.end(), Got[R].begin(), Got[R].end());
  }
  if (Same)
    return "bcast";
  // As the signatures of lib/CommGraph name them: blocks of one size that
  // no byte of the root shares form a scatter, others (blocks of several
  // sizes, a tree's inner process holding the pieces it passes on) a
  // scatterv.
  auto bytesOf = [](const std::vector<std::pair<uint64_t, uint64_t>> &R) {
    uint64_t N = 0;
    for (const auto &[Begin, End] : R)
      N += End - Begin;
    return N;
  };
  bool OneSize = true;
  for (cg::Rank R = 0; R < NumProcs; ++R)
    OneSize &= R == *Root || bytesOf(Got[R]) == bytesOf(*First);
  std::sort(All.begin(), All.end());
  for (size_t I = 1; I < All.size(); ++I)
    if (All[I].first < All[I - 1].second)
      return "scatterv"; // A byte of the root reaches two processes.
  return OneSize ? "scatter" : "scatterv";
}

std::string dataflowKind(const cg::Graph &G, std::string &Why, bool Cut) {
  cg::Matching M;
  cg::Status S = cg::match(G, M);
  if (!S.ok()) {
    Why = S.Message;
    return "";
  }
  std::vector<cg::Transfer> SST;
  S = cg::propagate(G, M, SST);
  if (!S.ok()) {
    Why = S.Message;
    return "";
  }
  SST = cg::coalesceTransfers(std::move(SST));
  if (Cut)
    return collectiveOfRanges(SST, G.numProcs());
  cg::DetectionOptions O;
  O.Subsets = false;
  cg::Detection D = cg::detect(SST, G.numProcs(), O);
  if (D.Collectives.empty())
    return "";
  if (D.Collectives.size() == 1 && D.Residual.empty())
    return cg::name(D.Collectives[0].Kind);
  // Broadcasts of blocks of several sizes from one root to the same
  // processes (the pieces of a panel the root holds apart, which a ring
  // brings back to it, into other places of its own memory) are one
  // broadcast.
  const cg::Collective &First = D.Collectives[0];
  if (First.Kind != cg::CollectiveKind::Bcast)
    return "";
  for (const cg::Collective &C : D.Collectives)
    if (C.Kind != First.Kind || C.Root != First.Root || C.Group != First.Group)
      return "";
  for (const cg::Transfer &T : D.Residual)
    if (T.Src != First.Root || T.Dst != First.Root)
      return "";
  return cg::name(First.Kind);
}

std::optional<std::vector<std::vector<RankPart>>>
withFollowingSteps(const std::vector<Stream> &Streams,
                   const std::vector<std::vector<RankPart>> &Occurrences) {
  std::vector<std::vector<RankPart>> Out = Occurrences;
  bool Extended = false;
  for (size_t Occ = 0; Occ < Out.size(); ++Occ) {
    // The occurrence's tag: one for all its messages.
    std::optional<int32_t> Tag;
    for (const RankPart &P : Out[Occ])
      for (size_t K = 0; K < P.Length; ++K) {
        const StepEvent &S = Streams[P.CommRank][P.Starts[0] + K];
        if (!S.P2P)
          continue;
        if (Tag && *Tag != S.Tag)
          return std::nullopt;
        Tag = S.Tag;
      }
    if (!Tag)
      return std::nullopt;
    for (size_t I = 0; I < Out[Occ].size(); ++I) {
      RankPart &P = Out[Occ][I];
      const Stream &Mine = Streams[P.CommRank];
      // Up to where the next occurrence starts on this rank.
      size_t Limit = Mine.size();
      for (const std::vector<RankPart> &Other : Occurrences)
        for (const RankPart &Next : Other)
          if (Next.CommRank == P.CommRank && Next.Starts[0] > P.Starts[0])
            Limit = std::min(Limit, Next.Starts[0]);
      size_t End = P.Starts[0] + P.Length;
      while (End < Limit && Mine[End].P2P && Mine[End].Tag == *Tag)
        ++End;
      Extended |= End > P.Starts[0] + P.Length;
      P.Length = End - P.Starts[0];
    }
  }
  if (!Extended)
    return std::nullopt;
  return Out;
}

std::string dataflowOfBoth(const std::vector<Stream> &Streams,
                           const std::vector<RankPart> &FirstParts,
                           size_t FirstOccurrence,
                           const std::vector<RankPart> &LastParts,
                           size_t LastOccurrence, bool &Checked) {
  std::string Why, Kinds[2];
  Checked = false;
  for (size_t Which = 0; Which < 2; ++Which) {
    cg::Graph G(static_cast<cg::Rank>(Streams.size()));
    bool Cut = false;
    if (!buildWindowGraph(Streams, Which ? LastParts : FirstParts,
                          Which ? LastOccurrence : FirstOccurrence, G, Cut))
      continue;
    Checked = true;
    Kinds[Which] = dataflowKind(G, Why, Cut);
  }
  return Kinds[0] == Kinds[1] ? Kinds[0] : "";
}

std::optional<std::vector<std::vector<RankPart>>>
scatterThenAllgather(const std::vector<Stream> &Streams,
                     const std::vector<std::vector<RankPart>> &Occurrences,
                     const StepSet &Mine, const StepSet &Claimed) {
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

void addSites(Pattern &P, const std::vector<RankPart> &Parts,
              const std::vector<Stream> &Streams,
              const trace::Communicator &Comm) {
  std::map<std::pair<uint32_t, bool>, std::set<int>> Sites;
  for (const RankPart &Part : Parts)
    for (size_t Start : Part.Starts)
      for (size_t K = 0; K < Part.Length; ++K) {
        const StepEvent &S = Streams[Part.CommRank][Start + K];
        Sites[{S.Site, S.Send}].insert(Comm.Members[Part.CommRank]);
      }
  for (const auto &[Key, Ranks] : Sites)
    P.Sites.push_back(
        {Key.first, Key.second, std::vector<int>(Ranks.begin(), Ranks.end())});
}

uint64_t occurrenceBytes(const std::vector<Stream> &Streams,
                         const std::vector<RankPart> &Parts,
                         size_t Occurrence) {
  uint64_t Bytes = 0;
  for (const RankPart &Part : Parts)
    for (size_t K = 0; K < Part.Length; ++K)
      Bytes = std::max(
          Bytes, Streams[Part.CommRank][Part.Starts[Occurrence] + K].Bytes);
  return Bytes;
}

void addSize(Pattern &P, uint64_t Bytes) {
  uint64_t Largest = std::max({P.Bytes, P.MaxBytes, Bytes});
  P.Bytes = std::min(P.Bytes, Bytes);
  P.MaxBytes = Largest > P.Bytes ? Largest : 0;
}

std::string scatterAllgatherTopology(llvm::StringRef Template) {
  return isModifiedTemplate(Template) ? "modified-scatter-allgather"
                                      : "scatter-allgather";
}

bool isModifiedTemplate(llvm::StringRef Template) {
  return Template.starts_with("modified-");
}

void markUnconfirmedModified(Pattern &P) {
  P.Collective = "unknown";
  P.Evidence = "template";
  P.Note += std::string(P.Note.empty() ? "" : "; ") +
            "the root sends the whole message to the next rank first; the "
            "others' dataflow is a scatter that the steps after it do not "
            "complete to a broadcast";
}

bool movesUndescribedGaps(const std::vector<Stream> &Streams,
                          const std::vector<RankPart> &Parts, size_t Occurrence,
                          bool AnyGaps) {
  for (const RankPart &Part : Parts)
    for (size_t K = 0; K < Part.Length; ++K) {
      const Stream &S = Streams[Part.CommRank];
      size_t Step = Part.Starts[Occurrence] + K;
      if (S[Step].Noncontiguous && (AnyGaps || S.layout(Step).empty()))
        return true;
    }
  return false;
}

void markUnconfirmedModified(Pattern &P, bool Gaps) {
  if (!Gaps) {
    markUnconfirmedModified(P);
    return;
  }
  P.Collective = "unknown";
  P.Evidence = "template";
  P.Note += std::string(P.Note.empty() ? "" : "; ") +
            "the root sends the whole message to the next rank first; the "
            "messages use datatypes with gaps the trace does not describe, "
            "so the dataflow cannot show whether the steps after them "
            "complete a broadcast";
}

void noteDataflowOverGaps(Pattern &P, const std::vector<Stream> &Streams,
                          const std::vector<RankPart> &First,
                          const std::vector<RankPart> &Last,
                          size_t LastOccurrence, bool Cut) {
  if (!movesUndescribedGaps(Streams, First, 0, !Cut) &&
      !movesUndescribedGaps(Streams, Last, LastOccurrence, !Cut))
    return;
  P.Note += std::string(P.Note.empty() ? "" : "; ") +
            "some messages use datatypes with gaps that the dataflow took as "
            "one range of memory from their first byte";
}

void addDataRanges(const Stream &S, size_t K, const StepEvent &E,
                   std::vector<std::pair<uint64_t, uint64_t>> &Out) {
  llvm::ArrayRef<trace::LayoutRun> Layout = S.layout(K);
  if (Layout.empty()) {
    Out.emplace_back(E.Buffer, E.Buffer + E.Bytes);
    return;
  }
  uint64_t Left = E.Bytes;
  for (const trace::LayoutRun &Run : Layout) {
    uint64_t Begin = E.Buffer + static_cast<uint64_t>(Run.Offset);
    uint64_t Length = std::min(Left, Run.Length);
    Out.emplace_back(Begin, Begin + Length);
    if ((Left -= Length) == 0)
      return;
  }
}

uint64_t assembledBytes(const std::vector<Stream> &Streams,
                        const std::vector<RankPart> &Parts) {
  uint64_t Most = 0;
  for (const RankPart &Part : Parts) {
    std::vector<std::pair<uint64_t, uint64_t>> Written; // [begin, end).
    for (size_t K = 0; K < Part.Length; ++K) {
      const Stream &S = Streams[Part.CommRank];
      const StepEvent &E = S[Part.Starts[0] + K];
      if (E.P2P && !E.Send && E.Bytes > 0)
        addDataRanges(S, Part.Starts[0] + K, E, Written);
    }
    std::sort(Written.begin(), Written.end());
    uint64_t Bytes = 0, Reached = 0;
    for (const auto &[Begin, End] : Written) {
      uint64_t From = std::max(Begin, Reached);
      if (End > From)
        Bytes += End - From;
      Reached = std::max(Reached, End);
    }
    Most = std::max(Most, Bytes);
  }
  return Most;
}

void setAssembledSizes(Pattern &P, const std::vector<Stream> &Streams,
                       const std::vector<std::vector<RankPart>> &Occurrences) {
  P.Bytes = assembledBytes(Streams, Occurrences.front());
  P.MaxBytes = 0;
  for (const std::vector<RankPart> &Parts : Occurrences)
    addSize(P, assembledBytes(Streams, Parts));
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
