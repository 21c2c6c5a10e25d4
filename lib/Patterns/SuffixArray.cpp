//===- SuffixArray.cpp - SA-IS, LCP arrays, maximal repeats ---------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// SA-IS (induced sorting): classify suffixes as S (smaller than the next)
/// or L (larger); sort the LMS substrings (an S suffix right after an L one
/// up to the next) by one induced-sorting pass, or, when few are distinct
/// as in traces, by hashing them and sorting the distinct ones directly;
/// name them; if names repeat,
/// sort the reduced string of names recursively; then induce the order of
/// all suffixes from the sorted LMS suffixes. The reduced string and its
/// suffix array live in the output array itself, and suffix types are
/// worked out in right-to-left scans where needed rather than stored, so
/// the working memory is a copy of the text, the suffix array and the
/// buckets.
///
/// At 10^7 events the time goes to cache misses: the inductions read the
/// text at scattered places, and the LCP construction reads and writes
/// arrays in suffix order. So the inductions carry suffix types in the
/// sign of the entries (one scattered read per step instead of two), the
/// scattered reads are prefetched a few dozen steps ahead, LMS substrings
/// are named from their lengths, and the final induction records the BWT,
/// which spares the enhanced suffix array Phi's scattered writes
/// (permutedLcpFromBwt) and gives the maximal repeats' left-maximality
/// test, kept as one bit per suffix.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/SuffixArray.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mpilift {
namespace patterns {
namespace {

/// Signed positions inside the construction: a negative entry -1 - J
/// (~J) is suffix J carrying a mark (see induce).
using SIndex = int32_t;

/// Prefetch distance of the induction scans, in entries.
constexpr SIndex Ahead = 24;
/// Prefetch distance of the LCP passes.
constexpr Index LcpAhead = 16;

/// Stable LSD radix sort of \p Items by the 32-bit key \p Key gives them,
/// 16 bits a pass; a pass in which every item has the same digit is
/// skipped.
template <typename T, typename KeyFn>
void stableRadixSort(std::vector<T> &Items, KeyFn Key) {
  std::vector<T> Sorted(Items.size());
  for (unsigned Shift = 0; Shift < 32; Shift += 16) {
    auto digit = [&](const T &X) {
      return (uint32_t(Key(X)) >> Shift) & 0xFFFF;
    };
    std::vector<size_t> Start(size_t(1) << 16, 0);
    for (const T &X : Items)
      ++Start[digit(X)];
    if (Items.empty() || Start[digit(Items[0])] == Items.size())
      continue;
    size_t Sum = 0;
    for (size_t &S : Start)
      Sum += std::exchange(S, Sum);
    for (const T &X : Items)
      Sorted[Start[digit(X)]++] = X;
    Items.swap(Sorted);
  }
}

/// How many times each symbol < K occurs in T[0..N).
void countSymbols(const SIndex *T, SIndex N, SIndex K,
                  std::vector<SIndex> &Counts) {
  Counts.assign(K, 0);
  for (SIndex I = 0; I < N; ++I)
    ++Counts[T[I]];
}

/// Bucket starts (or ends) of every symbol from the symbol counts.
void bucketBounds(const std::vector<SIndex> &Counts, std::vector<SIndex> &B,
                  bool Ends) {
  B.resize(Counts.size());
  SIndex Sum = 0;
  for (size_t C = 0; C < Counts.size(); ++C) {
    Sum += Counts[C];
    B[C] = Ends ? Sum : Sum - Counts[C];
  }
}

/// Asks the cache for the text before the suffix in \p Entry, marked or
/// not: the induction reads it a few steps later.
inline void prefetchBefore(const SIndex *T, SIndex Entry) {
  SIndex J = Entry < 0 ? ~Entry : Entry;
  if (J > 0)
    __builtin_prefetch(T + J - 1);
}

/// Induced sorting: with the LMS suffixes at the ends of their buckets (and
/// every other entry 0), a left-to-right scan places the L-type suffixes
/// and a right-to-left scan the S-type ones. Instead of a type array, each
/// entry says by its sign whether the suffix before it must be induced by
/// the scan that will read it (positive for the L scan, negative for the S
/// scan, which the L scan flips); the type of J - 1 follows from T[J - 2]
/// and T[J - 1], next to each other, so each step reads the text at one
/// place, and that place is prefetched a few steps ahead.
///
/// Given \p FirstS, the position of each bucket's first S-type suffix, the
/// S scan keeps the marks of the S-type entries it has written: the marked
/// ones are then the LMS suffixes (and suffix 0, marked -1), which the
/// naming step finds without looking at the text.
void induce(const SIndex *T, SIndex *SA, SIndex N,
            const std::vector<SIndex> &Counts, std::vector<SIndex> &B,
            const std::vector<SIndex> *FirstS = nullptr,
            SIndex *Bwt = nullptr) {
  bucketBounds(Counts, B, /*Ends=*/false);
  for (SIndex I = 0; I < N; ++I) {
    if (I + Ahead < N)
      prefetchBefore(T, SA[I + Ahead]);
    SIndex J = SA[I];
    SA[I] = ~J;
    if (J > 0) { // J - 1 is L-type.
      --J;
      SIndex C = T[J];
      SIndex Before = J > 0 ? T[J - 1] : -1;
      if (Bwt)
        Bwt[B[C]] = Before;
      SA[B[C]++] = Before >= 0 && Before < C ? ~J : J;
    }
  }
  bucketBounds(Counts, B, /*Ends=*/true);
  // The bucket of position I, for a scan of decreasing I.
  SIndex Bucket = static_cast<SIndex>(Counts.size()) - 1;
  SIndex BucketStart = N - Counts[Bucket];
  auto bucketOf = [&](SIndex I) {
    while (I < BucketStart)
      BucketStart -= Counts[--Bucket];
    return Bucket;
  };
  for (SIndex I = N; I-- > 0;) {
    if (I >= Ahead)
      prefetchBefore(T, SA[I - Ahead]);
    SIndex J = SA[I];
    if (J > 0) { // J - 1 is S-type.
      --J;
      SIndex C = T[J];
      SIndex Before = J > 0 ? T[J - 1] : -1;
      if (Bwt)
        Bwt[B[C] - 1] = Before;
      SA[--B[C]] = Before < 0 || Before > C ? ~J : J;
    } else if (!FirstS || J == -1 || I < (*FirstS)[bucketOf(I)]) {
      SA[I] = ~J;
    }
  }
}

/// Calls \p Visit(I, IsSType) for every suffix I of T[0..N), right to
/// left, where T[N - 1] is the sentinel (S-type): suffix I is S-type if it
/// is smaller than suffix I + 1, which T[I], T[I + 1] and the type of
/// I + 1 decide. No type array is kept.
template <typename VisitFn>
void forEachTypeRightToLeft(const SIndex *T, SIndex N, VisitFn Visit) {
  bool NextS = true;
  Visit(N - 1, NextS);
  for (SIndex I = N - 1; I-- > 0;) {
    bool IsS = T[I] < T[I + 1] || (T[I] == T[I + 1] && NextS);
    Visit(I, IsS);
    NextS = IsS;
  }
}

/// Calls \p Visit(P) for every LMS position P (an S-type suffix right after
/// an L-type one), right to left, the sentinel's first.
template <typename VisitFn>
void forEachLmsRightToLeft(const SIndex *T, SIndex N, VisitFn Visit) {
  bool NextS = false;
  forEachTypeRightToLeft(T, N, [&](SIndex I, bool IsS) {
    if (!IsS && NextS)
      Visit(I + 1);
    NextS = IsS;
  });
}

/// Names the LMS substrings of T[0..N) (as sais needs them) by sorting
/// them with one induced sorting: the names, ranks of the substrings in
/// their order with equal ones equal, go to SA[N - N1, N) in text order.
void nameLmsSubstringsByInducing(const SIndex *T, SIndex *SA, SIndex N,
                                 const std::vector<SIndex> &Counts,
                                 std::vector<SIndex> &B, SIndex &N1,
                                 SIndex &Names) {
  // Sort them: the LMS suffixes go to the ends of their buckets in any
  // order.
  std::fill(SA, SA + N, 0);
  std::vector<SIndex> FirstS;
  bucketBounds(Counts, FirstS, /*Ends=*/false);
  bucketBounds(Counts, B, /*Ends=*/true);
  bool NextS = false;
  forEachTypeRightToLeft(T, N, [&](SIndex I, bool IsS) {
    if (IsS)
      return void(NextS = true);
    ++FirstS[T[I]]; // L-type suffixes come first in a bucket.
    if (NextS)
      SA[--B[T[I + 1]]] = I + 1;
    NextS = false;
  });
  induce(T, SA, N, Counts, B, &FirstS);
  std::vector<SIndex>().swap(FirstS);

  // Name them: equal LMS substrings get equal names.
  N1 = 0;
  for (SIndex I = 0; I < N; ++I)
    if (SA[I] < -1)
      SA[N1++] = ~SA[I];
  // Equal LMS substrings have equal lengths and symbols (the types follow
  // from the symbols and the S-type end). The length of each is stored at
  // N1 + Pos / 2 (LMS positions are 2 apart at least), and replaced by its
  // name.
  std::fill(SA + N1, SA + N, -1);
  SIndex Next = N;
  forEachLmsRightToLeft(T, N, [&](SIndex P) {
    SA[N1 + P / 2] = Next - P + (Next < N); // The sentinel's is 1.
    Next = P;
  });
  Names = 0;
  SIndex Prev = -1, PrevLength = 0;
  for (SIndex I = 0; I < N1; ++I) {
    if (I + Ahead < N1) {
      __builtin_prefetch(T + SA[I + Ahead]);
      __builtin_prefetch(SA + N1 + SA[I + Ahead] / 2);
    }
    SIndex Pos = SA[I], Length = SA[N1 + Pos / 2];
    if (Length != PrevLength || Prev < 0 ||
        !std::equal(T + Pos, T + Pos + Length, T + Prev)) {
      ++Names;
      Prev = Pos;
      PrevLength = Length;
    }
    SA[N1 + Pos / 2] = Names - 1;
  }
  for (SIndex I = N, J = N; I-- > N1;)
    if (SA[I] >= 0)
      SA[--J] = SA[I];
}

/// Names the LMS substrings of T[0..N) as nameLmsSubstringsByInducing
/// does, without sorting any suffix, when few of them are distinct (traces
/// repeat a handful of code paths: 10^7 events of the bench have 10^6 LMS
/// substrings, 4310 distinct). One right-to-left scan hashes each and looks
/// it up among the distinct ones seen (compared symbol by symbol on equal
/// hashes), writing a provisional name; the distinct ones are then sorted
/// directly and the names replaced by their ranks. Gives up (false) once
/// more than max(64, N / 64) are distinct: sorting them directly would then
/// cost more than the induced sorting.
///
/// The order is the one induced sorting gives, that of the suffixes
/// starting with them: the first differing
/// symbol decides, and if one substring's symbols begin the other's, the
/// shorter sorts last. (Its last position is an LMS suffix, so S-type,
/// after an L-type one with a greater symbol; at the same place the longer
/// one is L-type, as it would end there otherwise; and of two suffixes
/// starting with the same symbol the L-type one is smaller.)
bool nameFewLmsSubstrings(const SIndex *T, SIndex *SA, SIndex N, SIndex &N1,
                          SIndex &Names) {
  struct Substring {
    SIndex Pos, Length;
    uint64_t Hash;
  };
  const size_t MaxDistinct = std::max<size_t>(64, size_t(N) / 64);
  std::vector<Substring> Distinct;
  std::vector<SIndex> Table(1024, -1); // Open addressing into Distinct.
  auto slotOf = [&](const Substring &S) {
    size_t Mask = Table.size() - 1;
    for (size_t Slot = S.Hash & Mask;; Slot = (Slot + 1) & Mask) {
      SIndex D = Table[Slot];
      if (D < 0 ||
          (Distinct[D].Hash == S.Hash && Distinct[D].Length == S.Length &&
           std::equal(T + S.Pos, T + S.Pos + S.Length, T + Distinct[D].Pos)))
        return Slot;
    }
  };
  // The name of the substring, a new one if it is new; -1 once too many
  // are distinct.
  auto nameOf = [&](const Substring &S) -> SIndex {
    size_t Slot = slotOf(S);
    if (Table[Slot] >= 0)
      return Table[Slot];
    if (Distinct.size() == MaxDistinct)
      return -1;
    Table[Slot] = static_cast<SIndex>(Distinct.size());
    Distinct.push_back(S);
    if (2 * Distinct.size() > Table.size()) { // Rehash into twice the size.
      Table.assign(2 * Table.size(), -1);
      for (size_t D = 0; D < Distinct.size(); ++D)
        Table[slotOf(Distinct[D])] = static_cast<SIndex>(D);
    }
    return static_cast<SIndex>(Distinct.size() - 1);
  };
  auto mix = [](uint64_t H, SIndex Symbol) {
    return (H ^ static_cast<uint32_t>(Symbol)) * 0x9E3779B97F4A7C15ULL;
  };
  // Right to left. Each substring ends with the LMS position of the next;
  // the sentinel's (the first found) is itself alone. Once too many are
  // distinct, the rest of the scan does nothing.
  N1 = 0;
  SIndex End = N - 1;
  bool TooMany = false;
  forEachLmsRightToLeft(T, N, [&](SIndex Pos) {
    if (TooMany)
      return;
    SIndex Length = End - Pos + 1;
    uint64_t Hash = Length;
    for (SIndex K = Pos; K <= End; ++K)
      Hash = mix(Hash, T[K]);
    SIndex Name = nameOf({Pos, Length, Hash});
    SA[N - 1 - N1++] = Name;
    TooMany = Name < 0;
    End = Pos;
  });
  if (TooMany)
    return false;
  // Rank the distinct substrings.
  std::vector<SIndex> Order(Distinct.size());
  for (size_t D = 0; D < Order.size(); ++D)
    Order[D] = static_cast<SIndex>(D);
  std::sort(Order.begin(), Order.end(), [&](SIndex A, SIndex B) {
    const Substring &X = Distinct[A], &Y = Distinct[B];
    SIndex Common = std::min(X.Length, Y.Length);
    auto Diff = std::mismatch(T + X.Pos, T + X.Pos + Common, T + Y.Pos);
    if (Diff.first != T + X.Pos + Common)
      return *Diff.first < *Diff.second;
    return X.Length > Y.Length;
  });
  std::vector<SIndex> Rank(Order.size());
  for (size_t R = 0; R < Order.size(); ++R)
    Rank[Order[R]] = static_cast<SIndex>(R);
  for (SIndex I = N - N1; I < N; ++I)
    SA[I] = Rank[SA[I]];
  Names = static_cast<SIndex>(Distinct.size());
  return true;
}

/// Suffix array of T[0..N) over symbols < K, where T[N-1] == 0 is the only
/// 0 (the sentinel).
void sais(const SIndex *T, SIndex *SA, SIndex N, SIndex K,
          SIndex *Bwt = nullptr) {
  assert(N >= 1 && T[N - 1] == 0 && "sentinel required");
  if (N == 1) {
    SA[0] = 0;
    return;
  }
  std::vector<SIndex> Counts, B;
  countSymbols(T, N, K, Counts);

  // 1. and 2. Name the LMS substrings in their order: directly if few
  // are distinct, else by one induced sorting.
  SIndex N1 = 0, Names = 0;
  if (!nameFewLmsSubstrings(T, SA, N, N1, Names))
    nameLmsSubstringsByInducing(T, SA, N, Counts, B, N1, Names);

  // 3. Sort the LMS suffixes: recursively if names repeat.
  SIndex *Reduced = SA + N - N1;
  if (Names < N1) {
    std::vector<SIndex>().swap(B);
    std::vector<SIndex>().swap(Counts);
    sais(Reduced, SA, N1, Names);
    countSymbols(T, N, K, Counts);
  } else {
    for (SIndex I = 0; I < N1; ++I)
      SA[Reduced[I]] = I;
  }

  // 4. Induce all suffixes from the sorted LMS suffixes.
  SIndex Left = N1;
  forEachLmsRightToLeft(T, N, [&](SIndex P) { Reduced[--Left] = P; });
  for (SIndex I = 0; I < N1; ++I)
    SA[I] = Reduced[SA[I]];
  std::fill(SA + N1, SA + N, 0);
  bucketBounds(Counts, B, /*Ends=*/true);
  for (SIndex I = N1; I-- > 0;) {
    SIndex J = SA[I];
    SA[I] = 0;
    SA[--B[T[J]]] = J;
  }
  if (Bwt)
    Bwt[0] = T[N - 2]; // Before the sentinel, which nothing induces.
  induce(T, SA, N, Counts, B, nullptr, Bwt);
}

/// Sizes \p V to \p N entries, asking the kernel to back its whole 2 MiB
/// pages with transparent huge pages (a hint, ignored where the kernel or
/// its settings have none). For the working copy of the text, which the
/// inductions and then, as the permuted LCP, the LCP permutation read at
/// scattered places: with 4 KiB pages nearly each of those reads misses the
/// TLB as well as the cache.
void resizeOnHugePages(std::vector<Index> &V, size_t N) {
  V.reserve(N);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t Huge = uintptr_t(2) << 20;
  uintptr_t Begin =
      (reinterpret_cast<uintptr_t>(V.data()) + Huge - 1) & ~(Huge - 1);
  uintptr_t End = reinterpret_cast<uintptr_t>(V.data() + N) & ~(Huge - 1);
  if (End > Begin)
    madvise(reinterpret_cast<void *>(Begin), End - Begin, MADV_HUGEPAGE);
#endif
  V.resize(N);
}

/// The suffix array of \p Text and, if \p Bwt is given, its
/// Burrows-Wheeler transform (the final induction reads it anyway): the
/// symbol before each suffix in suffix-array order, as sorted, so shifted
/// by one, -1 before the first symbol and one more entry first, the
/// sentinel's. \p Scratch receives the working copy of the text, whose
/// memory the LCP construction reuses.
std::vector<Index> suffixArrayOf(const std::vector<Symbol> &Text,
                                 Symbol AlphabetSize, std::vector<Symbol> *Bwt,
                                 std::vector<Index> &Scratch) {
  assert(Text.size() < size_t(INT32_MAX) && AlphabetSize < Symbol(INT32_MAX) &&
         "text too long");
  SIndex N = static_cast<SIndex>(Text.size());
  if (N == 0)
    return {};
  // Symbols shifted by one, then the sentinel 0. Index and SIndex (and
  // Symbol) are the unsigned and signed forms of one type, which may alias.
  resizeOnHugePages(Scratch, N + 1);
  SIndex *T = reinterpret_cast<SIndex *>(Scratch.data());
  for (SIndex I = 0; I < N; ++I) {
    assert(Text[I] < AlphabetSize && "symbol outside the alphabet");
    T[I] = static_cast<SIndex>(Text[I] + 1);
  }
  T[N] = 0;
  std::vector<Index> SA(N + 1);
  if (Bwt)
    Bwt->resize(N + 1);
  sais(T, reinterpret_cast<SIndex *>(SA.data()), N + 1,
       static_cast<SIndex>(AlphabetSize + 1),
       Bwt ? reinterpret_cast<SIndex *>(Bwt->data()) : nullptr);
  SA.erase(SA.begin()); // The sentinel's suffix sorts first.
  return SA;
}

} // namespace

std::vector<Index> buildSuffixArray(const std::vector<Symbol> &Text,
                                    Symbol AlphabetSize) {
  std::vector<Index> Scratch;
  return suffixArrayOf(Text, AlphabetSize, nullptr, Scratch);
}

namespace {

/// The permuted LCP array: PLCP[p] is the length of the longest common
/// prefix of the suffix at p and the one before it in suffix-array order.
/// The Phi algorithm (Kaerkkaeinen, Manzini and Puglisi 2009): Phi[p] is
/// that preceding suffix; PLCP[p] >= PLCP[p - 1] - 1, so a pass in text
/// order extends it, touching memory mostly in order. The scattered
/// accesses (Phi by suffix-array order, the text at Phi[p]) are prefetched.
std::vector<Index> permutedLcp(const std::vector<Symbol> &Text,
                               const std::vector<Index> &SA) {
  Index N = static_cast<Index>(Text.size());
  std::vector<Index> Phi(N);
  if (N == 0)
    return Phi;
  Phi[SA[0]] = N; // No predecessor.
  for (Index I = 1; I < N; ++I) {
    if (I + LcpAhead < N)
      __builtin_prefetch(&Phi[SA[I + LcpAhead]], /*Write=*/1);
    Phi[SA[I]] = SA[I - 1];
  }
  Index H = 0;
  for (Index P = 0; P < N; ++P) { // Phi becomes the PLCP in place.
    if (P + LcpAhead < N && Phi[P + LcpAhead] < N)
      __builtin_prefetch(&Text[Phi[P + LcpAhead] + H]);
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
  return Phi;
}

/// Whether bit \p K of \p Bits is set.
inline bool bitAt(const std::vector<uint64_t> &Bits, Index K) {
  return (Bits[K / 64] >> (K % 64)) & 1;
}

/// The permuted LCP array from the BWT's changes (\p BwtChangeBits: bit k
/// set where the symbols before SA[k] and SA[k - 1] differ), without Phi's
/// scattered writes: where a suffix and the one before it in suffix-array
/// order are preceded by the same symbol, PLCP[p] = PLCP[p - 1] - 1 exactly
/// (the irreducibility lemma of Kaerkkaeinen, Manzini and Puglisi). Only
/// the heads of BWT runs, a few percent of a trace, are compared: their
/// (position, predecessor) pairs are collected in suffix-array order and
/// sorted by position. \p PLCP is storage to reuse.
std::vector<Index> permutedLcpFromBwt(
    const std::vector<Symbol> &Text, const std::vector<Index> &SA,
    const std::vector<uint64_t> &BwtChangeBits, std::vector<Index> PLCP) {
  Index N = static_cast<Index>(SA.size());
  PLCP.resize(N);
  if (N == 0)
    return PLCP;
  // The first suffix has no predecessor.
  std::vector<uint64_t> Heads{uint64_t(SA[0]) << 32 | N};
  for (Index K = 1; K < N; ++K)
    if (bitAt(BwtChangeBits, K))
      Heads.push_back(uint64_t(SA[K]) << 32 | SA[K - 1]);
  stableRadixSort(Heads, [](uint64_t H) { return uint32_t(H >> 32); });
  Index H = 0;
  size_t Next = 0;
  for (Index P = 0; P < N; ++P) {
    if (Next < Heads.size() && (Heads[Next] >> 32) == P) {
      if (Next + LcpAhead < Heads.size()) {
        Index Ahead = Index(Heads[Next + LcpAhead]);
        if (Ahead < N)
          __builtin_prefetch(&Text[Ahead]);
      }
      Index Q = Index(Heads[Next++]);
      if (Q == N)
        H = 0;
      else
        while (P + H < N && Q + H < N && Text[P + H] == Text[Q + H])
          ++H;
    }
    PLCP[P] = H; // At a reducible position, PLCP[P - 1] - 1.
    if (H > 0)
      --H;
  }
  return PLCP;
}

/// LCP[i] = PLCP[SA[i]], the scattered reads prefetched, written into
/// \p LCP, storage to reuse.
std::vector<Index> lcpFromPermuted(const std::vector<Index> &PLCP,
                                   const std::vector<Index> &SA,
                                   std::vector<Index> LCP = {}) {
  Index N = static_cast<Index>(SA.size());
  LCP.resize(N);
  for (Index I = 0; I < N; ++I) {
    if (I + LcpAhead < N)
      __builtin_prefetch(&PLCP[SA[I + LcpAhead]]);
    LCP[I] = PLCP[SA[I]];
  }
  return LCP;
}

} // namespace

std::vector<Index> buildLcpArray(const std::vector<Symbol> &Text,
                                 const std::vector<Index> &SA) {
  return lcpFromPermuted(permutedLcp(Text, SA), SA);
}

EnhancedSuffixArray::EnhancedSuffixArray(std::vector<Symbol> Text,
                                         Symbol AlphabetSize)
    : Text(std::move(Text)) {
  std::vector<Symbol> Bwt;
  std::vector<Index> Scratch;
  SA = suffixArrayOf(this->Text, AlphabetSize, &Bwt, Scratch);
  markBwtChanges(Bwt);
  std::vector<Index> PLCP =
      permutedLcpFromBwt(this->Text, SA, BwtChangeBits, std::move(Scratch));
  // The BWT's storage becomes the LCP array (Symbol and Index are one type).
  LCP = lcpFromPermuted(PLCP, SA, std::move(Bwt));
}

void EnhancedSuffixArray::markBwtChanges(const std::vector<Symbol> &Bwt) {
  // Entry K + 1 of the BWT is the one of SA[K].
  Index N = static_cast<Index>(SA.size());
  size_t Words = N / 64 + 1;
  BwtChangeBits.assign(Words, 0);
  for (Index K = 1; K < N; ++K)
    BwtChangeBits[K / 64] |= uint64_t(Bwt[K + 1] != Bwt[K]) << (K % 64);
}

std::vector<Repeat> EnhancedSuffixArray::maximalRepeats(Index MinLength,
                                                        Index MinCount) const {
  std::vector<Repeat> Out;
  Index N = static_cast<Index>(SA.size());
  if (N < 2)
    return Out;
  // Bottom-up traversal of the LCP intervals (Abouelhoda, Kurtz and
  // Ohlebusch): every interval [Lb, Rb] with value Lcp is a right-maximal
  // repeat of length Lcp; it is maximal if it is also left-diverse, its
  // suffixes preceded by different symbols (or one starting the text). An
  // interval closes at Rb = I - 1, so that is whether the BWT changes
  // somewhere in (Lb, I - 1]: whether the last change so far is past Lb.
  struct Open {
    Index Lcp, Lb;
  };
  std::vector<Open> Stack{{0, 0}};
  Index LastChange = 0; // Changes are at 1 or later.
  for (Index I = 1; I <= N; ++I) {
    if (bitAt(BwtChangeBits, I - 1))
      LastChange = I - 1;
    Index Cur = I < N ? LCP[I] : 0;
    Index Lb = I - 1;
    while (Cur < Stack.back().Lcp) {
      Open Top = Stack.back();
      Stack.pop_back();
      Index Rb = I - 1;
      if (Top.Lcp >= MinLength && Rb - Top.Lb + 1 >= MinCount &&
          LastChange > Top.Lb)
        Out.push_back({Top.Lcp, Top.Lb, Rb});
      Lb = Top.Lb;
    }
    if (Cur > Stack.back().Lcp)
      Stack.push_back({Cur, Lb});
  }
  // Intervals of one length are disjoint (nested ones differ in length),
  // so they close in the order of their first suffix: a stable sort by
  // length, longest first, is the order promised.
  stableRadixSort(Out, [](const Repeat &R) { return ~R.Length; });
  return Out;
}

std::vector<Index> EnhancedSuffixArray::occurrences(const Repeat &R) const {
  std::vector<Index> P(SA.begin() + R.First, SA.begin() + R.Last + 1);
  std::sort(P.begin(), P.end());
  return P;
}

/// The positions [\p First, \p Last) of a suffix array of a text of
/// \p N symbols, in ascending order. Many positions (a repeat of every
/// iteration of a loop) are marked in a bitmap of the text and read back
/// in order, in time linear in their number and N / 64; a few are sorted.
static std::vector<Index> ascending(std::vector<Index>::const_iterator First,
                                    std::vector<Index>::const_iterator Last,
                                    Index N) {
  size_t M = static_cast<size_t>(Last - First);
  std::vector<Index> Out;
  Out.reserve(M);
  if (M < N / 64 + 16) {
    Out.assign(First, Last);
    std::sort(Out.begin(), Out.end());
    return Out;
  }
  std::vector<uint64_t> Bits(N / 64 + 1, 0);
  for (auto It = First; It != Last; ++It)
    Bits[*It / 64] |= uint64_t(1) << (*It % 64);
  for (size_t W = 0; W < Bits.size(); ++W)
    for (uint64_t B = Bits[W]; B; B &= B - 1)
      Out.push_back(static_cast<Index>(W * 64 + llvm::countr_zero(B)));
  return Out;
}

std::vector<Index> findOccurrences(const std::vector<Symbol> &Text,
                                   const std::vector<Index> &SA,
                                   const std::vector<Symbol> &Pattern) {
  return findOccurrences([&](Index K) { return Text[K]; },
                         static_cast<Index>(Text.size()), SA, Pattern);
}

namespace {

/// Compares the suffix of a text at a position, cut to a pattern's length,
/// with the pattern: -1 if it sorts before, 0 if it starts with it, 1 after.
struct PatternOrder {
  const std::function<Symbol(Index)> &SymbolAt;
  Index Length;
  const std::vector<Symbol> &Pattern;

  int operator()(Index Start) const {
    for (Index K = 0; K < Index(Pattern.size()); ++K) {
      if (Start + K == Length)
        return -1; // A proper prefix of the pattern sorts first.
      Symbol At = SymbolAt(Start + K);
      if (At != Pattern[K])
        return At < Pattern[K] ? -1 : 1;
    }
    return 0;
  }
  /// The first suffix of \p SA that does not sort before the pattern.
  std::vector<Index>::const_iterator
  firstNotBefore(const std::vector<Index> &SA) const {
    return std::partition_point(SA.begin(), SA.end(),
                                [&](Index S) { return (*this)(S) < 0; });
  }
};

} // namespace

std::vector<Index> findOccurrences(const std::function<Symbol(Index)> &SymbolAt,
                                   Index Length, const std::vector<Index> &SA,
                                   const std::vector<Symbol> &Pattern) {
  if (Pattern.empty() || SA.empty())
    return {};
  PatternOrder Compare{SymbolAt, Length, Pattern};
  auto First = Compare.firstNotBefore(SA);
  auto Last = std::partition_point(First, SA.end(),
                                   [&](Index S) { return Compare(S) == 0; });
  return ascending(First, Last, Length);
}

bool containsPattern(const std::function<Symbol(Index)> &SymbolAt, Index Length,
                     const std::vector<Index> &SA,
                     const std::vector<Symbol> &Pattern) {
  if (Pattern.empty() || SA.empty())
    return false;
  PatternOrder Compare{SymbolAt, Length, Pattern};
  auto First = Compare.firstNotBefore(SA);
  return First != SA.end() && Compare(*First) == 0;
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
