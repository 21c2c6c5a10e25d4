//===- Converter.cpp - Turn spill files into an OTF2 archive --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Two passes. The first scans every rank's spill file for its definitions
/// (header, communicators, modules, clock calibration, footer) and notes
/// where its event chunks are. Communicators are then unified across ranks.
/// The second pass loads one rank's events at a time, resolves requests,
/// messages and call sites, and writes one OTF2 location per thread.
///
//===----------------------------------------------------------------------===//

#include "mpilift/TraceRuntime/Convert.h"

#include "RawFormat.h"
#include "mpilift/MPI/Vocabulary.h"
#include "mpilift/TraceRuntime/TraceFormat.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <map>
#include <memory>
#include <queue>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace mpilift {
namespace tracert {
namespace {

using namespace rawtrace;
using mpi::CollectiveKind;
using mpi::Family;
using traceformat::Attribute;

//===-- Reading spill files
//------------------------------------------------===//

struct EventChunk {
  uint64_t Offset; ///< Of the payload in the file.
  uint32_t Count;
  uint16_t Thread;
};

struct LocalComm {
  CommDef Def;
  std::vector<int32_t> Members;
  std::vector<int32_t> Remote;
};

struct Module {
  uint64_t LoadBias, Low, High;
  std::string Path;
};

struct SpillFile {
  std::string Path;
  bool HasHeader = false;
  RankHeader Header;
  std::vector<EventChunk> Chunks;
  std::vector<LocalComm> Comms;
  std::vector<Module> Modules;
  std::vector<Calibration> Clocks;
  bool HasFooter = false;
  Footer TheFooter;
  bool TornTail = false;
  uint64_t EventCount = 0;
  std::vector<uint32_t> GlobalComm; ///< Local comm id -> global comm index.
};

class File {
public:
  explicit File(const std::string &Path) : Fd(open(Path.c_str(), O_RDONLY)) {}
  ~File() {
    if (Fd >= 0)
      close(Fd);
  }
  bool ok() const { return Fd >= 0; }
  bool readAt(uint64_t Offset, void *Out, size_t Bytes) const {
    char *P = static_cast<char *>(Out);
    while (Bytes) {
      ssize_t N = pread(Fd, P, Bytes, static_cast<off_t>(Offset));
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0)
        return false;
      P += N;
      Bytes -= N;
      Offset += N;
    }
    return true;
  }
  uint64_t size() const {
    struct stat St;
    return fstat(Fd, &St) == 0 ? static_cast<uint64_t>(St.st_size) : 0;
  }

private:
  int Fd;
};

bool parseModules(const std::vector<char> &P, SpillFile &S) {
  if (P.size() < 8)
    return false;
  uint32_t Count;
  memcpy(&Count, P.data(), sizeof(Count));
  size_t Pos = 8;
  std::vector<Module> Modules;
  for (uint32_t I = 0; I < Count; ++I) {
    ModuleEntry E;
    if (Pos + sizeof(E) > P.size())
      return false;
    memcpy(&E, P.data() + Pos, sizeof(E));
    Pos += sizeof(E);
    if (Pos + E.PathBytes > P.size())
      return false;
    Modules.push_back(
        {E.LoadBias, E.Low, E.High, std::string(P.data() + Pos, E.PathBytes)});
    Pos = (Pos + E.PathBytes + 7) & ~size_t(7);
  }
  // The newest map wins: it knows every module the older ones knew.
  S.Modules = std::move(Modules);
  return true;
}

bool parseComm(const std::vector<char> &P, SpillFile &S) {
  LocalComm C;
  if (P.size() < sizeof(C.Def))
    return false;
  memcpy(&C.Def, P.data(), sizeof(C.Def));
  if (C.Def.Size < 0 || C.Def.RemoteSize < 0)
    return false;
  size_t Need =
      sizeof(C.Def) + (size_t(C.Def.Size) + size_t(C.Def.RemoteSize)) * 4;
  if (P.size() != Need)
    return false;
  C.Members.resize(C.Def.Size);
  C.Remote.resize(C.Def.RemoteSize);
  memcpy(C.Members.data(), P.data() + sizeof(C.Def), C.Def.Size * 4);
  memcpy(C.Remote.data(), P.data() + sizeof(C.Def) + C.Def.Size * 4,
         C.Def.RemoteSize * 4);
  S.Comms.push_back(std::move(C));
  return true;
}

/// Pass 1 over one file. A chunk that is cut short or malformed ends the
/// file: everything before it is kept and TornTail is set.
bool scanSpillFile(SpillFile &S, std::string &Error) {
  File F(S.Path);
  if (!F.ok()) {
    Error = "cannot open '" + S.Path + "': " + strerror(errno);
    return false;
  }
  uint64_t Size = F.size();
  uint64_t Pos = 0;
  while (Pos < Size) {
    ChunkHeader H;
    if (Pos + sizeof(H) > Size || !F.readAt(Pos, &H, sizeof(H)) ||
        H.Magic != ChunkMagic || Pos + sizeof(H) + H.PayloadBytes > Size) {
      S.TornTail = true;
      break;
    }
    uint64_t Payload = Pos + sizeof(H);
    auto Type = static_cast<ChunkType>(H.Type);
    bool Good = true;
    if (Type == ChunkType::Events) {
      Good = H.PayloadBytes % sizeof(Event) == 0;
      if (Good && H.PayloadBytes) {
        S.Chunks.push_back(
            {Payload, H.PayloadBytes / uint32_t(sizeof(Event)), H.Thread});
        S.EventCount += H.PayloadBytes / sizeof(Event);
      }
    } else {
      std::vector<char> P(H.PayloadBytes);
      Good = F.readAt(Payload, P.data(), P.size());
      switch (Type) {
      case ChunkType::RankHeader:
        Good = Good && P.size() == sizeof(RankHeader);
        if (Good) {
          memcpy(&S.Header, P.data(), sizeof(RankHeader));
          S.HasHeader = S.Header.Version == FormatVersion;
          Good = S.HasHeader;
        }
        break;
      case ChunkType::Comm:
        Good = Good && parseComm(P, S);
        break;
      case ChunkType::Modules:
        Good = Good && parseModules(P, S);
        break;
      case ChunkType::Calibration:
        Good = Good && P.size() == sizeof(Calibration);
        if (Good) {
          Calibration C;
          memcpy(&C, P.data(), sizeof(C));
          S.Clocks.push_back(C);
        }
        break;
      case ChunkType::Footer:
        Good = Good && P.size() == sizeof(Footer);
        if (Good) {
          memcpy(&S.TheFooter, P.data(), sizeof(Footer));
          S.HasFooter = true;
        }
        break;
      default:
        Good = false;
      }
    }
    if (!Good) {
      S.TornTail = true;
      break;
    }
    Pos = Payload + H.PayloadBytes;
  }
  if (!S.HasHeader) {
    Error = "'" + S.Path + "' is not an mpilift spill file (no valid header)";
    return false;
  }
  return true;
}

//===-- Clocks
//-------------------------------------------------------------===//

/// Maps time stamp counter values to CLOCK_MONOTONIC nanoseconds, piecewise
/// linear between calibration points.
class ClockMap {
public:
  explicit ClockMap(std::vector<Calibration> Points) {
    std::sort(Points.begin(), Points.end(),
              [](const Calibration &A, const Calibration &B) {
                return A.Tsc < B.Tsc;
              });
    for (const Calibration &C : Points)
      if (this->Points.empty() || C.Tsc > this->Points.back().Tsc)
        this->Points.push_back(C);
  }

  bool usable() const { return Points.size() >= 2; }

  uint64_t toNs(uint64_t Tsc) const {
    if (Points.empty())
      return Tsc;
    if (Points.size() == 1)
      return Points[0].MonotonicNs + (Tsc - Points[0].Tsc);
    auto It = std::upper_bound(
        Points.begin(), Points.end(), Tsc,
        [](uint64_t T, const Calibration &C) { return T < C.Tsc; });
    size_t Hi = std::min<size_t>(std::max<size_t>(It - Points.begin(), 1),
                                 Points.size() - 1);
    const Calibration &A = Points[Hi - 1], &B = Points[Hi];
    long double Rate = static_cast<long double>(B.MonotonicNs - A.MonotonicNs) /
                       static_cast<long double>(B.Tsc - A.Tsc);
    long double Ns =
        static_cast<long double>(A.MonotonicNs) +
        (static_cast<long double>(Tsc) - static_cast<long double>(A.Tsc)) *
            Rate;
    return Ns < 0 ? 0 : static_cast<uint64_t>(Ns);
  }

  uint64_t realtimeMinusMonotonic() const {
    if (Points.empty())
      return 0;
    return Points[0].RealtimeNs - Points[0].MonotonicNs;
  }

private:
  std::vector<Calibration> Points;
};

//===-- Communicators
//------------------------------------------------------===//

struct GlobalComm {
  bool IsInter;
  std::vector<int32_t> GroupA; ///< Intracomm: the members in rank order.
  std::vector<int32_t> GroupB; ///< Intercomm: the other group.
  int Occurrence;
  uint32_t Parent = UINT32_MAX;
};

/// Gives communicators that several ranks defined one global index: the
/// same member lists and the same position among communicators with those
/// members on each rank. World is index 0.
std::vector<GlobalComm> unifyComms(std::vector<SpillFile> &Files) {
  std::vector<GlobalComm> Globals;
  std::map<std::tuple<bool, std::vector<int32_t>, std::vector<int32_t>, int>,
           uint32_t>
      Index;
  for (SpillFile &S : Files) {
    std::map<std::tuple<bool, std::vector<int32_t>, std::vector<int32_t>>, int>
        Seen;
    std::vector<const LocalComm *> ById;
    for (const LocalComm &C : S.Comms) {
      if (C.Def.LocalId >= ById.size())
        ById.resize(C.Def.LocalId + 1, nullptr);
      ById[C.Def.LocalId] = &C;
    }
    S.GlobalComm.assign(ById.size(), UINT32_MAX);
    for (uint32_t Local = 0; Local < ById.size(); ++Local) {
      const LocalComm *C = ById[Local];
      if (!C)
        continue;
      std::vector<int32_t> A = C->Members, B = C->Remote;
      if (C->Def.IsInter && B < A)
        std::swap(A, B); // Both sides name an intercomm the same way.
      int Occurrence = Seen[{C->Def.IsInter != 0, A, B}]++;
      auto Key = std::make_tuple(C->Def.IsInter != 0, A, B, Occurrence);
      auto It = Index.find(Key);
      if (It == Index.end()) {
        It = Index.emplace(Key, static_cast<uint32_t>(Globals.size())).first;
        Globals.push_back({C->Def.IsInter != 0, A, B, Occurrence});
      }
      S.GlobalComm[Local] = It->second;
    }
  }
  return Globals;
}

//===-- Strings, regions, locations
//----------------------------------------===//

class StringTable {
public:
  OTF2_StringRef get(const std::string &S) {
    auto It = Refs.find(S);
    if (It != Refs.end())
      return It->second;
    OTF2_StringRef Ref = static_cast<OTF2_StringRef>(Strings.size());
    Refs.emplace(S, Ref);
    Strings.push_back(S);
    return Ref;
  }
  const std::vector<std::string> &all() const { return Strings; }

private:
  std::unordered_map<std::string, OTF2_StringRef> Refs;
  std::vector<std::string> Strings;
};

/// OTF2 wants definitions numbered densely in the order they are written:
/// regions get ids in order of first use.
class RegionTable {
public:
  RegionTable() : Ids(mpi::NumFunctions, OTF2_UNDEFINED_REGION) {}
  OTF2_RegionRef get(uint16_t Function) {
    if (Ids[Function] == OTF2_UNDEFINED_REGION) {
      Ids[Function] = static_cast<OTF2_RegionRef>(Functions.size());
      Functions.push_back(mpi::FunctionId(Function));
    }
    return Ids[Function];
  }
  const std::vector<mpi::FunctionId> &all() const { return Functions; }

private:
  std::vector<OTF2_RegionRef> Ids;
  std::vector<mpi::FunctionId> Functions;
};

OTF2_LocationRef locationOf(int Rank, uint16_t Thread) {
  return (static_cast<uint64_t>(Thread) << 32) | static_cast<uint32_t>(Rank);
}

OTF2_CollectiveOp collectiveOp(CollectiveKind K, bool &Known) {
  Known = true;
  switch (K) {
  case CollectiveKind::Barrier:
    return OTF2_COLLECTIVE_OP_BARRIER;
  case CollectiveKind::Bcast:
    return OTF2_COLLECTIVE_OP_BCAST;
  case CollectiveKind::Gather:
    return OTF2_COLLECTIVE_OP_GATHER;
  case CollectiveKind::Gatherv:
    return OTF2_COLLECTIVE_OP_GATHERV;
  case CollectiveKind::Scatter:
    return OTF2_COLLECTIVE_OP_SCATTER;
  case CollectiveKind::Scatterv:
    return OTF2_COLLECTIVE_OP_SCATTERV;
  case CollectiveKind::Allgather:
    return OTF2_COLLECTIVE_OP_ALLGATHER;
  case CollectiveKind::Allgatherv:
    return OTF2_COLLECTIVE_OP_ALLGATHERV;
  case CollectiveKind::Alltoall:
    return OTF2_COLLECTIVE_OP_ALLTOALL;
  case CollectiveKind::Alltoallv:
    return OTF2_COLLECTIVE_OP_ALLTOALLV;
  case CollectiveKind::Alltoallw:
    return OTF2_COLLECTIVE_OP_ALLTOALLW;
  case CollectiveKind::Allreduce:
    return OTF2_COLLECTIVE_OP_ALLREDUCE;
  case CollectiveKind::Reduce:
    return OTF2_COLLECTIVE_OP_REDUCE;
  case CollectiveKind::ReduceScatter:
    return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
  case CollectiveKind::ReduceScatterBlock:
    return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
  case CollectiveKind::Scan:
    return OTF2_COLLECTIVE_OP_SCAN;
  case CollectiveKind::Exscan:
    return OTF2_COLLECTIVE_OP_EXSCAN;
  default:
    Known = false; // Neighbor collectives have no OTF2 operation.
    return OTF2_COLLECTIVE_OP_BARRIER;
  }
}

OTF2_RegionRole regionRole(const mpi::FunctionInfo &F) {
  if (mpi::isPointToPoint(F.TheFamily) ||
      F.TheFamily == Family::BlockingProbe ||
      F.TheFamily == Family::NonblockingProbe)
    return OTF2_REGION_ROLE_POINT2POINT;
  if (!mpi::isCollective(F.TheFamily))
    return OTF2_REGION_ROLE_FUNCTION;
  switch (F.Collective) {
  case CollectiveKind::Barrier:
    return OTF2_REGION_ROLE_BARRIER;
  case CollectiveKind::Bcast:
  case CollectiveKind::Scatter:
  case CollectiveKind::Scatterv:
    return OTF2_REGION_ROLE_COLL_ONE2ALL;
  case CollectiveKind::Gather:
  case CollectiveKind::Gatherv:
  case CollectiveKind::Reduce:
    return OTF2_REGION_ROLE_COLL_ALL2ONE;
  default:
    return OTF2_REGION_ROLE_COLL_ALL2ALL;
  }
}

//===-- Writing one rank
//---------------------------------------------------===//

enum class RequestKind { Send, Recv, Collective, Other };

struct PersistentRequest {
  RequestKind Kind;
  uint32_t Comm;
  int32_t Peer, Tag;
  uint64_t Bytes;
  uint64_t Id; ///< Written on the init and on every activation.
};

struct ActiveRequest {
  uint64_t Id;
  RequestKind Kind;
  uint32_t Comm;
  bool Persistent;
  bool WroteStart; ///< An OTF2 record opened it (not MPI_PROC_NULL).
  CollectiveKind Collective;
  uint32_t Root;
  uint64_t Sent, Received;
};

struct Group {
  const Event *Call;
  const Event *PartsBegin;
  const Event *PartsEnd;
  uint16_t Thread;
};

class RankWriter {
public:
  RankWriter(OTF2_Archive *Archive, const SpillFile &S, StringTable &Strings,
             std::vector<GlobalComm> &Comms, RegionTable &Regions,
             OTF2_AttributeList *Attributes)
      : Archive(Archive), S(S), Strings(Strings), Comms(Comms),
        Regions(Regions), Attributes(Attributes), Clock(S.Clocks) {}

  /// Writes all events; returns false with Error set if OTF2 failed.
  bool write(std::string &Error);

  uint64_t FirstNs = UINT64_MAX;
  uint64_t LastNs = 0;
  std::map<uint16_t, uint64_t> EventsPerThread;
  uint64_t RealtimeOffset() const { return Clock.realtimeMinusMonotonic(); }
  bool clockUsable() const { return Clock.usable(); }

private:
  bool loadEvents(std::string &Error);
  void writeGroup(const Group &G);
  OTF2_EvtWriter *writerFor(uint16_t Thread);
  uint64_t time(uint64_t Tsc, uint16_t Thread);
  uint32_t globalComm(uint32_t Local) const {
    return Local < S.GlobalComm.size() ? S.GlobalComm[Local] : UINT32_MAX;
  }
  void addCallSite(uint64_t Address);
  void addU64(Attribute A, uint64_t V) {
    OTF2_AttributeList_AddUint64(Attributes, A, V);
  }
  void addI32(Attribute A, int32_t V) {
    OTF2_AttributeList_AddInt32(Attributes, A, V);
  }
  void addComm(Attribute A, uint32_t Comm) {
    if (Comm != UINT32_MAX)
      OTF2_AttributeList_AddCommRef(Attributes, A, Comm);
  }
  uint32_t flagsOf(const Event &E) const;
  const Event *hashAfter(const Group &G, const Event *E) const;
  uint64_t newRequest(uint64_t Handle, const ActiveRequest &R);

  void writeSend(const Group &G, OTF2_EvtWriter *W, uint64_t Begin);
  void writeReceive(const Group &G, OTF2_EvtWriter *W, uint64_t End);
  void writePostedReceive(const Group &G, OTF2_EvtWriter *W, uint64_t Begin);
  void writeCompletions(const Group &G, OTF2_EvtWriter *W, uint64_t End);
  void writeStart(uint64_t Handle, OTF2_EvtWriter *W, uint64_t Begin);
  void writeCollective(const Group &G, OTF2_EvtWriter *W, uint64_t Begin,
                       uint64_t End, bool Blocking);

  OTF2_Archive *Archive;
  const SpillFile &S;
  StringTable &Strings;
  std::vector<GlobalComm> &Comms;
  RegionTable &Regions;
  OTF2_AttributeList *Attributes;
  ClockMap Clock;

  std::map<uint16_t, std::vector<Event>> Threads;
  std::map<uint16_t, OTF2_EvtWriter *> Writers;
  std::map<uint16_t, uint64_t> LastTime;
  std::unordered_map<uint64_t, ActiveRequest> Requests;
  std::unordered_map<uint64_t, PersistentRequest> Persistent;
  std::unordered_map<uint64_t, uint32_t> MessageComms;
  uint64_t NextRequestId = 1;
  bool Failed = false;
};

bool RankWriter::loadEvents(std::string &Error) {
  File F(S.Path);
  if (!F.ok()) {
    Error = "cannot open '" + S.Path + "': " + strerror(errno);
    return false;
  }
  for (const EventChunk &C : S.Chunks) {
    std::vector<Event> &V = Threads[C.Thread];
    size_t Old = V.size();
    V.resize(Old + C.Count);
    if (!F.readAt(C.Offset, V.data() + Old, size_t(C.Count) * sizeof(Event))) {
      Error = "cannot read '" + S.Path + "'";
      return false;
    }
  }
  return true;
}

OTF2_EvtWriter *RankWriter::writerFor(uint16_t Thread) {
  auto It = Writers.find(Thread);
  if (It != Writers.end())
    return It->second;
  OTF2_EvtWriter *W =
      OTF2_Archive_GetEvtWriter(Archive, locationOf(S.Header.Rank, Thread));
  if (!W)
    Failed = true;
  Writers.emplace(Thread, W);
  return W;
}

uint64_t RankWriter::time(uint64_t Tsc, uint16_t Thread) {
  // OTF2 wants time stamps that never decrease on one location.
  uint64_t Ns = std::max(Clock.toNs(Tsc), LastTime[Thread]);
  LastTime[Thread] = Ns;
  FirstNs = std::min(FirstNs, Ns);
  LastNs = std::max(LastNs, Ns);
  return Ns;
}

void RankWriter::addCallSite(uint64_t Address) {
  for (const Module &M : S.Modules) {
    if (Address >= M.Low && Address < M.High) {
      OTF2_AttributeList_AddStringRef(
          Attributes, traceformat::AttrCallSiteModule, Strings.get(M.Path));
      addU64(traceformat::AttrCallSiteOffset, Address - M.LoadBias);
      return;
    }
  }
  if (Address)
    addU64(traceformat::AttrCallSiteOffset, Address);
}

uint32_t RankWriter::flagsOf(const Event &E) const {
  uint32_t F = 0;
  if (E.Flags & rawtrace::FlagFound)
    F |= traceformat::FlagFound;
  if (E.Flags & rawtrace::FlagCancelled)
    F |= traceformat::FlagCancelled;
  if (E.Flags & rawtrace::FlagInPlace)
    F |= traceformat::FlagInPlace;
  if (E.Flags & rawtrace::FlagSizeUnknown)
    F |= traceformat::FlagSizeUnknown;
  return F;
}

/// The hash record that follows \p E inside its group, if any.
const Event *RankWriter::hashAfter(const Group &G, const Event *E) const {
  const Event *Next = E + 1;
  if (Next < G.PartsEnd && Next->Kind == uint8_t(EventKind::Hash))
    return Next;
  return nullptr;
}

uint64_t RankWriter::newRequest(uint64_t Handle, const ActiveRequest &R) {
  ActiveRequest A = R;
  A.Id = NextRequestId++;
  Requests[Handle] = A;
  return A.Id;
}

void RankWriter::writeSend(const Group &G, OTF2_EvtWriter *W, uint64_t Begin) {
  const Event &E = *G.Call;
  Family F = mpi::info(mpi::FunctionId(E.Function)).TheFamily;
  uint32_t Comm = globalComm(E.Comm);
  const Event *Hash = hashAfter(G, G.Call);
  if (F == Family::PersistentSendInit) {
    return; // Defined when its Enter was written.
  }
  bool Real = E.Peer >= 0 && Comm != UINT32_MAX;
  if (Hash)
    addU64(traceformat::AttrPayloadHash, Hash->Bytes);
  if (F == Family::BlockingSend) {
    if (Real)
      OTF2_EvtWriter_MpiSend(W, Attributes, Begin, E.Peer, Comm, E.Tag,
                             E.Bytes);
    return;
  }
  ActiveRequest R{
      0, RequestKind::Send, Comm, false, Real, CollectiveKind::None, 0, 0, 0};
  uint64_t Id = newRequest(E.Handle, R);
  if (Real)
    OTF2_EvtWriter_MpiIsend(W, Attributes, Begin, E.Peer, Comm, E.Tag, E.Bytes,
                            Id);
}

void RankWriter::writeReceive(const Group &G, OTF2_EvtWriter *W, uint64_t End) {
  const Event &E = *G.Call;
  uint32_t Comm = globalComm(E.Comm);
  if (E.Comm == CommNone && E.Handle) { // MPI_Mrecv.
    auto It = MessageComms.find(E.Handle);
    if (It != MessageComms.end()) {
      Comm = It->second;
      MessageComms.erase(It);
    }
  }
  if (const Event *Hash = hashAfter(G, G.Call))
    addU64(traceformat::AttrPayloadHash, Hash->Bytes);
  if (E.Peer >= 0 && Comm != UINT32_MAX)
    OTF2_EvtWriter_MpiRecv(W, Attributes, End, E.Peer, Comm, E.Tag, E.Bytes);
  else
    OTF2_AttributeList_RemoveAllAttributes(Attributes);
}

void RankWriter::writePostedReceive(const Group &G, OTF2_EvtWriter *W,
                                    uint64_t Begin) {
  const Event &E = *G.Call;
  Family F = mpi::info(mpi::FunctionId(E.Function)).TheFamily;
  uint32_t Comm = globalComm(E.Comm);
  for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P) {
    if (P->Kind != uint8_t(EventKind::Message))
      continue;
    auto It = MessageComms.find(P->Handle); // MPI_Imrecv.
    if (It != MessageComms.end()) {
      Comm = It->second;
      MessageComms.erase(It);
    }
  }
  if (F == Family::PersistentRecvInit) {
    return; // Defined when its Enter was written.
  }
  ActiveRequest R{
      0, RequestKind::Recv, Comm, false, true, CollectiveKind::None, 0, 0, 0};
  uint64_t Id = newRequest(E.Handle, R);
  addI32(traceformat::AttrPeer, E.Peer);
  addI32(traceformat::AttrTag, E.Tag);
  addComm(traceformat::AttrComm, Comm);
  addU64(traceformat::AttrBytes, E.Bytes);
  OTF2_EvtWriter_MpiIrecvRequest(W, Attributes, Begin, Id);
}

void RankWriter::writeStart(uint64_t Handle, OTF2_EvtWriter *W,
                            uint64_t Begin) {
  auto It = Persistent.find(Handle);
  if (It == Persistent.end())
    return; // Created before tracing started or resumed.
  const PersistentRequest &P = It->second;
  bool Real =
      P.Kind == RequestKind::Recv || (P.Peer >= 0 && P.Comm != UINT32_MAX);
  ActiveRequest R{0, P.Kind, P.Comm, true, Real, CollectiveKind::None, 0, 0, 0};
  uint64_t Id = newRequest(Handle, R);
  // Each activation names the persistent request it belongs to.
  addU64(traceformat::AttrRequest, P.Id);
  if (P.Kind == RequestKind::Send && Real) {
    OTF2_EvtWriter_MpiIsend(W, Attributes, Begin, P.Peer, P.Comm, P.Tag,
                            P.Bytes, Id);
  } else if (P.Kind == RequestKind::Recv) {
    addI32(traceformat::AttrPeer, P.Peer);
    addI32(traceformat::AttrTag, P.Tag);
    addComm(traceformat::AttrComm, P.Comm);
    addU64(traceformat::AttrBytes, P.Bytes);
    OTF2_EvtWriter_MpiIrecvRequest(W, Attributes, Begin, Id);
  }
  OTF2_AttributeList_RemoveAllAttributes(Attributes);
}

void RankWriter::writeCompletions(const Group &G, OTF2_EvtWriter *W,
                                  uint64_t End) {
  for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P) {
    auto Kind = static_cast<EventKind>(P->Kind);
    if (Kind != EventKind::Completion && Kind != EventKind::Tested)
      continue;
    auto It = Requests.find(P->Handle);
    if (It == Requests.end())
      continue; // Inactive, or posted while tracing was paused.
    ActiveRequest &R = It->second;
    if (Kind == EventKind::Tested) {
      if (R.WroteStart)
        OTF2_EvtWriter_MpiRequestTest(W, nullptr, End, R.Id);
      continue;
    }
    if (!R.WroteStart) {
      // Nothing opened it in OTF2 (MPI_PROC_NULL): nothing to close.
    } else if (P->Flags & rawtrace::FlagCancelled) {
      OTF2_EvtWriter_MpiRequestCancelled(W, nullptr, End, R.Id);
    } else if (R.Kind == RequestKind::Send) {
      OTF2_EvtWriter_MpiIsendComplete(W, nullptr, End, R.Id);
    } else if (R.Kind == RequestKind::Recv) {
      if (const Event *Hash = hashAfter(G, P))
        addU64(traceformat::AttrPayloadHash, Hash->Bytes);
      if (P->Peer >= 0 && R.Comm != UINT32_MAX)
        OTF2_EvtWriter_MpiIrecv(W, Attributes, End, P->Peer, R.Comm, P->Tag,
                                P->Bytes, R.Id);
      else // A receive from MPI_PROC_NULL completes empty.
        OTF2_EvtWriter_MpiRequestCancelled(W, nullptr, End, R.Id);
      OTF2_AttributeList_RemoveAllAttributes(Attributes);
    } else if (R.Kind == RequestKind::Collective) {
      bool Known;
      OTF2_CollectiveOp Op = collectiveOp(R.Collective, Known);
      if (Known)
        OTF2_EvtWriter_NonBlockingCollectiveComplete(
            W, nullptr, End, Op, R.Comm, R.Root, R.Sent, R.Received, R.Id);
    }
    // A persistent handle stays valid; its next MPI_Start opens a new
    // activation with a new request id.
    Requests.erase(It);
  }
}

void RankWriter::writeCollective(const Group &G, OTF2_EvtWriter *W,
                                 uint64_t Begin, uint64_t End, bool Blocking) {
  const Event &E = *G.Call;
  const mpi::FunctionInfo &Info = mpi::info(mpi::FunctionId(E.Function));
  uint32_t Comm = globalComm(E.Comm);
  uint64_t Received = 0;
  for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P)
    if (P->Kind == uint8_t(EventKind::RecvPart))
      Received = P->Bytes;
  uint32_t Root = E.Peer >= 0 ? uint32_t(E.Peer) : OTF2_UNDEFINED_UINT32;
  bool Known;
  OTF2_CollectiveOp Op = collectiveOp(Info.Collective, Known);
  if (!Known || Comm == UINT32_MAX) {
    // No OTF2 operation for it: the Enter record's attributes say it all.
    if (!Blocking) {
      ActiveRequest R{0,       RequestKind::Other, Comm, false,
                      false,   Info.Collective,    Root, E.Bytes,
                      Received};
      newRequest(E.Handle, R);
    }
    return;
  }
  if (Blocking) {
    OTF2_EvtWriter_MpiCollectiveBegin(W, nullptr, Begin);
    OTF2_EvtWriter_MpiCollectiveEnd(W, nullptr, End, Op, Comm, Root, E.Bytes,
                                    Received);
    return;
  }
  ActiveRequest R{0,       RequestKind::Collective, Comm, false,
                  true,    Info.Collective,         Root, E.Bytes,
                  Received};
  uint64_t Id = newRequest(E.Handle, R);
  OTF2_EvtWriter_NonBlockingCollectiveRequest(W, nullptr, Begin, Id);
}

void RankWriter::writeGroup(const Group &G) {
  const Event &E = *G.Call;
  if (E.Function >= mpi::NumFunctions)
    return;
  auto Id = mpi::FunctionId(E.Function);
  const mpi::FunctionInfo &Info = mpi::info(Id);
  uint16_t Thread = G.Thread;
  OTF2_EvtWriter *W = writerFor(Thread);
  if (!W)
    return;
  uint64_t Begin = time(E.Begin, Thread);
  uint64_t End = time(std::max(E.End, E.Begin), Thread);
  OTF2_RegionRef Region = Regions.get(E.Function);
  uint32_t Comm = globalComm(E.Comm);

  // Enter, with what OTF2's MPI records cannot say.
  addCallSite(E.CallSite);
  if (E.Buffer)
    addU64(traceformat::AttrBuffer, E.Buffer);
  for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P)
    if (P->Kind == uint8_t(EventKind::RecvPart) && P->Buffer)
      addU64(traceformat::AttrRecvBuffer, P->Buffer);
  if (uint32_t Flags = flagsOf(E))
    OTF2_AttributeList_AddUint32(Attributes, traceformat::AttrFlags, Flags);
  switch (Info.TheFamily) {
  case Family::BlockingSend:
  case Family::NonblockingSend:
    if (E.Peer < 0)
      addI32(traceformat::AttrPeer, E.Peer);
    break;
  case Family::BlockingRecv:
  case Family::SendRecv:
    if (E.Peer < 0 || Comm == UINT32_MAX)
      addI32(traceformat::AttrPeer, E.Peer);
    break;
  case Family::PersistentSendInit:
  case Family::PersistentRecvInit: {
    RequestKind Kind = Info.TheFamily == Family::PersistentSendInit
                           ? RequestKind::Send
                           : RequestKind::Recv;
    uint64_t Id = NextRequestId++;
    Persistent[E.Handle] = {Kind, Comm, E.Peer, E.Tag, E.Bytes, Id};
    addU64(traceformat::AttrRequest, Id);
    addI32(traceformat::AttrPeer, E.Peer);
    addI32(traceformat::AttrTag, E.Tag);
    addComm(traceformat::AttrComm, Comm);
    addU64(traceformat::AttrBytes, E.Bytes);
    break;
  }
  case Family::BlockingProbe:
  case Family::NonblockingProbe:
    addI32(traceformat::AttrPeer, E.Peer);
    addI32(traceformat::AttrTag, E.Tag);
    addComm(traceformat::AttrComm, Comm);
    addU64(traceformat::AttrBytes, E.Bytes);
    break;
  case Family::BlockingCollective:
  case Family::NonblockingCollective: {
    // OTF2 says nothing about a collective without an operation code, nor
    // about a nonblocking one until it completes: keep the facts here.
    bool Known;
    collectiveOp(Info.Collective, Known);
    if (Known && Info.TheFamily == Family::BlockingCollective)
      break;
    addComm(traceformat::AttrComm, Comm);
    addU64(traceformat::AttrBytes, E.Bytes);
    for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P)
      if (P->Kind == uint8_t(EventKind::RecvPart))
        addU64(traceformat::AttrRecvBytes, P->Bytes);
    if (mpi::isRooted(Info.Collective))
      addI32(traceformat::AttrPeer, E.Peer);
    break;
  }
  case Family::CommCreate:
  case Family::CommFree:
    addComm(traceformat::AttrComm, Comm);
    for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P) {
      if (P->Kind != uint8_t(EventKind::NewComm))
        continue;
      uint32_t New = globalComm(P->Comm);
      addComm(traceformat::AttrNewComm, New);
      if (New != UINT32_MAX && New < Comms.size() &&
          Comms[New].Parent == UINT32_MAX && New != Comm)
        Comms[New].Parent = Comm;
    }
    break;
  case Family::RequestFree:
  case Family::Cancel: {
    // An active request by its id; an inactive persistent one by its init's.
    auto It = Requests.find(E.Handle);
    auto P = Persistent.find(E.Handle);
    if (It != Requests.end())
      addU64(traceformat::AttrRequest, It->second.Id);
    else if (P != Persistent.end())
      addU64(traceformat::AttrRequest, P->second.Id);
    break;
  }
  case Family::Environment:
    if (E.Tag != TagNone)
      addI32(traceformat::AttrTag, E.Tag);
    break;
  default:
    break;
  }
  OTF2_EvtWriter_Enter(W, Attributes, Begin, Region);

  switch (Info.TheFamily) {
  case Family::BlockingSend:
  case Family::NonblockingSend:
  case Family::PersistentSendInit:
    writeSend(G, W, Begin);
    break;
  case Family::BlockingRecv:
    writeReceive(G, W, End);
    break;
  case Family::NonblockingRecv:
  case Family::PersistentRecvInit:
    writePostedReceive(G, W, Begin);
    break;
  case Family::SendRecv: {
    if (const Event *Hash = hashAfter(G, G.Call))
      addU64(traceformat::AttrPayloadHash, Hash->Bytes);
    if (E.Peer >= 0 && Comm != UINT32_MAX)
      OTF2_EvtWriter_MpiSend(W, Attributes, Begin, E.Peer, Comm, E.Tag,
                             E.Bytes);
    OTF2_AttributeList_RemoveAllAttributes(Attributes);
    for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P) {
      if (P->Kind != uint8_t(EventKind::RecvPart))
        continue;
      if (const Event *Hash = hashAfter(G, P))
        addU64(traceformat::AttrPayloadHash, Hash->Bytes);
      if (P->Peer >= 0 && Comm != UINT32_MAX)
        OTF2_EvtWriter_MpiRecv(W, Attributes, End, P->Peer, Comm, P->Tag,
                               P->Bytes);
      OTF2_AttributeList_RemoveAllAttributes(Attributes);
    }
    break;
  }
  case Family::BlockingProbe:
  case Family::NonblockingProbe:
    if (E.Handle && (E.Flags & rawtrace::FlagFound))
      MessageComms[E.Handle] = Comm;
    break;
  case Family::Wait:
  case Family::Test:
    writeCompletions(G, W, End);
    break;
  case Family::Start:
    if (G.PartsBegin == G.PartsEnd)
      writeStart(E.Handle, W, Begin);
    for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P)
      if (P->Kind == uint8_t(EventKind::Started))
        writeStart(P->Handle, W, Begin);
    break;
  case Family::RequestFree: {
    auto It = Requests.find(E.Handle);
    if (It != Requests.end() && !It->second.Persistent)
      Requests.erase(It);
    Persistent.erase(E.Handle);
    break;
  }
  case Family::BlockingCollective:
    writeCollective(G, W, Begin, End, /*Blocking=*/true);
    break;
  case Family::NonblockingCollective:
    writeCollective(G, W, Begin, End, /*Blocking=*/false);
    break;
  default:
    break;
  }
  OTF2_AttributeList_RemoveAllAttributes(Attributes);
  OTF2_EvtWriter_Leave(W, nullptr, End, Region);
}

bool RankWriter::write(std::string &Error) {
  if (!loadEvents(Error))
    return false;
  // Split each thread's records into groups (a call and its parts), then
  // visit all groups of the rank in time order: requests may complete on a
  // different thread than the one that posted them.
  struct Cursor {
    std::vector<Group> Groups;
    size_t Next = 0;
  };
  std::vector<Cursor> Cursors;
  for (auto &[Thread, V] : Threads) {
    Cursor C;
    const Event *P = V.data(), *End = V.data() + V.size();
    while (P < End) {
      if (P->Kind != uint8_t(EventKind::Call)) {
        ++P; // A part whose call was lost in a torn chunk.
        continue;
      }
      Group G{P, P + 1, P + 1, Thread};
      while (G.PartsEnd < End && G.PartsEnd->Kind != uint8_t(EventKind::Call))
        ++G.PartsEnd;
      C.Groups.push_back(G);
      P = G.PartsEnd;
    }
    Cursors.push_back(std::move(C));
  }
  using Item = std::pair<uint64_t, size_t>; // (begin, cursor)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Heap;
  for (size_t I = 0; I < Cursors.size(); ++I)
    if (!Cursors[I].Groups.empty())
      Heap.push({Cursors[I].Groups[0].Call->Begin, I});
  while (!Heap.empty() && !Failed) {
    size_t I = Heap.top().second;
    Heap.pop();
    Cursor &C = Cursors[I];
    writeGroup(C.Groups[C.Next++]);
    if (C.Next < C.Groups.size())
      Heap.push({C.Groups[C.Next].Call->Begin, I});
  }
  for (auto &[Thread, W] : Writers) {
    if (!W)
      continue;
    uint64_t N = 0;
    OTF2_EvtWriter_GetNumberOfEvents(W, &N);
    EventsPerThread[Thread] = N;
    if (OTF2_Archive_CloseEvtWriter(Archive, W) != OTF2_SUCCESS)
      Failed = true;
  }
  if (Failed) {
    Error = "cannot write the events of rank " + std::to_string(S.Header.Rank) +
            " (" + strerror(errno) + ")";
    return false;
  }
  return true;
}

//===-- The archive
//--------------------------------------------------------===//

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void *, OTF2_FileType, OTF2_LocationRef) { return 0; }
const OTF2_FlushCallbacks FlushCallbacks = {preFlush, postFlush};

int removeEntry(const char *Path, const struct stat *, int, FTW *) {
  return remove(Path);
}
void removeTree(const std::string &Path) {
  nftw(Path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string endDescription(const SpillFile &S) {
  if (!S.HasFooter)
    return "no end record (killed?)";
  switch (static_cast<EndReason>(S.TheFooter.Reason)) {
  case EndReason::Finalize:
    return "MPI_Finalize";
  case EndReason::Abort:
    return "MPI_Abort(" + std::to_string(S.TheFooter.Detail) + ")";
  case EndReason::Signal:
    return "signal " + std::to_string(S.TheFooter.Detail) + " (" +
           strsignal(S.TheFooter.Detail) + ")";
  case EndReason::ExitWithoutFinalize:
    return "exit without MPI_Finalize";
  case EndReason::WriteError:
    return "write error";
  }
  return "unknown end";
}

std::vector<std::string> listSpillFiles(const std::string &SpillDir) {
  std::vector<std::string> Files;
  DIR *D = opendir(SpillDir.c_str());
  if (!D)
    return Files;
  while (dirent *E = readdir(D)) {
    std::string Name = E->d_name;
    if (Name.size() > 9 && Name.compare(0, 5, "rank-") == 0 &&
        Name.compare(Name.size() - 4, 4, ".raw") == 0)
      Files.push_back(SpillDir + "/" + Name);
  }
  closedir(D);
  std::sort(Files.begin(), Files.end());
  return Files;
}

void writeGlobalDefinitions(
    OTF2_GlobalDefWriter *G, StringTable &Strings,
    const std::vector<SpillFile> &Files,
    const std::vector<std::map<uint16_t, uint64_t>> &EventsPerLocation,
    const std::vector<GlobalComm> &Comms, const RegionTable &Regions,
    int WorldSize, uint64_t FirstNs, uint64_t LastNs, uint64_t Realtime) {
  OTF2_GlobalDefWriter_WriteClockProperties(G, 1000000000ull, FirstNs,
                                            LastNs - FirstNs + 1, Realtime);
  std::vector<std::string> Hosts;
  for (const SpillFile &S : Files)
    if (std::find(Hosts.begin(), Hosts.end(), S.Header.Host) == Hosts.end())
      Hosts.push_back(S.Header.Host);

  // Strings first: every definition below refers to them by index, and the
  // call-site module strings were already added while writing events.
  OTF2_StringRef Empty = Strings.get("");
  OTF2_StringRef MachineName = Strings.get("machine");
  OTF2_StringRef NodeClass = Strings.get("node");
  OTF2_StringRef MpiName = Strings.get("MPI");
  for (const std::string &H : Hosts)
    Strings.get(H);
  for (const SpillFile &S : Files) {
    Strings.get("rank " + std::to_string(S.Header.Rank));
    for (const auto &Entry : EventsPerLocation[&S - Files.data()])
      Strings.get("rank " + std::to_string(S.Header.Rank) + " thread " +
                  std::to_string(Entry.first));
  }
  for (unsigned A = 0; A < traceformat::NumAttributes; ++A)
    Strings.get(traceformat::attributeName(Attribute(A)));
  for (mpi::FunctionId F : Regions.all())
    Strings.get(mpi::info(F).Name);
  for (size_t C = 0; C < Comms.size(); ++C)
    Strings.get(C == 0 ? "MPI_COMM_WORLD" : "comm " + std::to_string(C));
  OTF2_StringRef WorldGroupName = Strings.get("MPI_COMM_WORLD locations");
  for (size_t I = 0; I < Strings.all().size(); ++I)
    OTF2_GlobalDefWriter_WriteString(G, I, Strings.all()[I].c_str());

  OTF2_GlobalDefWriter_WriteParadigm(G, OTF2_PARADIGM_MPI, MpiName,
                                     OTF2_PARADIGM_CLASS_PROCESS);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 0, MachineName, MachineName,
                                           OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (size_t H = 0; H < Hosts.size(); ++H)
    OTF2_GlobalDefWriter_WriteSystemTreeNode(G, H + 1, Strings.get(Hosts[H]),
                                             NodeClass, 0);
  for (size_t I = 0; I < Files.size(); ++I) {
    const SpillFile &S = Files[I];
    int Rank = S.Header.Rank;
    size_t Node = std::find(Hosts.begin(), Hosts.end(), S.Header.Host) -
                  Hosts.begin() + 1;
    OTF2_GlobalDefWriter_WriteLocationGroup(
        G, Rank, Strings.get("rank " + std::to_string(Rank)),
        OTF2_LOCATION_GROUP_TYPE_PROCESS, Node, OTF2_UNDEFINED_LOCATION_GROUP);
  }
  for (size_t I = 0; I < Files.size(); ++I) {
    int Rank = Files[I].Header.Rank;
    for (const auto &[Thread, Count] : EventsPerLocation[I]) {
      std::string Name = "rank " + std::to_string(Rank);
      if (Thread != 0)
        Name += " thread " + std::to_string(Thread);
      OTF2_GlobalDefWriter_WriteLocation(
          G, locationOf(Rank, Thread), Strings.get(Name),
          OTF2_LOCATION_TYPE_CPU_THREAD, Count, Rank);
    }
  }
  for (size_t R = 0; R < Regions.all().size(); ++R) {
    const mpi::FunctionInfo &Info = mpi::info(Regions.all()[R]);
    OTF2_StringRef Name = Strings.get(Info.Name);
    OTF2_GlobalDefWriter_WriteRegion(G, R, Name, Name, Empty, regionRole(Info),
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
                                     Empty, 0, 0);
  }
  const OTF2_Type AttributeTypes[traceformat::NumAttributes] = {
      OTF2_TYPE_STRING, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64,
      OTF2_TYPE_UINT64, OTF2_TYPE_INT32,  OTF2_TYPE_INT32,  OTF2_TYPE_COMM,
      OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_COMM,   OTF2_TYPE_UINT32,
      OTF2_TYPE_UINT64};
  for (unsigned A = 0; A < traceformat::NumAttributes; ++A)
    OTF2_GlobalDefWriter_WriteAttribute(
        G, A, Strings.get(traceformat::attributeName(Attribute(A))), Empty,
        AttributeTypes[A]);

  // Group 0 lists the world ranks' locations; every communicator's group
  // lists world ranks, i.e. positions in group 0 (OTF2's MPI convention).
  std::vector<uint64_t> WorldLocations(WorldSize);
  for (int R = 0; R < WorldSize; ++R)
    WorldLocations[R] = locationOf(R, 0);
  OTF2_GlobalDefWriter_WriteGroup(
      G, 0, WorldGroupName, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
      OTF2_GROUP_FLAG_NONE, WorldSize, WorldLocations.data());
  OTF2_GroupRef NextGroup = 1;
  auto writeMembers = [&](const std::vector<int32_t> &Members) {
    std::vector<uint64_t> M(Members.begin(), Members.end());
    OTF2_GlobalDefWriter_WriteGroup(
        G, NextGroup, Empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
        OTF2_GROUP_FLAG_NONE, M.size(), M.data());
    return NextGroup++;
  };
  for (size_t C = 0; C < Comms.size(); ++C) {
    OTF2_StringRef Name =
        Strings.get(C == 0 ? "MPI_COMM_WORLD" : "comm " + std::to_string(C));
    OTF2_CommRef Parent =
        Comms[C].Parent == UINT32_MAX ? OTF2_UNDEFINED_COMM : Comms[C].Parent;
    if (Comms[C].IsInter) {
      OTF2_GroupRef A = writeMembers(Comms[C].GroupA);
      OTF2_GroupRef B = writeMembers(Comms[C].GroupB);
      OTF2_GlobalDefWriter_WriteInterComm(G, C, Name, A, B, Parent,
                                          OTF2_COMM_FLAG_NONE);
    } else {
      OTF2_GroupRef A = writeMembers(Comms[C].GroupA);
      OTF2_GlobalDefWriter_WriteComm(G, C, Name, A, Parent,
                                     OTF2_COMM_FLAG_NONE);
    }
  }
}

} // namespace

void removeArchive(const std::string &TraceDir, bool AndSpillFiles) {
  std::string Base = TraceDir + "/" + ArchiveName;
  removeTree(Base);
  remove((Base + ".otf2").c_str());
  remove((Base + ".def").c_str());
  if (AndSpillFiles)
    removeTree(TraceDir + "/" + SpillDirName);
}

bool hasSpillFiles(const std::string &TraceDir) {
  return !listSpillFiles(TraceDir + "/" + SpillDirName).empty();
}

ConvertResult convertSpillFiles(const std::string &TraceDir) {
  ConvertResult Result;
  std::string SpillDir = TraceDir + "/" + SpillDirName;
  std::vector<std::string> Paths = listSpillFiles(SpillDir);
  if (Paths.empty()) {
    Result.Error = "no spill files in '" + SpillDir + "'";
    return Result;
  }

  // Pass 1: definitions of every rank.
  std::vector<SpillFile> Files;
  int WorldSize = 0;
  for (const std::string &P : Paths) {
    SpillFile S;
    S.Path = P;
    std::string Error;
    if (!scanSpillFile(S, Error)) {
      Result.Warnings.push_back(Error + "; skipped");
      continue;
    }
    if (S.TornTail)
      Result.Warnings.push_back("'" + P +
                                "' ends in a torn chunk; the events before "
                                "it are kept");
    WorldSize = std::max(WorldSize, S.Header.Size);
    Files.push_back(std::move(S));
  }
  if (Files.empty()) {
    Result.Error = "no readable spill files in '" + SpillDir + "'";
    return Result;
  }
  std::sort(Files.begin(), Files.end(),
            [](const SpillFile &A, const SpillFile &B) {
              return A.Header.Rank < B.Header.Rank;
            });
  bool Complete = static_cast<int>(Files.size()) == WorldSize;
  std::string RankStatus;
  std::vector<bool> Present(WorldSize, false);
  for (const SpillFile &S : Files) {
    if (S.Header.Rank >= 0 && S.Header.Rank < WorldSize)
      Present[S.Header.Rank] = true;
    bool Finalized =
        S.HasFooter && S.TheFooter.Reason == uint32_t(EndReason::Finalize);
    if (!Finalized || S.TornTail || (S.HasFooter && S.TheFooter.DroppedEvents))
      Complete = false;
    RankStatus += std::to_string(S.Header.Rank) + ": " + endDescription(S);
    if (S.HasFooter && S.TheFooter.DroppedEvents)
      RankStatus +=
          ", " + std::to_string(S.TheFooter.DroppedEvents) + " events lost";
    RankStatus += "\n";
  }
  for (int R = 0; R < WorldSize; ++R) {
    if (Present[R])
      continue;
    Result.Warnings.push_back("no spill file for rank " + std::to_string(R));
    RankStatus += std::to_string(R) + ": missing\n";
  }
  std::vector<GlobalComm> Comms = unifyComms(Files);

  removeArchive(TraceDir, /*AndSpillFiles=*/false); // A previous attempt's.

  OTF2_Archive *Archive = OTF2_Archive_Open(
      TraceDir.c_str(), ArchiveName, OTF2_FILEMODE_WRITE, 1024 * 1024,
      4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!Archive) {
    Result.Error = "cannot create the OTF2 archive in '" + TraceDir + "'";
    return Result;
  }
  auto Fail = [&](const std::string &What) {
    OTF2_Archive_Close(Archive);
    Result.Error = What + " in '" + TraceDir + "'";
    return Result;
  };
  OTF2_Archive_SetFlushCallbacks(Archive, &FlushCallbacks, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(Archive);
  OTF2_Archive_SetCreator(Archive, "mpilift-trace");
  OTF2_Archive_SetDescription(Archive, "MPI calls traced by mpilift");
  if (OTF2_Archive_OpenEvtFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot open the OTF2 event files");

  // Pass 2: events, one rank at a time.
  StringTable Strings;
  RegionTable Regions;
  std::vector<std::map<uint16_t, uint64_t>> EventsPerLocation(Files.size());
  OTF2_AttributeList *Attributes = OTF2_AttributeList_New();
  uint64_t FirstNs = UINT64_MAX, LastNs = 0, Realtime = 0;
  for (size_t I = 0; I < Files.size(); ++I) {
    RankWriter W(Archive, Files[I], Strings, Comms, Regions, Attributes);
    std::string Error;
    if (!W.write(Error)) {
      OTF2_AttributeList_Delete(Attributes);
      return Fail(Error);
    }
    if (!W.clockUsable())
      Result.Warnings.push_back("rank " + std::to_string(Files[I].Header.Rank) +
                                " has too few clock readings; its times are "
                                "approximate");
    EventsPerLocation[I] = W.EventsPerThread;
    if (EventsPerLocation[I].empty())
      EventsPerLocation[I][0] = 0; // Every rank has a location.
    if (W.FirstNs < FirstNs) {
      FirstNs = W.FirstNs;
      Realtime = W.FirstNs + W.RealtimeOffset();
    }
    LastNs = std::max(LastNs, W.LastNs);
    Result.Events += Files[I].EventCount;
  }
  OTF2_AttributeList_Delete(Attributes);
  if (FirstNs == UINT64_MAX)
    FirstNs = LastNs = 0;
  if (OTF2_Archive_CloseEvtFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot close the OTF2 event files");

  if (OTF2_Archive_OpenDefFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot open the OTF2 definition files");
  for (size_t I = 0; I < Files.size(); ++I) {
    for (const auto &Entry : EventsPerLocation[I]) {
      OTF2_DefWriter *D = OTF2_Archive_GetDefWriter(
          Archive, locationOf(Files[I].Header.Rank, Entry.first));
      if (!D || OTF2_Archive_CloseDefWriter(Archive, D) != OTF2_SUCCESS)
        return Fail("cannot write the OTF2 local definitions");
    }
  }
  if (OTF2_Archive_CloseDefFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot close the OTF2 definition files");

  OTF2_GlobalDefWriter *G = OTF2_Archive_GetGlobalDefWriter(Archive);
  if (!G)
    return Fail("cannot write the OTF2 global definitions");
  writeGlobalDefinitions(G, Strings, Files, EventsPerLocation, Comms, Regions,
                         WorldSize, FirstNs, LastNs, Realtime);

  bool Hashes = Files[0].Header.Flags & RankHashesPayloads;
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyComplete,
                           Complete ? "true" : "false", true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyFormatVersion,
                           traceformat::FormatVersion, true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyPayloadHashes,
                           Hashes ? "true" : "false", true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyWorldSize,
                           std::to_string(WorldSize).c_str(), true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyRankStatus,
                           RankStatus.c_str(), true);
  if (OTF2_Archive_Close(Archive) != OTF2_SUCCESS) {
    Result.Error = "cannot finish the OTF2 archive in '" + TraceDir + "'";
    return Result;
  }
  removeTree(SpillDir);
  Result.Ok = true;
  Result.Complete = Complete;
  Result.Ranks = static_cast<int>(Files.size());
  return Result;
}

} // namespace tracert
} // namespace mpilift
