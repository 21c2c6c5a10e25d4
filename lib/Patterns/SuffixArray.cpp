//===- SuffixArray.cpp - SA-IS, Kasai LCP, maximal repeats ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// SA-IS (induced sorting): classify suffixes as S (smaller than the next)
/// or L (larger); sort the LMS substrings (an S suffix right after an L one
/// up to the next) by one induced-sorting pass; name them; if names repeat,
/// sort the reduced string of names recursively; then induce the order of
/// all suffixes from the sorted LMS suffixes. The reduced string and its
/// suffix array live in the output array itself, so the working memory is
/// the text, the suffix array, one bit per symbol and the buckets.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/SuffixArray.h"

#include <algorithm>
#include <cassert>

namespace mpilift {
namespace patterns {
namespace {

constexpr Index Empty = ~Index(0);

/// Bucket starts (or ends) of every symbol.
void bucketBounds(const Index *T, Index N, Index K, std::vector<Index> &B,
                  bool Ends) {
  std::fill(B.begin(), B.end(), 0);
  for (Index I = 0; I < N; ++I)
    ++B[T[I]];
  Index Sum = 0;
  for (Index C = 0; C < K; ++C) {
    Index Count = B[C];
    B[C] = Ends ? Sum + Count : Sum;
    Sum += Count;
  }
}

void induceL(const Index *T, Index *SA, Index N, Index K,
             const std::vector<uint8_t> &S, std::vector<Index> &B) {
  bucketBounds(T, N, K, B, /*Ends=*/false);
  for (Index I = 0; I < N; ++I) {
    Index J = SA[I];
    if (J != Empty && J > 0 && !S[J - 1])
      SA[B[T[J - 1]]++] = J - 1;
  }
}

void induceS(const Index *T, Index *SA, Index N, Index K,
             const std::vector<uint8_t> &S, std::vector<Index> &B) {
  bucketBounds(T, N, K, B, /*Ends=*/true);
  for (Index I = N; I-- > 0;) {
    Index J = SA[I];
    if (J != Empty && J > 0 && S[J - 1])
      SA[--B[T[J - 1]]] = J - 1;
  }
}

/// Suffix array of T[0..N) over symbols < K, where T[N-1] == 0 is the only
/// 0 (the sentinel).
void sais(const Index *T, Index *SA, Index N, Index K) {
  assert(N >= 1 && T[N - 1] == 0 && "sentinel required");
  if (N == 1) {
    SA[0] = 0;
    return;
  }
  // S-type (1) or L-type (0); a byte each is faster than packed bits here.
  std::vector<uint8_t> S(N);
  S[N - 1] = 1;
  for (Index I = N - 1; I-- > 0;)
    S[I] = T[I] < T[I + 1] || (T[I] == T[I + 1] && S[I + 1]);
  auto isLMS = [&](Index I) { return I > 0 && S[I] && !S[I - 1]; };
  std::vector<Index> B(K);

  // 1. Sort the LMS substrings with one induced-sorting pass.
  std::fill(SA, SA + N, Empty);
  bucketBounds(T, N, K, B, /*Ends=*/true);
  for (Index I = 1; I < N; ++I)
    if (isLMS(I))
      SA[--B[T[I]]] = I;
  induceL(T, SA, N, K, S, B);
  induceS(T, SA, N, K, S, B);

  // 2. Name them: equal LMS substrings get equal names.
  Index N1 = 0;
  for (Index I = 0; I < N; ++I)
    if (isLMS(SA[I]))
      SA[N1++] = SA[I];
  std::fill(SA + N1, SA + N, Empty);
  Index Names = 0, Prev = Empty;
  for (Index I = 0; I < N1; ++I) {
    Index Pos = SA[I];
    bool Differs = Prev == Empty;
    for (Index D = 0; !Differs; ++D) {
      if (T[Pos + D] != T[Prev + D] || S[Pos + D] != S[Prev + D]) {
        Differs = true;
      } else if (D > 0 && (isLMS(Pos + D) || isLMS(Prev + D))) {
        break; // Both ended together: equal.
      }
    }
    if (Differs) {
      ++Names;
      Prev = Pos;
    }
    SA[N1 + Pos / 2] = Names - 1; // LMS positions are 2 apart at least.
  }
  for (Index I = N, J = N; I-- > N1;)
    if (SA[I] != Empty)
      SA[--J] = SA[I];

  // 3. Sort the LMS suffixes: recursively if names repeat.
  Index *Reduced = SA + N - N1;
  if (Names < N1)
    sais(Reduced, SA, N1, Names);
  else
    for (Index I = 0; I < N1; ++I)
      SA[Reduced[I]] = I;

  // 4. Induce all suffixes from the sorted LMS suffixes.
  for (Index I = 1, J = 0; I < N; ++I)
    if (isLMS(I))
      Reduced[J++] = I;
  for (Index I = 0; I < N1; ++I)
    SA[I] = Reduced[SA[I]];
  std::fill(SA + N1, SA + N, Empty);
  bucketBounds(T, N, K, B, /*Ends=*/true);
  for (Index I = N1; I-- > 0;) {
    Index J = SA[I];
    SA[I] = Empty;
    SA[--B[T[J]]] = J;
  }
  induceL(T, SA, N, K, S, B);
  induceS(T, SA, N, K, S, B);
}

} // namespace

std::vector<Index> buildSuffixArray(const std::vector<Symbol> &Text,
                                    Symbol AlphabetSize) {
  Index N = static_cast<Index>(Text.size());
  if (N == 0)
    return {};
  // Symbols shifted by one, then the sentinel 0.
  std::vector<Index> T(N + 1);
  for (Index I = 0; I < N; ++I) {
    assert(Text[I] < AlphabetSize && "symbol outside the alphabet");
    T[I] = Text[I] + 1;
  }
  T[N] = 0;
  std::vector<Index> SA(N + 1);
  sais(T.data(), SA.data(), N + 1, AlphabetSize + 1);
  std::vector<Index>().swap(T);
  SA.erase(SA.begin()); // The sentinel's suffix sorts first.
  return SA;
}

std::vector<Index> buildLcpArray(const std::vector<Symbol> &Text,
                                 const std::vector<Index> &SA) {
  // The Phi algorithm (Kaerkkaeinen, Manzini and Puglisi 2009): Phi[p] is
  // the suffix before p in suffix-array order; the permuted LCP of text
  // position p is at least that of p - 1 minus one, so a pass in text order
  // extends it, touching memory mostly in order.
  Index N = static_cast<Index>(Text.size());
  std::vector<Index> Phi(N), LCP(N, 0);
  if (N == 0)
    return LCP;
  Phi[SA[0]] = N; // No predecessor.
  for (Index I = 1; I < N; ++I)
    Phi[SA[I]] = SA[I - 1];
  Index H = 0;
  for (Index P = 0; P < N; ++P) { // Phi becomes the permuted LCP in place.
    Index Q = Phi[P];
    if (Q == N) {
      H = 0;
      Phi[P] = 0;
      continue;
    }
    while (P + H < N && Q + H < N && Text[P + H] == Text[Q + H])
      ++H;
    Phi[P] = H;
    if (H > 0)
      --H;
  }
  for (Index I = 0; I < N; ++I)
    LCP[I] = Phi[SA[I]];
  return LCP;
}

EnhancedSuffixArray::EnhancedSuffixArray(std::vector<Symbol> Text,
                                         Symbol AlphabetSize)
    : Text(std::move(Text)) {
  SA = buildSuffixArray(this->Text, AlphabetSize);
  LCP = buildLcpArray(this->Text, SA);
  // The symbol before each suffix; AlphabetSize (no symbol has it) for the
  // suffix that starts the text, which is left-maximal by definition.
  Index N = static_cast<Index>(SA.size());
  BwtChanges.assign(N, 0);
  auto before = [&](Index K) {
    return SA[K] ? this->Text[SA[K] - 1] : AlphabetSize;
  };
  for (Index K = 1; K < N; ++K)
    BwtChanges[K] = BwtChanges[K - 1] + (before(K) != before(K - 1));
}

std::vector<Repeat> EnhancedSuffixArray::maximalRepeats(Index MinLength,
                                                        Index MinCount) const {
  std::vector<Repeat> Out;
  Index N = static_cast<Index>(SA.size());
  if (N < 2)
    return Out;
  // Bottom-up traversal of the LCP intervals (Abouelhoda, Kurtz and
  // Ohlebusch): every interval [Lb, Rb] with value Lcp is a right-maximal
  // repeat of length Lcp; it is maximal if it is also left-diverse.
  struct Open {
    Index Lcp, Lb;
  };
  std::vector<Open> Stack{{0, 0}};
  for (Index I = 1; I <= N; ++I) {
    Index Cur = I < N ? LCP[I] : 0;
    Index Lb = I - 1;
    while (Cur < Stack.back().Lcp) {
      Open Top = Stack.back();
      Stack.pop_back();
      Index Rb = I - 1;
      if (Top.Lcp >= MinLength && Rb - Top.Lb + 1 >= MinCount &&
          leftDiverse(Top.Lb, Rb))
        Out.push_back({Top.Lcp, Top.Lb, Rb});
      Lb = Top.Lb;
    }
    if (Cur > Stack.back().Lcp)
      Stack.push_back({Cur, Lb});
  }
  std::sort(Out.begin(), Out.end(), [](const Repeat &A, const Repeat &B) {
    return A.Length != B.Length ? A.Length > B.Length : A.First < B.First;
  });
  return Out;
}

std::vector<Index> EnhancedSuffixArray::occurrences(const Repeat &R) const {
  std::vector<Index> P(SA.begin() + R.First, SA.begin() + R.Last + 1);
  std::sort(P.begin(), P.end());
  return P;
}

std::vector<Index> findOccurrences(const std::vector<Symbol> &Text,
                                   const std::vector<Index> &SA,
                                   const std::vector<Symbol> &Pattern) {
  if (Pattern.empty() || SA.empty())
    return {};
  Index N = static_cast<Index>(Text.size());
  Index M = static_cast<Index>(Pattern.size());
  // Compares the suffix at \p Start, cut to |Pattern|, with the pattern.
  auto compare = [&](Index Start) {
    for (Index K = 0; K < M; ++K) {
      if (Start + K == N)
        return -1; // A proper prefix of the pattern sorts first.
      if (Text[Start + K] != Pattern[K])
        return Text[Start + K] < Pattern[K] ? -1 : 1;
    }
    return 0;
  };
  auto First = std::partition_point(SA.begin(), SA.end(),
                                    [&](Index S) { return compare(S) < 0; });
  auto Last = std::partition_point(First, SA.end(),
                                   [&](Index S) { return compare(S) == 0; });
  std::vector<Index> Out(First, Last);
  std::sort(Out.begin(), Out.end());
  return Out;
}

namespace {

/// The Lyndon array of a text from its suffix array: Lambda[i] is the length
/// of the longest Lyndon word starting at i, which ends where the next
/// lexicographically smaller suffix starts (Hohlweg and Reutenauer 2003).
/// A right-to-left scan with a stack over the inverse suffix array.
std::vector<Index> lyndonArray(const std::vector<Index> &SA) {
  Index N = static_cast<Index>(SA.size());
  std::vector<Index> Rank(N);
  for (Index I = 0; I < N; ++I)
    Rank[SA[I]] = I;
  std::vector<Index> Lambda(N), Stack;
  for (Index I = N; I-- > 0;) {
    while (!Stack.empty() && Rank[Stack.back()] > Rank[I])
      Stack.pop_back();
    Lambda[I] = (Stack.empty() ? N : Stack.back()) - I;
    Stack.push_back(I);
  }
  return Lambda;
}

/// The run with period \p Period through [At, At + Period), if there is
/// one: extends the period both ways by direct comparison.
bool extendRun(const std::vector<Symbol> &T, Index At, Index Period,
               TandemRepeat &Run) {
  Index N = static_cast<Index>(T.size());
  if (At + Period > N)
    return false;
  Index End = At + Period;
  while (End < N && T[End] == T[End - Period])
    ++End;
  Index Start = At;
  while (Start > 0 && T[Start - 1] == T[Start - 1 + Period])
    --Start;
  if (End - Start < 2 * Period)
    return false;
  Run = {Start, Period, End};
  return true;
}

} // namespace

std::vector<TandemRepeat>
EnhancedSuffixArray::tandemRepeats(Index MaxPeriod) const {
  // The Runs Theorem (Bannai et al. 2017): for one of the two orders of the
  // alphabet (as given, or reversed), every run has a Lyndon root
  // [i, i + p) that is not its first and is the longest Lyndon word
  // starting at i. So the candidates (i, Lambda[i]) of both Lyndon arrays
  // contain every run; each candidate is checked by extension. Lyndon
  // words are primitive, so each period found is the smallest.
  if (Text.empty())
    return {};
  Symbol Top = *std::max_element(Text.begin(), Text.end());
  std::vector<Symbol> Reversed(Text.size());
  for (size_t I = 0; I < Text.size(); ++I)
    Reversed[I] = Top - Text[I];
  std::vector<Index> Lambda[2] = {
      lyndonArray(SA), lyndonArray(buildSuffixArray(Reversed, Top + 1))};
  Reversed = {};

  Index N = static_cast<Index>(Text.size());
  // The last run found per period: a candidate inside it finds it again.
  std::vector<TandemRepeat> Out;
  std::vector<Index> LastOfPeriod(std::min(MaxPeriod, N) + 1, ~Index(0));
  for (Index I = 1; I < N; ++I)
    for (const std::vector<Index> &L : Lambda) {
      Index P = L[I];
      if (P >= LastOfPeriod.size()) // Longer than MaxPeriod.
        continue;
      if (LastOfPeriod[P] != ~Index(0)) {
        const TandemRepeat &Last = Out[LastOfPeriod[P]];
        if (Last.Start <= I && I + P <= Last.End)
          continue;
      }
      TandemRepeat Run;
      if (!extendRun(Text, I, P, Run))
        continue;
      LastOfPeriod[P] = static_cast<Index>(Out.size());
      Out.push_back(Run);
    }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<TandemRepeat> EnhancedSuffixArray::cover(Index MaxPeriod) const {
  // By start, longest first: a run is inside an earlier one exactly when
  // some earlier run reaches as far.
  std::vector<TandemRepeat> Runs = tandemRepeats(MaxPeriod);
  std::sort(Runs.begin(), Runs.end(),
            [](const TandemRepeat &A, const TandemRepeat &B) {
              return A.Start != B.Start ? A.Start < B.Start : A.End > B.End;
            });
  std::vector<TandemRepeat> Outermost;
  Index Reach = 0;
  for (const TandemRepeat &R : Runs)
    if (Outermost.empty() || R.End > Reach) {
      Outermost.push_back(R);
      Reach = R.End;
    }
  return Outermost;
}

} // namespace patterns
} // namespace mpilift
