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

uint32_t LocalGraph::addCombine(Address Into, Address From, uint64_t Size,
                                ReduceOp Op, uint32_t Element, TieRule Ties) {
  uint32_t I = addSend(Into, Size, -1, static_cast<int32_t>(Combines.size()));
  Ops[I].Kind = OpKind::Combine;
  Combines.push_back({From, Op, Element, Ties});
  return I;
}

void LocalGraph::addDependency(uint32_t Before, uint32_t After) {
  Deps.emplace_back(Before, After);
}

void LocalGraph::addScratch(Address Buffer, uint64_t Size) {
  Scratch.emplace_back(Buffer, Size);
}

// Layout: owner, #ops, #deps, #scratch, #combines, then 5 words per op
// (kind, start, size, peer, tag), 2 per dependency, 2 per scratch region, 3
// per combine (from, operation and tie rule << 8, element size).
std::vector<uint64_t> LocalGraph::serialize() const {
  std::vector<uint64_t> W;
  W.reserve(5 + Ops.size() * 5 + Deps.size() * 2 + Scratch.size() * 2 +
            Combines.size() * 3);
  W.push_back(static_cast<uint64_t>(static_cast<uint32_t>(Owner)));
  W.push_back(Ops.size());
  W.push_back(Deps.size());
  W.push_back(Scratch.size());
  W.push_back(Combines.size());
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
  for (const CombineInfo &C : Combines) {
    W.push_back(C.From);
    W.push_back(static_cast<uint64_t>(C.Op) | static_cast<uint64_t>(C.Ties)
                                                  << 8);
    W.push_back(C.Element);
  }
  return W;
}

Status LocalGraph::deserialize(const uint64_t *Data, size_t Words,
                               LocalGraph &Out) {
  if (Words < 5)
    return Status::error("graph encoding too short");
  uint64_t NumOps = Data[1], NumDeps = Data[2], NumScratch = Data[3],
           NumCombines = Data[4];
  if (NumOps > Words || NumDeps > Words || NumScratch > Words ||
      NumCombines > Words ||
      5 + NumOps * 5 + NumDeps * 2 + NumScratch * 2 + NumCombines * 3 != Words)
    return Status::error("graph encoding has the wrong length");
  Out = LocalGraph(static_cast<Rank>(static_cast<uint32_t>(Data[0])));
  const uint64_t *P = Data + 5;
  for (uint64_t I = 0; I < NumOps; ++I, P += 5) {
    if (P[0] > static_cast<uint64_t>(OpKind::Combine))
      return Status::error("graph encoding has an unknown operation kind");
    if (P[0] == static_cast<uint64_t>(OpKind::Combine) && P[4] >= NumCombines)
      return Status::error("graph encoding names a combine it does not have");
    uint32_t Index =
        Out.addSend(P[1], P[2], static_cast<Rank>(static_cast<uint32_t>(P[3])),
                    static_cast<int32_t>(static_cast<uint32_t>(P[4])));
    Out.Ops[Index].Kind = static_cast<OpKind>(P[0]);
  }
  for (uint64_t I = 0; I < NumDeps; ++I, P += 2)
    Out.addDependency(static_cast<uint32_t>(P[0]), static_cast<uint32_t>(P[1]));
  for (uint64_t I = 0; I < NumScratch; ++I, P += 2)
    Out.addScratch(P[0], P[1]);
  for (uint64_t I = 0; I < NumCombines; ++I, P += 3) {
    uint64_t Op = P[1] & 0xff, Ties = P[1] >> 8;
    if (Op > static_cast<uint64_t>(ReduceOp::Other) ||
        Ties > static_cast<uint64_t>(TieRule::TakeOther) || P[2] == 0 ||
        P[2] > UINT32_MAX)
      return Status::error("graph encoding has a bad combine");
    Out.Combines.push_back({P[0], static_cast<ReduceOp>(Op),
                            static_cast<uint32_t>(P[2]),
                            static_cast<TieRule>(Ties)});
  }
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
    if (Op.Kind == OpKind::Combine &&
        static_cast<uint32_t>(Op.Tag) >= G.combines().size())
      return Status::error("combine " + std::to_string(I) + " of process " +
                           std::to_string(R) + " has no combine information");
    if (isMessage(Op.Kind) && (Op.Peer < 0 || Op.Peer >= NumProcs))
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
    if (Op.Kind == OpKind::Combine)
      Ops.back().Tag = static_cast<int32_t>(Combines.size() + Op.Tag);
  }
  Combines.insert(Combines.end(), G.combines().begin(), G.combines().end());
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
  std::string S = O.Kind == OpKind::Send      ? "send "
                  : O.Kind == OpKind::Recv    ? "receive "
                  : O.Kind == OpKind::Combine ? "combine "
                                              : "local operation ";
  S +=
      std::to_string(localIndex(Op)) + " of process " + std::to_string(O.Owner);
  if (isMessage(O.Kind))
    S += " (" + std::string(O.Kind == OpKind::Send ? "to " : "from ") +
         std::to_string(O.Peer) + ", tag " + std::to_string(O.Tag) + ", " +
         std::to_string(O.Size) + " bytes)";
  return S;
}

const char *name(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return "MPI_SUM";
  case ReduceOp::Prod:
    return "MPI_PROD";
  case ReduceOp::Min:
    return "MPI_MIN";
  case ReduceOp::Max:
    return "MPI_MAX";
  case ReduceOp::LAnd:
    return "MPI_LAND";
  case ReduceOp::LOr:
    return "MPI_LOR";
  case ReduceOp::LXor:
    return "MPI_LXOR";
  case ReduceOp::BAnd:
    return "MPI_BAND";
  case ReduceOp::BOr:
    return "MPI_BOR";
  case ReduceOp::BXor:
    return "MPI_BXOR";
  case ReduceOp::MinLoc:
    return "MPI_MINLOC";
  case ReduceOp::MaxLoc:
    return "MPI_MAXLOC";
  case ReduceOp::Other:
    return "an operation of its own";
  }
  return "?";
}

} // namespace commgraph
} // namespace mpilift
