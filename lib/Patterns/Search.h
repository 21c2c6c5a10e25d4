//===- Search.h - The searches of one communicator -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
//
// `mpilift detect` searches each communicator's streams three ways:
// template repeats from a fixed root (FixedRoots.cpp), the same repeats
// grown into occurrences whose root changes (RotatingRoots.cpp), and the
// dataflow of every step no template explains (DataflowSearch.cpp). This
// header is what they share: the communicator being searched, the template
// repeats found in condensed streams (Repeats.cpp), and each search's
// entry. Private to lib/Patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_PATTERNS_SEARCH_H
#define MPILIFT_LIB_PATTERNS_SEARCH_H

#include "Streams.h"

#include "mpilift/Patterns/SuffixArray.h"
#include "mpilift/Patterns/Templates.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mpilift {
namespace patterns {
namespace detail {

/// The communicator a search looks at: its members' streams, by
/// communicator rank, and the message partner of each step.
struct CommSearch {
  CommSearch(const trace::Trace &T, uint32_t Comm,
             const std::vector<Stream> &Streams)
      : T(T), Comm(Comm), Streams(Streams), Partners(Streams) {}

  const trace::Communicator &comm() const { return T.Comms[Comm]; }

  const trace::Trace &T;
  uint32_t Comm;
  const std::vector<Stream> &Streams;
  /// The message partners of Streams' steps; the dataflow search frees
  /// them once it reads them no more.
  MessagePartners Partners;
};

//===-- Template repeats (Repeats.cpp) ------------------------------------===//

/// How a collective derives from a template (section IV-B): as it is, with
/// sends and receives swapped (gather; also in reverse order, the natural
/// gather of rings and chains), or a gather followed by a broadcast.
enum class Derivation { AsIs, Swapped, SwappedReversed, GatherThenBcast };

/// The repeat \p S of a template, as derivation \p D turns it.
std::vector<Step> derive(Derivation D, std::vector<Step> S);

/// The collective template \p T forms as derivation \p D turns it.
std::string familyName(const Template &T, Derivation D);

/// The steps of a window as the search compares them: direction, peer,
/// call site each.
using SymbolString = std::vector<std::tuple<bool, int32_t, uint32_t>>;

/// A rank's stream condensed into shape symbols (direction and peer; 0 for
/// what no template step matches), as the suffix array of those symbols:
/// every instance of a template's repeat is found there by two binary
/// searches instead of a scan of the stream. The symbols themselves are
/// read from the stream's steps, not kept.
struct CondensedStream {
  std::vector<Index> SA;
};

/// Condenses \p S, a stream of a communicator of \p CommSize ranks.
CondensedStream condense(const Stream &S, int64_t CommSize);

/// Occurrences of \p A in the stream \p S condensed as \p Condensed,
/// grouped by the call sites they use.
std::map<SymbolString, std::vector<size_t>>
occurrences(const Stream &S, const CondensedStream &Condensed,
            const std::vector<Step> &A, int64_t CommSize);

/// False only if no window of \p S matches \p A step by step in
/// direction and peer (so no occurrence of a pattern needing \p A of
/// this rank exists); one binary search in \p Condensed.
bool repeatMayOccur(const Stream &S, const CondensedStream &Condensed,
                    const std::vector<Step> &A, int64_t CommSize);

/// Whether occurrences of patterns (each a window start per rank of the
/// communicator) follow each other in one order on every rank. Stars from
/// every root interleaved on each rank are an all-to-all, not a broadcast
/// whose root changes.
bool sequentialOnEveryRank(std::vector<std::vector<size_t>> Occurrences);

//===-- Roles that change with the root (RotatingRoots.cpp) ---------------===//

/// A grown occurrence as RotatingRoots keeps it (its windows are the key):
/// the root and each rank's window length (one of a set of lengths: every
/// occurrence grown from one root's repeat has the same).
struct Grown {
  int Root;
  const std::vector<uint32_t> *Lengths;
};
/// Grown occurrences by their windows (each rank's start).
using GrownByWindows = std::map<std::vector<uint32_t>, Grown>;

/// One occurrence of a pattern across ranks: a view of an entry of the
/// group's GrownByWindows (one window per rank). Groups hold hundreds of
/// thousands of them on long traces; RankPart lists are made only for the
/// few a report reads.
struct Instance {
  const std::vector<uint32_t> *Windows;
  const Grown *G;

  int root() const { return G->Root; }
  size_t ranks() const { return Windows->size(); }
  size_t start(size_t R) const { return (*Windows)[R]; }
  size_t length(size_t R) const { return (*G->Lengths)[R]; }
  std::vector<RankPart> parts() const;
};

/// Occurrences of one collective and topology from several roots, using
/// one set of call sites.
struct RotatingGroup {
  std::string Collective, Topology;
  std::set<std::pair<uint32_t, bool>> Sites;
  /// Owns what Instances view (a map keeps its nodes where they are when
  /// the group moves).
  GrownByWindows Occurrences;
  /// In the order of rank 0's windows.
  std::vector<Instance> Instances;

  /// Steps the group explains, over all ranks and occurrences.
  size_t coverage() const;
};

/// Patterns whose root changes between occurrences and takes the ranks'
/// roles with it: a chain or ring that starts at another rank each time,
/// as HPL's broadcasts do. A root's master repeat then also occurs where
/// that rank forwards, so the occurrence counts of the ranks cannot agree
/// as the fixed-root search requires. Instead, each occurrence of a master
/// repeat that the fixed-root search finds grows into an occurrence of the
/// whole pattern by following its messages, collected by collective,
/// topology and call sites; the occurrences of all roots make one pattern
/// if report accepts them.
class RotatingRoots {
public:
  explicit RotatingRoots(const CommSearch &S) : S(S) {}

  /// Starts the roots of one template and derivation.
  void beginDerivation() { GrownSteps.emplace(S.Streams); }
  /// Grows each occurrence in \p Found of the master repeat of \p Tm, as
  /// \p D turns it, for the root and rotation \p P.
  /// \p Condensed holds every rank's condensed stream.
  void grow(const Template &Tm, Derivation D, const TemplateParams &P,
            const std::map<SymbolString, std::vector<size_t>> &Found,
            const std::vector<CondensedStream> &Condensed);
  /// Ends a root: what it grew is not grown again from the roots after it.
  void endRoot();
  /// Ends the roots of a template and derivation.
  void endDerivation() { GrownSteps.reset(); }

  /// The groups grown from two roots at least (one root is the fixed-root
  /// search's case), each with its occurrences in order; forgets them.
  std::vector<RotatingGroup> takeGroups();

  /// Reports \p Group's occurrences as one pattern into \p Found if they
  /// are disjoint, unclaimed (\p Claimed, which gets their steps), follow
  /// each other in the same order on every rank, explain every step of
  /// their call sites, and the dataflow of the first and the last forms
  /// the same collective.
  void report(const RotatingGroup &Group, StepSet &Claimed,
              std::vector<Pattern> &Found) const;

private:
  const CommSearch &S;
  /// Occurrences grown from master repeats of every root, by group and by
  /// their windows (rotations giving the same repeat find them twice).
  using Key =
      std::tuple<std::string, std::string, std::set<std::pair<uint32_t, bool>>>;
  std::map<Key, GrownByWindows> Groups;
  /// The window lengths of grown occurrences, each kept once (a set keeps
  /// its elements where they are); cleared with the groups.
  std::set<std::vector<uint32_t>> WindowLengths;
  /// The steps of the occurrences grown from the roots before the current
  /// one, for the template and derivation being tried, and the windows
  /// and lengths of those grown from the current root (in Groups and
  /// WindowLengths).
  std::optional<StepSet> GrownSteps;
  std::vector<
      std::pair<const std::vector<uint32_t> *, const std::vector<uint32_t> *>>
      GrownByThisRoot;
};

//===-- The searches ------------------------------------------------------===//

/// Each communicator of three processes or more that the search looks at,
/// with its members' streams (by communicator rank).
using CommStreams = std::vector<std::pair<uint32_t, std::vector<Stream>>>;

/// The communicators of \p T the search looks at, with empty streams.
CommStreams searchedComms(const trace::Trace &T);

/// Builds the streams of world rank \p World in \p Work from \p T, call
/// sites as recorded.
void takeStreams(const trace::Trace &T, int World, CommStreams &Work);

/// The patterns of \p Work: every rank's streams (takeStreams), with call
/// sites numbered as in \p T.
DetectResult detectInStreams(const trace::Trace &T,
                             const DetectOptions &Options, CommStreams Work);

/// Template evidence (FixedRoots.cpp): the patterns of \p S whose steps
/// match a template's repeats, from a fixed root or (RotatingRoots) one
/// that changes; candidates compete, the one explaining most steps wins,
/// and a step belongs to one pattern at most. Adds them to \p Found.
void templatePatterns(const CommSearch &S, std::vector<Pattern> &Found);

/// Dataflow evidence (DataflowSearch.cpp): all point-to-point steps of
/// \p S that no pattern in \p Found explains, as one graph; the
/// collectives its dataflow forms over all ranks become patterns if they
/// are compact. Frees \p S's partners; why the steps could not be matched
/// goes to \p Warnings.
void dataflowPatterns(CommSearch &S, std::vector<Pattern> &Found,
                      std::vector<std::string> &Warnings);

} // namespace detail
} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_LIB_PATTERNS_SEARCH_H
