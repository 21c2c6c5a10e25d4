//===- Matching.cpp - Algorithm 1: match sends to receives ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A fix point over independent operations: an operation whose dependencies
/// all completed is ready; a ready send or receive either matches the
/// earliest ready counterpart with the same (source, destination, tag) or
/// waits in that queue. Matching completes both and may make others ready.
/// Each operation enters the ready queue once and each dependency is
/// removed once: O(n + m) with hashed queues (the paper's O(n log n + m)
/// uses ordered trees).
///
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include <deque>
#include <unordered_map>

namespace mpilift {
namespace commgraph {
namespace {

/// (owner, peer, tag, kind) of the operations waiting for a partner.
struct QueueKey {
  Rank Owner, Peer;
  int32_t Tag;
  OpKind Kind;
  bool operator==(const QueueKey &O) const {
    return Owner == O.Owner && Peer == O.Peer && Tag == O.Tag && Kind == O.Kind;
  }
};

struct QueueKeyHash {
  size_t operator()(const QueueKey &K) const {
    uint64_t H = static_cast<uint32_t>(K.Owner);
    H = H * 0x9e3779b97f4a7c15ull ^ static_cast<uint32_t>(K.Peer);
    H = H * 0x9e3779b97f4a7c15ull ^ static_cast<uint32_t>(K.Tag);
    H = H * 0x9e3779b97f4a7c15ull ^ static_cast<uint32_t>(K.Kind);
    return static_cast<size_t>(H ^ (H >> 29));
  }
};

constexpr size_t MaxListed = 8;

std::string listOps(const Graph &G, const std::vector<OpId> &Ops) {
  std::string S;
  for (size_t I = 0; I < Ops.size() && I < MaxListed; ++I)
    S += (I ? "; " : "") + G.describe(Ops[I]);
  if (Ops.size() > MaxListed)
    S += "; and " + std::to_string(Ops.size() - MaxListed) + " more";
  return S;
}

/// Among operations that never became ready, finds a dependency cycle.
std::vector<OpId> findCycle(const Graph &G, const std::vector<uint32_t> &Left) {
  enum : uint8_t { White, Grey, Black };
  std::vector<uint8_t> Color(G.ops().size(), White);
  std::vector<OpId> Parent(G.ops().size(), NoOp);
  for (OpId Start = 0; Start < G.ops().size(); ++Start) {
    if (Left[Start] == 0 || Color[Start] != White)
      continue;
    // Iterative DFS: (node, next successor index).
    std::vector<std::pair<OpId, size_t>> Stack{{Start, 0}};
    Color[Start] = Grey;
    while (!Stack.empty()) {
      auto &[Node, Next] = Stack.back();
      OpRange Succ = G.successors(Node);
      if (Next == Succ.size()) {
        Color[Node] = Black;
        Stack.pop_back();
        continue;
      }
      OpId S = Succ.First[Next++];
      if (Left[S] == 0)
        continue;
      if (Color[S] == Grey) {
        std::vector<OpId> Cycle{S};
        for (OpId N = Node; N != S; N = Parent[N])
          Cycle.push_back(N);
        return std::vector<OpId>(Cycle.rbegin(), Cycle.rend());
      }
      if (Color[S] == White) {
        Color[S] = Grey;
        Parent[S] = Node;
        Stack.emplace_back(S, 0);
      }
    }
  }
  return {};
}

} // namespace

Status match(const Graph &G, Matching &M) {
  const std::vector<Operation> &Ops = G.ops();
  M.PeerOf.assign(Ops.size(), NoOp);
  std::vector<uint32_t> Left(Ops.size());
  std::deque<OpId> Ready;
  for (OpId I = 0; I < Ops.size(); ++I) {
    Left[I] = G.numPredecessors(I);
    if (Left[I] == 0)
      Ready.push_back(I);
  }
  auto complete = [&](OpId Op) {
    for (OpId S : G.successors(Op))
      if (--Left[S] == 0)
        Ready.push_back(S);
  };
  // Operations waiting for a partner: one FIFO per key, linked through Next;
  // a key disappears as soon as its queue is empty.
  std::unordered_map<QueueKey, std::pair<OpId, OpId>, QueueKeyHash> Waiting;
  std::vector<OpId> Next(Ops.size(), NoOp);
  std::vector<OpId> SizeMismatch;
  while (!Ready.empty()) {
    OpId A = Ready.front();
    Ready.pop_front();
    const Operation &Op = Ops[A];
    if (!isMessage(Op.Kind)) {
      complete(A);
      continue;
    }
    OpKind Other = Op.Kind == OpKind::Send ? OpKind::Recv : OpKind::Send;
    auto It = Waiting.find(QueueKey{Op.Peer, Op.Owner, Op.Tag, Other});
    if (It == Waiting.end()) {
      auto [Mine, New] = Waiting.try_emplace(
          QueueKey{Op.Owner, Op.Peer, Op.Tag, Op.Kind}, A, A);
      if (!New) {
        Next[Mine->second.second] = A;
        Mine->second.second = A;
      }
      continue;
    }
    OpId B = It->second.first;
    if (B == It->second.second)
      Waiting.erase(It);
    else
      It->second.first = Next[B];
    M.PeerOf[A] = B;
    M.PeerOf[B] = A;
    if (Op.Size != Ops[B].Size) {
      SizeMismatch.push_back(A);
      SizeMismatch.push_back(B);
    }
    complete(A);
    complete(B);
  }

  if (!SizeMismatch.empty())
    return Status::error("matched operations differ in size: " +
                         listOps(G, SizeMismatch));
  std::vector<OpId> Unmatched, NeverReady;
  for (OpId I = 0; I < Ops.size(); ++I) {
    if (Left[I] != 0)
      NeverReady.push_back(I);
    else if (isMessage(Ops[I].Kind) && M.PeerOf[I] == NoOp)
      Unmatched.push_back(I);
  }
  if (!NeverReady.empty()) {
    std::vector<OpId> Cycle = findCycle(G, Left);
    if (!Cycle.empty())
      return Status::error("dependency cycle: " + listOps(G, Cycle));
  }
  if (!Unmatched.empty() || !NeverReady.empty()) {
    M.Unmatched = Unmatched;
    M.NeverReady = NeverReady;
    std::string S = "unmatched operations: " + listOps(G, Unmatched);
    if (!NeverReady.empty())
      S += (Unmatched.empty() ? "" : "; ") +
           std::string("never ready (they wait for unmatched operations): ") +
           listOps(G, NeverReady);
    return Status::error(S);
  }
  return Status();
}

} // namespace commgraph
} // namespace mpilift
