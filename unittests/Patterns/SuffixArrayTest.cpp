//===- SuffixArrayTest.cpp - SA-IS, LCP and maximal repeats vs brute force
//-===//

#include "mpilift/Patterns/SuffixArray.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

using namespace mpilift::patterns;

namespace {

std::vector<Index> naiveSuffixArray(const std::vector<Symbol> &T) {
  std::vector<Index> SA(T.size());
  for (Index I = 0; I < SA.size(); ++I)
    SA[I] = I;
  std::sort(SA.begin(), SA.end(), [&](Index A, Index B) {
    return std::lexicographical_compare(T.begin() + A, T.end(), T.begin() + B,
                                        T.end());
  });
  return SA;
}

/// All maximal repeats by definition: substrings occurring at least twice
/// whose occurrences are neither all preceded by one symbol nor all
/// followed by one symbol.
std::map<std::vector<Symbol>, std::vector<Index>>
naiveMaximalRepeats(const std::vector<Symbol> &T) {
  std::map<std::vector<Symbol>, std::set<Index>> Occ;
  for (Index I = 0; I < T.size(); ++I)
    for (Index J = I + 1; J <= T.size(); ++J)
      Occ[std::vector<Symbol>(T.begin() + I, T.begin() + J)].insert(I);
  std::map<std::vector<Symbol>, std::vector<Index>> Out;
  for (const auto &[S, Positions] : Occ) {
    if (Positions.size() < 2)
      continue;
    std::set<long> Left, Right;
    for (Index P : Positions) {
      Left.insert(P == 0 ? -1 - long(P) : long(T[P - 1]));
      Right.insert(P + S.size() == T.size() ? -1 - long(P)
                                            : long(T[P + S.size()]));
    }
    if (Left.size() > 1 && Right.size() > 1)
      Out[S] = std::vector<Index>(Positions.begin(), Positions.end());
  }
  return Out;
}

std::vector<Symbol> randomText(std::mt19937 &Rng, Index N, Symbol K) {
  std::vector<Symbol> T(N);
  for (Symbol &S : T)
    S = Rng() % K;
  return T;
}

void expectMatchesBruteForce(const std::vector<Symbol> &T, Symbol K) {
  std::vector<Index> SA = buildSuffixArray(T, K);
  ASSERT_EQ(SA, naiveSuffixArray(T));
  std::vector<Index> LCP = buildLcpArray(T, SA);
  for (Index I = 1; I < T.size(); ++I) {
    Index H = 0;
    while (SA[I] + H < T.size() && SA[I - 1] + H < T.size() &&
           T[SA[I] + H] == T[SA[I - 1] + H])
      ++H;
    ASSERT_EQ(LCP[I], H) << "at " << I;
  }
  // The enhanced suffix array induces its LCP array with the suffix array.
  EnhancedSuffixArray ESA(T, K);
  ASSERT_EQ(ESA.suffixArray(), SA);
  ASSERT_EQ(ESA.lcp(), LCP);
  if (T.size() > 80)
    return; // The brute-force repeat finder is cubic.
  std::map<std::vector<Symbol>, std::vector<Index>> Got;
  for (const Repeat &R : ESA.maximalRepeats()) {
    Index P = ESA.suffixArray()[R.First];
    Got[std::vector<Symbol>(T.begin() + P, T.begin() + P + R.Length)] =
        ESA.occurrences(R);
  }
  EXPECT_EQ(Got, naiveMaximalRepeats(T));
}

TEST(SuffixArrayTest, SmallAndDegenerateTexts) {
  expectMatchesBruteForce({}, 1);
  expectMatchesBruteForce({0}, 1);
  expectMatchesBruteForce({3, 3}, 4);
  expectMatchesBruteForce(std::vector<Symbol>(50, 0), 1);  // aaaa...
  expectMatchesBruteForce({1, 0, 1, 0, 1, 0, 1, 0, 1}, 2); // periodic
  expectMatchesBruteForce({2, 1, 0, 2, 1, 0, 2, 1, 0, 1}, 3);
  // "mississippi"
  expectMatchesBruteForce({12, 8, 18, 18, 8, 18, 18, 8, 15, 15, 8}, 26);
}

TEST(SuffixArrayTest, RandomTextsAgreeWithBruteForce) {
  std::mt19937 Rng(42);
  for (Symbol K : {2u, 3u, 4u, 26u, 5000u})
    for (int Round = 0; Round < 40; ++Round) {
      Index N = 1 + Rng() % (Round < 30 ? 60 : 2000);
      SCOPED_TRACE("K " + std::to_string(K) + " N " + std::to_string(N));
      expectMatchesBruteForce(randomText(Rng, N, K), K);
    }
}

/// Checks on texts too long for the brute-force finder: the suffix array
/// is sorted, the LCP is what direct comparison gives, and every maximal
/// repeat is right- and left-maximal, reported longest first, then by first
/// suffix. Returns the repeats.
std::vector<Repeat> expectConsistent(const std::vector<Symbol> &T, Symbol K) {
  EnhancedSuffixArray ESA(T, K);
  const std::vector<Index> &SA = ESA.suffixArray();
  const std::vector<Index> &LCP = ESA.lcp();
  EXPECT_EQ(SA, buildSuffixArray(T, K));
  EXPECT_EQ(LCP, buildLcpArray(T, SA));
  for (Index I = 1; I < SA.size(); ++I) {
    Index A = SA[I - 1], B = SA[I], H = LCP[I];
    // The earlier suffix ends first or has the smaller next symbol.
    if (!(A + H == T.size() || (B + H < T.size() && T[A + H] < T[B + H]))) {
      ADD_FAILURE() << "suffixes out of order at " << I;
      return {};
    }
  }
  std::vector<Repeat> Rs = ESA.maximalRepeats();
  for (size_t I = 0; I < Rs.size(); ++I) {
    const Repeat &R = Rs[I];
    if (I > 0) {
      const Repeat &P = Rs[I - 1];
      EXPECT_TRUE(P.Length > R.Length ||
                  (P.Length == R.Length && P.First < R.First))
          << "repeat " << I << " out of order";
    }
    std::set<long> Before;
    Index MinLcp = ~Index(0);
    for (Index J = R.First; J <= R.Last; ++J) {
      Before.insert(SA[J] ? long(T[SA[J] - 1]) : -1 - long(J));
      if (J > R.First)
        MinLcp = std::min(MinLcp, LCP[J]);
    }
    EXPECT_EQ(MinLcp, R.Length) << "repeat " << I;
    EXPECT_GT(Before.size(), 1u) << "repeat " << I << " not left-maximal";
    bool RightMaximal = (R.First == 0 || LCP[R.First] < R.Length) &&
                        (R.Last + 1 == SA.size() || LCP[R.Last + 1] < R.Length);
    EXPECT_TRUE(RightMaximal) << "repeat " << I;
    if (::testing::Test::HasFailure())
      break;
  }
  return Rs;
}

TEST(SuffixArrayTest, LargeTextsAgreeWithStraightforwardChecks) {
  // Some with repeats longer than 65535.
  std::mt19937 Rng(7);
  for (Symbol K : {2u, 5000u})
    for (bool Twice : {false, true}) {
      // Twice: R R Q Q, so that repeats of 70000 and 20000 symbols exist
      // (a sort on the low 16 bits alone would put the second first).
      std::vector<Symbol> T = randomText(Rng, Twice ? 70000 : 150000, K);
      if (Twice) {
        T.insert(T.end(), T.begin(), T.end());
        std::vector<Symbol> Q = randomText(Rng, 20000, K);
        T.insert(T.end(), Q.begin(), Q.end());
        T.insert(T.end(), Q.begin(), Q.end());
      }
      SCOPED_TRACE("K " + std::to_string(K) + (Twice ? " twice" : ""));
      std::vector<Repeat> Rs = expectConsistent(T, K);
      ASSERT_FALSE(Rs.empty());
      if (Twice) {
        EXPECT_GE(Rs.front().Length, 70000u);
      }
    }
}

TEST(SuffixArrayTest, TraceLikeTextsAgreeWithStraightforwardChecks) {
  // Shaped like the bench's traces: iterations of a star of varying width,
  // a ring exchange from one of 8 call sites, an inner loop of varying
  // trip count and a reduction, with 1% unrelated events: few distinct
  // LMS substrings (named directly) and long repeats.
  for (unsigned Seed : {1u, 2u}) {
    std::mt19937 Rng(Seed);
    std::vector<Symbol> T;
    for (Symbol Site = 0; T.size() < 200000; ++Site) {
      Symbol Star = 16 + Rng() % 24;
      for (Symbol P = 1; P < Star; ++P)
        T.push_back(1000 + P);
      T.push_back(2000 + Site % 8);
      T.push_back(2100 + Site % 8);
      for (unsigned I = 1 + Rng() % 6; I > 0; --I) {
        T.push_back(3000 + Site % 3);
        T.push_back(3100);
      }
      T.push_back(4000);
      if (Rng() % 100 == 0)
        T.push_back(Rng() % 4096);
    }
    SCOPED_TRACE("seed " + std::to_string(Seed));
    EXPECT_GT(expectConsistent(T, 4096).size(), 1000u);
  }
}

TEST(SuffixArrayTest, LeftDiversityFarInsideALongInterval) {
  // 300 occurrences of 1 2 3, sorted by the distinct symbol after each;
  // only the 140th to 159th are preceded by 5 instead of 4. The changes of
  // the preceding symbol lie far from both ends of the repeat's interval
  // (neither among its first nor its last 64 suffixes, a machine word of
  // bits), where the left-maximality test must still see them.
  std::vector<Symbol> T;
  for (Symbol I = 0; I < 300; ++I)
    for (Symbol S : {I >= 140 && I < 160 ? 5u : 4u, 1u, 2u, 3u, 10 + I})
      T.push_back(S);
  EnhancedSuffixArray ESA(T, 400);
  bool Found = false;
  for (const Repeat &R : ESA.maximalRepeats(3))
    if (R.Length == 3 && R.count() == 300)
      Found = T[ESA.suffixArray()[R.First]] == 1;
  EXPECT_TRUE(Found) << "1 2 3 is a maximal repeat";
  // Without the 5s it is not: always preceded by 4.
  for (Symbol I = 140; I < 160; ++I)
    T[5 * I] = 4;
  EnhancedSuffixArray Uniform(T, 400);
  for (const Repeat &R : Uniform.maximalRepeats(3))
    EXPECT_FALSE(R.Length == 3 && T[Uniform.suffixArray()[R.First]] == 1);
}

TEST(SuffixArrayTest, LoopTracesGiveTheirBodies) {
  // A trace shaped like a program: a prologue, a loop body of 5 events run
  // 40 times, an epilogue. The body (and its rotations) is a repeat
  // occurring once per iteration.
  std::vector<Symbol> T{100, 101};
  for (int I = 0; I < 40; ++I)
    for (Symbol S : {7u, 8u, 9u, 8u, 10u})
      T.push_back(S);
  T.push_back(102);
  EnhancedSuffixArray ESA(T, 200);
  std::vector<Repeat> Rs = ESA.maximalRepeats(5);
  ASSERT_FALSE(Rs.empty());
  // The longest maximal repeat is the loop minus one iteration.
  EXPECT_EQ(Rs.front().Length, 39u * 5);
  EXPECT_EQ(Rs.front().count(), 2u);
  // The body as the first iteration starts it is maximal (the prologue
  // precedes it once, the body's last event otherwise; the epilogue follows
  // it once): one occurrence per iteration, 5 apart.
  bool Found = false;
  for (const Repeat &R : ESA.maximalRepeats(1))
    if (R.Length == 5) {
      std::vector<Index> P = ESA.occurrences(R);
      if (P.front() == 2) {
        Found = true;
        EXPECT_EQ(P.size(), 40u);
        for (Index I = 1; I < P.size(); ++I)
          EXPECT_EQ(P[I] - P[I - 1], 5u);
      }
    }
  EXPECT_TRUE(Found) << "the loop body is not a maximal repeat";
}

TEST(SuffixArrayTest, FindGivesEveryOccurrence) {
  std::mt19937 Rng(11);
  for (Symbol K : {1u, 2u, 4u})
    for (int Round = 0; Round < 100; ++Round) {
      std::vector<Symbol> T = randomText(Rng, 1 + Rng() % 60, K);
      EnhancedSuffixArray ESA(T, K);
      // A piece of the text, or a random string (often absent).
      std::vector<Symbol> P;
      if (Round % 2) {
        Index At = Rng() % T.size();
        Index Len = 1 + Rng() % std::min<Index>(5, T.size() - At);
        P.assign(T.begin() + At, T.begin() + At + Len);
      } else {
        P = randomText(Rng, 1 + Rng() % 4, K);
      }
      std::vector<Index> Expected;
      for (Index I = 0; I + P.size() <= T.size(); ++I)
        if (std::equal(P.begin(), P.end(), T.begin() + I))
          Expected.push_back(I);
      EXPECT_EQ(ESA.find(P), Expected) << "K " << K << " round " << Round;
      auto SymbolAt = [&](Index I) { return T[I]; };
      EXPECT_EQ(
          containsPattern(SymbolAt, Index(T.size()), ESA.suffixArray(), P),
          !Expected.empty())
          << "K " << K << " round " << Round;
    }
  EnhancedSuffixArray Empty({}, 1);
  EXPECT_TRUE(Empty.find({0}).empty());
  EXPECT_FALSE(containsPattern([](Index) { return Symbol(0); }, 0,
                               Empty.suffixArray(), {0}));
}

/// All maximal runs of a primitive period, by definition.
std::vector<TandemRepeat> naiveRuns(const std::vector<Symbol> &T) {
  std::set<TandemRepeat> Out;
  Index N = static_cast<Index>(T.size());
  for (Index D = 1; 2 * D <= N; ++D)
    for (Index S = 0; S + 2 * D <= N;) {
      Index E = S + D;
      while (E < N && T[E] == T[E - D])
        ++E;
      if (E - S >= 2 * D) {
        // Primitive: no smaller period of the whole run divides D.
        bool Primitive = true;
        for (Index P = 1; P < D && Primitive; ++P) {
          if (D % P)
            continue;
          bool Has = true;
          for (Index I = S + P; I < E && Has; ++I)
            Has = T[I] == T[I - P];
          Primitive = !Has;
        }
        if (Primitive && (S == 0 || T[S - 1] != T[S - 1 + D]))
          Out.insert({S, D, E});
      }
      S = E > S + D ? E - D : S + 1;
    }
  return std::vector<TandemRepeat>(Out.begin(), Out.end());
}

TEST(SuffixArrayTest, TandemRepeatsAreTheRunsOfTheText) {
  std::mt19937 Rng(7);
  for (Symbol K : {1u, 2u, 3u, 5u})
    for (int Round = 0; Round < 200; ++Round) {
      std::vector<Symbol> T = randomText(Rng, 2 + Rng() % 90, K);
      // Plant a loop now and then.
      if (Round % 3 == 0 && T.size() > 10) {
        Index P = 1 + Rng() % 5, At = Rng() % (T.size() / 2);
        for (Index I = At + P; I < std::min<Index>(T.size(), At + 5 * P); ++I)
          T[I] = T[I - P];
      }
      EnhancedSuffixArray ESA(T, K);
      std::vector<TandemRepeat> Expected = naiveRuns(T);
      EXPECT_EQ(ESA.tandemRepeats(1000), Expected)
          << "K " << K << " round " << Round;
      // A period cap drops exactly the longer periods.
      Index Cap = 1 + Round % 4;
      Expected.erase(
          std::remove_if(Expected.begin(), Expected.end(),
                         [&](const TandemRepeat &R) { return R.Period > Cap; }),
          Expected.end());
      EXPECT_EQ(ESA.tandemRepeats(Cap), Expected)
          << "K " << K << " round " << Round << " cap " << Cap;
      // The cover is the runs no other run contains.
      std::vector<TandemRepeat> Outer;
      for (const TandemRepeat &R : ESA.tandemRepeats(1000)) {
        bool Contained = false;
        for (const TandemRepeat &O : ESA.tandemRepeats(1000))
          Contained |= !(O == R) && O.Start <= R.Start && R.End <= O.End;
        if (!Contained)
          Outer.push_back(R);
      }
      EXPECT_EQ(ESA.cover(1000), Outer) << "K " << K << " round " << Round;
    }
}

TEST(SuffixArrayTest, LoopsCoverTheTrace) {
  // Prologue, a 4-event body 25 times, a 3-event body 10 times, epilogue.
  std::vector<Symbol> T{50, 51};
  for (int I = 0; I < 25; ++I)
    T.insert(T.end(), {1, 2, 3, 2});
  for (int I = 0; I < 10; ++I)
    T.insert(T.end(), {7, 8, 9});
  T.push_back(52);
  EnhancedSuffixArray ESA(T, 60);
  std::vector<TandemRepeat> Cover = ESA.cover();
  ASSERT_EQ(Cover.size(), 2u);
  EXPECT_EQ(Cover[0].Start, 2u);
  EXPECT_EQ(Cover[0].Period, 4u);
  EXPECT_EQ(Cover[0].copies(), 25u);
  EXPECT_EQ(Cover[1].Start, 102u);
  EXPECT_EQ(Cover[1].Period, 3u);
  EXPECT_EQ(Cover[1].copies(), 10u);
}

} // namespace
