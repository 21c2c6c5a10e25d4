//===- RotatingRoots.cpp - Patterns whose root changes -------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Search.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace mpilift {
namespace patterns {
namespace detail {
namespace {

constexpr size_t None = ~size_t(0);

/// Where a growth has placed each rank's window (None for no window yet),
/// and the ranks it reached, in order. Kept from one growth to the next:
/// most stop after a few ranks, and millions are tried on a long trace,
/// so only the windows the last one placed are cleared.
struct Growth {
  std::vector<size_t> Window;
  std::vector<int> Reached;

  void start(size_t N, int Root, size_t RootStart) {
    if (Window.size() != N)
      Window.assign(N, None);
    for (int R : Reached)
      Window[R] = None;
    Reached.assign(1, Root);
    Window[Root] = RootStart;
  }
};

/// Grows the occurrence of \p Root's master repeat at \p RootStart into
/// an occurrence of the whole pattern, one window per rank in \p G:
/// every step of a window must match the rank's shape, and its message
/// partner must sit in the peer's window where the peer's shape expects
/// it; a window is placed by the first message that reaches its rank.
/// Every rank must be reached, and each direction uses one tag.
template <typename ShapeFn>
bool growInstance(const std::vector<Stream> &Streams,
                  const MessagePartners &Partner, ShapeFn &&ShapeOf, int Root,
                  size_t RootStart, Growth &G) {
  size_t N = Streams.size();
  G.start(N, Root, RootStart);
  std::vector<size_t> &Window = G.Window;
  std::vector<int> &Reached = G.Reached;
  bool TagSeen[2] = {false, false};
  int32_t Tag[2] = {0, 0};
  for (size_t Q = 0; Q < Reached.size(); ++Q) {
    int R = Reached[Q];
    const std::vector<Step> &Shape = ShapeOf(R);
    if (Shape.empty())
      return false; // Every rank of the communicator takes part.
    if (Window[R] + Shape.size() > Streams[R].size())
      return false;
    for (size_t J = 0; J < Shape.size(); ++J) {
      uint32_t K = static_cast<uint32_t>(Window[R] + J);
      const StepEvent &E = Streams[R][K];
      if (!E.P2P || E.Send != Shape[J].Send || E.Peer != Shape[J].Peer)
        return false;
      if (TagSeen[E.Send] && Tag[E.Send] != E.Tag)
        return false;
      TagSeen[E.Send] = true;
      Tag[E.Send] = E.Tag;
      auto [R2, K2] = Partner(R, K);
      if (R2 < 0)
        return false;
      const std::vector<Step> &Other = ShapeOf(R2);
      auto partnerAt = [&](size_t J2) {
        return Other[J2].Send != E.Send && Other[J2].Peer == R;
      };
      if (Window[R2] != None) {
        if (K2 < Window[R2] || K2 - Window[R2] >= Other.size() ||
            !partnerAt(K2 - Window[R2]))
          return false;
        continue;
      }
      size_t Offset = None;
      for (size_t J2 = 0; J2 < Other.size(); ++J2)
        if (partnerAt(J2)) {
          if (Offset != None)
            return false; // Two places could take it: do not guess.
          Offset = J2;
        }
      if (Offset == None || K2 < Offset)
        return false;
      Window[R2] = K2 - Offset;
      Reached.push_back(R2);
    }
  }
  return Reached.size() == N; // Every rank of the communicator takes part.
}

/// How many ranks around a root neighboursMayTakePart looks at.
constexpr int NeighboursChecked = 8;

/// False if one of the ranks next to \p Root (the NeighboursChecked
/// nearest, alternately after and before it) has no window anywhere in its
/// stream that matches its shape (\p ShapeOf) in direction and peer. A
/// growth must place such a window on every rank, so then none from this
/// root can succeed. A halo exchange has the root's part of a chain or a
/// ring in every iteration, and would otherwise be grown from each, to
/// fail a rank or two further on; the nearest ranks are where a chain or a
/// ring fails, and looking at every rank would cost a search per rank for
/// each root.
template <typename ShapeFn>
bool neighboursMayTakePart(const std::vector<Stream> &Streams,
                           const std::vector<CondensedStream> &Condensed,
                           int Root, ShapeFn &&ShapeOf) {
  int N = static_cast<int>(Streams.size());
  int Checked = std::min(N - 1, NeighboursChecked);
  for (int I = 0; I < Checked; ++I) {
    int Distance = I / 2 + 1;
    int R = I % 2 == 0 ? (Root + Distance) % N : (Root - Distance + N) % N;
    const std::vector<Step> &Shape = ShapeOf(R);
    if (Shape.empty() ||
        !repeatMayOccur(Streams[R], Condensed[R], Shape, int64_t(N)))
      return false;
  }
  return true;
}

} // namespace

std::vector<RankPart> Instance::parts() const {
  std::vector<RankPart> Out;
  Out.reserve(ranks());
  for (size_t R = 0; R < ranks(); ++R)
    Out.push_back({int(R), {start(R)}, length(R)});
  return Out;
}

size_t RotatingGroup::coverage() const {
  size_t N = 0;
  for (const Instance &In : Instances)
    for (size_t R = 0; R < In.ranks(); ++R)
      N += In.length(R);
  return N;
}

void RotatingRoots::grow(
    const Template &Tm, Derivation D, const TemplateParams &P,
    const std::map<SymbolString, std::vector<size_t>> &Found,
    const std::vector<CondensedStream> &Condensed) {
  const std::vector<Stream> &Streams = S.Streams;
  // Each rank's repeat, evaluated when the growth first reaches the rank
  // (most attempts stop after a few ranks).
  std::vector<std::optional<std::vector<Step>>> Shapes(P.N);
  auto shapeOf = [&](int R) -> const std::vector<Step> & {
    if (!Shapes[R])
      Shapes[R] = derive(D, R == P.Root ? Tm.master(P) : Tm.slave(P, R));
    return *Shapes[R];
  };
  if (!neighboursMayTakePart(Streams, Condensed, int(P.Root), shapeOf))
    return;
  Growth Attempt;
  const std::vector<size_t> &Windows = Attempt.Window;
  const std::string Collective = familyName(Tm, D);
  std::vector<std::pair<uint32_t, bool>> Sites; // Each once, as met.
  for (const auto &[Ignored, Starts] : Found)
    for (size_t Start : Starts) {
      // A start inside an occurrence grown from an earlier root is that
      // occurrence's step (where this rank forwards, or another reading
      // of the same messages): not grown again. A halo exchange forms a
      // chain from every root through the same steps; growing each would
      // cost every rank for every root.
      if (GrownSteps->contains(int(P.Root), Start))
        continue;
      if (!growInstance(Streams, S.Partners, shapeOf, int(P.Root), Start,
                        Attempt))
        continue;
      // An occurrence uses a few call sites over and over (one or two a
      // rank): a short list finds them faster than a set.
      Sites.clear();
      std::vector<uint32_t> Lengths(Windows.size());
      for (size_t R = 0; R < Windows.size(); ++R) {
        Lengths[R] = static_cast<uint32_t>(shapeOf(int(R)).size());
        for (size_t K = 0; K < Lengths[R]; ++K) {
          const StepEvent &E = Streams[R][Windows[R] + K];
          std::pair<uint32_t, bool> Site(E.Site, E.Send);
          if (!llvm::is_contained(Sites, Site))
            Sites.push_back(Site);
        }
      }
      Key Group{Collective, Tm.topology(), {Sites.begin(), Sites.end()}};
      const std::vector<uint32_t> *Kept =
          &*WindowLengths.insert(std::move(Lengths)).first;
      auto Entry = Groups[Group].emplace(
          std::vector<uint32_t>(Windows.begin(), Windows.end()),
          Grown{int(P.Root), Kept});
      GrownByThisRoot.push_back({&Entry.first->first, Kept});
    }
}

std::vector<RotatingGroup> RotatingRoots::takeGroups() {
  std::vector<RotatingGroup> Out;
  for (auto &[K, ByWindows] : Groups) {
    std::set<int> Roots;
    for (const auto &[W, G] : ByWindows)
      Roots.insert(G.Root);
    if (Roots.size() < 2)
      continue;
    RotatingGroup Group{std::get<0>(K),
                        std::get<1>(K),
                        std::get<2>(K),
                        std::move(ByWindows),
                        {}};
    // The map's order is its windows' order, rank 0's first: the order
    // of the occurrences on rank 0. (Two that start at one step of rank 0
    // overlap, and report refuses them in any order.)
    for (const auto &[W, G] : Group.Occurrences)
      Group.Instances.push_back({&W, &G});
    Out.push_back(std::move(Group));
  }
  Groups.clear();
  return Out;
}

void RotatingRoots::report(const RotatingGroup &Group, StepSet &Claimed,
                           std::vector<Pattern> &Found) const {
  const std::vector<Stream> &Streams = S.Streams;
  uint32_t C = S.Comm;
  const std::vector<Instance> &Instances = Group.Instances;
  const auto &Sites = Group.Sites;
  StepSet Mine(Streams);
  std::vector<std::pair<int, size_t>> Steps;
  for (const Instance &In : Instances)
    for (size_t R = 0; R < In.ranks(); ++R)
      for (size_t K = 0; K < In.length(R); ++K) {
        if (!Mine.insert(int(R), In.start(R) + K))
          return; // Overlapping occurrences.
        Steps.emplace_back(int(R), In.start(R) + K);
      }
  std::vector<std::vector<size_t>> Windows;
  for (const Instance &In : Instances)
    Windows.emplace_back(In.Windows->begin(), In.Windows->end());
  if (!sequentialOnEveryRank(std::move(Windows)))
    return;
  for (const auto &[R, K] : Steps)
    if (Claimed.contains(R, K))
      return;
  for (size_t R = 0; R < Streams.size(); ++R)
    for (size_t K = 0; K < Streams[R].size(); ++K) {
      const StepEvent &E = Streams[R][K];
      if (E.P2P && Sites.count({E.Site, E.Send}) && !Mine.contains(int(R), K))
        return; // A step of these call sites the pattern does not explain.
    }
  const trace::Communicator &Comm = S.comm();
  Pattern P;
  P.Collective = Group.Collective;
  P.Topology = Group.Topology;
  P.Comm = C;
  P.Occurrences = Instances.size();
  P.Evidence = "template";
  P.Note = "the root changes between occurrences";
  std::set<int> Roots;
  for (const Instance &In : Instances)
    Roots.insert(In.root());
  for (int R : Roots)
    P.Roots.push_back(Comm.Members[R]);
  std::sort(P.Roots.begin(), P.Roots.end());
  std::vector<std::vector<RankPart>> Occurrences;
  for (const Instance &In : Instances)
    Occurrences.push_back(In.parts());
  P.Bytes = occurrenceBytes(Streams, Occurrences.front(), 0);
  for (const std::vector<RankPart> &Parts : Occurrences)
    addSize(P, occurrenceBytes(Streams, Parts, 0));
  // The dataflow of the first and the last occurrence, as for fixed roots.
  bool Checked;
  std::string Kind = dataflowOfBoth(Streams, Occurrences.front(), 0,
                                    Occurrences.back(), 0, Checked);
  bool Scatter = Checked && (Kind == "scatter" || Kind == "scatterv");
  if (Scatter)
    if (std::optional<std::vector<std::vector<RankPart>>> Whole =
            scatterThenAllgather(Streams, Occurrences, Mine, Claimed)) {
      Occurrences = std::move(*Whole);
      Kind = "bcast";
      P.Topology = scatterAllgatherTopology(Group.Topology);
      setAssembledSizes(P, Streams, Occurrences);
    }
  if (Scatter && Kind != "bcast" && isModifiedTemplate(Group.Topology)) {
    markUnconfirmedModified(
        P, movesUndescribedGaps(Streams, Occurrences.front(), 0));
  } else if (Checked) {
    if (Kind.empty())
      return;
    if (Kind != P.Collective)
      P.Note += "; the template suggests a " + P.Collective;
    P.Collective = Kind;
    P.Evidence = "both";
    noteDataflowOverGaps(P, Streams, Occurrences.front(), Occurrences.back(), 0,
                         /*Cut=*/true);
  } else if (P.Collective == "bcast") {
    P.Collective = "unknown"; // Broadcast or scatter: no data to tell.
  }
  // The messages of a scatter and a roll are pieces: their payloads
  // differ by design, and the dataflow has shown the broadcast.
  if (!llvm::StringRef(P.Topology).ends_with("scatter-allgather"))
    judgeContents(P, Streams, Occurrences.front(), 0, Occurrences.back(), 0);
  std::vector<RankPart> All;
  for (std::vector<RankPart> &Parts : Occurrences)
    for (RankPart &Part : Parts) {
      for (size_t K = 0; K < Part.Length; ++K)
        Claimed.insert(Part.CommRank, Part.Starts[0] + K);
      All.push_back(std::move(Part));
    }
  addSites(P, All, Streams, Comm);
  Found.push_back(std::move(P));
}

void RotatingRoots::endRoot() {
  for (const auto &[Windows, Lengths] : GrownByThisRoot)
    for (size_t R = 0; R < Windows->size(); ++R)
      for (uint32_t K = 0; K < (*Lengths)[R]; ++K)
        GrownSteps->insert(int(R), (*Windows)[R] + K);
  GrownByThisRoot.clear();
}

} // namespace detail
} // namespace patterns
} // namespace mpilift
