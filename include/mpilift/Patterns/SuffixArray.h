//===- SuffixArray.h - Enhanced suffix arrays over event codes --*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The suffix structure each rank's trace is condensed with: an enhanced
/// suffix array (suffix array built by SA-IS for integer alphabets, LCP
/// array from the Burrows-Wheeler transform the construction records),
/// whose LCP-interval tree is the suffix tree. Traces have alphabets of
/// thousands of symbols (operation x peer x call site), for which
/// Ukkonen's tree with list children is far too slow; this uses 4 bytes per
/// symbol for each of text, SA and LCP, and a bit for the BWT.
///
/// Plain C++17.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_PATTERNS_SUFFIXARRAY_H
#define MPILIFT_PATTERNS_SUFFIXARRAY_H

#include <cstdint>
#include <functional>
#include <vector>

namespace mpilift {
namespace patterns {

using Symbol = uint32_t;
using Index = uint32_t;

/// The suffix array of \p Text: the start positions of its suffixes in
/// lexicographic order. Symbols must be below \p AlphabetSize. Linear time
/// (SA-IS, Nong, Zhang and Chan 2009), except where few LMS substrings are
/// distinct, as in traces: those are sorted directly, O(n log n) at worst.
/// Texts and alphabets below 2^31 - 1 symbols.
std::vector<Index> buildSuffixArray(const std::vector<Symbol> &Text,
                                    Symbol AlphabetSize);

/// LCP[i] = length of the longest common prefix of the suffixes SA[i-1] and
/// SA[i]; LCP[0] = 0. Linear time (the Phi algorithm of Kaerkkaeinen,
/// Manzini and Puglisi 2009).
std::vector<Index> buildLcpArray(const std::vector<Symbol> &Text,
                                 const std::vector<Index> &SA);

/// Start positions of every occurrence of \p Pattern in \p Text, whose
/// suffix array is \p SA, ascending: two binary searches, O(|Pattern| log n)
/// plus the output. An empty pattern has no occurrences.
std::vector<Index> findOccurrences(const std::vector<Symbol> &Text,
                                   const std::vector<Index> &SA,
                                   const std::vector<Symbol> &Pattern);

/// The same for a text of \p Length symbols that is not kept: \p SymbolAt
/// gives the symbol at a position (a long text derived from other data
/// need not be held beside its suffix array).
std::vector<Index> findOccurrences(const std::function<Symbol(Index)> &SymbolAt,
                                   Index Length, const std::vector<Index> &SA,
                                   const std::vector<Symbol> &Pattern);

/// Whether \p Pattern occurs in the text of \p Length symbols given by
/// \p SymbolAt, whose suffix array is \p SA: one binary search.
bool containsPattern(const std::function<Symbol(Index)> &SymbolAt, Index Length,
                     const std::vector<Index> &SA,
                     const std::vector<Symbol> &Pattern);

/// A maximal repeat: a string occurring at least twice that can be extended
/// neither to the left nor to the right without losing an occurrence. It is
/// the LCP interval [First, Last] of the suffix array: it occurs at
/// SA[First..Last].
struct Repeat {
  Index Length;
  Index First, Last;
  Index count() const { return Last - First + 1; }
};

/// A tandem repeat (a run): [Start, End) has the primitive period Period
/// and is at least two periods long, and extends no further either way. A
/// loop body executed k times in a row is a run of about k periods.
struct TandemRepeat {
  Index Start, Period, End;
  Index copies() const { return (End - Start) / Period; }
  bool operator<(const TandemRepeat &O) const {
    return Start != O.Start ? Start < O.Start : Period < O.Period;
  }
  bool operator==(const TandemRepeat &O) const {
    return Start == O.Start && Period == O.Period && End == O.End;
  }
};

/// The suffix array, LCP array and what they answer.
class EnhancedSuffixArray {
public:
  EnhancedSuffixArray(std::vector<Symbol> Text, Symbol AlphabetSize);

  const std::vector<Symbol> &text() const { return Text; }
  const std::vector<Index> &suffixArray() const { return SA; }
  const std::vector<Index> &lcp() const { return LCP; }

  /// Every maximal repeat of at least \p MinLength symbols occurring at
  /// least \p MinCount times, by (length descending, first occurrence).
  std::vector<Repeat> maximalRepeats(Index MinLength = 1,
                                     Index MinCount = 2) const;

  /// Start positions of \p R in the text, ascending.
  std::vector<Index> occurrences(const Repeat &R) const;

  /// Start positions of every occurrence of \p Pattern, ascending
  /// (findOccurrences).
  std::vector<Index> find(const std::vector<Symbol> &Pattern) const {
    return findOccurrences(Text, SA, Pattern);
  }

  /// Every tandem repeat (maximal run of a primitive period) with a period
  /// of at most \p MaxPeriod, sorted by start: the loops of a trace. Found
  /// from the Lyndon arrays of both alphabet orders (the Runs Theorem), so
  /// it needs a second suffix array; each candidate costs at most its
  /// period to refute and each run its length to find.
  std::vector<TandemRepeat> tandemRepeats(Index MaxPeriod = 1024) const;

  /// Which run covers which part of the text: the outermost runs (those no
  /// longer run contains), in order; the gaps between them are straight-line
  /// code.
  std::vector<TandemRepeat> cover(Index MaxPeriod = 1024) const;

private:
  /// Sets BwtChangeBits from the BWT as suffixArrayOf gives it.
  void markBwtChanges(const std::vector<Symbol> &Bwt);

  std::vector<Symbol> Text;
  std::vector<Index> SA, LCP;
  /// Bit k set if BWT[k] != BWT[k-1] (the symbols before SA[k] and
  /// SA[k-1] differ), 64 to a word: the maximal repeats' left-maximality
  /// test.
  std::vector<uint64_t> BwtChangeBits;
};

} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_PATTERNS_SUFFIXARRAY_H
