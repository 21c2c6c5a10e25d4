//===- RawFormat.h - The per-rank spill format of the trace runtime -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// While a traced program runs, each rank appends records to one spill file,
/// a chunk per write(2): fixed-size records, packed (PackedEvents.h) when a
/// full buffer is written, as they are after a crash. The format is private to
/// the trace runtime: the converter turns a set of spill files into the OTF2
/// archive that users and the rest of mpilift read. Appending whole chunks with
/// one write(2) keeps a crash from leaving more than one torn chunk at the end,
/// which the converter detects and drops.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_RAWFORMAT_H
#define MPILIFT_TRACE_RUNTIME_RAWFORMAT_H

#include <cstdint>

namespace mpilift {
namespace rawtrace {

constexpr uint32_t ChunkMagic = 0x43544c4d; // "MLTC" in a little-endian file.
/// Version 2 added packed event chunks; readers accept version 1 files too.
constexpr uint32_t FormatVersion = 2;
constexpr uint32_t OldestFormatVersion = 1;

/// The sub-directory of a trace directory that holds the spill files.
constexpr const char *SpillDirName = ".mpilift-raw";
/// The name of a rank's spill file (printf pattern, the world rank).
constexpr const char *SpillFilePattern = "rank-%06d.raw";
/// The OTF2 archive name inside a trace directory: DIR/traces.otf2.
constexpr const char *ArchiveName = "traces";

enum class ChunkType : uint16_t {
  RankHeader = 1,  ///< One RankHeader; first chunk of every file.
  Events = 2,      ///< An array of Event, all of one thread.
  Comm = 3,        ///< A CommDef followed by its member ranks.
  Modules = 4,     ///< The loaded modules (ModuleEntry list).
  Calibration = 5, ///< One Calibration point.
  Footer = 6,      ///< One Footer; why and how the rank stopped tracing.
  /// Events of one thread packed (PackedEvents.h); the header's Records
  /// says how many.
  PackedEvents = 7,
};

struct ChunkHeader {
  uint32_t Magic;
  uint16_t Type;
  uint16_t Thread;
  uint32_t PayloadBytes;
  uint32_t Records; ///< In a PackedEvents chunk; 0 in the others.
};
static_assert(sizeof(ChunkHeader) == 16, "chunk header layout");

struct RankHeader {
  uint32_t Version;
  int32_t Rank;
  int32_t Size;
  int32_t Pid;
  uint32_t Flags; ///< RankFlags.
  int32_t ThreadLevel;
  char Host[64];
  char Program[256];
};

enum RankFlags : uint32_t {
  RankHashesPayloads = 1u << 0, ///< MPILIFT_TRACE_HASH=1.
};

/// What an Event record describes. A call is one Call record followed by
/// zero or more part records of the same thread.
enum class EventKind : uint8_t {
  Call = 0,       ///< One MPI call; fields depend on its family.
  RecvPart = 1,   ///< Receive side of a send-receive or collective.
  Completion = 2, ///< A request the enclosing wait/test completed.
  Tested = 3,     ///< A request the enclosing test found incomplete.
  Started = 4,    ///< A persistent request MPI_Startall started.
  Message = 5,    ///< The message handle an MPI_Imrecv consumed.
  NewComm = 6,    ///< The communicator a creation call made.
  Hash = 7,       ///< Payload hash of the preceding record (Bytes field).
  /// Runs of the data of the preceding call (Tag 0) or of its receive part
  /// (Tag 1) when it has gaps: Peer runs (1-3) as offset from the recorded
  /// Buffer and length, in Begin/End, CallSite/Buffer, Bytes/Handle.
  Layout = 8,
};

enum EventFlags : uint8_t {
  FlagFound = 1u << 0,        ///< A probe found a message; a test succeeded.
  FlagCancelled = 1u << 1,    ///< The completed request was cancelled.
  FlagInPlace = 1u << 2,      ///< MPI_IN_PLACE was passed.
  FlagSizeUnknown = 1u << 3,  ///< Bytes could not be computed.
  FlagPeerIsStatus = 1u << 4, ///< Peer/Tag come from the completion status.
  /// The buffer's datatype leaves gaps: [Buffer, Buffer + Bytes) is not
  /// the memory the call reads or writes.
  FlagNoncontiguous = 1u << 5
};

/// Peer values that are not ranks.
constexpr int32_t PeerNone = -1;      ///< The call has no peer.
constexpr int32_t PeerAnySource = -2; ///< MPI_ANY_SOURCE.
constexpr int32_t PeerProcNull = -3;  ///< MPI_PROC_NULL.
constexpr int32_t PeerRoot = -4;      ///< MPI_ROOT (intercommunicator root).
constexpr int32_t TagAny = -1;        ///< MPI_ANY_TAG.
constexpr int32_t TagNone = -2;       ///< The call has no tag.
constexpr uint32_t CommNone = 0xffffffffu;

/// One fixed-size record. Peers are ranks in the record's communicator;
/// the converter translates them to world ranks.
struct Event {
  uint64_t Begin;    ///< Time stamp counter at entry.
  uint64_t End;      ///< Time stamp counter at exit.
  uint64_t CallSite; ///< Return address into the caller.
  uint64_t Buffer;   ///< Address of the data buffer, 0 if none.
  uint64_t Bytes;    ///< Bytes moved (see docs/trace-format.md).
  uint64_t Handle;   ///< Request or message handle, 0 if none.
  int32_t Peer;
  int32_t Tag;
  uint32_t Comm; ///< Rank-local communicator id, or CommNone.
  uint16_t Function;
  uint8_t Kind;
  uint8_t Flags;
};
static_assert(sizeof(Event) == 64, "event layout");

/// A communicator, defined the first time the rank sees it.
struct CommDef {
  uint32_t LocalId;
  uint32_t IsInter;
  int32_t Size;       ///< Members of the local group, world ranks follow.
  int32_t RemoteSize; ///< Members of the remote group, world ranks follow.
};

struct ModuleEntry {
  uint64_t LoadBias; ///< Address minus the module's own virtual address.
  uint64_t Low;      ///< Lowest mapped address of its executable segments.
  uint64_t High;     ///< One past the highest.
  uint32_t PathBytes;
  uint32_t Reserved;
  // Followed by PathBytes of path, padded to 8 bytes.
};

struct Calibration {
  uint64_t Tsc;
  uint64_t MonotonicNs;
  uint64_t RealtimeNs;
};

enum class EndReason : uint32_t {
  Finalize = 1,
  Abort = 2,
  Signal = 3,
  ExitWithoutFinalize = 4,
  WriteError = 5,
};

struct Footer {
  uint32_t Reason; ///< EndReason.
  int32_t Detail;  ///< Signal number or abort error code.
  uint64_t DroppedEvents;
};

} // namespace rawtrace
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_RAWFORMAT_H
