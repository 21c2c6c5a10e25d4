//===- RankWriter.cpp - Write one rank's events as OTF2 -------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "RankWriter.h"

#include "PackedEvents.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <queue>

namespace mpilift {
namespace tracert {

using namespace rawtrace;
using mpi::CollectiveKind;
using mpi::Family;
using traceformat::Attribute;

namespace {

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

} // namespace

namespace {

/// One thread's records, read from the spill file a chunk at a time and
/// handed out one call with its parts at a time, so a rank's conversion
/// holds one chunk per thread in memory however long its trace is.
class ThreadStream {
public:
  ThreadStream(const File &F, uint16_t Thread) : F(F), Thread(Thread) {}

  void addChunk(const EventChunk &C) { Chunks.push_back(C); }
  uint16_t thread() const { return Thread; }

  /// Moves to the next call; false at the end or, with readFailed(), if the
  /// file could not be read. Parts before a thread's first call (their call
  /// was in a torn chunk) are skipped.
  bool next() {
    Current.clear();
    while (true) {
      if (Pos == Buffer.size() && !fill())
        return false;
      if (Buffer[Pos].Kind == uint8_t(EventKind::Call))
        break;
      ++Pos;
    }
    Current.push_back(Buffer[Pos++]);
    while ((Pos < Buffer.size() || fill()) &&
           Buffer[Pos].Kind != uint8_t(EventKind::Call))
      Current.push_back(Buffer[Pos++]);
    return !ReadFailed;
  }

  /// The call and its parts; valid until next().
  const Event *begin() const { return Current.data(); }
  const Event *end() const { return Current.data() + Current.size(); }
  bool readFailed() const { return ReadFailed; }
  /// Where the chunk that did not unpack lies, if one did not.
  std::optional<uint64_t> malformed() const { return Malformed; }

private:
  /// Reads the next chunk into Buffer; false at the end or on an error.
  bool fill() {
    if (ReadFailed || NextChunk == Chunks.size())
      return false;
    const EventChunk &C = Chunks[NextChunk++];
    Buffer.resize(C.Count);
    Pos = 0;
    if (!(C.Packed ? readPacked(C)
                   : F.readAt(C.Offset, Buffer.data(),
                              size_t(C.Count) * sizeof(Event)))) {
      ReadFailed = true;
      Buffer.clear();
      return false;
    }
    return true;
  }

  /// Reads and unpacks the packed chunk \p C into Buffer; false, with the
  /// chunk's offset in Malformed if it does not unpack, if it cannot.
  bool readPacked(const EventChunk &C) {
    Packed.resize(C.Bytes);
    if (!F.readAt(C.Offset, Packed.data(), Packed.size()))
      return false;
    if (unpackEvents(Packed.data(), Packed.size(), C.Count, Buffer.data()))
      return true;
    Malformed = C.Offset;
    return false;
  }

  const File &F;
  uint16_t Thread;
  std::vector<EventChunk> Chunks;
  size_t NextChunk = 0;
  std::vector<Event> Buffer;
  size_t Pos = 0;
  std::vector<Event> Current;
  std::vector<uint8_t> Packed;
  bool ReadFailed = false;
  std::optional<uint64_t> Malformed;
};

} // namespace

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
  Written.FirstNs = std::min(Written.FirstNs, Ns);
  Written.LastNs = std::max(Written.LastNs, Ns);
  return Ns;
}

void RankWriter::addCallSite(uint64_t Address) {
  for (const Module &M : S.Modules) {
    if (Address >= M.Low && Address < M.High) {
      OTF2_StringRef Path = Strings.find(M.Path);
      if (Path != OTF2_UNDEFINED_STRING)
        OTF2_AttributeList_AddStringRef(Attributes,
                                        traceformat::AttrCallSiteModule, Path);
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
  if (E.Flags & rawtrace::FlagNoncontiguous)
    F |= traceformat::FlagNoncontiguous;
  return F;
}

void RankWriter::writeLayouts(const Group &G, OTF2_EvtWriter *W,
                              uint64_t Time) {
  for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P) {
    if (P->Kind != uint8_t(EventKind::Layout))
      continue;
    OTF2_ParameterRef Param =
        P->Tag == 0 ? traceformat::ParamLayout : traceformat::ParamRecvLayout;
    const uint64_t Slots[6] = {P->Begin,  P->End,   P->CallSite,
                               P->Buffer, P->Bytes, P->Handle};
    for (int32_t J = 0; J < 2 * std::min(P->Peer, 3); ++J)
      OTF2_EvtWriter_ParameterUnsignedInt(W, nullptr, Time, Param, Slots[J]);
  }
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
  OTF2_RegionRef Region = regionOf(Id);
  uint32_t Comm = globalComm(E.Comm);

  // Enter, with what OTF2's MPI records cannot say.
  addCallSite(E.CallSite);
  if (E.Buffer)
    addU64(traceformat::AttrBuffer, E.Buffer);
  uint32_t Flags = flagsOf(E);
  for (const Event *P = G.PartsBegin; P < G.PartsEnd; ++P)
    if (P->Kind == uint8_t(EventKind::RecvPart)) {
      if (P->Buffer)
        addU64(traceformat::AttrRecvBuffer, P->Buffer);
      if (P->Flags & rawtrace::FlagNoncontiguous)
        Flags |= traceformat::FlagRecvNoncontiguous;
    }
  if (Flags)
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
      if (New != UINT32_MAX && Comm != UINT32_MAX && New != Comm)
        Written.ParentOf.emplace(New, Comm); // The first creation wins.
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
  writeLayouts(G, W, Begin);

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

RankWritten RankWriter::result() const {
  RankWritten R = Written;
  R.ClockUsable = Clock.usable();
  R.Realtime = R.FirstNs + Clock.realtimeMinusMonotonic();
  if (R.EventsPerThread.empty())
    R.EventsPerThread[0] = 0;
  return R;
}

bool RankWriter::write(std::string &Error) {
  File F(S.Path);
  if (!F.ok()) {
    Error = "cannot open '" + S.Path + "': " + strerror(errno);
    return false;
  }
  // Visit the calls of all threads of the rank in time order: requests may
  // complete on a different thread than the one that posted them.
  std::map<uint16_t, ThreadStream> ByThread;
  for (const EventChunk &C : S.Chunks)
    ByThread.try_emplace(C.Thread, F, C.Thread).first->second.addChunk(C);
  std::vector<ThreadStream *> Streams;
  for (auto &Entry : ByThread)
    Streams.push_back(&Entry.second);
  using Item = std::pair<uint64_t, size_t>; // (begin, stream)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> Heap;
  for (size_t I = 0; I < Streams.size(); ++I)
    if (Streams[I]->next())
      Heap.push({Streams[I]->begin()->Begin, I});
  while (!Heap.empty() && !Failed) {
    ThreadStream &T = *Streams[Heap.top().second];
    size_t I = Heap.top().second;
    Heap.pop();
    writeGroup(Group{T.begin(), T.begin() + 1, T.end(), T.thread()});
    if (T.next())
      Heap.push({T.begin()->Begin, I});
  }
  for (ThreadStream *T : Streams) {
    if (T->readFailed()) {
      Error = "cannot read '" + S.Path + "'";
      if (std::optional<uint64_t> At = T->malformed())
        Error += ": the packed events at byte " + std::to_string(*At) +
                 " do not unpack";
      return false;
    }
  }
  for (auto &[Thread, W] : Writers) {
    if (!W)
      continue;
    uint64_t N = 0;
    OTF2_EvtWriter_GetNumberOfEvents(W, &N);
    Written.EventsPerThread[Thread] = N;
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

} // namespace tracert
} // namespace mpilift
