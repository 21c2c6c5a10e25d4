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

namespace mpilift {
namespace commgraph {
namespace {

/// A received region [key, End) holding data from (Src, SrcAddr).
struct Segment {
  Address End;
  Rank Src;
  Address SrcAddr;
};
using Memory = std::map<Address, Segment>;

/// Part of a send's buffer: Size bytes at Offset came from (Src, SrcAddr).
struct Piece {
  uint64_t Offset;
  uint64_t Size;
  Rank Src;
  Address SrcAddr;
};

/// Removes [Start, End) from the received regions (it is overwritten).
void eraseRegion(Memory &Mem, Address Start, Address End) {
  if (Start >= End)
    return;
  auto It = Mem.lower_bound(Start);
  if (It != Mem.begin()) {
    auto Before = std::prev(It);
    if (Before->second.End > Start) {
      Segment S = Before->second;
      Address SegStart = Before->first;
      Before->second.End = Start;
      if (S.End > End) { // The region lies inside one segment: keep its tail.
        Mem.emplace(End, Segment{S.End, S.Src, S.SrcAddr + (End - SegStart)});
        return;
      }
    }
  }
  while (It != Mem.end() && It->first < End) {
    if (It->second.End > End) {
      Segment S = It->second;
      Address SegStart = It->first;
      Mem.erase(It);
      Mem.emplace(End, Segment{S.End, S.Src, S.SrcAddr + (End - SegStart)});
      return;
    }
    It = Mem.erase(It);
  }
}

/// The origins of the bytes in [Start, Start + Size) of process \p Owner.
void readRegion(const Memory &Mem, Rank Owner, Address Start, uint64_t Size,
                std::vector<Piece> &Out) {
  Out.clear();
  Address End = Start + Size, Pos = Start;
  auto It = Mem.upper_bound(Start);
  if (It != Mem.begin() && std::prev(It)->second.End > Start)
    --It;
  for (; It != Mem.end() && It->first < End && Pos < End; ++It) {
    Address SegStart = It->first, SegEnd = It->second.End;
    if (SegStart > Pos) { // A gap: the owner's own data.
      Out.push_back({Pos - Start, SegStart - Pos, Owner, Pos});
      Pos = SegStart;
    }
    Address PieceEnd = SegEnd < End ? SegEnd : End;
    if (PieceEnd > Pos)
      Out.push_back({Pos - Start, PieceEnd - Pos, It->second.Src,
                     It->second.SrcAddr + (Pos - SegStart)});
    Pos = PieceEnd > Pos ? PieceEnd : Pos;
  }
  if (Pos < End)
    Out.push_back({Pos - Start, End - Pos, Owner, Pos});
}

void writeRegion(Memory &Mem, Address Start, uint64_t Size,
                 const std::vector<Piece> &Pieces) {
  eraseRegion(Mem, Start, Start + Size);
  for (const Piece &P : Pieces)
    Mem.emplace(Start + P.Offset,
                Segment{Start + P.Offset + P.Size, P.Src, P.SrcAddr});
}

/// Appends the regions of \p Mem as transfers, merging neighbours that
/// continue each other and dropping data that is back where it started.
void emitTransfers(const Memory &Mem, Rank Dst, std::vector<Transfer> &Out) {
  size_t First = Out.size();
  for (const auto &[Start, S] : Mem) {
    if (S.Src == Dst && S.SrcAddr == Start)
      continue;
    if (Out.size() > First) {
      Transfer &Last = Out.back();
      if (Last.DstAddr + Last.Size == Start && Last.Src == S.Src &&
          Last.SrcAddr + Last.Size == S.SrcAddr) {
        Last.Size += S.End - Start;
        continue;
      }
    }
    Out.push_back({Dst, Start, S.End - Start, S.Src, S.SrcAddr});
  }
}

} // namespace

Status propagate(const Graph &G, const Matching &M, std::vector<Transfer> &Out,
                 DataflowStats *Stats) {
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
  std::vector<Memory> Mem(G.numProcs());
  std::vector<std::vector<Piece>> InFlight(Ops.size());
  std::vector<Piece> Scratch;
  size_t Visited = 0;
  while (!Ready.empty()) {
    OpId A = Ready.front();
    Ready.pop_front();
    ++Visited;
    const Operation &Op = Ops[A];
    switch (Op.Kind) {
    case OpKind::Send: {
      readRegion(Mem[Op.Owner], Op.Owner, Op.Start, Op.Size, Scratch);
      if (Stats && Scratch.size() > 1)
        ++Stats->Splits;
      OpId R = M.PeerOf[A];
      if (R == NoOp)
        return Status::error("unmatched " + G.describe(A));
      InFlight[R] = Scratch;
      if (--Left[R] == 0)
        Ready.push_back(R);
      break;
    }
    case OpKind::Recv:
      writeRegion(Mem[Op.Owner], Op.Start, Op.Size, InFlight[A]);
      InFlight[A].clear();
      InFlight[A].shrink_to_fit();
      break;
    case OpKind::Local:
      eraseRegion(Mem[Op.Owner], Op.Start, Op.Start + Op.Size);
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
  Out.clear();
  for (Rank P = 0; P < G.numProcs(); ++P) {
    for (const auto &[Start, Size] : G.scratch(P))
      eraseRegion(Mem[P], Start, Start + Size);
    emitTransfers(Mem[P], P, Out);
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
