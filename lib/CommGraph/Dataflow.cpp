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
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include <algorithm>
#include <deque>
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
struct Piece {
  uint64_t Offset;
  uint64_t Size;
  Address SrcAddr;
  Rank Src;
};

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
    if (S.Src == K.Owner && S.SrcAddr == K.Start)
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

} // namespace

Status propagate(const Graph &G, const Matching &M, std::vector<Transfer> &Out,
                 DataflowStats *Stats, std::vector<OpId> *Writers) {
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
