//===- ReductionTest.cpp - Combined data and the reductions it forms ------===//
//
// The reduction algorithms real codes write by hand (a star to a root, a
// ring, recursive doubling, a binomial tree, a chain passing a running
// value) as their processes would post them, with the combine operations
// that fold received values into an accumulator: the dataflow must name
// every process's contribution once, and detection the reduction. Graphs
// that only look like one (a process left out, a value combined twice, an
// operation of the program's own) must not be one.
//
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include "gtest/gtest.h"

using namespace mpilift::commgraph;

namespace {

constexpr uint64_t E = 8;           // One double.
constexpr Address Mine = 0x1000;    // Each process's contribution.
constexpr Address Total = 0x2000;   // The accumulator.
constexpr Address Incoming = 0x3000; // Where a received value lands.
constexpr Address Passing = 0x4000; // What a ring forwards.

struct Outcome {
  Status Matched, Propagated;
  std::vector<Transfer> Transfers;
  std::vector<Combination> Combined;
  ReductionDetection D;
};

Outcome analyze(const std::vector<LocalGraph> &Graphs,
            std::optional<ReductionKind> Expected = std::nullopt,
            const std::vector<std::pair<Rank, Address>> &Scratch = {}) {
  Outcome Out;
  Out.D.Why = "not analysed";
  Rank P = static_cast<Rank>(Graphs.size());
  Graph G(P);
  for (LocalGraph L : Graphs) {
    for (auto [R, A] : Scratch)
      if (R == L.owner())
        L.addScratch(A, E);
    Status S = G.add(L);
    EXPECT_TRUE(S.ok()) << S.Message;
  }
  Matching M;
  Out.Matched = match(G, M);
  if (!Out.Matched.ok()) {
    Out.D.Why = Out.Matched.Message;
    return Out;
  }
  Out.Propagated = propagate(G, M, Out.Transfers, nullptr, nullptr,
                             &Out.Combined);
  Out.D.Why = Out.Propagated.Message;
  if (Out.Propagated.ok())
    Out.D = detectReductions(Out.Combined, Out.Transfers, P, Expected);
  return Out;
}

std::vector<LocalGraph> graphs(Rank P) {
  std::vector<LocalGraph> G;
  for (Rank R = 0; R < P; ++R)
    G.emplace_back(R);
  return G;
}

/// The trapezoid program: the root copies its own value into the total,
/// then receives every other one and adds it.
std::vector<LocalGraph> starReduce(Rank P, Rank Root, ReduceOp Op) {
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 0; R < P; ++R) {
    if (R != Root) {
      G[R].addSend(Mine, E, Root, 0);
      continue;
    }
    uint32_t Last = G[R].addLocal(Total, E); // total = mine (own data)
    for (Rank Q = 0; Q < P; ++Q) {
      if (Q == Root)
        continue;
      uint32_t In = G[R].addRecv(Incoming, E, Q, 0);
      G[R].addDependency(Last, In);
      uint32_t Add = G[R].addCombine(Total, Incoming, E, Op, E);
      G[R].addDependency(In, Add);
      Last = Add;
    }
  }
  return G;
}

TEST(ReductionTest, StarToARootIsAReduce) {
  for (Rank P : {2, 3, 5, 8}) {
    Outcome A = analyze(starReduce(P, 0, ReduceOp::Sum), std::nullopt,
                    {{0, Incoming}});
    ASSERT_TRUE(A.Propagated.ok()) << A.Propagated.Message;
    ASSERT_TRUE(A.D.Found) << "P=" << P << ": " << A.D.Why;
    EXPECT_EQ(A.D.Found->Kind, ReductionKind::Reduce);
    EXPECT_EQ(A.D.Found->Root, 0);
    EXPECT_EQ(A.D.Found->Op, ReduceOp::Sum);
    EXPECT_EQ(A.D.Found->Size, E);
    // The root reduces in place: its own data is in the total.
    EXPECT_EQ(A.D.Found->Contribution[0], Total);
    EXPECT_EQ(A.D.Found->Result[0], Total);
    for (Rank R = 1; R < P; ++R) {
      EXPECT_EQ(A.D.Found->Contribution[R], Mine);
      EXPECT_FALSE(A.D.Found->Result[R]);
    }
  }
  // The contributions of many processes at one address stay one run.
  Outcome A = analyze(starReduce(64, 3, ReduceOp::Max), std::nullopt,
                  {{3, Incoming}});
  ASSERT_EQ(A.Combined.size(), 1u);
  EXPECT_EQ(A.Combined[0].Parts.size(), 3u);
  EXPECT_EQ(A.Combined[0].processes(), 64);
  ASSERT_TRUE(A.D.Found) << A.D.Why;
  EXPECT_EQ(A.D.Found->Root, 3);
}

TEST(ReductionTest, ReceiveBufferThatIsNoScratchIsAnotherResult) {
  // Without the received temporary being scratch, the root also ends
  // with the last value it received, unchanged: no reduction alone.
  Outcome A = analyze(starReduce(4, 0, ReduceOp::Sum));
  ASSERT_FALSE(A.D.Found);
  EXPECT_NE(A.D.Why.find("also receives"), std::string::npos) << A.D.Why;
}

/// A copy of \p Size bytes within one process, as a send to itself.
uint32_t copy(LocalGraph &G, Address From, Address To, uint64_t Size,
              int32_t Tag, uint32_t After) {
  uint32_t Out = G.addSend(From, Size, G.owner(), Tag);
  uint32_t In = G.addRecv(To, Size, G.owner(), Tag);
  G.addDependency(After, Out);
  G.addDependency(After, In);
  return In;
}

/// The example's ring: every process adds what comes from the left and
/// passes it on to the right, size - 1 times. Its total and what it passes
/// first are copies of its own value (\p Copies), or each its own data.
std::vector<LocalGraph> ringAllreduce(Rank P, bool Copies) {
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 0; R < P; ++R) {
    uint32_t Last = G[R].addLocal(Mine, E);
    if (Copies) {
      Last = copy(G[R], Mine, Total, E, -100, Last);
      Last = copy(G[R], Mine, Passing, E, -101, Last);
    } else {
      Last = G[R].addLocal(Total, E);
      uint32_t Pass = G[R].addLocal(Passing, E);
      G[R].addDependency(Pass, Last);
    }
    for (Rank Step = 1; Step < P; ++Step) {
      uint32_t Out = G[R].addSend(Passing, E, (R + 1) % P, 1);
      uint32_t In = G[R].addRecv(Incoming, E, (R + P - 1) % P, 1);
      G[R].addDependency(Last, Out);
      G[R].addDependency(Last, In);
      uint32_t Add = G[R].addCombine(Total, Incoming, E, ReduceOp::Sum, E);
      G[R].addDependency(Out, Add);
      G[R].addDependency(In, Add);
      Last = copy(G[R], Incoming, Passing, E, -1 - Step, Add);
    }
  }
  return G;
}

TEST(ReductionTest, RingIsAnAllreduceWhenItsWorkBuffersAreScratch) {
  for (Rank P : {3, 4, 7}) {
    std::vector<std::pair<Rank, Address>> Scratch;
    for (Rank R = 0; R < P; ++R) {
      Scratch.push_back({R, Incoming});
      Scratch.push_back({R, Passing});
    }
    Outcome A = analyze(ringAllreduce(P, true), std::nullopt, Scratch);
    ASSERT_TRUE(A.Propagated.ok()) << A.Propagated.Message;
    ASSERT_TRUE(A.D.Found) << A.D.Why;
    EXPECT_EQ(A.D.Found->Kind, ReductionKind::Allreduce);
    for (Rank R = 0; R < P; ++R) {
      EXPECT_EQ(A.D.Found->Contribution[R], Mine);
      EXPECT_EQ(A.D.Found->Result[R], Total);
    }
    // Without the work buffers as scratch, each process also ends with
    // the last value it was passed.
    Outcome Live = analyze(ringAllreduce(P, true));
    EXPECT_FALSE(Live.D.Found);
  }
}

TEST(ReductionTest, OneProcessReadFromTwoPlacesIsRefused) {
  // The ring with its own value in 'Total' and the one it passes in
  // 'Passing', each the process's own data: the program may hold the same
  // value in both, but nothing in the graph says so.
  Rank P = 4;
  std::vector<std::pair<Rank, Address>> Scratch;
  for (Rank R = 0; R < P; ++R) {
    Scratch.push_back({R, Incoming});
    Scratch.push_back({R, Passing});
  }
  Outcome A = analyze(ringAllreduce(P, false), std::nullopt, Scratch);
  ASSERT_FALSE(A.D.Found);
  EXPECT_NE(A.D.Why.find("from one place for one result and from another"),
            std::string::npos)
      << A.D.Why;
}

/// Recursive doubling: exchange with rank ^ mask and add.
std::vector<LocalGraph> recursiveDoubling(Rank P, ReduceOp Op) {
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 0; R < P; ++R) {
    uint32_t Last = G[R].addLocal(Total, E);
    for (Rank Mask = 1; Mask < P; Mask <<= 1) {
      Rank Partner = R ^ Mask;
      uint32_t Out = G[R].addSend(Total, E, Partner, 2);
      uint32_t In = G[R].addRecv(Incoming, E, Partner, 2);
      G[R].addDependency(Last, Out);
      G[R].addDependency(Last, In);
      uint32_t Add = G[R].addCombine(Total, Incoming, E, Op, E);
      G[R].addDependency(Out, Add);
      G[R].addDependency(In, Add);
      Last = Add;
    }
  }
  return G;
}

TEST(ReductionTest, RecursiveDoublingIsAnAllreduceInPlace) {
  for (Rank P : {2, 4, 8, 16}) {
    std::vector<std::pair<Rank, Address>> Scratch;
    for (Rank R = 0; R < P; ++R)
      Scratch.push_back({R, Incoming});
    Outcome A = analyze(recursiveDoubling(P, ReduceOp::BXor), std::nullopt,
                    Scratch);
    ASSERT_TRUE(A.D.Found) << "P=" << P << ": " << A.D.Why;
    EXPECT_EQ(A.D.Found->Kind, ReductionKind::Allreduce);
    EXPECT_EQ(A.D.Found->Op, ReduceOp::BXor);
    for (Rank R = 0; R < P; ++R) {
      EXPECT_EQ(A.D.Found->Contribution[R], Total);
      EXPECT_EQ(A.D.Found->Result[R], Total);
    }
  }
}

/// A binomial tree to rank 0: receive from rank + mask while the low bits
/// are clear, then send to rank - mask.
std::vector<LocalGraph> binomialReduce(Rank P) {
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 0; R < P; ++R) {
    uint32_t Last = G[R].addLocal(Total, E);
    for (Rank Mask = 1; Mask < P; Mask <<= 1) {
      if (R & Mask) {
        uint32_t Out = G[R].addSend(Total, E, R - Mask, 3);
        G[R].addDependency(Last, Out);
        break;
      }
      if (R + Mask < P) {
        uint32_t In = G[R].addRecv(Incoming, E, R + Mask, 3);
        G[R].addDependency(Last, In);
        uint32_t Add = G[R].addCombine(Total, Incoming, E, ReduceOp::Min, E);
        G[R].addDependency(In, Add);
        Last = Add;
      }
    }
  }
  return G;
}

TEST(ReductionTest, BinomialTreeIsAReduceOnlyWhenPartialResultsAreDead) {
  Rank P = 7;
  std::vector<std::pair<Rank, Address>> Scratch;
  for (Rank R = 0; R < P; ++R)
    Scratch.push_back({R, Incoming});
  // The inner ranks of the tree end with partial minima in their totals:
  // if the program reads them after the region, no MPI_Reduce gives them.
  Outcome Live = analyze(binomialReduce(P), std::nullopt, Scratch);
  ASSERT_FALSE(Live.D.Found);
  EXPECT_NE(Live.D.Why.find("combines 2 of 7 processes"), std::string::npos)
      << Live.D.Why;
  // When they are dead after the region, what is left is the root's.
  std::vector<LocalGraph> G = binomialReduce(P);
  Graph Global(P);
  for (LocalGraph &L : G) {
    if (L.owner() != 0)
      L.addScratch(Total, E);
    L.addScratch(Incoming, E);
    ASSERT_TRUE(Global.add(L).ok());
  }
  Matching M;
  ASSERT_TRUE(match(Global, M).ok());
  std::vector<Transfer> T;
  std::vector<Combination> C;
  ASSERT_TRUE(propagate(Global, M, T, nullptr, nullptr, &C).ok());
  ReductionDetection D = detectReductions(C, T, P);
  ASSERT_TRUE(D.Found) << D.Why;
  EXPECT_EQ(D.Found->Kind, ReductionKind::Reduce);
  EXPECT_EQ(D.Found->Op, ReduceOp::Min);
}

/// A chain passing a running sum: receive from the left, add the own
/// value, send to the right.
std::vector<LocalGraph> chainScan(Rank P, bool Exclusive) {
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 0; R < P; ++R) {
    uint32_t Last = G[R].addLocal(Mine, E);
    if (R > 0) {
      uint32_t In = G[R].addRecv(Total, E, R - 1, 4);
      G[R].addDependency(Last, In);
      Last = In;
    }
    if (Exclusive) {
      // next = total + mine, sent on; total is the exclusive prefix.
      if (R == 0) {
        Last = copy(G[R], Mine, Passing, E, -1, Last);
      } else {
        uint32_t Copy = copy(G[R], Total, Passing, E, -1, Last);
        uint32_t Add = G[R].addCombine(Passing, Mine, E, ReduceOp::Sum, E);
        G[R].addDependency(Copy, Add);
        Last = Add;
      }
      if (R + 1 < P) {
        uint32_t Out = G[R].addSend(Passing, E, R + 1, 4);
        G[R].addDependency(Last, Out);
      }
      continue;
    }
    uint32_t Add = R > 0 ? G[R].addCombine(Total, Mine, E, ReduceOp::Sum, E)
                         : G[R].addLocal(Total, E);
    G[R].addDependency(Last, Add);
    if (R == 0)
      Add = copy(G[R], Mine, Total, E, -1, Add); // total = mine
    if (R + 1 < P) {
      uint32_t Out = G[R].addSend(Total, E, R + 1, 4);
      G[R].addDependency(Add, Out);
    }
  }
  return G;
}

TEST(ReductionTest, ChainPassingARunningSumIsAScan) {
  for (Rank P : {3, 5, 8}) {
    Outcome A = analyze(chainScan(P, false));
    ASSERT_TRUE(A.D.Found) << "P=" << P << ": " << A.D.Why;
    EXPECT_EQ(A.D.Found->Kind, ReductionKind::Scan);
    for (Rank R = 0; R < P; ++R) {
      EXPECT_EQ(A.D.Found->Contribution[R], Mine);
      EXPECT_EQ(A.D.Found->Result[R], Total);
    }
  }
  // Two processes: a reduce to process 1, or a scan when larger sizes say.
  Outcome Two = analyze(chainScan(2, false));
  ASSERT_TRUE(Two.D.Found) << Two.D.Why;
  EXPECT_EQ(Two.D.Found->Kind, ReductionKind::Reduce);
  Outcome TwoScan = analyze(chainScan(2, false), ReductionKind::Scan);
  ASSERT_TRUE(TwoScan.D.Found) << TwoScan.D.Why;
  EXPECT_EQ(TwoScan.D.Found->Kind, ReductionKind::Scan);
  EXPECT_EQ(TwoScan.D.Found->Result[0], Total);
}

TEST(ReductionTest, ChainPassingThePrefixBeforeTheOwnValueIsAnExscan) {
  for (Rank P : {3, 4, 7}) {
    std::vector<std::pair<Rank, Address>> Scratch;
    for (Rank R = 0; R < P; ++R)
      Scratch.push_back({R, Passing});
    Outcome A = analyze(chainScan(P, true), std::nullopt, Scratch);
    ASSERT_TRUE(A.D.Found) << "P=" << P << ": " << A.D.Why;
    EXPECT_EQ(A.D.Found->Kind, ReductionKind::Exscan);
    EXPECT_FALSE(A.D.Found->Result[0]);
    for (Rank R = 1; R < P; ++R)
      EXPECT_EQ(A.D.Found->Result[R], Total);
  }
  // Two processes combine nothing: process 0's value reaches process 1
  // unchanged. An exclusive scan only where larger sizes said so.
  std::vector<std::pair<Rank, Address>> Scratch = {{0, Passing}, {1, Passing}};
  Outcome Plain = analyze(chainScan(2, true), std::nullopt, Scratch);
  EXPECT_FALSE(Plain.D.Found);
  Outcome Two = analyze(chainScan(2, true), ReductionKind::Exscan, Scratch);
  ASSERT_TRUE(Two.D.Found) << Two.D.Why;
  EXPECT_EQ(Two.D.Found->Kind, ReductionKind::Exscan);
  EXPECT_EQ(Two.D.Found->Contribution[0], Mine);
  EXPECT_FALSE(Two.D.Found->Result[0]);
  EXPECT_EQ(Two.D.Found->Result[1], Total);
}

TEST(ReductionTest, WhatIsNoReductionIsNamed) {
  // An operation of the program's own.
  Outcome Own = analyze(starReduce(4, 0, ReduceOp::Other), std::nullopt,
                    {{0, Incoming}});
  ASSERT_FALSE(Own.D.Found);
  EXPECT_NE(Own.D.Why.find("none of MPI's"), std::string::npos) << Own.D.Why;
  EXPECT_NE(Own.D.Writer, NoOp);

  // A value added twice.
  std::vector<LocalGraph> Twice = starReduce(3, 0, ReduceOp::Sum);
  uint32_t LastOfTwice = static_cast<uint32_t>(Twice[0].ops().size() - 1);
  uint32_t Again = Twice[0].addCombine(Total, Incoming, E, ReduceOp::Sum, E);
  Twice[0].addDependency(LastOfTwice, Again);
  Outcome T = analyze(Twice, std::nullopt, {{0, Incoming}});
  ASSERT_FALSE(T.D.Found);
  EXPECT_NE(T.D.Why.find("more than once"), std::string::npos) << T.D.Why;

  // A process left out: the root skips the last one.
  std::vector<LocalGraph> Subset = graphs(4);
  Subset[1].addSend(Mine, E, 0, 0);
  Subset[2].addSend(Mine, E, 0, 0);
  uint32_t Last = Subset[0].addLocal(Total, E);
  for (Rank Q : {1, 2}) {
    uint32_t In = Subset[0].addRecv(Incoming, E, Q, 0);
    Subset[0].addDependency(Last, In);
    Last = Subset[0].addCombine(Total, Incoming, E, ReduceOp::Sum, E);
    Subset[0].addDependency(In, Last);
  }
  Outcome S = analyze(Subset, std::nullopt, {{0, Incoming}});
  ASSERT_FALSE(S.D.Found);
  EXPECT_NE(S.D.Why.find("process 3's data is not part of it"),
            std::string::npos)
      << S.D.Why;

  // A maximum of sums: two operations nest.
  std::vector<LocalGraph> Mixed = starReduce(3, 0, ReduceOp::Sum);
  uint32_t LastOfRoot = static_cast<uint32_t>(Mixed[0].ops().size() - 1);
  uint32_t Max = Mixed[0].addCombine(Total, Mine, E, ReduceOp::Max, E);
  Mixed[0].addDependency(LastOfRoot, Max);
  Outcome M = analyze(Mixed, std::nullopt, {{0, Incoming}});
  ASSERT_FALSE(M.D.Found);
}

TEST(ReductionTest, ElementwiseCombinesOfAnArrayAreOneReduction) {
  // The root adds each of 4 elements in its own combine.
  Rank P = 3;
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 1; R < P; ++R)
    G[R].addSend(Mine, 4 * E, 0, 0);
  uint32_t Last = G[0].addLocal(Total, 4 * E);
  for (Rank Q = 1; Q < P; ++Q) {
    uint32_t In = G[0].addRecv(Incoming, 4 * E, Q, 0);
    G[0].addDependency(Last, In);
    Last = In;
    for (uint64_t K = 0; K < 4; ++K) {
      uint32_t Op = G[0].addCombine(Total + K * E, Incoming + K * E, E,
                                    ReduceOp::Prod, E);
      G[0].addDependency(Last, Op);
      Last = Op;
    }
  }
  Graph Global(P);
  G[0].addScratch(Incoming, 4 * E);
  for (const LocalGraph &L : G)
    ASSERT_TRUE(Global.add(L).ok());
  Matching M;
  ASSERT_TRUE(match(Global, M).ok());
  std::vector<Transfer> T;
  std::vector<Combination> C;
  ASSERT_TRUE(propagate(Global, M, T, nullptr, nullptr, &C).ok());
  ASSERT_EQ(C.size(), 1u);
  EXPECT_EQ(C[0].Size, 4 * E);
  ReductionDetection D = detectReductions(C, T, P);
  ASSERT_TRUE(D.Found) << D.Why;
  EXPECT_EQ(D.Found->Size, 4 * E);
  EXPECT_EQ(D.Found->Contribution[1], Mine);
}

TEST(ReductionTest, CombinesSurviveSerialization) {
  LocalGraph G(1);
  G.addRecv(Incoming, E, 0, 0);
  G.addCombine(Total, Incoming, E, ReduceOp::MaxLoc, 16);
  std::vector<uint64_t> W = G.serialize();
  LocalGraph Back(0);
  ASSERT_TRUE(LocalGraph::deserialize(W.data(), W.size(), Back).ok());
  EXPECT_EQ(Back.serialize(), W);
  ASSERT_EQ(Back.combines().size(), 1u);
  EXPECT_EQ(Back.combines()[0].Op, ReduceOp::MaxLoc);
  EXPECT_EQ(Back.combines()[0].From, Incoming);
  W[W.size() - 2] = 99; // No such operation.
  EXPECT_FALSE(LocalGraph::deserialize(W.data(), W.size(), Back).ok());
}

/// A star of MAXLOC pairs to \p Root whose combines settle ties by
/// \p Ties, receiving in ascending or descending rank order.
std::vector<LocalGraph> starOfPairs(Rank P, Rank Root, TieRule Ties,
                                    bool Descending) {
  std::vector<LocalGraph> G = graphs(P);
  for (Rank R = 0; R < P; ++R) {
    if (R != Root) {
      G[R].addSend(Mine, E, Root, 0);
      continue;
    }
    uint32_t Last = G[R].addLocal(Total, E);
    for (Rank K = 0; K < P; ++K) {
      Rank Q = Descending ? P - 1 - K : K;
      if (Q == Root)
        continue;
      uint32_t In = G[R].addRecv(Incoming, E, Q, 0);
      G[R].addDependency(Last, In);
      uint32_t Keep =
          G[R].addCombine(Total, Incoming, E, ReduceOp::MaxLoc, E, Ties);
      G[R].addDependency(In, Keep);
      Last = Keep;
    }
  }
  return G;
}

/// Whether the root's combined pairs in \p G keep the lowest rank's.
bool rankOrdered(const std::vector<LocalGraph> &G, Rank Root) {
  Outcome A = analyze(G, std::nullopt, {{Root, Incoming}});
  EXPECT_TRUE(A.D.Found) << A.D.Why;
  EXPECT_EQ(A.Combined.size(), 1u);
  return !A.Combined.empty() && A.Combined.front().RankOrdered;
}

TEST(ReductionTest, TiesKeptByOrderAreMPIsOnlyInRankOrder) {
  Rank P = 5;
  // Keeping what it holds: the root's rank, then ascending ranks after it.
  EXPECT_TRUE(rankOrdered(starOfPairs(P, 0, TieRule::KeepOwn, false), 0));
  EXPECT_FALSE(rankOrdered(starOfPairs(P, 0, TieRule::KeepOwn, true), 0));
  EXPECT_FALSE(
      rankOrdered(starOfPairs(P, P - 1, TieRule::KeepOwn, false), P - 1));
  // Taking what it receives: descending ranks, the root's being the highest.
  EXPECT_TRUE(
      rankOrdered(starOfPairs(P, P - 1, TieRule::TakeOther, true), P - 1));
  EXPECT_FALSE(
      rankOrdered(starOfPairs(P, P - 1, TieRule::TakeOther, false), P - 1));
  // Ties settled by the indices themselves need no order.
  EXPECT_TRUE(rankOrdered(starOfPairs(P, 2, TieRule::Indices, true), 2));
}

TEST(ReductionTest, TieRulesSurviveSerialization) {
  LocalGraph G(1);
  G.addRecv(Incoming, E, 0, 0);
  G.addCombine(Total, Incoming, 16, ReduceOp::MinLoc, 16, TieRule::TakeOther);
  std::vector<uint64_t> W = G.serialize();
  LocalGraph Back(0);
  ASSERT_TRUE(LocalGraph::deserialize(W.data(), W.size(), Back).ok());
  ASSERT_EQ(Back.combines().size(), 1u);
  EXPECT_EQ(Back.combines()[0].Op, ReduceOp::MinLoc);
  EXPECT_EQ(Back.combines()[0].Ties, TieRule::TakeOther);
  W[W.size() - 2] |= 7u << 8; // No such rule.
  EXPECT_FALSE(LocalGraph::deserialize(W.data(), W.size(), Back).ok());
}

} // namespace
