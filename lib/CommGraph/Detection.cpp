//===- Detection.cpp - Algorithm 5: collectives in SST transfers ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The SST signatures of section 2.4.1, searched from the most to the least
/// abstract operation (allgather > alltoall > bcast > gather, scatter):
///
///   allgather  (i, o_i,   l, j, o_ij)  for all i != j
///   alltoall   (i, o_ij,  l, j, o_ij)  for all i != j
///   bcast      (r, o_r,   l, j, o_j)   for all j != r
///   scatter    (r, o_rj,  l, j, o_j)   for all j != r
///   gather     (i, o_i,   l, r, o_ri)  for all i != r
///
/// (source first). Algorithm 5's pseudo-code names the two all-collectives
/// the other way round at its line 7; the signature table is followed here:
/// when every process sends the same block to all others it is an
/// allgather. Found transfers are removed and the search repeats. Then, on
/// what is left, rooted collectives on the largest process subsets
/// (section 4.2) and vector variants (section 2.4) are sought.
///
/// Per block size, transfers wait in one queue per (source, destination)
/// pair, and each process counts the distinct peers it has transfers to and
/// from, so a full-set check costs O(1) and every transfer is taken once:
/// O(n log n) for the initial sort.
///
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace mpilift {
namespace commgraph {
namespace {

/// The transfers still available, grouped by (source, destination): runs of
/// an index array sorted by pair, found by binary search. Four bytes per
/// transfer and twenty per pair, no hashing.
class PairQueues {
public:
  PairQueues(const std::vector<Transfer> &T, std::vector<uint32_t> Indices,
             Rank P)
      : OutPeers(P, 0), InPeers(P, 0) {
    // Stable: within a pair the caller's order (by addresses) is kept.
    std::stable_sort(
        Indices.begin(), Indices.end(), [&](uint32_t A, uint32_t B) {
          return std::tie(T[A].Src, T[A].Dst) < std::tie(T[B].Src, T[B].Dst);
        });
    Items = std::move(Indices);
    for (uint32_t I = 0; I < Items.size();) {
      Run R{T[Items[I]].Src, T[Items[I]].Dst, I, I, I};
      while (R.End < Items.size() && T[Items[R.End]].Src == R.Src &&
             T[Items[R.End]].Dst == R.Dst)
        ++R.End;
      ++OutPeers[R.Src];
      ++InPeers[R.Dst];
      ++Pairs;
      Runs.push_back(R);
      I = R.End;
    }
  }

  bool has(Rank Src, Rank Dst) const {
    const Run *R = find(Src, Dst);
    return R && R->Head < R->End;
  }
  uint32_t front(Rank Src, Rank Dst) const {
    return Items[find(Src, Dst)->Head];
  }
  uint32_t take(Rank Src, Rank Dst) {
    Run *R = const_cast<Run *>(find(Src, Dst));
    uint32_t Index = Items[R->Head++];
    if (R->Head == R->End) {
      --OutPeers[Src];
      --InPeers[Dst];
      --Pairs;
    }
    return Index;
  }
  /// Distinct destinations \p R has transfers to, sources it has them from.
  Rank outPeers(Rank R) const { return OutPeers[R]; }
  Rank inPeers(Rank R) const { return InPeers[R]; }
  uint64_t pairs() const { return Pairs; }

private:
  struct Run {
    Rank Src, Dst;
    uint32_t Begin, End, Head;
  };
  const Run *find(Rank Src, Rank Dst) const {
    auto It =
        std::lower_bound(Runs.begin(), Runs.end(), std::make_pair(Src, Dst),
                         [](const Run &R, std::pair<Rank, Rank> K) {
                           return std::make_pair(R.Src, R.Dst) < K;
                         });
    if (It == Runs.end() || It->Src != Src || It->Dst != Dst)
      return nullptr;
    return &*It;
  }
  std::vector<uint32_t> Items;
  std::vector<Run> Runs;
  std::vector<Rank> OutPeers, InPeers;
  uint64_t Pairs = 0;
};

class Detector {
public:
  Detector(const std::vector<Transfer> &In, Rank P, const DetectionOptions &O)
      : T(In), Used(In.size(), false), P(P), Options(O) {
    // Deterministic order: by size, then source, destination and addresses.
    Order.resize(T.size());
    for (uint32_t I = 0; I < T.size(); ++I)
      Order[I] = I;
    std::sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
      const Transfer &X = T[A], &Y = T[B];
      return std::tie(X.Size, X.Src, X.Dst, X.DstAddr, X.SrcAddr) <
             std::tie(Y.Size, Y.Src, Y.Dst, Y.DstAddr, Y.SrcAddr);
    });
  }

  Detection run() {
    if (P >= 2) {
      forEachSize([&](PairQueues &Q, uint64_t Size) { fullSet(Q, Size); });
      if (Options.Vectors)
        vectors();
      if (Options.Subsets)
        forEachSize([&](PairQueues &Q, uint64_t Size) { subsets(Q, Size); });
    }
    Detection D;
    D.Collectives = std::move(Found);
    for (uint32_t I : Order)
      if (!Used[I])
        D.Residual.push_back(T[I]);
    std::sort(D.Residual.begin(), D.Residual.end(),
              [](const Transfer &A, const Transfer &B) {
                return std::tie(A.Dst, A.DstAddr) < std::tie(B.Dst, B.DstAddr);
              });
    if (Options.Combine)
      combine(D.Collectives);
    return D;
  }

private:
  /// Calls \p F with the queues of the unused transfers of each block size.
  template <typename Fn> void forEachSize(Fn F) {
    size_t I = 0;
    while (I < Order.size()) {
      uint64_t Size = T[Order[I]].Size;
      std::vector<uint32_t> Group;
      for (; I < Order.size() && T[Order[I]].Size == Size; ++I)
        if (!Used[Order[I]] && T[Order[I]].Src != T[Order[I]].Dst)
          Group.push_back(Order[I]);
      if (Group.empty())
        continue;
      PairQueues Q(T, std::move(Group), P);
      F(Q, Size);
    }
  }

  std::vector<Rank> allProcesses() const {
    std::vector<Rank> G(P);
    for (Rank R = 0; R < P; ++R)
      G[R] = R;
    return G;
  }

  Collective &record(CollectiveKind K, Rank Root, std::vector<Rank> Group,
                     uint64_t Size, const std::vector<uint32_t> &Taken) {
    Collective C;
    C.Kind = K;
    C.Root = Root;
    C.Group = std::move(Group);
    C.BlockSize = Size;
    for (uint32_t I : Taken) {
      Used[I] = true;
      C.Blocks.push_back(T[I]);
    }
    Found.push_back(std::move(C));
    return Found.back();
  }

  /// Whether the chosen transfers of each source read one and the same block.
  bool sameBlockPerSource(const std::vector<uint32_t> &Taken) const {
    std::unordered_map<Rank, std::pair<Address, uint64_t>> Block;
    for (uint32_t I : Taken) {
      auto [It, New] =
          Block.emplace(T[I].Src, std::make_pair(T[I].SrcAddr, T[I].Size));
      if (!New && It->second != std::make_pair(T[I].SrcAddr, T[I].Size))
        return false;
    }
    return true;
  }

  /// Exact collectives over all processes for one block size.
  void fullSet(PairQueues &Q, uint64_t Size) {
    const uint64_t AllPairs = static_cast<uint64_t>(P) * (P - 1);
    while (Q.pairs() == AllPairs) {
      std::vector<uint32_t> Taken;
      for (Rank Src = 0; Src < P; ++Src)
        for (Rank Dst = 0; Dst < P; ++Dst)
          if (Src != Dst)
            Taken.push_back(Q.take(Src, Dst));
      record(sameBlockPerSource(Taken) ? CollectiveKind::Allgather
                                       : CollectiveKind::Alltoall,
             -1, allProcesses(), Size, Taken);
    }
    // Broadcasts (and scatters) of every root before any gather: with two
    // processes one message is both, and bcast is the more abstract.
    for (Rank Root = 0; Root < P; ++Root) {
      while (Q.outPeers(Root) == P - 1) {
        std::vector<uint32_t> Taken;
        for (Rank Dst = 0; Dst < P; ++Dst)
          if (Dst != Root)
            Taken.push_back(Q.take(Root, Dst));
        record(sameBlockPerSource(Taken) ? CollectiveKind::Bcast
                                         : CollectiveKind::Scatter,
               Root, allProcesses(), Size, Taken);
      }
    }
    for (Rank Root = 0; Root < P; ++Root) {
      while (Q.inPeers(Root) == P - 1) {
        std::vector<uint32_t> Taken;
        for (Rank Src = 0; Src < P; ++Src)
          if (Src != Root)
            Taken.push_back(Q.take(Src, Root));
        record(CollectiveKind::Gather, Root, allProcesses(), Size, Taken);
      }
    }
  }

  /// Section 4.2: the root with the most peers forms the largest rooted
  /// collective; take it and look again.
  void subsets(PairQueues &Q, uint64_t Size) {
    while (true) {
      Rank BestOut = 0, BestIn = 0;
      for (Rank R = 1; R < P; ++R) {
        if (Q.outPeers(R) > Q.outPeers(BestOut))
          BestOut = R;
        if (Q.inPeers(R) > Q.inPeers(BestIn))
          BestIn = R;
      }
      bool Out = Q.outPeers(BestOut) >= Q.inPeers(BestIn);
      Rank Root = Out ? BestOut : BestIn;
      Rank Peers = Out ? Q.outPeers(Root) : Q.inPeers(Root);
      if (Peers + 1 < Options.MinSubset || Peers == 0)
        return;
      std::vector<uint32_t> Taken;
      std::vector<Rank> Group{Root};
      for (Rank Other = 0; Other < P; ++Other) {
        if (Other == Root)
          continue;
        if (Out ? Q.has(Root, Other) : Q.has(Other, Root)) {
          Taken.push_back(Out ? Q.take(Root, Other) : Q.take(Other, Root));
          Group.push_back(Other);
        }
      }
      std::sort(Group.begin(), Group.end());
      CollectiveKind K = !Out                        ? CollectiveKind::Gather
                         : sameBlockPerSource(Taken) ? CollectiveKind::Bcast
                                                     : CollectiveKind::Scatter;
      record(K, Root, std::move(Group), Size, Taken);
    }
  }

  /// Section 2.4: blocks of differing sizes between enough pairs.
  void vectors() {
    std::vector<uint32_t> Unused;
    for (uint32_t I : Order)
      if (!Used[I] && T[I].Src != T[I].Dst)
        Unused.push_back(I);
    PairQueues Q(T, std::move(Unused), P);
    auto enough = [&](uint64_t Have, uint64_t Of) {
      return Have > 0 &&
             static_cast<double>(Have) >=
                 std::ceil(Options.Density * static_cast<double>(Of)) - 1e-9;
    };
    auto varying = [&](const std::vector<uint32_t> &Taken) {
      for (uint32_t I : Taken)
        if (T[I].Size != T[Taken[0]].Size)
          return true;
      return false;
    };
    const uint64_t AllPairs = static_cast<uint64_t>(P) * (P - 1);
    while (enough(Q.pairs(), AllPairs)) {
      std::vector<uint32_t> Taken;
      for (Rank Src = 0; Src < P; ++Src)
        for (Rank Dst = 0; Dst < P; ++Dst)
          if (Src != Dst && Q.has(Src, Dst))
            Taken.push_back(Q.front(Src, Dst));
      if (!varying(Taken))
        break; // Equal blocks: an exact collective or a subset, not a vector.
      for (uint32_t I : Taken)
        Q.take(T[I].Src, T[I].Dst);
      record(sameBlockPerSource(Taken) ? CollectiveKind::Allgatherv
                                       : CollectiveKind::Alltoallv,
             -1, allProcesses(), 0, Taken);
    }
    for (Rank Root = 0; Root < P; ++Root) {
      for (bool Out : {true, false}) {
        while (enough(Out ? Q.outPeers(Root) : Q.inPeers(Root), P - 1)) {
          std::vector<uint32_t> Taken;
          for (Rank Other = 0; Other < P; ++Other)
            if (Other != Root &&
                (Out ? Q.has(Root, Other) : Q.has(Other, Root)))
              Taken.push_back(Out ? Q.front(Root, Other)
                                  : Q.front(Other, Root));
          if (!varying(Taken))
            break;
          for (uint32_t I : Taken)
            Q.take(T[I].Src, T[I].Dst);
          record(Out ? CollectiveKind::Scatterv : CollectiveKind::Gatherv, Root,
                 allProcesses(), 0, Taken);
        }
      }
    }
  }

  /// Collectives of one shape become one collective with several parts.
  static void combine(std::vector<Collective> &Cs) {
    std::vector<Collective> Out;
    std::map<std::tuple<CollectiveKind, Rank, std::vector<Rank>, uint64_t>,
             size_t>
        Shape;
    for (Collective &C : Cs) {
      auto Key = std::make_tuple(C.Kind, C.Root, C.Group, C.BlockSize);
      auto It = Shape.find(Key);
      if (It == Shape.end()) {
        Shape.emplace(Key, Out.size());
        Out.push_back(std::move(C));
        continue;
      }
      Collective &Into = Out[It->second];
      Into.Blocks.insert(Into.Blocks.end(), C.Blocks.begin(), C.Blocks.end());
      ++Into.Parts;
    }
    Cs = std::move(Out);
  }

  const std::vector<Transfer> &T;
  std::vector<bool> Used;
  std::vector<uint32_t> Order;
  Rank P;
  DetectionOptions Options;
  std::vector<Collective> Found;
};

} // namespace

const char *name(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::Allgather:
    return "allgather";
  case CollectiveKind::Alltoall:
    return "alltoall";
  case CollectiveKind::Bcast:
    return "bcast";
  case CollectiveKind::Gather:
    return "gather";
  case CollectiveKind::Scatter:
    return "scatter";
  case CollectiveKind::Allgatherv:
    return "allgatherv";
  case CollectiveKind::Alltoallv:
    return "alltoallv";
  case CollectiveKind::Gatherv:
    return "gatherv";
  case CollectiveKind::Scatterv:
    return "scatterv";
  }
  return "?";
}

std::vector<Transfer> coalesceTransfers(std::vector<Transfer> Transfers) {
  Transfers.erase(std::remove_if(Transfers.begin(), Transfers.end(),
                                 [](const Transfer &T) {
                                   return T.Src == T.Dst &&
                                          T.SrcAddr == T.DstAddr;
                                 }),
                  Transfers.end());
  // By pair, then by how far the bytes move (transfers that can join have
  // one distance), then by address.
  auto Shift = [](const Transfer &T) { return T.DstAddr - T.SrcAddr; };
  std::sort(Transfers.begin(), Transfers.end(),
            [&](const Transfer &A, const Transfer &B) {
              return std::make_tuple(A.Src, A.Dst, Shift(A), A.SrcAddr,
                                     A.Size) <
                     std::make_tuple(B.Src, B.Dst, Shift(B), B.SrcAddr, B.Size);
            });
  std::vector<Transfer> Out;
  for (const Transfer &T : Transfers) {
    if (!Out.empty()) {
      Transfer &Last = Out.back();
      // The same bytes again (a piece that reached a rank twice), or the
      // bytes right after: one transfer.
      if (Last.Src == T.Src && Last.Dst == T.Dst && Shift(Last) == Shift(T) &&
          T.SrcAddr <= Last.SrcAddr + Last.Size) {
        Last.Size = std::max(Last.SrcAddr + Last.Size, T.SrcAddr + T.Size) -
                    Last.SrcAddr;
        continue;
      }
    }
    Out.push_back(T);
  }
  return Out;
}

Detection detect(const std::vector<Transfer> &Transfers, Rank NumProcs,
                 const DetectionOptions &Options) {
  return Detector(Transfers, NumProcs, Options).run();
}

} // namespace commgraph
} // namespace mpilift
