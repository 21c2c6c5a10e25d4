//===- Streams.h - Ranks' point-to-point steps, from traces -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
//
// What `mpilift detect` searches: each rank's sends and receives on one
// communicator as a stream of steps, their message partners, and what the
// dataflow of a window of steps forms, and what a pattern reports of its
// steps. Private to lib/Patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_PATTERNS_STREAMS_H
#define MPILIFT_LIB_PATTERNS_STREAMS_H

#include "Stream.h"

#include "mpilift/CommGraph/CommGraph.h"
#include "mpilift/Patterns/Detect.h"
#include "mpilift/Trace/Trace.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace mpilift {
namespace patterns {
namespace detail {

/// A step of a communicator's streams: rank, index; rank -1 for none.
using StepRef = std::pair<int32_t, uint32_t>;

/// A set of steps of a communicator's streams, (rank, position), as one
/// bit each: patterns claim thousands of steps, which an ordered set kept
/// as one allocation per step.
class StepSet {
public:
  explicit StepSet(const std::vector<Stream> &Streams) {
    for (const Stream &S : Streams)
      Bits.emplace_back(S.size(), false);
  }
  bool contains(int R, size_t K) const { return Bits[R][K]; }
  /// Adds the step; false if it was there already.
  bool insert(int R, size_t K) {
    if (Bits[R][K])
      return false;
    Bits[R][K] = true;
    return true;
  }

private:
  std::vector<std::vector<bool>> Bits;
};

/// One rank's part of a pattern: where each occurrence starts, how long.
struct RankPart {
  int CommRank;
  std::vector<size_t> Starts;
  size_t Length;
};

struct Candidate {
  std::string Collective, Topology;
  uint32_t Comm;
  int RootCommRank;
  std::vector<RankPart> Parts;
  size_t Order = 0; ///< Position among candidates, for stable ties.

  /// Steps the candidate explains, over all ranks and occurrences.
  size_t coverage() const {
    size_t N = 0;
    for (const RankPart &P : Parts)
      N += P.Starts.size() * P.Length;
    return N;
  }
};

/// The rank of world rank \p World in \p C, or -1.
int32_t commRank(const trace::Communicator &C, int32_t World);

/// For each call site of \p T, the first site with the same source
/// location: an optimising compiler may duplicate a call (one copy per path
/// into it) or give two calls of one line one address each, and a pattern
/// must not hinge on how many addresses its calls got. Sites without line
/// information stay apart.
std::vector<uint32_t> sitesBySource(const trace::Trace &T);

/// The steps of world rank \p World on communicator \p Comm, with the
/// call sites as recorded (Stream::mapSites joins a compiler's copies).
Stream streamOf(const trace::Trace &T, int World, uint32_t Comm);

/// Bytes of one piece of a message that lie next to each other in memory.
struct Piece {
  uint64_t Address, Length;
};

/// For each rank, the steps whose message the dataflow moves in pieces, in
/// message order (MessagePieces.cpp).
using StepPieces =
    std::vector<llvm::DenseMap<uint32_t, llvm::SmallVector<Piece, 4>>>;

/// Cuts the messages \p Messages (a send step and the receive step it
/// matches) whose data has gaps on either side into pieces that are ranges
/// of memory on both sides; the k-th piece of a send carries what the k-th
/// piece of its receive gets. False when a layout holds fewer bytes than
/// its message.
bool piecesOf(const std::vector<Stream> &Streams,
              llvm::ArrayRef<std::pair<StepRef, StepRef>> Messages,
              StepPieces &Pieces);

/// The messages among \p Steps (per rank, ascending), paired the way MPI
/// pairs them: the k-th send from a to b with tag t with the k-th receive
/// of b from a with t.
std::vector<std::pair<StepRef, StepRef>>
messagesInOrder(const std::vector<Stream> &Streams,
                const std::vector<std::vector<size_t>> &Steps);

/// Whether a step of \p Steps has a layout (Stream::layout).
bool hasLayouts(const std::vector<Stream> &Streams,
                const std::vector<std::vector<size_t>> &Steps);

/// Adds \p Steps of stream \p S (ascending indices) to \p L with the
/// dependencies among them; records which stream step each op is. With
/// \p BufferedSends, what follows a blocking send waits only for what the
/// send waited for, as if MPI buffered every message. A step in
/// \p Pieces (this rank's) is one op per piece, each with the step's
/// dependencies.
bool addSteps(const Stream &S, const std::vector<size_t> &Steps,
              commgraph::LocalGraph &L, std::vector<StepRef> &OpStep, int Rank,
              bool BufferedSends = false,
              const llvm::DenseMap<uint32_t, llvm::SmallVector<Piece, 4>>
                  *Pieces = nullptr);

/// The step each point-to-point step of a communicator's streams is matched
/// with: MPI pairs the k-th send from a to b with tag t with the k-th
/// receive of b from a with t. A matched step's partner is in the stream
/// of the step's peer, so only its index there is kept (4 bytes a step).
class MessagePartners {
public:
  explicit MessagePartners(const std::vector<Stream> &Streams);
  /// The partner of step \p K of rank \p R; rank -1 if it has none.
  StepRef operator()(size_t R, size_t K) const {
    uint32_t At = Index[R][K];
    if (At == Unmatched)
      return StepRef(-1, 0);
    return StepRef((*Streams)[R].peer(K), At);
  }
  /// The number of ranks.
  size_t size() const { return Index.size(); }
  /// Frees the partners; none may be asked for afterwards.
  void release() { std::vector<std::vector<uint32_t>>().swap(Index); }

private:
  static constexpr uint32_t Unmatched = UINT32_MAX;
  const std::vector<Stream> *Streams;
  std::vector<std::vector<uint32_t>> Index;
};

/// Broadcast or scatter from the root's sends of one occurrence: steps
/// \p Sends of its stream \p S.
std::string classifyRootSends(const Stream &S,
                              const std::vector<size_t> &Sends);

/// For a broadcast, what the payload hashes of its first and last
/// occurrence say (Pattern::Contents); one whose messages differ is no
/// broadcast, whatever its shape and addresses say.
void judgeContents(Pattern &P, const std::vector<Stream> &Streams,
                   const std::vector<RankPart> &FirstParts,
                   size_t FirstOccurrence,
                   const std::vector<RankPart> &LastParts,
                   size_t LastOccurrence);

/// Each occurrence's parts (one start each) extended, on every rank, by
/// the point-to-point steps right after them that carry the occurrence's
/// tag, up to where the next occurrence starts on that rank: a second
/// phase of the collective the template found the first of (HPL's long
/// broadcasts scatter the pieces, then roll them around a ring). Nothing
/// when no rank has such steps, or the occurrence's messages have several
/// tags.
std::optional<std::vector<std::vector<RankPart>>>
withFollowingSteps(const std::vector<Stream> &Streams,
                   const std::vector<std::vector<RankPart>> &Occurrences);

/// A graph of one occurrence: each rank's steps of it, with their
/// dependencies among each other. \p Cut says whether a message with gaps
/// was cut into pieces (piecesOf).
bool buildWindowGraph(const std::vector<Stream> &Streams,
                      const std::vector<RankPart> &Parts, size_t Occurrence,
                      commgraph::Graph &G, bool &Cut);

/// The collective the dataflow of a graph forms over all its processes.
/// With \p Cut (messages with gaps cut into pieces, so that one process's
/// block may be several ranges of memory), blocks of several ranges from
/// one root are judged as wholes (collectiveOfRanges).
std::string dataflowKind(const commgraph::Graph &G, std::string &Why,
                         bool Cut = false);

/// `bcast` when the transfers \p SST (coalesced) move bytes of one root's
/// memory and every other process gets the same bytes of it, `scatter`
/// when every other process gets some and no byte reaches two; empty
/// otherwise. Transfers into the root's own memory are left aside (a ring
/// that brings its pieces back).
std::string collectiveOfRanges(const std::vector<commgraph::Transfer> &SST,
                               commgraph::Rank NumProcs);

/// The collective the dataflow of two occurrences forms, each given as the
/// parts of a pattern and an occurrence index; both must form the same
/// one. \p Checked says whether the trace had the buffers to tell; then
/// "" means the two form no collective, or different ones.
std::string dataflowOfBoth(const std::vector<Stream> &Streams,
                           const std::vector<RankPart> &FirstParts,
                           size_t FirstOccurrence,
                           const std::vector<RankPart> &LastParts,
                           size_t LastOccurrence, bool &Checked);

//===-- What a pattern reports of its steps
//--------------------------------===//

/// The occurrences of a scatter (\p Occurrences, one start per part)
/// with the steps that follow them on every rank under the same tag, if
/// those complete a broadcast: on every rank the first and the last
/// occurrence, so extended, move the root's whole message (HPL's long
/// broadcasts spread the pieces down a tree, then roll them around a
/// ring). The steps added must be free: in no occurrence (\p Mine) and
/// claimed by no pattern.
std::optional<std::vector<std::vector<RankPart>>>
scatterThenAllgather(const std::vector<Stream> &Streams,
                     const std::vector<std::vector<RankPart>> &Occurrences,
                     const StepSet &Mine, const StepSet &Claimed);

/// The topology of a pattern of template \p Template whose scatter the
/// steps after it complete to a broadcast (scatterThenAllgather):
/// `scatter-allgather`, or `modified-scatter-allgather` for HPL's modified
/// algorithms (isModifiedTemplate).
std::string scatterAllgatherTopology(llvm::StringRef Template);

/// Whether \p Template is one of HPL's modified algorithms: the root first
/// sends the whole message to the next rank, which takes no further part,
/// and the others run the algorithm among themselves. The first phase is
/// then no collective by itself: only the whole (with the steps after it)
/// can be one, so a pattern whose dataflow does not show the whole
/// broadcast is reported as `unknown` (patternOfUnconfirmedModified).
bool isModifiedTemplate(llvm::StringRef Template);

/// Marks \p P, a pattern of a modified template whose occurrences the
/// dataflow shows as a scatter without the steps after it completing a
/// broadcast, as `unknown`, with a note that says so.
void markUnconfirmedModified(Pattern &P);

/// Appends to \p Out the ranges of memory [begin, end) that step \p K
/// (\p E) of \p S reads or writes: its layout's runs, or one range from
/// its buffer.
void addDataRanges(const Stream &S, size_t K, const StepEvent &E,
                   std::vector<std::pair<uint64_t, uint64_t>> &Out);

/// Whether a step of occurrence \p Occurrence of \p Parts moves data with
/// gaps (StepEvent::Noncontiguous) whose layout the trace does not hold (a
/// datatype the tracer does not decode); with \p AnyGaps, whether one
/// moves data with gaps at all.
bool movesUndescribedGaps(const std::vector<Stream> &Streams,
                          const std::vector<RankPart> &Parts, size_t Occurrence,
                          bool AnyGaps = false);

/// markUnconfirmedModified, whose note says, where \p Gaps, that the
/// messages move data with gaps whose layout the trace does not hold: the
/// dataflow, which then takes each message as one range of memory, cannot
/// tell.
void markUnconfirmedModified(Pattern &P, bool Gaps);

/// Adds to \p P's note, where a message of the first occurrence \p First
/// or of occurrence \p LastOccurrence of \p Last moves data with gaps
/// that the dataflow took as one range of memory from its first byte: one
/// the trace does not describe, or with \p Cut false (the graph was built
/// without piecesOf) any.
void noteDataflowOverGaps(Pattern &P, const std::vector<Stream> &Streams,
                          const std::vector<RankPart> &First,
                          const std::vector<RankPart> &Last,
                          size_t LastOccurrence, bool Cut);

/// Adds to \p P the call sites of the steps of \p Parts (on communicator
/// \p Comm), each with the world ranks that call it.
void addSites(Pattern &P, const std::vector<RankPart> &Parts,
              const std::vector<Stream> &Streams,
              const trace::Communicator &Comm);

/// The largest message of one occurrence of \p Parts.
uint64_t occurrenceBytes(const std::vector<Stream> &Streams,
                         const std::vector<RankPart> &Parts, size_t Occurrence);

/// The message a broadcast assembled from pieces (a scatter and a roll)
/// gives each rank in one occurrence, each given as one start per part:
/// the most any rank receives, counting each byte of its buffers that its
/// receives write once (a piece that comes back is not counted twice).
uint64_t assembledBytes(const std::vector<Stream> &Streams,
                        const std::vector<RankPart> &Parts);

/// Sets the sizes \p P reports to the assembled message of each of
/// \p Occurrences (one start per part; assembledBytes).
void setAssembledSizes(Pattern &P, const std::vector<Stream> &Streams,
                       const std::vector<std::vector<RankPart>> &Occurrences);

/// Widens the sizes \p P reports to take in an occurrence of \p Bytes.
void addSize(Pattern &P, uint64_t Bytes);

} // namespace detail
} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_LIB_PATTERNS_STREAMS_H
