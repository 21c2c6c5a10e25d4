//===- Dataflow.cpp - Algorithms 3 and 4: dataflow into SST form ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Operations are visited in an order that respects local dependencies and
/// puts every send before the receive it matched. Each process has a map of
/// the regions it received, each pointing at the (process, address) the
/// data originally came from. A send reads its buffer through that map: the
/// parts it received before are forwarded data and keep their origin, the
/// rest is the sender's own. When the buffer mixes several origins the send
/// is split into one flow per origin (Algorithm 4). The receive then writes
/// those flows into its owner's map. What the maps hold at the end are the
/// final receives: the SST assignments. Every operation is visited once and
/// each visit costs O(log m) map operations per flow; a split creates at
/// most one flow per received region it covers.
///
/// Combine operations extend the origins to terms: a region can hold, besides
/// one (process, address) origin, an operation applied element by element to
/// the data of several contributions (a term, kept in a table; a segment
/// names its term by a negative source and its offset into the term by its
/// source address). A combine reads the terms of both its regions, cut at
/// every boundary of either, and writes their union under its operation;
/// sends and receives move terms as they move origins. A term holds its
/// contributions as runs of processes at one address, so the sum a star or
/// a ring builds over p processes stays a few runs long when every process
/// contributes from the same place.
///
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <unordered_map>

namespace mpilift {
namespace commgraph {
namespace {

/// A received region [Start, End) of one process holding data that came
/// from (Src, SrcAddr). One map for all processes, keyed by (owner, start):
/// no per-process overhead when millions of processes receive one block.
struct Key {
  Rank Owner;
  Address Start;
  bool operator<(const Key &O) const {
    return Owner != O.Owner ? Owner < O.Owner : Start < O.Start;
  }
};
struct Segment {
  Address End;
  Address SrcAddr;
  Rank Src;
  OpId Writer; ///< The receive that wrote it (fits in Src's padding).
};
using Memory = std::map<Key, Segment>;

/// Part of a send's buffer: Size bytes at Offset came from (Src, SrcAddr).
/// A negative Src names the term -Src - 1 instead, at offset SrcAddr.
struct Piece {
  uint64_t Offset;
  uint64_t Size;
  Address SrcAddr;
  Rank Src;
};

/// What combine operations made: Op over the contributions, whose
/// addresses are those of the term's offset 0.
struct Term {
  ReduceOp Op;
  uint32_t Element;
  bool Repeated;
  bool RankOrdered;
  OpId Writer;
  std::vector<Contribution> Parts;
};

bool isTerm(Rank Src) { return Src < 0; }
uint32_t termIndex(Rank Src) { return static_cast<uint32_t>(-(Src + 1)); }
Rank termSource(uint32_t Index) { return -static_cast<Rank>(Index) - 1; }

/// The contributions of \p P's data at \p Offset bytes into it.
void partsOf(const Piece &P, uint64_t Offset, const std::vector<Term> &Terms,
             std::vector<Contribution> &Out) {
  Out.clear();
  if (!isTerm(P.Src)) {
    Out.push_back({P.Src, P.Src, P.SrcAddr + Offset});
    return;
  }
  for (Contribution C : Terms[termIndex(P.Src)].Parts) {
    C.Addr += P.SrcAddr + Offset;
    Out.push_back(C);
  }
}

/// The union of two sorted lists of contributions, neighbours with one
/// address merged; \p Repeated is set when a process is in both.
std::vector<Contribution> mergeParts(const std::vector<Contribution> &A,
                                     const std::vector<Contribution> &B,
                                     bool &Repeated) {
  std::vector<Contribution> All;
  All.reserve(A.size() + B.size());
  std::merge(A.begin(), A.end(), B.begin(), B.end(), std::back_inserter(All),
             [](const Contribution &X, const Contribution &Y) {
               return X.First < Y.First;
             });
  std::vector<Contribution> Out;
  for (const Contribution &C : All) {
    if (!Out.empty() && C.First <= Out.back().Last) {
      Repeated = true;
      if (C.Last > Out.back().Last && C.Addr == Out.back().Addr)
        Out.back().Last = C.Last;
      else if (C.Last > Out.back().Last)
        Out.push_back({Out.back().Last + 1, C.Last, C.Addr});
      continue;
    }
    if (!Out.empty() && C.First == Out.back().Last + 1 &&
        C.Addr == Out.back().Addr) {
      Out.back().Last = C.Last;
      continue;
    }
    Out.push_back(C);
  }
  return Out;
}

/// The segment of \p Owner that starts at or before \p Addr and covers it.
Memory::iterator segmentCovering(Memory &Mem, Rank Owner, Address Addr) {
  auto It = Mem.upper_bound(Key{Owner, Addr});
  if (It == Mem.begin())
    return Mem.end();
  --It;
  if (It->first.Owner != Owner || It->second.End <= Addr)
    return Mem.end();
  return It;
}

/// Removes [Start, End) of \p Owner from the received regions.
void eraseRegion(Memory &Mem, Rank Owner, Address Start, Address End) {
  if (Start >= End)
    return;
  auto Cover = segmentCovering(Mem, Owner, Start);
  if (Cover != Mem.end() && Cover->first.Start < Start) {
    Segment S = Cover->second;
    Address SegStart = Cover->first.Start;
    Cover->second.End = Start; // Keep the head.
    if (S.End > End) {         // The region lies inside: keep the tail too.
      Mem.emplace(Key{Owner, End}, Segment{S.End, S.SrcAddr + (End - SegStart),
                                           S.Src, S.Writer});
      return;
    }
  }
  auto It = Mem.lower_bound(Key{Owner, Start});
  while (It != Mem.end() && It->first.Owner == Owner && It->first.Start < End) {
    if (It->second.End > End) {
      Segment S = It->second;
      Address SegStart = It->first.Start;
      Mem.erase(It);
      Mem.emplace(Key{Owner, End}, Segment{S.End, S.SrcAddr + (End - SegStart),
                                           S.Src, S.Writer});
      return;
    }
    It = Mem.erase(It);
  }
}

/// The origins of the bytes in [Start, Start + Size) of process \p Owner.
void readRegion(Memory &Mem, Rank Owner, Address Start, uint64_t Size,
                std::vector<Piece> &Out) {
  Out.clear();
  Address End = Start + Size, Pos = Start;
  auto It = segmentCovering(Mem, Owner, Start);
  if (It == Mem.end())
    It = Mem.lower_bound(Key{Owner, Start});
  for (; It != Mem.end() && It->first.Owner == Owner && It->first.Start < End &&
         Pos < End;
       ++It) {
    Address SegStart = It->first.Start, SegEnd = It->second.End;
    if (SegStart > Pos) { // A gap: the owner's own data.
      Out.push_back({Pos - Start, SegStart - Pos, Pos, Owner});
      Pos = SegStart;
    }
    Address PieceEnd = SegEnd < End ? SegEnd : End;
    if (PieceEnd > Pos)
      Out.push_back({Pos - Start, PieceEnd - Pos,
                     It->second.SrcAddr + (Pos - SegStart), It->second.Src});
    Pos = PieceEnd > Pos ? PieceEnd : Pos;
  }
  if (Pos < End)
    Out.push_back({Pos - Start, End - Pos, Pos, Owner});
}

void writeRegion(Memory &Mem, Rank Owner, Address Start, uint64_t Size,
                 const std::vector<Piece> &Pieces, OpId Writer) {
  eraseRegion(Mem, Owner, Start, Start + Size);
  for (const Piece &P : Pieces)
    Mem.emplace(Key{Owner, Start + P.Offset},
                Segment{Start + P.Offset + P.Size, P.SrcAddr, P.Src, Writer});
}

/// The regions of \p Mem as transfers, merging neighbours that continue
/// each other and dropping data that is back where it started.
void emitTransfers(const Memory &Mem, std::vector<Transfer> &Out,
                   std::vector<OpId> *Writers) {
  for (const auto &[K, S] : Mem) {
    if (isTerm(S.Src) || (S.Src == K.Owner && S.SrcAddr == K.Start))
      continue;
    if (!Out.empty()) {
      Transfer &Last = Out.back();
      if (Last.Dst == K.Owner && Last.DstAddr + Last.Size == K.Start &&
          Last.Src == S.Src && Last.SrcAddr + Last.Size == S.SrcAddr) {
        Last.Size += S.End - K.Start;
        continue;
      }
    }
    Out.emplace_back(K.Owner, K.Start, S.End - K.Start, S.Src, S.SrcAddr);
    if (Writers)
      Writers->push_back(S.Writer);
  }
}

/// The terms of \p Mem as combinations, merging neighbours whose
/// contributions continue each other.
void emitCombinations(const Memory &Mem, const std::vector<Term> &Terms,
                      std::vector<Combination> &Out) {
  std::vector<Contribution> Parts;
  for (const auto &[K, S] : Mem) {
    if (!isTerm(S.Src))
      continue;
    const Term &T = Terms[termIndex(S.Src)];
    Piece P{0, S.End - K.Start, S.SrcAddr, S.Src};
    partsOf(P, 0, Terms, Parts);
    if (!Out.empty()) {
      Combination &Last = Out.back();
      bool Continues =
          Last.Dst == K.Owner && Last.DstAddr + Last.Size == K.Start &&
          Last.Op == T.Op && Last.Element == T.Element &&
          Last.Repeated == T.Repeated && Last.RankOrdered == T.RankOrdered &&
          Last.Parts.size() == Parts.size();
      for (size_t I = 0; Continues && I < Parts.size(); ++I)
        Continues = Parts[I].First == Last.Parts[I].First &&
                    Parts[I].Last == Last.Parts[I].Last &&
                    Parts[I].Addr == Last.Parts[I].Addr + Last.Size;
      if (Continues) {
        Last.Size += S.End - K.Start;
        continue;
      }
    }
    Combination C;
    C.Dst = K.Owner;
    C.DstAddr = K.Start;
    C.Size = S.End - K.Start;
    C.Op = T.Op;
    C.Element = T.Element;
    C.Parts = Parts;
    C.Repeated = T.Repeated;
    C.RankOrdered = T.RankOrdered;
    C.Writer = T.Writer;
    Out.push_back(std::move(C));
  }
}

/// Whether a combine by \p Ties of the data of processes \p Held with
/// that of \p Added keeps, of equal values, the pair of the lowest rank.
bool ranksInOrder(const std::vector<Contribution> &Held,
                  const std::vector<Contribution> &Added, TieRule Ties) {
  if (Ties == TieRule::Indices || Held.empty() || Added.empty())
    return true;
  auto Highest = [](const std::vector<Contribution> &Parts) {
    Rank Max = Parts.front().Last;
    for (const Contribution &C : Parts)
      Max = std::max(Max, C.Last);
    return Max;
  };
  // Parts are sorted by their first rank.
  if (Ties == TieRule::KeepOwn)
    return Highest(Held) < Added.front().First;
  return Highest(Added) < Held.front().First;
}

/// Combine operation \p A of \p G: its region becomes the operation of
/// itself and its source, term by term.
void combine(const Graph &G, OpId A, Memory &Mem, std::vector<Term> &Terms) {
  const Operation &Op = G.ops()[A];
  const CombineInfo &Info = G.combine(A);
  std::vector<Piece> Into, From, Out;
  readRegion(Mem, Op.Owner, Op.Start, Op.Size, Into);
  readRegion(Mem, Op.Owner, Info.From, Op.Size, From);
  std::vector<Contribution> Left, Right;
  size_t I = 0, J = 0;
  for (uint64_t Pos = 0; Pos < Op.Size;) {
    while (Into[I].Offset + Into[I].Size <= Pos)
      ++I;
    while (From[J].Offset + From[J].Size <= Pos)
      ++J;
    uint64_t End = std::min(Into[I].Offset + Into[I].Size,
                            From[J].Offset + From[J].Size);
    partsOf(Into[I], Pos - Into[I].Offset, Terms, Left);
    partsOf(From[J], Pos - From[J].Offset, Terms, Right);
    Term T;
    T.Op = Info.Op;
    T.Element = Info.Element;
    T.Repeated = false;
    T.RankOrdered = ranksInOrder(Left, Right, Info.Ties);
    T.Writer = A;
    // Different operations nest: what results is no one operation.
    for (const Piece *P : {&Into[I], &From[J]})
      if (isTerm(P->Src)) {
        const Term &Old = Terms[termIndex(P->Src)];
        T.Repeated |= Old.Repeated;
        T.RankOrdered &= Old.RankOrdered;
        if (Old.Op != Info.Op || Old.Element != Info.Element)
          T.Op = ReduceOp::Other;
      }
    T.Parts = mergeParts(Left, Right, T.Repeated);
    Terms.push_back(std::move(T));
    Out.push_back({Pos, End - Pos, 0,
                   termSource(static_cast<uint32_t>(Terms.size() - 1))});
    Pos = End;
  }
  writeRegion(Mem, Op.Owner, Op.Start, Op.Size, Out, A);
}

} // namespace

Rank Combination::processes() const {
  Rank N = 0;
  Rank Next = std::numeric_limits<Rank>::min();
  for (const Contribution &C : Parts) {
    Rank First = std::max(C.First, Next);
    if (C.Last >= First)
      N += C.Last - First + 1;
    Next = std::max(Next, C.Last + 1);
  }
  return N;
}

const Contribution *Combination::partOf(Rank R) const {
  for (const Contribution &C : Parts)
    if (C.First <= R && R <= C.Last)
      return &C;
  return nullptr;
}

Status propagate(const Graph &G, const Matching &M, std::vector<Transfer> &Out,
                 DataflowStats *Stats, std::vector<OpId> *Writers,
                 std::vector<Combination> *Combined) {
  const std::vector<Operation> &Ops = G.ops();
  if (M.PeerOf.size() != Ops.size())
    return Status::error("the matching does not belong to this graph");
  // A receive also waits for the send it matched.
  std::vector<uint32_t> Left(Ops.size());
  std::deque<OpId> Ready;
  for (OpId I = 0; I < Ops.size(); ++I) {
    Left[I] = G.numPredecessors(I) + (Ops[I].Kind == OpKind::Recv ? 1 : 0);
    if (Left[I] == 0)
      Ready.push_back(I);
  }
  Memory Mem;
  std::vector<Term> Terms;
  // Flows of sends whose receive was not visited yet.
  std::unordered_map<OpId, std::vector<Piece>> InFlight;
  std::vector<Piece> Pieces;
  size_t Visited = 0;
  while (!Ready.empty()) {
    OpId A = Ready.front();
    Ready.pop_front();
    ++Visited;
    const Operation &Op = Ops[A];
    switch (Op.Kind) {
    case OpKind::Send: {
      readRegion(Mem, Op.Owner, Op.Start, Op.Size, Pieces);
      if (Stats && Pieces.size() > 1)
        ++Stats->Splits;
      OpId R = M.PeerOf[A];
      if (R == NoOp)
        return Status::error("unmatched " + G.describe(A));
      InFlight[R] = Pieces;
      if (--Left[R] == 0)
        Ready.push_back(R);
      break;
    }
    case OpKind::Recv: {
      auto It = InFlight.find(A);
      writeRegion(Mem, Op.Owner, Op.Start, Op.Size, It->second, A);
      InFlight.erase(It);
      break;
    }
    case OpKind::Local:
      eraseRegion(Mem, Op.Owner, Op.Start, Op.Start + Op.Size);
      break;
    case OpKind::Combine:
      // Without a caller for them, combined data is the process's own.
      if (Combined)
        combine(G, A, Mem, Terms);
      else
        eraseRegion(Mem, Op.Owner, Op.Start, Op.Start + Op.Size);
      break;
    }
    for (OpId S : G.successors(A))
      if (--Left[S] == 0)
        Ready.push_back(S);
  }
  if (Visited != Ops.size())
    return Status::error("unmatched operations or a dependency cycle: " +
                         std::to_string(Ops.size() - Visited) +
                         " operations never became ready");
  for (const ScratchRegion &R : G.scratch())
    eraseRegion(Mem, R.Owner, R.Start, R.Start + R.Size);
  Out.clear();
  if (Writers)
    Writers->clear();
  emitTransfers(Mem, Out, Writers);
  if (Combined) {
    Combined->clear();
    emitCombinations(Mem, Terms, *Combined);
  }
  return Status();
}

std::vector<std::vector<Rank>> waitSets(const Graph &G, const Matching &M) {
  const std::vector<Operation> &Ops = G.ops();
  // Predecessors: local dependencies, and for a receive the matched send.
  std::vector<std::vector<OpId>> Pred(Ops.size());
  for (OpId I = 0; I < Ops.size(); ++I) {
    for (OpId S : G.successors(I))
      Pred[S].push_back(I);
    if (Ops[I].Kind == OpKind::Recv && M.PeerOf[I] != NoOp)
      Pred[I].push_back(M.PeerOf[I]);
  }
  std::vector<std::vector<OpId>> ByOwner(G.numProcs());
  for (OpId I = 0; I < Ops.size(); ++I)
    ByOwner[Ops[I].Owner].push_back(I);
  std::vector<std::vector<Rank>> Result(G.numProcs());
  std::vector<uint32_t> SeenOp(Ops.size(), UINT32_MAX);
  std::vector<uint32_t> SeenRank(G.numProcs(), UINT32_MAX);
  std::vector<OpId> Stack;
  for (Rank P = 0; P < G.numProcs(); ++P) {
    uint32_t Stamp = static_cast<uint32_t>(P);
    Stack = ByOwner[P];
    for (OpId I : Stack)
      SeenOp[I] = Stamp;
    SeenRank[P] = Stamp;
    while (!Stack.empty()) {
      OpId N = Stack.back();
      Stack.pop_back();
      for (OpId Q : Pred[N]) {
        if (SeenOp[Q] == Stamp)
          continue;
        SeenOp[Q] = Stamp;
        Stack.push_back(Q);
        Rank Owner = Ops[Q].Owner;
        if (SeenRank[Owner] != Stamp) {
          SeenRank[Owner] = Stamp;
          Result[P].push_back(Owner);
        }
      }
    }
    std::sort(Result[P].begin(), Result[P].end());
  }
  return Result;
}

bool hasBarrierSemantics(const std::vector<std::vector<Rank>> &WaitSets) {
  for (const std::vector<Rank> &W : WaitSets)
    if (W.size() + 1 != WaitSets.size())
      return false;
  return true;
}

} // namespace commgraph
} // namespace mpilift
