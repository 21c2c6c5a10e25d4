//===- Stream.h - One rank's steps on one communicator ----------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
//
// The steps `mpilift detect` searches, one stream per rank and
// communicator, kept compactly: a long trace holds tens of millions of
// them. Private to lib/Patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_PATTERNS_STREAM_H
#define MPILIFT_LIB_PATTERNS_STREAM_H

#include "mpilift/Dist/Wire.h"
#include "mpilift/Trace/Trace.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

namespace mpilift {
namespace patterns {
namespace detail {

/// One send or receive of a rank on a communicator, or (P2P false) another
/// operation on it that a pattern must not span (a collective). Its payload
/// hash, if the trace has one, is kept by the stream.
struct StepEvent {
  uint64_t Bytes = 0, Buffer = 0;
  int32_t Peer = -1; ///< Communicator rank, -1 if outside it.
  int32_t Tag = 0;
  uint32_t Site = trace::NoSite;
  bool P2P = true;
  bool Send = false;
  bool BlockingSend = false; ///< MPI_Send and its modes.
  bool HasHash = false;
  /// The datatype leaves gaps: the data is not [Buffer, Buffer + Bytes).
  bool Noncontiguous = false;
  /// Identity for grouping occurrences: same operation, peer and site.
  std::tuple<bool, int32_t, uint32_t> key() const { return {Send, Peer, Site}; }
};

/// What a rank did on one communicator, in order, with each step's
/// predecessors: the earlier steps it must follow, what had completed when
/// it was issued (blocking steps, waited-for requests).
///
/// A step is kept in 20 bytes: its buffer and size, what kind of step it
/// is (operation, peer, tag, call site: a rank repeats a few kinds millions
/// of times) as an index into the stream's kinds, and up to two
/// predecessors close behind it (a blocking exchange, each half of an
/// MPI_Sendrecv) as distances back; other predecessors are listed beside
/// the steps, and so are sizes of 4 GiB and more.
class Stream {
public:
  /// Reads the steps of a stream in order.
  class Iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = StepEvent;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = StepEvent;

    Iterator(const Stream &S, size_t K) : S(&S), K(K) {}
    StepEvent operator*() const { return (*S)[K]; }
    Iterator &operator++() {
      ++K;
      return *this;
    }
    bool operator==(const Iterator &O) const { return K == O.K; }
    bool operator!=(const Iterator &O) const { return K != O.K; }

  private:
    const Stream *S;
    size_t K;
  };

  size_t size() const { return Steps.size(); }
  bool empty() const { return Steps.empty(); }
  /// Step \p K as it was pushed (the predecessors aside). Inline: the
  /// searches read steps in their innermost loops, most fields unused.
  StepEvent operator[](size_t K) const {
    const Packed &P = Steps[K];
    const StepKind &Kind = Kinds[P.Kind];
    StepEvent St;
    St.Bytes = Kind.Flags & BytesListed ? largeBytes(K) : P.Bytes;
    St.Buffer = uint64_t(P.BufferHigh) << 32 | P.BufferLow;
    St.Peer = Kind.Peer;
    St.Tag = Kind.Tag;
    St.Site = Kind.Site;
    St.P2P = Kind.Flags & IsP2P;
    St.Send = Kind.Flags & IsSend;
    St.BlockingSend = Kind.Flags & IsBlockingSend;
    St.HasHash = Kind.Flags & HasHashFlag;
    St.Noncontiguous = Kind.Flags & IsNoncontiguous;
    return St;
  }
  Iterator begin() const { return Iterator(*this, 0); }
  Iterator end() const { return Iterator(*this, size()); }

  /// Appends \p St, which follows the earlier steps \p After and carried
  /// the payload hash \p Hash if St.HasHash; returns its index.
  uint32_t push(const StepEvent &St, llvm::ArrayRef<uint32_t> After,
                uint64_t Hash = 0,
                llvm::ArrayRef<trace::LayoutRun> Layout = {});
  /// The runs of step \p K's data, where it has gaps the trace describes
  /// (trace::RankTrace::layoutOf); empty otherwise.
  llvm::ArrayRef<trace::LayoutRun> layout(size_t K) const;
  /// The peer of step \p K (StepEvent::Peer), read alone.
  int32_t peer(size_t K) const { return Kinds[Steps[K].Kind].Peer; }
  /// The payload hash of step \p K, if it has one (HasHash).
  uint64_t hash(size_t K) const { return K < Hashes.size() ? Hashes[K] : 0; }
  /// The earlier steps step \p K follows, in the order pushed.
  llvm::SmallVector<uint32_t, 2> after(size_t K) const;
  /// Replaces each step's call site by \p Representative[site] (sites past
  /// its end stay).
  void mapSites(const std::vector<uint32_t> &Representative) {
    for (StepKind &Kind : Kinds)
      if (Kind.Site < Representative.size())
        Kind.Site = Representative[Kind.Site];
    KindIndex.clear(); // Kinds may now be equal: the index finds neither.
  }
  /// Appends the stream to \p W, for another process to read.
  void write(dist::WireWriter &W) const;
  /// How many bytes write appends.
  size_t writtenBytes() const;
  /// Reads a stream write wrote; false if the bytes end early or do not
  /// form one.
  bool read(dist::WireReader &R);
  /// Gives back what the arrays reserved beyond their contents, and the
  /// index push finds kinds in.
  void shrinkToFit();

private:
  /// What steps of one kind share.
  struct StepKind {
    int32_t Peer, Tag;
    uint32_t Site;
    uint32_t Flags;
  };
  /// A step as kept. Buffer in two halves, so that the record needs no
  /// padding to an 8-byte boundary.
  struct Packed {
    uint32_t BufferLow, BufferHigh;
    uint32_t Bytes; ///< The size, unless BytesListed.
    uint32_t Kind;  ///< Index into Kinds.
    /// Distances back to up to two predecessors, 0 for none; unused if
    /// AfterListed.
    uint16_t Near[2];
  };
  static_assert(sizeof(Packed) == 20, "a step is kept in 20 bytes");
  enum : uint8_t {
    IsP2P = 1,
    IsSend = 2,
    IsBlockingSend = 4,
    HasHashFlag = 8,
    BytesListed = 16, ///< The size is in LargeBytes.
    AfterListed = 32, ///< The predecessors are in the After lists.
    IsNoncontiguous = 64,
    AllFlags = 127,
  };

  std::vector<Packed> Steps;
  std::vector<StepKind> Kinds;
  /// While steps are pushed: each kind's index in Kinds, by its fields.
  llvm::DenseMap<std::pair<uint64_t, uint64_t>, uint32_t> KindIndex;
  /// Each step's payload hash; empty until a step has one (most traces
  /// are written without).
  std::vector<uint64_t> Hashes;
  /// Sizes that do not fit 32 bits: steps (ascending) and sizes.
  std::vector<uint32_t> LargeAt;
  std::vector<uint64_t> LargeBytes;
  /// Predecessors not kept in the step: steps (ascending), each one's end
  /// in AfterSteps, and the predecessors themselves.
  std::vector<uint32_t> ListedAt, ListedEnd, AfterSteps;
  /// Layouts: steps (ascending), each one's end in LayoutRuns, the runs.
  std::vector<uint32_t> LayoutAt, LayoutEnd;
  std::vector<trace::LayoutRun> LayoutRuns;

  /// The size of step \p K, which is BytesListed.
  uint64_t largeBytes(size_t K) const;
  /// Where step \p K is in \p At (which holds it).
  static size_t indexIn(const std::vector<uint32_t> &At, size_t K);
  /// The index in Kinds of \p Kind, added if new.
  uint32_t kindIndex(const StepKind &Kind);
  bool validStep(size_t K, size_t &Large, size_t &Listed) const;
  /// Whether the layout lists read from another process are well formed.
  bool validLayouts() const;
};

} // namespace detail
} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_LIB_PATTERNS_STREAM_H
