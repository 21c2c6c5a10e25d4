//===- Trace.h - Per-rank MPI event arrays read from OTF2 -------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The in-memory form of a traced run: for every rank, its MPI calls in time
/// order, with peers as world ranks and call sites as module + offset. Read
/// from the OTF2 archive the trace runtime writes, or from any OTF2 archive
/// with MPI records (call sites are then absent).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_TRACE_H
#define MPILIFT_TRACE_TRACE_H

#include "mpilift/MPI/Vocabulary.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpilift {
namespace trace {

/// Peer values that are not world ranks.
constexpr int32_t NoPeer = -1;    ///< The call has no peer, or it is unknown.
constexpr int32_t AnySource = -2; ///< A receive posted with MPI_ANY_SOURCE.
constexpr int32_t ProcNull = -3;  ///< MPI_PROC_NULL.
constexpr int32_t RootPeer = -4;  ///< MPI_ROOT of an intercommunicator.
/// Tag values that are not tags.
constexpr int32_t AnyTag = -1;
constexpr int32_t NoTag = -2;
constexpr uint32_t NoComm = UINT32_MAX;
constexpr uint32_t NoSite = UINT32_MAX;
constexpr uint32_t NoModule = UINT32_MAX;
constexpr uint32_t NoEvent = UINT32_MAX;

/// Where a call was made: a module and the return address relative to it.
struct CallSite {
  uint32_t Module = NoModule; ///< Index into Trace::Modules.
  uint64_t Offset = 0;        ///< Return address, module-relative.
};

/// A request that a wait or test completed, or that MPI_Startall started.
struct RequestRecord {
  uint64_t Request = 0; ///< Rank-unique request id.
  /// Completions: the event that posted or started the request. Started
  /// records: the persistent init (MPI_Send_init, ...) they activate.
  uint32_t PostedBy = NoEvent;
  bool Started = false;    ///< Started (MPI_Start, MPI_Startall).
  uint64_t Persistent = 0; ///< Started records: the init's request id.
  bool Cancelled = false;
  int32_t Peer = NoPeer; ///< Receives: world rank of the sender.
  int32_t Tag = NoTag;
  uint64_t Bytes = 0;
  bool HasHash = false;
  uint64_t Hash = 0;
};

/// One MPI call of one rank. The fields are ordered by size, without
/// padding between them (128 bytes): traces hold millions.
struct Event {
  uint64_t Begin = 0; ///< Nanoseconds since the start of the trace.
  uint64_t End = 0;
  /// Send side (or the only side): bytes, buffer, payload hash.
  uint64_t Bytes = 0;
  uint64_t Buffer = 0;
  uint64_t Hash = 0;
  /// Receive side of MPI_Sendrecv and of collectives.
  uint64_t RecvBytes = 0;
  uint64_t RecvBuffer = 0;
  uint64_t RecvHash = 0;
  uint64_t Request = 0;   ///< Request this call posted, started or freed.
  uint32_t Site = NoSite; ///< Index into Trace::Sites.
  uint32_t Comm = NoComm; ///< Index into Trace::Comms.
  int32_t Peer = NoPeer;  ///< Send side: the peer as a world rank.
  int32_t Tag = NoTag;
  int32_t RecvPeer = NoPeer;
  int32_t RecvTag = NoTag;
  int32_t Root = NoPeer; ///< Rooted collectives: the root's world rank.
  uint32_t NewComm = NoComm;
  uint32_t Flags = 0; ///< traceformat::Flags.
  uint32_t FirstRequestRecord = 0;
  uint32_t NumRequestRecords = 0;
  mpi::FunctionId Function = mpi::FunctionId::Init;
  uint16_t Thread = 0;
  bool HasHash = false;
  bool HasRecvHash = false;
  /// Where the layouts of the event's buffers are in RankTrace::Layouts,
  /// plus one; 0 when no buffer's data has gaps the trace describes.
  uint32_t Layout = 0;
};

/// Bytes of a message's data that lie next to each other in memory:
/// Length bytes at Offset from the event's buffer address.
struct LayoutRun {
  int64_t Offset = 0;
  uint64_t Length = 0;
};

/// The runs of an event's buffers whose data has gaps
/// (traceformat::FlagNoncontiguous), in RankTrace::LayoutRuns: the send
/// (or only) buffer's first, then the receive buffer's of MPI_Sendrecv.
struct EventLayout {
  uint32_t First = 0;
  uint32_t SendRuns = 0, RecvRuns = 0;
};

struct Communicator {
  std::string Name;
  std::vector<int32_t> Members; ///< World ranks, in communicator rank order.
  std::vector<int32_t> Remote;  ///< Intercommunicators: the other group.
  bool IsInter = false;
  uint32_t Parent = NoComm;
};

struct RankTrace {
  int Rank = 0;
  std::vector<Event> Events;
  std::vector<RequestRecord> Requests;
  /// The call sites the rank's events use, each once, in the order they
  /// were first read: a reader of all ranks numbers sites in this order,
  /// rank by rank, so that readers of a share of the ranks can agree on
  /// one numbering.
  std::vector<uint32_t> SiteOrder;
  std::vector<EventLayout> Layouts;
  std::vector<LayoutRun> LayoutRuns;

  /// The runs of the data of \p E's send (or only) buffer, or with
  /// \p Recv of its receive buffer, in the order MPI packs them; empty
  /// when the data has no gaps or the trace does not describe them.
  llvm::ArrayRef<LayoutRun> layoutOf(const Event &E, bool Recv) const {
    if (E.Layout == 0)
      return {};
    const EventLayout &L = Layouts[E.Layout - 1];
    return llvm::ArrayRef<LayoutRun>(LayoutRuns)
        .slice(Recv ? L.First + L.SendRuns : L.First,
               Recv ? L.RecvRuns : L.SendRuns);
  }
};

/// A whole traced run.
struct Trace {
  std::string Directory;
  int WorldSize = 0;
  /// Every rank reached MPI_Finalize and nothing was lost.
  bool Complete = false;
  /// The archive was written by mpilift (call sites, buffers, flags).
  bool FromMpilift = false;
  bool HasPayloadHashes = false;
  /// How each rank ended, one line per rank (mpilift archives only).
  std::string RankStatus;
  std::vector<std::string> Modules;
  std::vector<CallSite> Sites;
  std::vector<Communicator> Comms;
  std::vector<RankTrace> Ranks; ///< Indexed by world rank.

  /// The request records of event \p E of rank \p Rank.
  llvm::ArrayRef<RequestRecord> requestsOf(int Rank, const Event &E) const {
    return llvm::ArrayRef<RequestRecord>(Ranks[Rank].Requests)
        .slice(E.FirstRequestRecord, E.NumRequestRecords);
  }
};

/// Called by readTrace with each rank as soon as its events are read, in
/// ascending rank order: the definitions are complete, the call sites are
/// those seen so far. The callee may take what it needs and release the
/// rank's events, so that a long trace is never in memory as a whole.
using RankReadCallback = llvm::function_ref<void(Trace &T, int Rank)>;

/// Which world ranks a reader reads the events of.
using RankFilter = llvm::function_ref<bool(int Rank)>;

/// Reads the trace in \p Directory (the directory mpilift-run -o named, or
/// an OTF2 anchor file). If the run ended abnormally and left spill files,
/// they are converted first (see \p Recovered). \p OnRank, if given, is
/// called as each rank is read. With \p Wanted, only the events of the
/// ranks it accepts are read; the other ranks have none, and the call
/// sites are those of the ranks read.
llvm::Expected<Trace> readTrace(llvm::StringRef Directory,
                                bool *Recovered = nullptr,
                                RankReadCallback OnRank = nullptr,
                                RankFilter Wanted = nullptr);

/// What readTrace does first: the OTF2 anchor of the trace in \p
/// Directory, once the spill files of a run that ended abnormally are
/// converted (\p Recovered says so). Several readers of one trace let one
/// of them prepare it first.
llvm::Expected<std::string> prepareTrace(llvm::StringRef Directory,
                                         bool *Recovered = nullptr);

} // namespace trace
} // namespace mpilift

#endif // MPILIFT_TRACE_TRACE_H
