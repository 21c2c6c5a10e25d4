//===- Graph.cpp - Local and global communication DAGs --------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

namespace mpilift {
namespace commgraph {

uint32_t LocalGraph::addSend(Address Buffer, uint64_t Size, Rank Dest,
                             int32_t Tag) {
  Operation Op;
  Op.Kind = OpKind::Send;
  Op.Owner = Owner;
  Op.Start = Buffer;
  Op.Size = Size;
  Op.Peer = Dest;
  Op.Tag = Tag;
  Ops.push_back(Op);
  return static_cast<uint32_t>(Ops.size() - 1);
}

uint32_t LocalGraph::addRecv(Address Buffer, uint64_t Size, Rank Source,
                             int32_t Tag) {
  uint32_t I = addSend(Buffer, Size, Source, Tag);
  Ops[I].Kind = OpKind::Recv;
  return I;
}

uint32_t LocalGraph::addLocal(Address Written, uint64_t Size) {
  uint32_t I = addSend(Written, Size, -1, 0);
  Ops[I].Kind = OpKind::Local;
  return I;
}

void LocalGraph::addDependency(uint32_t Before, uint32_t After) {
  Deps.emplace_back(Before, After);
}

void LocalGraph::addScratch(Address Buffer, uint64_t Size) {
  Scratch.emplace_back(Buffer, Size);
}

// Layout: owner, #ops, #deps, #scratch, then 5 words per op (kind, start,
// size, peer, tag), 2 per dependency, 2 per scratch region.
std::vector<uint64_t> LocalGraph::serialize() const {
  std::vector<uint64_t> W;
  W.reserve(4 + Ops.size() * 5 + Deps.size() * 2 + Scratch.size() * 2);
  W.push_back(static_cast<uint64_t>(static_cast<uint32_t>(Owner)));
  W.push_back(Ops.size());
  W.push_back(Deps.size());
  W.push_back(Scratch.size());
  for (const Operation &Op : Ops) {
    W.push_back(static_cast<uint64_t>(Op.Kind));
    W.push_back(Op.Start);
    W.push_back(Op.Size);
    W.push_back(static_cast<uint64_t>(static_cast<uint32_t>(Op.Peer)));
    W.push_back(static_cast<uint64_t>(static_cast<uint32_t>(Op.Tag)));
  }
  for (const auto &[Before, After] : Deps) {
    W.push_back(Before);
    W.push_back(After);
  }
  for (const auto &[Start, Size] : Scratch) {
    W.push_back(Start);
    W.push_back(Size);
  }
  return W;
}

Status LocalGraph::deserialize(const uint64_t *Data, size_t Words,
                               LocalGraph &Out) {
  if (Words < 4)
    return Status::error("graph encoding too short");
  uint64_t NumOps = Data[1], NumDeps = Data[2], NumScratch = Data[3];
  if (NumOps > Words || NumDeps > Words || NumScratch > Words ||
      4 + NumOps * 5 + NumDeps * 2 + NumScratch * 2 != Words)
    return Status::error("graph encoding has the wrong length");
  Out = LocalGraph(static_cast<Rank>(static_cast<uint32_t>(Data[0])));
  const uint64_t *P = Data + 4;
  for (uint64_t I = 0; I < NumOps; ++I, P += 5) {
    if (P[0] > static_cast<uint64_t>(OpKind::Local))
      return Status::error("graph encoding has an unknown operation kind");
    uint32_t Index =
        Out.addSend(P[1], P[2], static_cast<Rank>(static_cast<uint32_t>(P[3])),
                    static_cast<int32_t>(static_cast<uint32_t>(P[4])));
    Out.Ops[Index].Kind = static_cast<OpKind>(P[0]);
  }
  for (uint64_t I = 0; I < NumDeps; ++I, P += 2)
    Out.addDependency(static_cast<uint32_t>(P[0]), static_cast<uint32_t>(P[1]));
  for (uint64_t I = 0; I < NumScratch; ++I, P += 2)
    Out.addScratch(P[0], P[1]);
  return Status();
}

Graph::Graph(Rank NumProcs)
    : NumProcs(NumProcs), First(NumProcs, 0), Added(NumProcs, false) {}

Status Graph::add(const LocalGraph &G) {
  Rank R = G.owner();
  if (R < 0 || R >= NumProcs)
    return Status::error("process " + std::to_string(R) +
                         " is not in the graph of " + std::to_string(NumProcs) +
                         " processes");
  if (Added[R])
    return Status::error("the graph of process " + std::to_string(R) +
                         " was added twice");
  const std::vector<Operation> &Local = G.ops();
  for (size_t I = 0; I < Local.size(); ++I) {
    const Operation &Op = Local[I];
    if (Op.Kind != OpKind::Local && (Op.Peer < 0 || Op.Peer >= NumProcs))
      return Status::error(
          std::string(Op.Kind == OpKind::Send ? "send " : "receive ") +
          std::to_string(I) + " of process " + std::to_string(R) +
          " names process " + std::to_string(Op.Peer) +
          ", which does not exist");
  }
  for (const auto &[Before, After] : G.dependencies())
    if (Before >= Local.size() || After >= Local.size())
      return Status::error("a dependency of process " + std::to_string(R) +
                           " names an operation it does not have");
  Added[R] = true;
  First[R] = static_cast<OpId>(Ops.size());
  for (const Operation &Op : Local) {
    Ops.push_back(Op);
    Ops.back().Owner = R;
  }
  for (const auto &[Before, After] : G.dependencies())
    Edges.emplace_back(First[R] + Before, First[R] + After);
  for (const auto &[Start, Size] : G.scratch())
    Scratch.push_back({R, Start, Size});
  Built = false;
  return Status();
}

void Graph::buildAdjacency() const {
  if (Built)
    return;
  // Rows of the edges added since the last build, merged with earlier ones.
  std::vector<std::pair<OpId, OpId>> All;
  All.reserve(Targets.size() + Edges.size());
  for (OpId Op = 0; Op + 1 < Offsets.size(); ++Op)
    for (uint32_t I = Offsets[Op]; I < Offsets[Op + 1]; ++I)
      All.emplace_back(Op, Targets[I]);
  All.insert(All.end(), Edges.begin(), Edges.end());
  std::vector<std::pair<OpId, OpId>>().swap(Edges);
  Offsets.assign(Ops.size() + 1, 0);
  InDegree.assign(Ops.size(), 0);
  for (const auto &[From, To] : All) {
    ++Offsets[From + 1];
    ++InDegree[To];
  }
  for (size_t I = 1; I < Offsets.size(); ++I)
    Offsets[I] += Offsets[I - 1];
  Targets.assign(All.size(), 0);
  std::vector<uint32_t> Fill(Offsets.begin(), Offsets.end() - 1);
  for (const auto &[From, To] : All)
    Targets[Fill[From]++] = To;
  Built = true;
}

std::string Graph::describe(OpId Op) const {
  const Operation &O = Ops[Op];
  std::string S = O.Kind == OpKind::Send   ? "send "
                  : O.Kind == OpKind::Recv ? "receive "
                                           : "local operation ";
  S +=
      std::to_string(localIndex(Op)) + " of process " + std::to_string(O.Owner);
  if (O.Kind != OpKind::Local)
    S += " (" + std::string(O.Kind == OpKind::Send ? "to " : "from ") +
         std::to_string(O.Peer) + ", tag " + std::to_string(O.Tag) + ", " +
         std::to_string(O.Size) + " bytes)";
  return S;
}

} // namespace commgraph
} // namespace mpilift
