//===- Stream.cpp - One rank's steps on one communicator ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Stream.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>

namespace mpilift {
namespace patterns {
namespace detail {

uint64_t Stream::largeBytes(size_t K) const {
  return LargeBytes[indexIn(LargeAt, K)];
}

uint32_t Stream::kindIndex(const StepKind &Kind) {
  std::pair<uint64_t, uint64_t> Fields(uint64_t(uint32_t(Kind.Peer)) << 32 |
                                           uint32_t(Kind.Tag),
                                       uint64_t(Kind.Flags) << 32 | Kind.Site);
  auto [It, New] = KindIndex.try_emplace(Fields, Kinds.size());
  if (New)
    Kinds.push_back(Kind);
  return It->second;
}

llvm::ArrayRef<trace::LayoutRun> Stream::layout(size_t K) const {
  auto It = std::lower_bound(LayoutAt.begin(), LayoutAt.end(), K);
  if (It == LayoutAt.end() || *It != K)
    return {};
  size_t I = static_cast<size_t>(It - LayoutAt.begin());
  uint32_t Begin = I == 0 ? 0 : LayoutEnd[I - 1];
  return llvm::ArrayRef<trace::LayoutRun>(LayoutRuns)
      .slice(Begin, LayoutEnd[I] - Begin);
}

uint32_t Stream::push(const StepEvent &St, llvm::ArrayRef<uint32_t> After,
                      uint64_t Hash, llvm::ArrayRef<trace::LayoutRun> Layout) {
  uint32_t K = static_cast<uint32_t>(Steps.size());
  StepKind Kind{St.Peer, St.Tag, St.Site,
                uint32_t((St.P2P ? IsP2P : 0) | (St.Send ? IsSend : 0) |
                         (St.BlockingSend ? IsBlockingSend : 0) |
                         (St.HasHash ? HasHashFlag : 0) |
                         (St.Noncontiguous ? IsNoncontiguous : 0))};
  Packed P;
  P.BufferLow = static_cast<uint32_t>(St.Buffer);
  P.BufferHigh = static_cast<uint32_t>(St.Buffer >> 32);
  P.Bytes = static_cast<uint32_t>(St.Bytes);
  if (St.Bytes > UINT32_MAX) {
    Kind.Flags |= BytesListed;
    LargeAt.push_back(K);
    LargeBytes.push_back(St.Bytes);
  }
  P.Near[0] = P.Near[1] = 0;
  bool Close = After.size() <= 2 && llvm::all_of(After, [&](uint32_t Before) {
                 assert(Before < K && "a step follows earlier steps");
                 return K - Before <= UINT16_MAX;
               });
  if (Close) {
    for (size_t I = 0; I < After.size(); ++I)
      P.Near[I] = static_cast<uint16_t>(K - After[I]);
  } else {
    Kind.Flags |= AfterListed;
    ListedAt.push_back(K);
    AfterSteps.insert(AfterSteps.end(), After.begin(), After.end());
    ListedEnd.push_back(static_cast<uint32_t>(AfterSteps.size()));
  }
  P.Kind = kindIndex(Kind);
  if (St.HasHash || !Hashes.empty()) {
    Hashes.resize(K, 0);
    Hashes.push_back(St.HasHash ? Hash : 0);
  }
  if (!Layout.empty()) {
    LayoutAt.push_back(K);
    LayoutRuns.insert(LayoutRuns.end(), Layout.begin(), Layout.end());
    LayoutEnd.push_back(static_cast<uint32_t>(LayoutRuns.size()));
  }
  Steps.push_back(P);
  return K;
}

size_t Stream::indexIn(const std::vector<uint32_t> &At, size_t K) {
  auto It = std::lower_bound(At.begin(), At.end(), K);
  assert(It != At.end() && *It == K && "the step is listed");
  return static_cast<size_t>(It - At.begin());
}

llvm::SmallVector<uint32_t, 2> Stream::after(size_t K) const {
  const Packed &P = Steps[K];
  llvm::SmallVector<uint32_t, 2> Out;
  if (Kinds[P.Kind].Flags & AfterListed) {
    size_t I = indexIn(ListedAt, K);
    uint32_t Begin = I == 0 ? 0 : ListedEnd[I - 1];
    Out.append(AfterSteps.begin() + Begin, AfterSteps.begin() + ListedEnd[I]);
    return Out;
  }
  for (uint16_t Back : P.Near)
    if (Back)
      Out.push_back(static_cast<uint32_t>(K - Back));
  return Out;
}

void Stream::write(dist::WireWriter &W) const {
  W.putVector(Steps);
  W.putVector(Kinds);
  W.putVector(Hashes);
  W.putVector(LargeAt);
  W.putVector(LargeBytes);
  W.putVector(ListedAt);
  W.putVector(ListedEnd);
  W.putVector(AfterSteps);
  W.putVector(LayoutAt);
  W.putVector(LayoutEnd);
  W.putVector(LayoutRuns);
}

size_t Stream::writtenBytes() const {
  return 11 * sizeof(uint64_t) + Steps.size() * sizeof(Packed) +
         Kinds.size() * sizeof(StepKind) +
         (Hashes.size() + LargeBytes.size()) * sizeof(uint64_t) +
         (LargeAt.size() + ListedAt.size() + ListedEnd.size() +
          AfterSteps.size() + LayoutAt.size() + LayoutEnd.size()) *
             sizeof(uint32_t) +
         LayoutRuns.size() * sizeof(trace::LayoutRun);
}

/// Whether step \p K is well formed, given the next entries of the lists
/// of large sizes and of predecessors (\p Large, \p Listed), which it
/// advances past the step's own.
bool Stream::validStep(size_t K, size_t &Large, size_t &Listed) const {
  const Packed &P = Steps[K];
  if (P.Kind >= Kinds.size())
    return false;
  uint32_t Flags = Kinds[P.Kind].Flags;
  if (Flags & BytesListed) {
    if (Large == LargeAt.size() || LargeAt[Large] != K ||
        LargeBytes[Large] <= UINT32_MAX)
      return false;
    ++Large;
  }
  if (!(Flags & AfterListed))
    return P.Near[0] <= K && P.Near[1] <= K;
  if (Listed == ListedAt.size() || ListedAt[Listed] != K)
    return false;
  uint32_t Begin = Listed == 0 ? 0 : ListedEnd[Listed - 1];
  if (ListedEnd[Listed] < Begin || ListedEnd[Listed] > AfterSteps.size())
    return false;
  for (uint32_t I = Begin; I < ListedEnd[Listed]; ++I)
    if (AfterSteps[I] >= K)
      return false; // A step follows earlier steps only.
  ++Listed;
  return true;
}

bool Stream::validLayouts() const {
  if (LayoutAt.size() != LayoutEnd.size() ||
      (LayoutEnd.empty() ? !LayoutRuns.empty()
                         : LayoutEnd.back() != LayoutRuns.size()))
    return false;
  for (size_t I = 0; I < LayoutAt.size(); ++I)
    if (LayoutAt[I] >= Steps.size() ||
        (I > 0 &&
         (LayoutAt[I] <= LayoutAt[I - 1] || LayoutEnd[I] < LayoutEnd[I - 1])))
      return false;
  return true;
}

bool Stream::read(dist::WireReader &R) {
  if (!R.getVector(Steps) || !R.getVector(Kinds) || !R.getVector(Hashes) ||
      !R.getVector(LargeAt) || !R.getVector(LargeBytes) ||
      !R.getVector(ListedAt) || !R.getVector(ListedEnd) ||
      !R.getVector(AfterSteps) || !R.getVector(LayoutAt) ||
      !R.getVector(LayoutEnd) || !R.getVector(LayoutRuns))
    return false;
  if (!validLayouts())
    return false;
  if (llvm::any_of(Kinds,
                   [](const StepKind &Kind) { return Kind.Flags & ~AllFlags; }))
    return false;
  if (Hashes.size() > Steps.size() || LargeAt.size() != LargeBytes.size() ||
      ListedAt.size() != ListedEnd.size())
    return false;
  size_t Large = 0, Listed = 0;
  for (size_t K = 0; K < Steps.size(); ++K)
    if (!validStep(K, Large, Listed))
      return false;
  return Large == LargeAt.size() && Listed == ListedAt.size() &&
         (ListedEnd.empty() ? AfterSteps.empty()
                            : ListedEnd.back() == AfterSteps.size());
}

void Stream::shrinkToFit() {
  Steps.shrink_to_fit();
  Kinds.shrink_to_fit();
  KindIndex = {};
  Hashes.shrink_to_fit();
  LargeAt.shrink_to_fit();
  LargeBytes.shrink_to_fit();
  ListedAt.shrink_to_fit();
  ListedEnd.shrink_to_fit();
  AfterSteps.shrink_to_fit();
  LayoutAt.shrink_to_fit();
  LayoutEnd.shrink_to_fit();
  LayoutRuns.shrink_to_fit();
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
