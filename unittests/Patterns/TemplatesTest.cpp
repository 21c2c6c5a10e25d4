//===- TemplatesTest.cpp - Master- and slave-repeat templates -------------===//

#include "mpilift/Patterns/Templates.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace mpilift::patterns;

namespace {

const Template &byName(const std::string &Topology) {
  for (const Template &T : builtinTemplates())
    if (T.topology() == Topology)
      return T;
  ADD_FAILURE() << "no template " << Topology;
  return builtinTemplates().front();
}

std::string text(const std::vector<Step> &Steps) {
  std::string S;
  for (const Step &X : Steps)
    S += (S.empty() ? "" : " ") + std::string(X.Send ? "S" : "R") +
         std::to_string(X.Peer);
  return S;
}

TEST(TemplatesTest, TheBuiltinTableParses) {
  std::string Error;
  std::vector<Template> T = parseTemplates(builtinTemplateText(), Error);
  EXPECT_EQ(Error, "");
  std::set<std::string> Names;
  for (const Template &X : T)
    Names.insert(X.topology());
  EXPECT_EQ(Names, (std::set<std::string>{"star", "ring", "chain", "hypercube",
                                          "binomial", "increasing-ring",
                                          "modified-binomial", "linear"}));
}

TEST(TemplatesTest, ModifiedBinomialSkipsTheNextRank) {
  // HPL_blonM: the root sends the whole message to the next rank first;
  // the binomial tree then runs over the others, relative ranks counted
  // without that one (inner rank e is i + e + 1 for e > 0).
  const Template &T = byName("modified-binomial");
  TemplateParams P{6, 0, 0};
  EXPECT_EQ(text(T.master(P)), "S1 S5 S3 S2");
  EXPECT_EQ(text(T.slave(P, 1)), "R0");
  EXPECT_EQ(text(T.slave(P, 2)), "R0");
  EXPECT_EQ(text(T.slave(P, 3)), "R0 S4");
  EXPECT_EQ(text(T.slave(P, 4)), "R3");
  EXPECT_EQ(text(T.slave(P, 5)), "R0");
  // Four ranks, as HPL's 1x4 grid: a star over the three after the next.
  EXPECT_EQ(text(T.master({4, 0, 0})), "S1 S3 S2");
  EXPECT_EQ(text(T.slave({4, 0, 0}, 3)), "R0");
  // Relative to root 5 of 8: the next is 6, the tree spans 7, 0, ..., 4.
  EXPECT_EQ(text(T.master({8, 5, 0})), "S6 S2 S0 S7");
  EXPECT_EQ(text(T.slave({8, 5, 0}, 0)), "R5 S1");
}

TEST(TemplatesTest, BinomialTopDownAsHPLBroadcasts) {
  // HPL_broadcast and MPICH's binomial tree: the root sends half-way across
  // first; a rank that received over span s passes on over s/2, ..., 1.
  const Template &T = byName("binomial");
  TemplateParams P{6, 0, 0};
  EXPECT_EQ(text(T.master(P)), "S4 S2 S1");
  EXPECT_EQ(text(T.slave(P, 1)), "R0");
  EXPECT_EQ(text(T.slave(P, 2)), "R0 S3");
  EXPECT_EQ(text(T.slave(P, 3)), "R2");
  EXPECT_EQ(text(T.slave(P, 4)), "R0 S5");
  EXPECT_EQ(text(T.slave(P, 5)), "R4");
  // Relative to root 5 of 8: rank 1 is 4 away and forwards 2 and 1 on.
  EXPECT_EQ(text(T.master({8, 5, 0})), "S1 S7 S6");
  EXPECT_EQ(text(T.slave({8, 5, 0}, 1)), "R5 S3 S2");
}

TEST(TemplatesTest, StarOfFigure3) {
  // Section IV-B: n = 8, root 4, c = 0.
  const Template &Star = byName("star");
  EXPECT_EQ(text(Star.master({8, 4, 0})), "S0 S1 S2 S3 S5 S6 S7");
  for (int R = 0; R < 8; ++R) {
    if (R != 4) {
      EXPECT_EQ(text(Star.slave({8, 4, 0}, R)), "R4");
    }
  }
  EXPECT_EQ(text(Star.master({8, 4, 3})), "S3 S5 S6 S7 S0 S1 S2");
}

TEST(TemplatesTest, IncreasingRingOfSectionVD) {
  // Listing 5, root 0, six processes: 0 -> 1, 0 -> 2, 2 -> 3, 3 -> 4, 4 -> 5.
  const Template &T = byName("increasing-ring");
  TemplateParams P{6, 0, 0};
  EXPECT_EQ(text(T.master(P)), "S1 S2");
  EXPECT_EQ(text(T.slave(P, 1)), "R0");
  EXPECT_EQ(text(T.slave(P, 2)), "R0 S3");
  EXPECT_EQ(text(T.slave(P, 3)), "R2 S4");
  EXPECT_EQ(text(T.slave(P, 4)), "R3 S5");
  EXPECT_EQ(text(T.slave(P, 5)), "R4");
  // Three processes: both others receive from the root, nobody forwards.
  EXPECT_EQ(text(T.slave({3, 0, 0}, 2)), "R0");
}

/// Plays a broadcast template: every send must be received, every rank but
/// the root receives before it sends, and everyone ends with the data.
void expectBroadcast(const Template &T, TemplateParams P) {
  SCOPED_TRACE(T.topology() + " n " + std::to_string(P.N) + " root " +
               std::to_string(P.Root) + " c " + std::to_string(P.C));
  std::map<std::pair<int64_t, int64_t>, int> Messages; // (from, to)
  std::vector<std::vector<Step>> Steps(P.N);
  for (int64_t R = 0; R < P.N; ++R)
    Steps[R] = R == P.Root ? T.master(P) : T.slave(P, R);
  for (int64_t R = 0; R < P.N; ++R) {
    bool Has = R == P.Root;
    for (const Step &S : Steps[R]) {
      ASSERT_GE(S.Peer, 0);
      ASSERT_LT(S.Peer, P.N);
      ASSERT_NE(S.Peer, R);
      if (S.Send) {
        EXPECT_TRUE(Has) << "rank " << R << " sends before it has the data";
        ++Messages[{R, S.Peer}];
      } else {
        --Messages[{S.Peer, R}];
        Has = true;
      }
    }
    EXPECT_TRUE(Has) << "rank " << R << " never gets the data";
  }
  for (const auto &[Pair, Count] : Messages)
    EXPECT_EQ(Count, 0) << Pair.first << " -> " << Pair.second;
}

TEST(TemplatesTest, EveryBroadcastTemplateIsABroadcast) {
  for (const Template &T : builtinTemplates()) {
    if (T.collective() != "bcast")
      continue;
    for (int64_t N = 2; N <= 17; ++N)
      for (int64_t Root : {int64_t(0), N - 1, N / 2})
        for (int64_t C : {int64_t(0), int64_t(1), N - 1}) {
          if (!T.hasRotation() && C != 0)
            continue;
          if (T.topology() == "increasing-ring" && N < 3)
            continue; // The root feeds two neighbours.
          expectBroadcast(T, {N, Root, C});
        }
  }
}

TEST(TemplatesTest, LinearAlltoall) {
  const Template &T = byName("linear");
  EXPECT_EQ(text(T.master({4, 0, 0})), "S1 S2 S3 R1 R2 R3");
  EXPECT_EQ(text(T.slave({4, 0, 0}, 2)), "S0 S1 S3 R0 R1 R3");
}

TEST(TemplatesTest, ParseErrorsNameTheLine) {
  std::string Error;
  parseTemplates("template x bcast\n  master S[i+]\n", Error);
  EXPECT_EQ(Error.rfind("template line 2: ", 0), 0u) << Error;
  parseTemplates("  master S[0]\n", Error);
  EXPECT_EQ(Error, "template line 1: 'master' before any 'template'");
  parseTemplates("template y bcast\n  master X[0]\n", Error);
  EXPECT_NE(Error.find("expected S[...] or R[...]"), std::string::npos);
  // A user-defined entry: a reversed star is one line, no code.
  std::vector<Template> T =
      parseTemplates("template reversed-star bcast\n"
                     "  master for x in 1 .. n-1 : S[(i+n-x)%n]\n"
                     "  slave R[i]\n",
                     Error);
  ASSERT_EQ(Error, "");
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(text(T[0].master({5, 2, 0})), "S1 S0 S4 S3");
}

} // namespace
