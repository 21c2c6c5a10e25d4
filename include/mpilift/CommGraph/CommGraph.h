//===- CommGraph.h - Communication DAGs, matching, SST ----------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cDAG core (Hoefler and Schneider, PACT 2012). A communication DAG has,
/// per process, send, receive and local operations and local dependencies
/// between them. From the graphs of all processes this library computes
///
///  - the matching of sends to receives (Algorithm 1), with MPI's ordering
///    rule: same source, destination and tag match in order;
///  - the dataflow into Static Single Transfer form (Algorithms 3 and 4):
///    for every byte a process holds at the end that came from another
///    process, the original (process, address) it came from, following
///    forwarded data through any number of hops and splitting partially
///    forwarded buffers;
///  - wait sets (section 2.3);
///  - the collective operations the transfers form (Algorithm 5, section
///    4.2 for process subsets, section 2.4 for vector variants);
///  - reductions: a combine operation folds one region into another with an
///    operation (MPI_SUM, MPI_MAX, ...); the dataflow then says, for every
///    byte, which processes' data it combines and from where, and
///    detectReductions names reduce, allreduce, scan and exscan.
///
/// Plain C++17 with no other dependency: libcdag links it into user
/// programs.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_COMMGRAPH_COMMGRAPH_H
#define MPILIFT_COMMGRAPH_COMMGRAPH_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpilift {
namespace commgraph {

using Rank = int32_t;
using Address = uint64_t;
using OpId = uint32_t; ///< Index into Graph::ops().
constexpr OpId NoOp = UINT32_MAX;

enum class OpKind : uint8_t { Send, Recv, Local, Combine };

/// Sends and receives; local and combine operations are a process's own.
inline bool isMessage(OpKind K) {
  return K == OpKind::Send || K == OpKind::Recv;
}

/// MPI's predefined reduction operations, and Other: a function of both
/// values that is none of them (nothing says it is associative or
/// commutative).
enum class ReduceOp : uint8_t {
  Sum,
  Prod,
  Min,
  Max,
  LAnd,
  LOr,
  LXor,
  BAnd,
  BOr,
  BXor,
  MinLoc,
  MaxLoc,
  Other,
};

/// "MPI_SUM", "MPI_MAX", ...; "an operation of its own" for Other.
const char *name(ReduceOp Op);

/// How a combine of MPI_MINLOC or MPI_MAXLOC pairs settles equal values:
/// by their indices (MPI's way), or by which pair it holds. The latter is
/// MPI's too when each process's index is its rank and the ranks combined
/// in come after (KeepOwn) or before (TakeOther) those already held.
enum class TieRule : uint8_t { Indices, KeepOwn, TakeOther };

/// What a combine operation reads besides the region it writes.
struct CombineInfo {
  Address From = 0;
  ReduceOp Op = ReduceOp::Other;
  uint32_t Element = 1; ///< Bytes per element; the operation is elementwise.
  TieRule Ties = TieRule::Indices;
};

/// One operation of one process (32 bytes: graphs have millions).
struct Operation {
  /// Send: the data sent. Recv: where it lands. Local: the region the
  /// operation overwrites with data of its own (Size 0: none). Combine:
  /// the region it folds the data at CombineInfo::From into.
  Address Start = 0;
  uint64_t Size = 0;
  Rank Owner = 0;
  Rank Peer = -1; ///< Send: destination. Recv: source.
  int32_t Tag = 0; ///< Combine: the index of its CombineInfo.
  OpKind Kind = OpKind::Local;
};

/// A region of one process whose final content does not matter.
struct ScratchRegion {
  Rank Owner;
  Address Start;
  uint64_t Size;
};

/// The successors of an operation.
struct OpRange {
  const OpId *First, *Last;
  const OpId *begin() const { return First; }
  const OpId *end() const { return Last; }
  size_t size() const { return static_cast<size_t>(Last - First); }
};

/// What a failed analysis says; empty Message means success.
struct Status {
  std::string Message;
  bool ok() const { return Message.empty(); }
  static Status error(std::string M) { return Status{std::move(M)}; }
};

/// The graph one process builds.
class LocalGraph {
public:
  explicit LocalGraph(Rank Owner) : Owner(Owner) {}

  /// Each returns the operation's index in this graph.
  uint32_t addSend(Address Buffer, uint64_t Size, Rank Dest, int32_t Tag);
  uint32_t addRecv(Address Buffer, uint64_t Size, Rank Source, int32_t Tag);
  /// A local operation; it overwrites [Written, Written + Size) if Size > 0.
  uint32_t addLocal(Address Written = 0, uint64_t Size = 0);
  /// [Into, Into + Size) becomes \p Op of itself and [From, From + Size),
  /// element by element (\p Element bytes each).
  uint32_t
  addCombine(Address Into, Address From, uint64_t Size, ReduceOp Op,
             uint32_t Element,
             TieRule Ties = TieRule::Indices); /// \p After may start only once
                                               /// \p Before completed.
  void addDependency(uint32_t Before, uint32_t After);
  /// A region whose content at the end does not matter (a temporary buffer
  /// of a tree algorithm): transfers into it are not part of the result.
  void addScratch(Address Buffer, uint64_t Size);

  Rank owner() const { return Owner; }
  const std::vector<Operation> &ops() const { return Ops; }
  const std::vector<std::pair<uint32_t, uint32_t>> &dependencies() const {
    return Deps;
  }
  const std::vector<std::pair<Address, uint64_t>> &scratch() const {
    return Scratch;
  }
  const std::vector<CombineInfo> &combines() const { return Combines; }

  /// A flat encoding for sending the graph to another process, and back.
  std::vector<uint64_t> serialize() const;
  static Status deserialize(const uint64_t *Data, size_t Words,
                            LocalGraph &Out);

private:
  Rank Owner;
  std::vector<Operation> Ops;
  std::vector<std::pair<uint32_t, uint32_t>> Deps;
  std::vector<std::pair<Address, uint64_t>> Scratch;
  std::vector<CombineInfo> Combines;
};

/// The global graph of all processes.
class Graph {
public:
  explicit Graph(Rank NumProcs);

  /// Adds one process's graph. Fails on a bad peer, a dependency on a
  /// missing operation, or a process added twice.
  Status add(const LocalGraph &G);
  /// Makes room for \p Operations operations in all, for a caller that
  /// knows how many its processes' graphs hold (a graph of millions of
  /// operations then does not grow by doubling).
  void reserve(size_t Operations) { Ops.reserve(Operations); }

  Rank numProcs() const { return NumProcs; }
  const std::vector<Operation> &ops() const { return Ops; }
  /// The global id of operation \p LocalIndex of process \p Owner.
  OpId id(Rank Owner, uint32_t LocalIndex) const {
    return First[Owner] + LocalIndex;
  }
  /// The position of \p Op in its owner's LocalGraph.
  uint32_t localIndex(OpId Op) const { return Op - First[Ops[Op].Owner]; }
  /// Operations that may start only after \p Op completed.
  OpRange successors(OpId Op) const {
    buildAdjacency();
    return {Targets.data() + Offsets[Op], Targets.data() + Offsets[Op + 1]};
  }
  uint32_t numPredecessors(OpId Op) const {
    buildAdjacency();
    return InDegree[Op];
  }
  const std::vector<ScratchRegion> &scratch() const { return Scratch; }
  /// What combine operation \p Op reads and how it combines.
  const CombineInfo &combine(OpId Op) const {
    return Combines[static_cast<uint32_t>(Ops[Op].Tag)];
  }
  /// "send 3 of process 0 (to 2, tag 7, 40 bytes)", for messages.
  std::string describe(OpId Op) const;

private:
  /// Turns the dependency list into compressed rows, once.
  void buildAdjacency() const;

  Rank NumProcs;
  std::vector<Operation> Ops;
  std::vector<OpId> First;
  std::vector<bool> Added;
  std::vector<ScratchRegion> Scratch;
  std::vector<CombineInfo> Combines;
  mutable std::vector<std::pair<OpId, OpId>> Edges;
  mutable std::vector<uint32_t> Offsets, InDegree;
  mutable std::vector<OpId> Targets;
  mutable bool Built = false;
};

/// The matching set M: for every send and receive, the operation it
/// matched.
struct Matching {
  std::vector<OpId> PeerOf;
  /// When matching fails: sends and receives that found no partner, and
  /// operations that never became ready (they wait for such ones).
  std::vector<OpId> Unmatched, NeverReady;
};

/// Algorithm 1. Fails, naming the operations, if some send or receive has
/// no partner, sizes of a matched pair differ, or dependencies form a cycle.
Status match(const Graph &G, Matching &M);

/// One SST assignment: Size bytes at SrcAddr of process Src end up at
/// DstAddr of process Dst. (The paper's tuple (owner, start, size, peer,
/// peer start) of a final receive.)
struct Transfer {
  Transfer() = default;
  Transfer(Rank Dst, Address DstAddr, uint64_t Size, Rank Src, Address SrcAddr)
      : DstAddr(DstAddr), Size(Size), SrcAddr(SrcAddr), Dst(Dst), Src(Src) {}

  // 32 bytes: addresses first.
  Address DstAddr = 0;
  uint64_t Size = 0;
  Address SrcAddr = 0;
  Rank Dst = 0;
  Rank Src = 0;

  bool operator==(const Transfer &O) const {
    return Dst == O.Dst && DstAddr == O.DstAddr && Size == O.Size &&
           Src == O.Src && SrcAddr == O.SrcAddr;
  }
};

/// Counts the dataflow reports besides its result.
struct DataflowStats {
  uint64_t Splits = 0; ///< Sends split into several flows (Algorithm 4).
};

/// Processes First..Last each contribute their data at Addr.
struct Contribution {
  Rank First = 0, Last = 0;
  Address Addr = 0;
  bool operator==(const Contribution &O) const {
    return First == O.First && Last == O.Last && Addr == O.Addr;
  }
};

/// Data a process holds at the end that combines several processes' data:
/// byte B of [DstAddr, DstAddr + Size) is Op applied, element by element,
/// to byte B of each contribution (at Addr + B of each process named).
struct Combination {
  Rank Dst = 0;
  Address DstAddr = 0;
  uint64_t Size = 0;
  ReduceOp Op = ReduceOp::Other;
  uint32_t Element = 1;
  /// Sorted by First; neighbours with the same address are merged.
  std::vector<Contribution> Parts;
  /// Some process's data is combined more than once.
  bool Repeated = false;
  /// Every combine that settles ties by what it holds (TieRule) combined
  /// the ranks in the order that makes that MPI's smallest index.
  bool RankOrdered = true;
  /// The combine that made it (the last one, for a message).
  OpId Writer = NoOp;

  /// How many processes contribute (each counted once).
  Rank processes() const;
  /// Whether \p R contributes, and where from.
  const Contribution *partOf(Rank R) const;
};

/// Algorithms 3 and 4: the final receives of every process in SST form,
/// sorted by (Dst, DstAddr). Memory a process received and later forwarded
/// still counts (it holds the data at the end); scratch regions and data
/// overwritten later do not. Transfers of a process's own data back to the
/// same place are dropped.
/// With \p Writers, also the receive that wrote each transfer (the first
/// one where neighbouring regions were merged), parallel to \p Out.
/// With \p Combined, the data combine operations made, sorted by (Dst,
/// DstAddr) (without it, combined data counts as the process's own).
Status propagate(const Graph &G, const Matching &M, std::vector<Transfer> &Out,
                 DataflowStats *Stats = nullptr,
                 std::vector<OpId> *Writers = nullptr,
                 std::vector<Combination> *Combined = nullptr);

/// Section 2.3: the processes each process waits for, sorted; the process
/// itself is not listed.
std::vector<std::vector<Rank>> waitSets(const Graph &G, const Matching &M);

/// Whether every process waits for every other one (barrier semantics).
bool hasBarrierSemantics(const std::vector<std::vector<Rank>> &WaitSets);

enum class CollectiveKind : uint8_t {
  Allgather,
  Alltoall,
  Bcast,
  Gather,
  Scatter,
  Allgatherv,
  Alltoallv,
  Gatherv,
  Scatterv,
};

const char *name(CollectiveKind K);

/// A detected collective: the transfers it replaces, over a process group.
struct Collective {
  CollectiveKind Kind = CollectiveKind::Bcast;
  Rank Root = -1;          ///< Rooted collectives; -1 otherwise.
  std::vector<Rank> Group; ///< Sorted; all processes unless a subset.
  uint64_t BlockSize = 0;  ///< Bytes per block; 0 for vector variants.
  /// Blocks of one part: Blocks.size() / Parts transfers each.
  std::vector<Transfer> Blocks;
  /// Collectives of the same shape (kind, root, group) on noncontiguous
  /// blocks are combined into one with several parts.
  uint32_t Parts = 1;
  bool onAllProcesses(Rank P) const {
    return static_cast<Rank>(Group.size()) == P;
  }
};

struct DetectionOptions {
  /// Section 2.4: share of the pairs a vector collective must cover (1.0:
  /// every pair; lower values accept sparser patterns).
  double Density = 1.0;
  /// Section 4.2: also find rooted collectives on the largest subsets.
  bool Subsets = true;
  /// Smallest subset worth a collective (root included).
  Rank MinSubset = 3;
  /// Combine collectives of the same shape into one.
  bool Combine = true;
  /// Look for vector variants (scatterv, gatherv, allgatherv, alltoallv).
  bool Vectors = true;
};

struct Detection {
  std::vector<Collective> Collectives;
  std::vector<Transfer> Residual; ///< Transfers no collective covers.
};

/// The same bytes moved, in fewer transfers: a transfer that brings bytes
/// back to the place they came from (a root that receives its own pieces
/// again as a ring passes them around) moves nothing and goes, and
/// transfers between one pair of ranks that continue or repeat each other
/// on both sides (pieces of one block that travelled different paths, a
/// piece that reached a rank twice) become one. The result is sorted by
/// source, destination, distance moved and address.
std::vector<Transfer> coalesceTransfers(std::vector<Transfer> Transfers);

/// Algorithm 5 on SST transfers, in the abstraction order allgather >
/// alltoall > bcast > gather, scatter; then rooted collectives on the
/// largest subsets; then vector variants.
Detection detect(const std::vector<Transfer> &Transfers, Rank NumProcs,
                 const DetectionOptions &Options = DetectionOptions());

enum class ReductionKind : uint8_t { Reduce, Allreduce, Scan, Exscan };

const char *name(ReductionKind K);

/// A reduction over all processes, found in the combined data.
struct Reduction {
  ReductionKind Kind = ReductionKind::Reduce;
  /// Other for an exclusive scan of two processes, which combines nothing.
  ReduceOp Op = ReduceOp::Other;
  uint32_t Element = 1;
  uint64_t Size = 0;
  Rank Root = -1; ///< Reduce only.
  /// Per process: where its data is read (every process but the last of
  /// an exscan, whose data no result needs), where the
  /// result lands (where MPI's call writes one: the root of a reduce,
  /// every process of an allreduce or a scan, all but the first of an
  /// exscan).
  std::vector<std::optional<Address>> Contribution, Result;
};

/// What the combined data forms, or why it is no reduction.
struct ReductionDetection {
  std::optional<Reduction> Found;
  /// Why not (when Found is empty), naming a process and what it holds.
  std::string Why;
  /// The combination Why is about, if one.
  OpId Writer = NoOp;
};

/// Names the reduction \p Combined and \p Transfers (the plain data
/// moved between processes, which a reduction has none of but the
/// first result of an exscan) form over \p NumProcs processes: every
/// process's data is combined exactly once into the result of a reduce
/// (one process), an allreduce (every process), a scan (process i
/// combines 0..i) or an exscan (process i combines 0..i-1). Two processes
/// cannot tell a scan from a reduce to process 1, nor an exscan (which
/// combines nothing there) from a message: \p Expected (what larger sizes
/// showed) decides.
ReductionDetection
detectReductions(const std::vector<Combination> &Combined,
                 const std::vector<Transfer> &Transfers, Rank NumProcs,
                 std::optional<ReductionKind> Expected = std::nullopt);

} // namespace commgraph
} // namespace mpilift

#endif // MPILIFT_COMMGRAPH_COMMGRAPH_H
