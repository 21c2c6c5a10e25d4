//===- CommGraphTest.cpp - Matching, SST dataflow and detection -----------===//
//
// Communication graphs of the classic collective algorithms, built as their
// processes would post them, must reduce to the collective they implement;
// graphs that only look like one must not.
//
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>

using namespace mpilift::commgraph;

namespace {

constexpr uint64_t L = 16; // Block size of the collectives.

/// Collects the processes' graphs.
struct Builder {
  explicit Builder(Rank P) : P(P) {
    for (Rank R = 0; R < P; ++R)
      G.emplace_back(R);
  }
  uint32_t send(Rank R, Address A, uint64_t N, Rank To, int Tag = 0) {
    return G[R].addSend(A, N, To, Tag);
  }
  uint32_t recv(Rank R, Address A, uint64_t N, Rank From, int Tag = 0) {
    return G[R].addRecv(A, N, From, Tag);
  }
  void dep(Rank R, uint32_t Before, uint32_t After) {
    G[R].addDependency(Before, After);
  }
  Rank P;
  std::vector<LocalGraph> G;
};

struct Analysis {
  Status Matched, Propagated;
  std::vector<Transfer> SST;
  DataflowStats Stats;
  Detection D;
};

Analysis analyze(const Builder &B, DetectionOptions O = DetectionOptions()) {
  Analysis A;
  Graph G(B.P);
  for (const LocalGraph &L : B.G) {
    Status S = G.add(L);
    EXPECT_TRUE(S.ok()) << S.Message;
  }
  Matching M;
  A.Matched = match(G, M);
  if (!A.Matched.ok())
    return A;
  A.Propagated = propagate(G, M, A.SST, &A.Stats);
  if (A.Propagated.ok())
    A.D = detect(A.SST, B.P, O);
  return A;
}

Rank absolute(Rank Relative, Rank Root, Rank P) {
  return (Relative + Root) % P;
}
Rank relative(Rank R, Rank Root, Rank P) { return (R - Root + P) % P; }
uint64_t lowBit(uint64_t V) { return V & (~V + 1); }
uint64_t highestPowerBelow(uint64_t P) {
  uint64_t M = 1;
  while (M * 2 < P)
    M *= 2;
  return M;
}

//===-- Broadcast
//----------------------------------------------------------===//

constexpr Address BcastBuf = 0x1000;

void bcastLinear(Builder &B, Rank Root) {
  for (Rank J = 0; J < B.P; ++J)
    if (J != Root) {
      B.send(Root, BcastBuf, L, J);
      B.recv(J, BcastBuf, L, Root);
    }
}

/// Binomial tree: a process receives from its parent, then forwards the
/// same buffer to its children.
void bcastBinomial(Builder &B, Rank Root) {
  for (Rank R = 0; R < B.P; ++R) {
    uint64_t V = relative(R, Root, B.P);
    uint32_t Recv = UINT32_MAX;
    uint64_t Mask = V ? lowBit(V) / 2 : highestPowerBelow(B.P);
    if (V)
      Recv = B.recv(R, BcastBuf, L, absolute(V - lowBit(V), Root, B.P));
    for (; Mask; Mask /= 2) {
      if (V + Mask >= static_cast<uint64_t>(B.P))
        continue;
      uint32_t S = B.send(R, BcastBuf, L, absolute(V + Mask, Root, B.P));
      if (Recv != UINT32_MAX)
        B.dep(R, Recv, S);
    }
  }
}

/// Pipelined chain: the buffer travels in segments, each forwarded as soon
/// as it arrived.
void bcastChain(Builder &B, Rank Root, unsigned Segments) {
  uint64_t Seg = L / Segments;
  for (Rank V = 0; V < B.P; ++V) {
    Rank R = absolute(V, Root, B.P);
    for (unsigned K = 0; K < Segments; ++K) {
      uint32_t Recv = UINT32_MAX;
      if (V > 0)
        Recv = B.recv(R, BcastBuf + K * Seg, Seg, absolute(V - 1, Root, B.P));
      if (V + 1 < B.P) {
        uint32_t S =
            B.send(R, BcastBuf + K * Seg, Seg, absolute(V + 1, Root, B.P));
        if (Recv != UINT32_MAX)
          B.dep(R, Recv, S);
      }
    }
  }
}

//===-- Scatter and gather
//-------------------------------------------------===//

constexpr Address RootBuf = 0x2000, Temp = 0x8000, Own = 0x3000;

void scatterLinear(Builder &B, Rank Root) {
  for (Rank J = 0; J < B.P; ++J)
    if (J != Root) {
      B.send(Root, RootBuf + J * L, L, J);
      B.recv(J, Own, L, Root);
    }
}

/// Binomial scatter: a process receives its subtree's blocks into a
/// temporary buffer, keeps the first and forwards the others.
void scatterBinomial(Builder &B, Rank Root) {
  uint64_t P = B.P;
  for (Rank R = 0; R < B.P; ++R) {
    uint64_t V = relative(R, Root, B.P);
    uint64_t Span = V ? std::min(lowBit(V), P - V) : P;
    uint32_t Recv = UINT32_MAX;
    if (V) {
      Recv = B.recv(R, Temp, Span * L, absolute(V - lowBit(V), Root, B.P));
      B.G[R].addScratch(Temp + L, (Span - 1) * L);
    }
    for (uint64_t Mask = V ? lowBit(V) / 2 : highestPowerBelow(P); Mask;
         Mask /= 2) {
      if (V + Mask >= P)
        continue;
      uint64_t Blocks = std::min(Mask, P - (V + Mask));
      Address From = V ? Temp + Mask * L : RootBuf + (V + Mask) * L;
      uint32_t S = B.send(R, From, Blocks * L, absolute(V + Mask, Root, B.P));
      if (Recv != UINT32_MAX)
        B.dep(R, Recv, S);
    }
  }
}

void gatherLinear(Builder &B, Rank Root) {
  for (Rank I = 0; I < B.P; ++I)
    if (I != Root) {
      B.send(I, Own, L, Root);
      B.recv(Root, RootBuf + I * L, L, I);
    }
}

/// Binomial gather: a process holds its own block first in a buffer,
/// receives its children's subtrees behind it and sends the lot upwards.
void gatherBinomial(Builder &B, Rank Root) {
  uint64_t P = B.P;
  for (Rank R = 0; R < B.P; ++R) {
    uint64_t V = relative(R, Root, B.P);
    uint64_t Limit = V ? lowBit(V) : 2 * highestPowerBelow(P);
    Address Buf = V ? Temp : RootBuf;
    std::vector<uint32_t> Recvs;
    for (uint64_t Mask = 1; Mask < Limit && V + Mask < P; Mask *= 2) {
      uint64_t Blocks = std::min(Mask, P - (V + Mask));
      Recvs.push_back(
          B.recv(R, Buf + Mask * L, Blocks * L, absolute(V + Mask, Root, B.P)));
    }
    if (!V)
      continue;
    uint64_t Span = std::min(lowBit(V), P - V);
    uint32_t S = B.send(R, Buf, Span * L, absolute(V - lowBit(V), Root, B.P));
    for (uint32_t Rc : Recvs)
      B.dep(R, Rc, S);
    B.G[R].addScratch(Temp + L, (Span - 1) * L);
  }
}

//===-- Allgather
//----------------------------------------------------------===//

constexpr Address AllBuf = 0x4000;

/// Ring: in step k, pass on the block received in step k - 1.
void allgatherRing(Builder &B) {
  Rank P = B.P;
  for (Rank R = 0; R < P; ++R) {
    uint32_t LastRecv = UINT32_MAX;
    for (Rank K = 0; K + 1 < P; ++K) {
      Rank SendSlot = (R - K + P) % P, RecvSlot = (R - K - 1 + P) % P;
      uint32_t S = B.send(R, AllBuf + SendSlot * L, L, (R + 1) % P);
      if (LastRecv != UINT32_MAX)
        B.dep(R, LastRecv, S);
      LastRecv = B.recv(R, AllBuf + RecvSlot * L, L, (R - 1 + P) % P);
    }
  }
}

/// Recursive doubling, the butterfly of the paper's Figure 1 (P = 2^k):
/// exchange everything gathered so far with the partner at distance d.
/// A step forwards what every earlier step received: its send depends on
/// all earlier receives.
void allgatherButterfly(Builder &B, uint64_t Block) {
  Rank P = B.P;
  for (Rank R = 0; R < P; ++R) {
    std::vector<uint32_t> Received;
    for (Rank D = 1; D < P; D *= 2) {
      Rank Partner = R ^ D;
      Address Mine = AllBuf + (R & ~(D - 1)) * Block;
      Address Theirs = AllBuf + (Partner & ~(D - 1)) * Block;
      uint32_t S = B.send(R, Mine, D * Block, Partner);
      for (uint32_t Rc : Received)
        B.dep(R, Rc, S);
      Received.push_back(B.recv(R, Theirs, D * Block, Partner));
    }
  }
}

/// Bruck (any P): slot k of process r holds the block of process r + k;
/// in step d send the first min(d, P - d) slots to r - d.
void allgatherBruck(Builder &B) {
  Rank P = B.P;
  for (Rank R = 0; R < P; ++R) {
    std::vector<uint32_t> Received;
    for (Rank D = 1; D < P; D *= 2) {
      Rank Count = std::min(D, P - D);
      uint32_t S = B.send(R, AllBuf, Count * L, (R - D + P) % P);
      for (uint32_t Rc : Received)
        B.dep(R, Rc, S);
      Received.push_back(B.recv(R, AllBuf + D * L, Count * L, (R + D) % P));
    }
  }
}

//===-- Alltoall
//-----------------------------------------------------------===//

constexpr Address SendBuf = 0x5000, RecvBuf = 0x6000;

void alltoallLinear(Builder &B) {
  for (Rank I = 0; I < B.P; ++I)
    for (Rank J = 0; J < B.P; ++J)
      if (I != J) {
        B.send(I, SendBuf + J * L, L, J);
        B.recv(J, RecvBuf + I * L, L, I);
      }
}

/// Store and forward around the ring: the block from i to j hops through
/// every process between them, each keeping it in a scratch slot.
void alltoallRingForward(Builder &B) {
  Rank P = B.P;
  for (Rank I = 0; I < P; ++I)
    for (Rank J = 0; J < P; ++J) {
      if (I == J)
        continue;
      int Tag = I * P + J;
      Rank Hop = I;
      Address From = SendBuf + J * L;
      uint32_t Prev = UINT32_MAX;
      while (Hop != J) {
        Rank Next = (Hop + 1) % P;
        uint32_t S = B.send(Hop, From, L, Next, Tag);
        if (Prev != UINT32_MAX)
          B.dep(Hop, Prev, S);
        Address To = Next == J ? RecvBuf + I * L : Temp + Tag * L;
        Prev = B.recv(Next, To, L, Hop, Tag);
        if (Next != J)
          B.G[Next].addScratch(To, L);
        From = To;
        Hop = Next;
      }
    }
}

/// p extra messages of 7 bytes along a random permutation without fixed
/// points, each sent after a random earlier operation of its sender and
/// received after one of its receiver. Every process sends one and receives
/// one, so for P >= 3 they cannot form a collective and must stay residual.
/// (With P = 2 any single message is a full-set broadcast: no extras.)
size_t addRandomMessages(Builder &B, unsigned Seed) {
  if (B.P < 3)
    return 0;
  std::mt19937 Rng(Seed);
  std::vector<Rank> Perm(B.P);
  for (Rank R = 0; R < B.P; ++R)
    Perm[R] = R;
  bool HasFixedPoint = true;
  while (HasFixedPoint) {
    std::shuffle(Perm.begin(), Perm.end(), Rng);
    HasFixedPoint = false;
    for (Rank R = 0; R < B.P; ++R)
      HasFixedPoint |= Perm[R] == R;
  }
  for (Rank From = 0; From < B.P; ++From) {
    Rank To = Perm[From];
    uint32_t BeforeS = B.G[From].ops().size(), BeforeR = B.G[To].ops().size();
    uint32_t S = B.send(From, 0x9000 + From * 8, 7, To, 1000 + From);
    uint32_t R = B.recv(To, 0xa000 + From * 8, 7, From, 1000 + From);
    if (BeforeS)
      B.dep(From, Rng() % BeforeS, S);
    if (BeforeR)
      B.dep(To, Rng() % BeforeR, R);
  }
  return B.P;
}

//===-- Checks
//-------------------------------------------------------------===//

/// Exactly one collective of kind \p K over all processes (with \p Root),
/// covering every transfer of block size \p L.
void expectCollective(const Analysis &A, CollectiveKind K, Rank Root, Rank P,
                      size_t ExtraResidual = 0) {
  ASSERT_TRUE(A.Matched.ok()) << A.Matched.Message;
  ASSERT_TRUE(A.Propagated.ok()) << A.Propagated.Message;
  ASSERT_EQ(A.D.Collectives.size(), 1u)
      << "P=" << P << " found " << A.D.Collectives.size() << " collectives";
  const Collective &C = A.D.Collectives[0];
  EXPECT_EQ(C.Kind, K) << "P=" << P << ": " << name(C.Kind);
  EXPECT_EQ(C.Root, Root) << "P=" << P;
  EXPECT_TRUE(C.onAllProcesses(P));
  EXPECT_EQ(C.BlockSize, L);
  bool AllPairs =
      K == CollectiveKind::Allgather || K == CollectiveKind::Alltoall;
  EXPECT_EQ(C.Blocks.size(),
            static_cast<size_t>(AllPairs ? P * (P - 1) : P - 1));
  EXPECT_EQ(A.D.Residual.size(), ExtraResidual) << "P=" << P;
  for (const Transfer &T : A.D.Residual)
    EXPECT_EQ(T.Size, 7u) << "a collective transfer was left residual";
}

const std::vector<Rank> ProcessCounts = {2, 3,  4,  5,  6,  7,  8,
                                         9, 12, 13, 16, 17, 31, 32};

std::vector<Rank> rootsFor(Rank P) {
  std::set<Rank> Roots{0, P - 1, P / 2};
  return std::vector<Rank>(Roots.begin(), Roots.end());
}

TEST(CommGraphTest, ButterflyOfThePaperGivesItsFinalReceiveTuples) {
  // Figures 1-5: four processes, one-element blocks at addresses 0..3.
  Builder B(4);
  allgatherButterfly(B, 1);
  for (LocalGraph &G : B.G) { // Addresses start at 0 in the paper.
    LocalGraph Shifted(G.owner());
    for (const Operation &Op : G.ops())
      Op.Kind == OpKind::Send
          ? Shifted.addSend(Op.Start - AllBuf, Op.Size, Op.Peer, Op.Tag)
          : Shifted.addRecv(Op.Start - AllBuf, Op.Size, Op.Peer, Op.Tag);
    for (const auto &[Before, After] : G.dependencies())
      Shifted.addDependency(Before, After);
    G = Shifted;
  }
  Analysis A = analyze(B);
  ASSERT_TRUE(A.Matched.ok()) << A.Matched.Message;
  ASSERT_TRUE(A.Propagated.ok()) << A.Propagated.Message;
  // The paper's tuples are (owner, start, size, peer, peer start). Its
  // (0,0,1,0,0) is process 0's own element, which never moves: it is where
  // no transfer writes.
  std::set<std::tuple<Rank, Address, uint64_t, Rank, Address>> Final;
  std::set<Address> Written;
  for (const Transfer &T : A.SST)
    if (T.Dst == 0) {
      for (uint64_t I = 0; I < T.Size; ++I) {
        Final.insert({0, T.DstAddr + I, 1, T.Src, T.SrcAddr + I});
        Written.insert(T.DstAddr + I);
      }
    }
  for (Address Addr = 0; Addr < 4; ++Addr)
    if (!Written.count(Addr))
      Final.insert({0, Addr, 1, 0, Addr});
  std::set<std::tuple<Rank, Address, uint64_t, Rank, Address>> Paper = {
      {0, 0, 1, 0, 0}, {0, 1, 1, 1, 1}, {0, 2, 1, 2, 2}, {0, 3, 1, 3, 3}};
  EXPECT_EQ(Final, Paper);
  // Figure 5: the two-element message from 0 to 2 (own element plus the
  // one from 1) is split, as is every second-round message.
  EXPECT_EQ(A.Stats.Splits, 4u);
  // Every process contributes its one element to all others.
  ASSERT_EQ(A.D.Collectives.size(), 1u);
  EXPECT_EQ(A.D.Collectives[0].Kind, CollectiveKind::Allgather);
  EXPECT_TRUE(A.D.Residual.empty());
}

TEST(CommGraphTest, Broadcasts) {
  for (Rank P : ProcessCounts)
    for (Rank Root : rootsFor(P)) {
      for (int Algo = 0; Algo < 3; ++Algo) {
        for (bool Extra : {false, true}) {
          Builder B(P);
          if (Algo == 0)
            bcastLinear(B, Root);
          else if (Algo == 1)
            bcastBinomial(B, Root);
          else
            bcastChain(B, Root, 4);
          size_t NumExtra = Extra ? addRandomMessages(B, 7 * P + Root) : 0;
          SCOPED_TRACE("algorithm " + std::to_string(Algo) + " P " +
                       std::to_string(P) + " root " + std::to_string(Root) +
                       (Extra ? " with extra messages" : ""));
          Analysis A = analyze(B);
          expectCollective(A, CollectiveKind::Bcast, Root, P, NumExtra);
          for (const Transfer &T : A.D.Collectives[0].Blocks) {
            EXPECT_EQ(T.Src, Root);
            EXPECT_EQ(T.SrcAddr, BcastBuf);
            EXPECT_EQ(T.DstAddr, BcastBuf);
          }
        }
      }
    }
}

TEST(CommGraphTest, ScattersAndGathers) {
  for (Rank P : ProcessCounts)
    for (Rank Root : rootsFor(P))
      for (int Algo = 0; Algo < 4; ++Algo)
        for (bool Extra : {false, true}) {
          Builder B(P);
          if (Algo == 0)
            scatterLinear(B, Root);
          else if (Algo == 1)
            scatterBinomial(B, Root);
          else if (Algo == 2)
            gatherLinear(B, Root);
          else
            gatherBinomial(B, Root);
          size_t NumExtra = Extra ? addRandomMessages(B, 11 * P + Root) : 0;
          SCOPED_TRACE("algorithm " + std::to_string(Algo) + " P " +
                       std::to_string(P) + " root " + std::to_string(Root));
          Analysis A = analyze(B);
          bool Scatter = Algo < 2;
          if (P == 2) {
            // One message: a bcast from its sender, the most abstract name.
            expectCollective(A, CollectiveKind::Bcast,
                             Scatter ? Root : 1 - Root, P, NumExtra);
            continue;
          }
          expectCollective(
              A, Scatter ? CollectiveKind::Scatter : CollectiveKind::Gather,
              Root, P, NumExtra);
          std::set<Address> Sources;
          for (const Transfer &T : A.D.Collectives[0].Blocks)
            Sources.insert(Scatter ? T.SrcAddr : T.DstAddr);
          EXPECT_EQ(Sources.size(), static_cast<size_t>(P - 1))
              << "one block per process";
        }
}

TEST(CommGraphTest, Allgathers) {
  for (Rank P : ProcessCounts)
    for (int Algo = 0; Algo < 3; ++Algo)
      for (bool Extra : {false, true}) {
        bool PowerOfTwo = (P & (P - 1)) == 0;
        if (Algo == 2 && !PowerOfTwo)
          continue;
        Builder B(P);
        if (Algo == 0)
          allgatherRing(B);
        else if (Algo == 1)
          allgatherBruck(B);
        else
          allgatherButterfly(B, L);
        size_t NumExtra = Extra ? addRandomMessages(B, 13 * P) : 0;
        SCOPED_TRACE("algorithm " + std::to_string(Algo) + " P " +
                     std::to_string(P));
        Analysis A = analyze(B);
        // For P = 2 a one-block exchange is both an allgather and an
        // alltoall; the more abstract allgather wins.
        expectCollective(A, CollectiveKind::Allgather, -1, P, NumExtra);
      }
}

TEST(CommGraphTest, Alltoalls) {
  for (Rank P : {3, 4, 5, 7, 8, 9, 12}) {
    for (int Algo = 0; Algo < 2; ++Algo)
      for (bool Extra : {false, true}) {
        Builder B(P);
        if (Algo == 0)
          alltoallLinear(B);
        else
          alltoallRingForward(B);
        size_t NumExtra = Extra ? addRandomMessages(B, 17 * P) : 0;
        SCOPED_TRACE("algorithm " + std::to_string(Algo) + " P " +
                     std::to_string(P));
        Analysis A = analyze(B);
        expectCollective(A, CollectiveKind::Alltoall, -1, P, NumExtra);
        for (const Transfer &T : A.D.Collectives[0].Blocks) {
          EXPECT_EQ(T.SrcAddr, SendBuf + T.Dst * L);
          EXPECT_EQ(T.DstAddr, RecvBuf + T.Src * L);
        }
      }
  }
}

TEST(CommGraphTest, ExtraMessagesStayResidualExactly) {
  Builder B(6);
  bcastBinomial(B, 2);
  addRandomMessages(B, 99);
  Analysis A = analyze(B);
  ASSERT_EQ(A.D.Collectives.size(), 1u);
  EXPECT_EQ(A.D.Collectives[0].Kind, CollectiveKind::Bcast);
  ASSERT_EQ(A.D.Residual.size(), 6u); // One per extra message.
  std::set<Rank> Senders;
  for (const Transfer &T : A.D.Residual) {
    EXPECT_EQ(T.Size, 7u);
    EXPECT_EQ(T.SrcAddr, 0x9000u + T.Src * 8);
    EXPECT_EQ(T.DstAddr, 0xa000u + T.Src * 8);
    Senders.insert(T.Src);
  }
  EXPECT_EQ(Senders.size(), 6u);
}

//===-- Negative graphs
//----------------------------------------------------===//

TEST(CommGraphTest, OneReceiverMissingIsNoFullBroadcast) {
  Builder B(6);
  for (Rank J = 1; J < 6; ++J)
    if (J != 4) {
      B.send(0, BcastBuf, L, J);
      B.recv(J, BcastBuf, L, 0);
    }
  Analysis A = analyze(B);
  ASSERT_EQ(A.D.Collectives.size(), 1u);
  const Collective &C = A.D.Collectives[0];
  EXPECT_FALSE(C.onAllProcesses(6));
  EXPECT_EQ(C.Group, (std::vector<Rank>{0, 1, 2, 3, 5})); // Section 4.2.
  DetectionOptions NoSubsets;
  NoSubsets.Subsets = false;
  Analysis Strict = analyze(B, NoSubsets);
  EXPECT_TRUE(Strict.D.Collectives.empty());
  EXPECT_EQ(Strict.D.Residual.size(), 4u);
}

TEST(CommGraphTest, DifferentSizesAreNoBroadcast) {
  Builder B(5);
  for (Rank J = 1; J < 5; ++J) {
    uint64_t Size = J == 3 ? L / 2 : L;
    B.send(0, BcastBuf, Size, J);
    B.recv(J, BcastBuf, Size, 0);
  }
  Analysis A = analyze(B);
  for (const Collective &C : A.D.Collectives)
    EXPECT_FALSE(C.Kind == CollectiveKind::Bcast && C.onAllProcesses(5))
        << "found a broadcast of unequal blocks";
  // What it is: a scatter of blocks of different sizes.
  ASSERT_EQ(A.D.Collectives.size(), 1u);
  EXPECT_EQ(A.D.Collectives[0].Kind, CollectiveKind::Scatterv);
}

TEST(CommGraphTest, BufferModifiedOnTheWayIsNoBroadcast) {
  // A chain 0 -> 1 -> 2 -> 3 where process 1 overwrites bytes 4..8 of the
  // buffer before forwarding it: no 16-byte broadcast from the root. What
  // the data does: the root's bytes 0..4 and 8..16 reach everyone (two
  // genuine broadcasts) and process 1's bytes 4..8 reach 2 and 3.
  Builder B(4);
  B.send(0, BcastBuf, L, 1);
  uint32_t R1 = B.recv(1, BcastBuf, L, 0);
  uint32_t W = B.G[1].addLocal(BcastBuf + 4, 4);
  uint32_t S1 = B.send(1, BcastBuf, L, 2);
  B.dep(1, R1, W);
  B.dep(1, W, S1);
  uint32_t R2 = B.recv(2, BcastBuf, L, 1);
  uint32_t S2 = B.send(2, BcastBuf, L, 3);
  B.dep(2, R2, S2);
  B.recv(3, BcastBuf, L, 2);
  Analysis A = analyze(B);
  ASSERT_TRUE(A.Propagated.ok());
  for (const Collective &C : A.D.Collectives)
    EXPECT_FALSE(C.BlockSize == L) << "a broadcast of the whole buffer";
  std::vector<Transfer> To3;
  for (const Transfer &T : A.SST)
    if (T.Dst == 3)
      To3.push_back(T);
  ASSERT_EQ(To3.size(), 3u);
  EXPECT_EQ(To3[0].Src, 0);
  EXPECT_EQ(To3[1].Src, 1);
  EXPECT_EQ(To3[1].SrcAddr, BcastBuf + 4);
  EXPECT_EQ(To3[2].Src, 0);
  ASSERT_EQ(A.D.Collectives.size(), 3u);
  EXPECT_EQ(A.D.Collectives[2].Root, 1);
  EXPECT_EQ(A.D.Collectives[2].Group, (std::vector<Rank>{1, 2, 3}));
  EXPECT_TRUE(A.D.Residual.empty());
}

TEST(CommGraphTest, DifferentBuffersAtTheRootAreAScatter) {
  Builder B(4);
  for (Rank J = 1; J < 4; ++J) {
    B.send(0, BcastBuf + (J == 2 ? L : 0), L, J);
    B.recv(J, BcastBuf, L, 0);
  }
  Analysis A = analyze(B);
  ASSERT_EQ(A.D.Collectives.size(), 1u);
  EXPECT_EQ(A.D.Collectives[0].Kind, CollectiveKind::Scatter);
}

//===-- Errors
//-------------------------------------------------------------===//

TEST(CommGraphTest, UnmatchedSendIsNamed) {
  Builder B(3);
  B.send(0, 0, 8, 1, 5);
  B.recv(1, 0, 8, 0, 5);
  B.send(2, 0, 8, 1, 6);
  Graph G(3);
  for (const LocalGraph &L : B.G)
    ASSERT_TRUE(G.add(L).ok());
  Matching M;
  Status S = match(G, M);
  ASSERT_FALSE(S.ok());
  EXPECT_EQ(S.Message, "unmatched operations: send 0 of process 2 (to 1, tag "
                       "6, 8 bytes)");
}

TEST(CommGraphTest, SizeMismatchIsNamed) {
  Builder B(2);
  B.send(0, 0, 8, 1);
  B.recv(1, 0, 16, 0);
  Graph G(2);
  for (const LocalGraph &L : B.G)
    ASSERT_TRUE(G.add(L).ok());
  Matching M;
  Status S = match(G, M);
  ASSERT_FALSE(S.ok());
  EXPECT_NE(S.Message.find("differ in size"), std::string::npos);
  EXPECT_NE(S.Message.find("receive 0 of process 1"), std::string::npos);
}

TEST(CommGraphTest, CycleIsNamed) {
  // Each process receives before it sends: a deadlock.
  Builder B(2);
  uint32_t R0 = B.recv(0, 0, 8, 1), S0 = B.send(0, 8, 8, 1);
  uint32_t R1 = B.recv(1, 0, 8, 0), S1 = B.send(1, 8, 8, 0);
  B.dep(0, R0, S0);
  B.dep(1, R1, S1);
  // And a real dependency cycle on process 0.
  B.dep(0, S0, R0);
  Graph G(2);
  for (const LocalGraph &L : B.G)
    ASSERT_TRUE(G.add(L).ok());
  Matching M;
  Status S = match(G, M);
  ASSERT_FALSE(S.ok());
  EXPECT_EQ(S.Message.rfind("dependency cycle: ", 0), 0u) << S.Message;
  EXPECT_NE(S.Message.find("receive 0 of process 0"), std::string::npos);
}

TEST(CommGraphTest, BadGraphsAreRefused) {
  Graph G(2);
  LocalGraph L(0);
  L.addSend(0, 8, 5, 0);
  Status S = G.add(L);
  EXPECT_EQ(S.Message,
            "send 0 of process 0 names process 5, which does not exist");
  LocalGraph D(1);
  D.addDependency(0, 3);
  EXPECT_FALSE(G.add(D).ok());
  LocalGraph Twice(1);
  Graph G2(2);
  EXPECT_TRUE(G2.add(Twice).ok());
  EXPECT_FALSE(G2.add(Twice).ok());
}

TEST(CommGraphTest, MessagesMatchInOrder) {
  // Two sends with the same source and tag match the receives in order,
  // whatever their buffers.
  Builder B(2);
  B.send(0, 0x100, 4, 1);
  B.send(0, 0x200, 4, 1);
  B.recv(1, 0x300, 4, 0);
  B.recv(1, 0x400, 4, 0);
  Analysis A = analyze(B);
  ASSERT_EQ(A.SST.size(), 2u);
  EXPECT_EQ(A.SST[0].DstAddr, 0x300u);
  EXPECT_EQ(A.SST[0].SrcAddr, 0x100u);
  EXPECT_EQ(A.SST[1].SrcAddr, 0x200u);
}

TEST(CommGraphTest, SerializationRoundTrips) {
  Builder B(3);
  bcastBinomial(B, 1);
  B.G[2].addScratch(0x77, 3);
  B.G[2].addLocal(0x10, 4);
  for (const LocalGraph &G : B.G) {
    std::vector<uint64_t> W = G.serialize();
    LocalGraph Back(0);
    ASSERT_TRUE(LocalGraph::deserialize(W.data(), W.size(), Back).ok());
    EXPECT_EQ(Back.serialize(), W);
    EXPECT_FALSE(LocalGraph::deserialize(W.data(), W.size() - 1, Back).ok());
  }
}

//===-- Wait sets
//----------------------------------------------------------===//

TEST(CommGraphTest, WaitSets) {
  {
    Builder B(5);
    bcastLinear(B, 2);
    Graph G(5);
    for (const LocalGraph &L : B.G)
      ASSERT_TRUE(G.add(L).ok());
    Matching M;
    ASSERT_TRUE(match(G, M).ok());
    auto W = waitSets(G, M);
    EXPECT_TRUE(W[2].empty());
    EXPECT_EQ(W[0], std::vector<Rank>{2});
    EXPECT_FALSE(hasBarrierSemantics(W));
  }
  for (Rank P : {2, 3, 5, 8, 13}) {
    // A dissemination barrier: zero-byte messages, full wait sets, no data.
    // Both operations of a round start once both of the previous finished.
    Builder B(P);
    for (Rank R = 0; R < P; ++R) {
      uint32_t LastS = UINT32_MAX, LastR = UINT32_MAX;
      for (Rank D = 1; D < P; D *= 2) {
        uint32_t S = B.send(R, 0, 0, (R + D) % P);
        uint32_t Rc = B.recv(R, 0, 0, (R - D + P) % P);
        if (LastS != UINT32_MAX)
          for (uint32_t Before : {LastS, LastR})
            for (uint32_t After : {S, Rc})
              B.dep(R, Before, After);
        LastS = S;
        LastR = Rc;
      }
    }
    Graph G(P);
    for (const LocalGraph &L : B.G)
      ASSERT_TRUE(G.add(L).ok());
    Matching M;
    ASSERT_TRUE(match(G, M).ok());
    EXPECT_TRUE(hasBarrierSemantics(waitSets(G, M))) << "P=" << P;
    std::vector<Transfer> SST;
    ASSERT_TRUE(propagate(G, M, SST).ok());
    EXPECT_TRUE(SST.empty());
  }
}

//===-- Vectors and combining
//----------------------------------------------===//

TEST(CommGraphTest, VectorAndCombinedCollectives) {
  // Gatherv: process i sends i + 1 bytes to the root.
  {
    Builder B(5);
    Address Offset = 0;
    for (Rank I = 1; I < 5; ++I) {
      B.send(I, Own, I + 1, 0);
      B.recv(0, RootBuf + Offset, I + 1, I);
      Offset += I + 1;
    }
    Analysis A = analyze(B);
    ASSERT_EQ(A.D.Collectives.size(), 1u);
    EXPECT_EQ(A.D.Collectives[0].Kind, CollectiveKind::Gatherv);
    EXPECT_TRUE(A.D.Residual.empty());
  }
  // Two broadcasts of the same root from two separate buffers combine.
  {
    Builder B(4);
    for (Rank J = 1; J < 4; ++J) {
      B.send(0, 0x100, L, J);
      B.recv(J, 0x100, L, 0);
      B.send(0, 0x900, L, J, 1);
      B.recv(J, 0x700, L, 0, 1);
    }
    Analysis A = analyze(B);
    ASSERT_EQ(A.D.Collectives.size(), 1u);
    EXPECT_EQ(A.D.Collectives[0].Kind, CollectiveKind::Bcast);
    EXPECT_EQ(A.D.Collectives[0].Parts, 2u);
    EXPECT_EQ(A.D.Collectives[0].Blocks.size(), 6u);
    DetectionOptions Separate;
    Separate.Combine = false;
    EXPECT_EQ(analyze(B, Separate).D.Collectives.size(), 2u);
  }
}

TEST(CommGraphTest, OneProcessHasNoCollectives) {
  Builder B(1);
  B.send(0, 0x100, 8, 0);
  B.recv(0, 0x200, 8, 0);
  Analysis A = analyze(B);
  ASSERT_TRUE(A.Propagated.ok());
  EXPECT_TRUE(A.D.Collectives.empty());
  ASSERT_EQ(A.D.Residual.size(), 1u); // A local copy.
  EXPECT_EQ(A.D.Residual[0].Src, 0);
}

} // namespace

namespace {

TEST(CommGraphTest, CoalescedTransfersMoveTheSameBytes) {
  // Rank 0's block of 0x300 bytes reached rank 1 in three pieces, one
  // twice, and came back to rank 0 where it was; rank 2 got two pieces at
  // different distances from their sources, rank 0 one elsewhere.
  std::vector<Transfer> In = {
      {1, 0x1100, 0x100, 0, 0x500}, {1, 0x1000, 0x100, 0, 0x400},
      {1, 0x1100, 0x100, 0, 0x500}, {1, 0x1200, 0x100, 0, 0x600},
      {0, 0x500, 0x100, 0, 0x500},  {2, 0x2000, 0x100, 0, 0x400},
      {2, 0x3000, 0x100, 0, 0x500}, {0, 0x900, 0x100, 0, 0x500}};
  std::vector<Transfer> Out = coalesceTransfers(In);
  // Sorted by source, destination, distance and address.
  ASSERT_EQ(Out.size(), 4u);
  EXPECT_EQ(Out[0], Transfer(0, 0x900, 0x100, 0, 0x500));
  EXPECT_EQ(Out[1], Transfer(1, 0x1000, 0x300, 0, 0x400));
  EXPECT_EQ(Out[2], Transfer(2, 0x2000, 0x100, 0, 0x400));
  EXPECT_EQ(Out[3], Transfer(2, 0x3000, 0x100, 0, 0x500));
}

} // namespace
