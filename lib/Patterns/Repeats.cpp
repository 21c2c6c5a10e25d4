//===- Repeats.cpp - Template repeats in condensed streams ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Search.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace mpilift {
namespace patterns {
namespace detail {
namespace {

std::vector<Step> swapped(std::vector<Step> S) {
  for (Step &X : S)
    X.Send = !X.Send;
  return S;
}

SymbolString symbols(const Stream &S, size_t P, size_t Len) {
  SymbolString Out;
  for (size_t K = 0; K < Len; ++K)
    Out.push_back(S[P + K].key());
  return Out;
}

/// A step's symbol in the condensed stream: what templates constrain,
/// direction and peer; 0 for what no template step matches (collectives,
/// peers outside the communicator).
Symbol shapeOf(bool Send, int64_t Peer, int64_t CommSize) {
  if (Peer < 0 || Peer >= CommSize)
    return 0;
  return 1 + 2 * static_cast<Symbol>(Peer) + (Send ? 1 : 0);
}

/// The condensed symbol of step \p E.
Symbol symbolOf(const StepEvent &E, int64_t CommSize) {
  return E.P2P ? shapeOf(E.Send, E.Peer, CommSize) : 0;
}

/// The symbols of \p A; none if a peer of it is outside the communicator
/// (such a step is no symbol the condensed stream can be searched for).
std::optional<std::vector<Symbol>> symbolsOf(const std::vector<Step> &A,
                                             int64_t CommSize) {
  std::vector<Symbol> Shape;
  for (const Step &St : A) {
    Shape.push_back(shapeOf(St.Send, St.Peer, CommSize));
    if (Shape.back() == 0)
      return std::nullopt;
  }
  return Shape;
}

} // namespace

std::vector<Step> derive(Derivation D, std::vector<Step> S) {
  switch (D) {
  case Derivation::AsIs:
    return S;
  case Derivation::Swapped:
    return swapped(std::move(S));
  case Derivation::SwappedReversed: {
    std::vector<Step> R = swapped(std::move(S));
    std::reverse(R.begin(), R.end());
    return R;
  }
  case Derivation::GatherThenBcast: {
    std::vector<Step> R = swapped(S);
    R.insert(R.end(), S.begin(), S.end());
    return R;
  }
  }
  return S;
}

std::string familyName(const Template &T, Derivation D) {
  if (T.collective() != "bcast")
    return T.collective();
  switch (D) {
  case Derivation::AsIs:
    return "bcast";
  case Derivation::Swapped:
  case Derivation::SwappedReversed:
    return "gather";
  case Derivation::GatherThenBcast:
    return "allgather";
  }
  return "?";
}

CondensedStream condense(const Stream &S, int64_t CommSize) {
  // The text is the stream's symbols: needed to build the suffix array,
  // read from the steps afterwards.
  std::vector<Symbol> Text;
  Text.reserve(S.size());
  for (const StepEvent &E : S)
    Text.push_back(symbolOf(E, CommSize));
  return {buildSuffixArray(Text, static_cast<Symbol>(2 * CommSize + 1))};
}

/// Occurrences of \p A in the stream \p S condensed as \p Condensed,
/// grouped by the call sites they use.
std::map<SymbolString, std::vector<size_t>>
occurrences(const Stream &S, const CondensedStream &Condensed,
            const std::vector<Step> &A, int64_t CommSize) {
  std::map<SymbolString, std::vector<size_t>> Groups;
  std::optional<std::vector<Symbol>> Shape = symbolsOf(A, CommSize);
  if (!Shape)
    return Groups; // A peer outside the communicator: never matches.
  // Symbols and steps correspond one to one: a match is an occurrence.
  // Matches share their shape, so they differ in call sites alone; most
  // share them with the match before (a loop's), the rest are looked up
  // by a hash of their sites. Nothing is allocated per match: a halo
  // exchange matches a chain's repeat on every rank in every iteration.
  size_t Len = A.size();
  auto sameSites = [&](size_t P, size_t Q) {
    for (size_t K = 0; K < Len; ++K)
      if (S[P + K].Site != S[Q + K].Site)
        return false;
    return true;
  };
  std::vector<std::pair<size_t, std::vector<size_t>>> Found; // First, all.
  std::unordered_map<uint64_t, std::vector<size_t>> ByHash;  // Into Found.
  size_t Last = 0;
  auto SymbolAt = [&](Index K) { return symbolOf(S[K], CommSize); };
  for (Index P : findOccurrences(SymbolAt, static_cast<Index>(S.size()),
                                 Condensed.SA, *Shape)) {
    if (Found.empty() || !sameSites(Found[Last].first, P)) {
      uint64_t H = 0;
      for (size_t K = 0; K < Len; ++K)
        H = llvm::hash_combine(H, S[P + K].Site);
      std::vector<size_t> &Same = ByHash[H];
      auto It = llvm::find_if(
          Same, [&](size_t G) { return sameSites(Found[G].first, P); });
      if (It == Same.end()) {
        Same.push_back(Found.size());
        Found.emplace_back(P, std::vector<size_t>());
        It = std::prev(Same.end());
      }
      Last = *It;
    }
    Found[Last].second.push_back(P);
  }
  for (auto &[First, Starts] : Found)
    Groups.emplace(symbols(S, First, Len), std::move(Starts));
  return Groups;
}

bool repeatMayOccur(const Stream &S, const CondensedStream &Condensed,
                    const std::vector<Step> &A, int64_t CommSize) {
  std::optional<std::vector<Symbol>> Shape = symbolsOf(A, CommSize);
  if (!Shape || Shape->empty())
    return true; // Not in the symbols: cannot be ruled out by them.
  auto SymbolAt = [&](Index K) { return symbolOf(S[K], CommSize); };
  return containsPattern(SymbolAt, static_cast<Index>(S.size()), Condensed.SA,
                         *Shape);
}

bool sequentialOnEveryRank(std::vector<std::vector<size_t>> Occurrences) {
  std::sort(Occurrences.begin(), Occurrences.end());
  for (size_t I = 1; I < Occurrences.size(); ++I)
    for (size_t R = 0; R < Occurrences[I].size(); ++R)
      if (Occurrences[I - 1][R] >= Occurrences[I][R])
        return false;
  return true;
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
