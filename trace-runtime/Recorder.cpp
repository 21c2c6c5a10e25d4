//===- Recorder.cpp - PMPI wrappers that record MPI calls -----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The generated wrappers (Wrappers.inc) fill a CallInfo by argument role and
/// call beforeCall<F>()/afterCall<F>(); this file turns a CallInfo into records
/// by the function's family. MPI_Init, MPI_Finalize, MPI_Abort, MPI_Pcontrol
/// and MPI_Comm_free are written by hand at the end.
///
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "TypeSizes.h"

#include "mpilift/MPI/Vocabulary.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mpilift {
namespace rt {

using mpi::Family;
using mpi::FunctionId;
using rawtrace::Event;
using rawtrace::EventKind;

namespace {

/// Request handles as they were before a completion call overwrote them.
class RequestSnapshot {
public:
  void take(const MPI_Request *Handles, int N) {
    Size = N < 0 ? 0 : N;
    if (Size > static_cast<int>(std::size(Inline)))
      Heap.assign(Handles, Handles + Size);
    else
      std::copy(Handles, Handles + Size, Inline);
  }
  int size() const { return Size; }
  MPI_Request operator[](int I) const {
    return Size > static_cast<int>(std::size(Inline)) ? Heap[I] : Inline[I];
  }

private:
  MPI_Request Inline[8];
  std::vector<MPI_Request> Heap;
  int Size = 0;
};

uint64_t handleBits(MPI_Request R) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(R));
}
uint64_t handleBits(MPI_Message M) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(M));
}

} // namespace

/// Everything a wrapper knows about one call, by argument role.
struct CallInfo {
  CallInfo(FunctionId F, void *ReturnAddress)
      : Function(F), CallSite(reinterpret_cast<uintptr_t>(ReturnAddress)) {}

  FunctionId Function;
  uint64_t CallSite;
  uint64_t Begin = 0;

  const void *SendBuffer = nullptr;
  const void *RecvBuffer = nullptr;
  int SendCount = 0;
  int RecvCount = 0;
  const int *SendCounts = nullptr;
  const int *RecvCounts = nullptr;
  MPI_Datatype SendType = MPI_DATATYPE_NULL;
  MPI_Datatype RecvType = MPI_DATATYPE_NULL;
  const MPI_Datatype *SendTypes = nullptr;
  const MPI_Datatype *RecvTypes = nullptr;
  int Dest = MPI_PROC_NULL;
  int Source = MPI_PROC_NULL;
  int SendTag = 0;
  int RecvTag = 0;
  int Root = MPI_PROC_NULL;
  MPI_Comm Comm = MPI_COMM_NULL;
  MPI_Comm *NewComm = nullptr;
  MPI_Request *Request = nullptr;
  MPI_Request *Requests = nullptr;
  int ArrayLength = 0;
  MPI_Status *Status = nullptr;
  MPI_Status *Statuses = nullptr;
  int *Index = nullptr;
  int *Indices = nullptr;
  int *OutCount = nullptr;
  int *Flag = nullptr;
  MPI_Message *Message = nullptr;

  // Captured by beforeCall<F>().
  RequestSnapshot Handles;
  uint64_t MessageBefore = 0;
  uint64_t SendHash = 0;
};

/// Supplies a status array when the caller passed MPI_STATUSES_IGNORE: the
/// recorder needs sources, tags and counts of completed receives.
class StatusArray {
public:
  StatusArray(MPI_Status *Given, int N) : Given(Given) {
    if (Given == MPI_STATUSES_IGNORE && N > 0)
      Own.resize(N);
  }
  MPI_Status *get() {
    return Given == MPI_STATUSES_IGNORE ? Own.data() : Given;
  }

private:
  MPI_Status *Given;
  std::vector<MPI_Status> Own;
};

namespace {

//===-- Values
//-------------------------------------------------------------===//

int32_t encodePeer(int Rank) {
  if (Rank >= 0)
    return Rank;
  if (Rank == MPI_ANY_SOURCE)
    return rawtrace::PeerAnySource;
  if (Rank == MPI_PROC_NULL)
    return rawtrace::PeerProcNull;
  if (Rank == MPI_ROOT)
    return rawtrace::PeerRoot;
  return rawtrace::PeerNone;
}

int32_t encodeTag(int Tag) {
  return Tag == MPI_ANY_TAG ? rawtrace::TagAny : Tag;
}

uint64_t bytesOf(int Count, MPI_Datatype T) {
  return Count > 0 ? static_cast<uint64_t>(Count) * typeSize(T) : 0;
}

uint64_t sumOf(const int *Counts, int N) {
  uint64_t Sum = 0;
  for (int I = 0; Counts && I < N; ++I)
    Sum += Counts[I] > 0 ? Counts[I] : 0;
  return Sum;
}

uint64_t receivedBytes(const MPI_Status *S) {
#if defined(OPEN_MPI) && OPEN_MPI
  // Open MPI keeps the received bytes in the status (`_ucount` in mpi.h);
  // PMPI_Get_count would divide them by the size of MPI_BYTE and clamp them
  // to an int.
  return static_cast<uint64_t>(S->_ucount);
#else
  int N = 0;
  PMPI_Get_count(S, MPI_BYTE, &N);
  return N == MPI_UNDEFINED || N < 0 ? 0 : static_cast<uint64_t>(N);
#endif
}

bool wasCancelled(const MPI_Status *S) {
#if defined(OPEN_MPI) && OPEN_MPI
  return S->_cancelled != 0;
#else
  int Cancelled = 0;
  PMPI_Test_cancelled(S, &Cancelled);
  return Cancelled != 0;
#endif
}

uint64_t address(const void *P) {
  if (P == MPI_IN_PLACE)
    return 0;
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(P));
}

/// Sets \p E's buffer to where the data of \p Count elements of \p T at
/// \p P starts (a derived type may begin before or after its buffer's
/// address: MPI_BOTTOM with absolute displacements), marks \p E when the
/// data leaves gaps, and returns the data's size in bytes. One lookup of
/// the type for both.
uint64_t setData(Event &E, const void *P, int Count, MPI_Datatype T) {
  if (P == MPI_IN_PLACE) {
    E.Buffer = 0;
    return bytesOf(Count, T);
  }
  TypeLayout L = typeLayout(T);
  if (!L.contiguous(Count))
    E.Flags |= rawtrace::FlagNoncontiguous;
  E.Buffer = address(P) + static_cast<uint64_t>(L.TrueLb);
  return Count > 0 ? static_cast<uint64_t>(Count) * L.Size : 0;
}

//===-- Payload hashes (MPILIFT_TRACE_HASH=1)
//------------------------------===//

uint64_t mix(uint64_t H) {
  H ^= H >> 33;
  H *= 0xff51afd7ed558ccdull;
  H ^= H >> 33;
  H *= 0xc4ceb9fe1a85ec53ull;
  H ^= H >> 33;
  return H;
}

uint64_t hashBytes(const unsigned char *Data, size_t N) {
  uint64_t H = 0x9e3779b97f4a7c15ull ^ N;
  size_t I = 0;
  for (; I + 8 <= N; I += 8) {
    uint64_t W;
    memcpy(&W, Data + I, 8);
    H = (H ^ mix(W)) * 0x100000001b3ull;
  }
  uint64_t Tail = 0;
  memcpy(&Tail, Data + I, N - I);
  return mix(H ^ mix(Tail ^ (N - I)));
}

/// Hash of the bytes a message of \p Count elements of \p T carries, the same
/// for contiguous and derived types with the same type signature.
uint64_t hashMessage(const void *Buffer, int Count, MPI_Datatype T) {
  if (Count <= 0 || T == MPI_DATATYPE_NULL || Buffer == MPI_IN_PLACE)
    return hashBytes(nullptr, 0);
  int Size = 0;
  PMPI_Type_size(T, &Size);
  MPI_Aint Lb, Extent, TrueLb, TrueExtent;
  PMPI_Type_get_extent(T, &Lb, &Extent);
  PMPI_Type_get_true_extent(T, &TrueLb, &TrueExtent);
  if (TrueExtent == Size && (Count == 1 || Extent == Size))
    return hashBytes(static_cast<const unsigned char *>(Buffer) + TrueLb,
                     static_cast<size_t>(Count) * Size);
  int PackSize = 0;
  PMPI_Pack_size(Count, T, MPI_COMM_WORLD, &PackSize);
  std::vector<unsigned char> Packed(PackSize);
  int Position = 0;
  PMPI_Pack(Buffer, Count, T, Packed.data(), PackSize, &Position,
            MPI_COMM_WORLD);
  return hashBytes(Packed.data(), Position);
}

uint64_t hashReceived(const void *Buffer, MPI_Datatype T, const MPI_Status *S) {
  int Count = 0;
  PMPI_Get_count(S, T, &Count);
  return hashMessage(Buffer, Count == MPI_UNDEFINED ? 0 : Count, T);
}

/// Receive buffers of pending nonblocking receives, kept only in hash mode
/// so that the completion can hash what arrived.
struct PendingReceive {
  const void *Buffer;
  MPI_Datatype Type; ///< A duplicate for derived types: the user may free.
  bool Persistent;
};
std::mutex PendingMutex;
std::unordered_map<MPI_Request, PendingReceive> PendingReceives;

bool isPredefined(MPI_Datatype T) {
  int Integers, Addresses, Types, Combiner;
  PMPI_Type_get_envelope(T, &Integers, &Addresses, &Types, &Combiner);
  return Combiner == MPI_COMBINER_NAMED;
}

void rememberReceive(MPI_Request R, const void *Buffer, MPI_Datatype T,
                     bool Persistent) {
  MPI_Datatype Kept = T;
  if (!isPredefined(T))
    PMPI_Type_dup(T, &Kept);
  std::lock_guard<std::mutex> Lock(PendingMutex);
  PendingReceives[R] = {Buffer, Kept, Persistent};
}

void forgetReceive(MPI_Request R) {
  std::lock_guard<std::mutex> Lock(PendingMutex);
  auto It = PendingReceives.find(R);
  if (It == PendingReceives.end())
    return;
  if (!isPredefined(It->second.Type))
    PMPI_Type_free(&It->second.Type);
  PendingReceives.erase(It);
}

/// Hash of a completed receive; false if the request was no receive.
bool hashCompletedReceive(MPI_Request R, const MPI_Status *S, uint64_t &Hash) {
  PendingReceive P;
  {
    std::lock_guard<std::mutex> Lock(PendingMutex);
    auto It = PendingReceives.find(R);
    if (It == PendingReceives.end())
      return false;
    P = It->second;
  }
  Hash = hashReceived(P.Buffer, P.Type, S);
  if (!P.Persistent)
    forgetReceive(R);
  return true;
}

//===-- Records
//------------------------------------------------------------===//

/// Fills \p E, in place, with what every call's record holds.
void fillCallRecord(Event &E, const CallInfo &CI, uint64_t End) {
  E.Begin = CI.Begin;
  E.End = End;
  E.CallSite = CI.CallSite;
  E.Buffer = 0;
  E.Bytes = 0;
  E.Handle = 0;
  E.Peer = rawtrace::PeerNone;
  E.Tag = rawtrace::TagNone;
  E.Comm = commId(CI.Comm);
  E.Function = static_cast<uint16_t>(CI.Function);
  E.Kind = static_cast<uint8_t>(EventKind::Call);
  E.Flags = 0;
}

Event callRecord(const CallInfo &CI, uint64_t End) {
  Event E;
  fillCallRecord(E, CI, End);
  return E;
}

/// Whether records follow a send's or receive's call record.
bool hasParts(const Event &Call) {
  return hashingPayloads() || (Call.Flags & rawtrace::FlagNoncontiguous);
}

Event partRecord(const Event &Call, EventKind Kind) {
  Event E = Call;
  E.Kind = static_cast<uint8_t>(Kind);
  E.Buffer = 0;
  E.Bytes = 0;
  E.Handle = 0;
  E.Flags = 0;
  return E;
}

void pushHash(const Event &Call, uint64_t Hash) {
  Event H = partRecord(Call, EventKind::Hash);
  H.Bytes = Hash;
  pushEvent(H);
}

void setFromStatus(Event &E, const MPI_Status *S) {
  E.Peer = encodePeer(S->MPI_SOURCE);
  E.Tag = encodeTag(S->MPI_TAG);
  E.Bytes = receivedBytes(S);
  E.Flags |= rawtrace::FlagPeerIsStatus;
}

/// Records after \p Owner (a call, or with \p Side 1 its receive part)
/// the runs of its data, when it has gaps: the offset of each from the
/// address recorded in Owner.Buffer and its length, three to a record.
void pushLayout(const Event &Owner, const void *P, int Count, MPI_Datatype T,
                int32_t Side) {
  if (!(Owner.Flags & rawtrace::FlagNoncontiguous))
    return;
  thread_local std::vector<LayoutRun> Runs;
  if (!flattenLayout(Count, T, Runs))
    return;
  // Offsets from the data's first byte, which Owner.Buffer holds.
  int64_t Shift = static_cast<int64_t>(Owner.Buffer - address(P));
  for (size_t I = 0; I < Runs.size(); I += 3) {
    Event L = partRecord(Owner, EventKind::Layout);
    L.Tag = Side;
    L.Peer = static_cast<int32_t>(std::min<size_t>(3, Runs.size() - I));
    uint64_t *Slots[6] = {&L.Begin,  &L.End,   &L.CallSite,
                          &L.Buffer, &L.Bytes, &L.Handle};
    for (int32_t J = 0; J < 6; ++J)
      *Slots[J] = 0;
    for (int32_t J = 0; J < L.Peer; ++J) {
      *Slots[2 * J] = static_cast<uint64_t>(Runs[I + J].Offset - Shift);
      *Slots[2 * J + 1] = Runs[I + J].Length;
    }
    pushEvent(L);
  }
}

void recordSend(const CallInfo &CI, Event &E) {
  E.Peer = encodePeer(CI.Dest);
  E.Tag = encodeTag(CI.SendTag);
  E.Bytes = setData(E, CI.SendBuffer, CI.SendCount, CI.SendType);
  if (CI.Request)
    E.Handle = handleBits(*CI.Request);
  commitEvent();
  if (!hasParts(E))
    return;
  // A copy: the parts may fill and reuse the buffer that holds E.
  const Event Call = E;
  if (hashingPayloads())
    pushHash(Call, CI.SendHash);
  pushLayout(Call, CI.SendBuffer, CI.SendCount, CI.SendType, 0);
}

void recordBlockingReceive(const CallInfo &CI, Event &E) {
  setFromStatus(E, CI.Status);
  setData(E, CI.RecvBuffer, CI.RecvCount, CI.RecvType);
  if (CI.Message) { // MPI_Mrecv: the communicator is the probe's.
    E.Comm = rawtrace::CommNone;
    E.Handle = CI.MessageBefore;
  }
  commitEvent();
  if (!hasParts(E))
    return;
  const Event Call = E;
  if (hashingPayloads())
    pushHash(Call, hashReceived(CI.RecvBuffer, CI.RecvType, CI.Status));
  pushLayout(Call, CI.RecvBuffer, CI.RecvCount, CI.RecvType, 0);
}

void recordPostedReceive(const CallInfo &CI, Event &E, bool Persistent) {
  E.Peer = encodePeer(CI.Source);
  E.Tag = encodeTag(CI.RecvTag);
  E.Bytes = setData(E, CI.RecvBuffer, CI.RecvCount, CI.RecvType);
  E.Handle = handleBits(*CI.Request);
  if (CI.Message) { // MPI_Imrecv.
    E.Comm = rawtrace::CommNone;
    E.Peer = rawtrace::PeerNone;
    E.Tag = rawtrace::TagNone;
  }
  commitEvent();
  if (!CI.Message && !hasParts(E))
    return;
  const Event Call = E;
  if (CI.Message) {
    Event M = partRecord(Call, EventKind::Message);
    M.Handle = CI.MessageBefore;
    pushEvent(M);
  }
  if (hashingPayloads())
    rememberReceive(*CI.Request, CI.RecvBuffer, CI.RecvType, Persistent);
  pushLayout(Call, CI.RecvBuffer, CI.RecvCount, CI.RecvType, 0);
}

void recordSendRecv(const CallInfo &CI, Event &E) {
  E.Peer = encodePeer(CI.Dest);
  E.Tag = encodeTag(CI.SendTag);
  E.Bytes = setData(E, CI.SendBuffer, CI.SendCount, CI.SendType);
  commitEvent();
  const Event Call = E;
  if (hashingPayloads())
    pushHash(Call, CI.SendHash);
  pushLayout(Call, CI.SendBuffer, CI.SendCount, CI.SendType, 0);
  Event R = partRecord(Call, EventKind::RecvPart);
  setFromStatus(R, CI.Status);
  setData(R, CI.RecvBuffer, CI.RecvCount, CI.RecvType);
  pushEvent(R);
  if (hashingPayloads())
    pushHash(R, hashReceived(CI.RecvBuffer, CI.RecvType, CI.Status));
  pushLayout(R, CI.RecvBuffer, CI.RecvCount, CI.RecvType, 1);
}

void recordProbe(const CallInfo &CI, Event &E, bool Blocking) {
  bool Found = Blocking || (CI.Flag && *CI.Flag);
  if (Found) {
    setFromStatus(E, CI.Status);
    E.Flags |= rawtrace::FlagFound;
    if (CI.Message)
      E.Handle = handleBits(*CI.Message);
  } else {
    E.Peer = encodePeer(CI.Source);
    E.Tag = encodeTag(CI.RecvTag);
  }
  commitEvent();
}

void pushCompletion(const Event &Call, MPI_Request R, const MPI_Status *S) {
  Event C = partRecord(Call, EventKind::Completion);
  C.Handle = handleBits(R);
  C.Comm = rawtrace::CommNone; // The request's; the converter knows it.
  setFromStatus(C, S);
  if (wasCancelled(S))
    C.Flags |= rawtrace::FlagCancelled;
  pushEvent(C);
  uint64_t Hash;
  if (hashingPayloads() && hashCompletedReceive(R, S, Hash))
    pushHash(C, Hash);
}

void pushTested(const Event &Call, MPI_Request R) {
  Event T = partRecord(Call, EventKind::Tested);
  T.Handle = handleBits(R);
  T.Comm = rawtrace::CommNone;
  pushEvent(T);
}

void pushAllTested(const Event &Call, const RequestSnapshot &H) {
  for (int I = 0; I < H.size(); ++I)
    if (H[I] != MPI_REQUEST_NULL)
      pushTested(Call, H[I]);
}

void recordCompletion(const CallInfo &CI, Event &E, bool Test) {
  const RequestSnapshot &H = CI.Handles;
  bool Succeeded = !Test || (CI.Flag && *CI.Flag);
  if (CI.OutCount) // Waitsome, Testsome.
    Succeeded = *CI.OutCount != MPI_UNDEFINED && *CI.OutCount > 0;
  if (CI.Index && !CI.Flag) // Waitany.
    Succeeded = *CI.Index != MPI_UNDEFINED;
  if (Succeeded)
    E.Flags |= rawtrace::FlagFound;
  commitEvent();
  if (H.size() == 0)
    return;
  const Event Call = E;

  if (!Succeeded) {
    if (Test)
      pushAllTested(Call, H);
    return;
  }
  if (CI.Index) { // Waitany, Testany.
    int I = *CI.Index;
    if (I != MPI_UNDEFINED && I >= 0 && I < H.size())
      pushCompletion(Call, H[I], CI.Status);
    return;
  }
  if (CI.OutCount) { // Waitsome, Testsome.
    for (int K = 0; K < *CI.OutCount; ++K) {
      int I = CI.Indices[K];
      if (I >= 0 && I < H.size())
        pushCompletion(Call, H[I], &CI.Statuses[K]);
    }
    return;
  }
  if (CI.Statuses) { // Waitall, Testall.
    for (int I = 0; I < H.size(); ++I)
      if (H[I] != MPI_REQUEST_NULL)
        pushCompletion(Call, H[I], &CI.Statuses[I]);
    return;
  }
  if (H.size() == 1 && H[0] != MPI_REQUEST_NULL) // Wait, Test.
    pushCompletion(Call, H[0], CI.Status);
}

void recordRequestCall(const CallInfo &CI, Event &E, bool Free) {
  const RequestSnapshot &H = CI.Handles;
  if (CI.Requests) { // MPI_Startall.
    commitEvent();
    const Event Call = E;
    for (int I = 0; I < H.size(); ++I) {
      Event S = partRecord(Call, EventKind::Started);
      S.Handle = handleBits(H[I]);
      S.Comm = rawtrace::CommNone;
      pushEvent(S);
    }
    return;
  }
  E.Handle = H.size() ? handleBits(H[0]) : 0;
  E.Comm = rawtrace::CommNone;
  commitEvent();
  if (Free && hashingPayloads() && H.size())
    forgetReceive(H[0]);
}

int groupSize(MPI_Comm C) {
  int IsInter = 0, Size = 0;
  PMPI_Comm_test_inter(C, &IsInter);
  if (IsInter)
    PMPI_Comm_remote_size(C, &Size);
  else
    PMPI_Comm_size(C, &Size);
  return Size;
}

int localRank(MPI_Comm C) {
  int Rank = 0;
  PMPI_Comm_rank(C, &Rank);
  return Rank;
}

/// Bytes this rank's send and receive buffers hold for one collective call
/// (see docs/trace-format.md for the rules).
void collectiveBytes(const CallInfo &CI, uint64_t &Sent, uint64_t &Received,
                     bool &Unknown) {
  using mpi::CollectiveKind;
  CollectiveKind K = mpi::info(CI.Function).Collective;
  bool Rooted = mpi::isRooted(K);
  bool IsRoot = Rooted && (CI.Root == MPI_ROOT ||
                           (CI.Root >= 0 && CI.Root == localRank(CI.Comm)));
  uint64_t N = static_cast<uint64_t>(groupSize(CI.Comm));
  uint64_t SendBlock = bytesOf(CI.SendCount, CI.SendType);
  uint64_t RecvBlock = bytesOf(CI.RecvCount, CI.RecvType);
  Sent = Received = 0;
  Unknown = false;
  switch (K) {
  case CollectiveKind::Barrier:
    break;
  case CollectiveKind::Bcast:
    (IsRoot ? Sent : Received) = SendBlock;
    break;
  case CollectiveKind::Gather:
    Sent = SendBlock;
    Received = IsRoot ? N * RecvBlock : 0;
    break;
  case CollectiveKind::Gatherv:
    Sent = SendBlock;
    Received = IsRoot ? sumOf(CI.RecvCounts, N) * typeSize(CI.RecvType) : 0;
    break;
  case CollectiveKind::Scatter:
    Sent = IsRoot ? N * SendBlock : 0;
    Received = RecvBlock;
    break;
  case CollectiveKind::Scatterv:
    Sent = IsRoot ? sumOf(CI.SendCounts, N) * typeSize(CI.SendType) : 0;
    Received = RecvBlock;
    break;
  case CollectiveKind::Allgather:
    Sent = SendBlock;
    Received = N * RecvBlock;
    break;
  case CollectiveKind::Allgatherv:
    Sent = SendBlock;
    Received = sumOf(CI.RecvCounts, N) * typeSize(CI.RecvType);
    break;
  case CollectiveKind::Alltoall:
    Sent = N * SendBlock;
    Received = N * RecvBlock;
    break;
  case CollectiveKind::Alltoallv:
    Sent = sumOf(CI.SendCounts, N) * typeSize(CI.SendType);
    Received = sumOf(CI.RecvCounts, N) * typeSize(CI.RecvType);
    break;
  case CollectiveKind::Alltoallw:
    for (uint64_t I = 0; I < N; ++I) {
      Sent += bytesOf(CI.SendCounts[I], CI.SendTypes[I]);
      Received += bytesOf(CI.RecvCounts[I], CI.RecvTypes[I]);
    }
    break;
  case CollectiveKind::Reduce:
    Sent = SendBlock;
    Received = IsRoot ? SendBlock : 0;
    break;
  case CollectiveKind::Allreduce:
  case CollectiveKind::Scan:
  case CollectiveKind::Exscan:
    Sent = Received = SendBlock;
    break;
  case CollectiveKind::ReduceScatter: {
    uint64_t Size = typeSize(CI.SendType);
    Sent = sumOf(CI.RecvCounts, N) * Size;
    int Me = localRank(CI.Comm);
    Received =
        CI.RecvCounts && CI.RecvCounts[Me] > 0 ? CI.RecvCounts[Me] * Size : 0;
    break;
  }
  case CollectiveKind::ReduceScatterBlock:
    Sent = N * RecvBlock;
    Received = RecvBlock;
    break;
  case CollectiveKind::NeighborAllgather:
  case CollectiveKind::NeighborAlltoall:
    Sent = SendBlock;
    Unknown = true; // Depends on the topology's in-degree.
    break;
  default:
    Unknown = true;
    break;
  }
}

void recordCollective(const CallInfo &CI, Event &E) {
  uint64_t Sent, Received;
  bool Unknown;
  collectiveBytes(CI, Sent, Received, Unknown);
  if (mpi::isRooted(mpi::info(CI.Function).Collective))
    E.Peer = encodePeer(CI.Root);
  E.Bytes = Sent;
  E.Buffer = address(CI.SendBuffer);
  if (CI.SendBuffer == MPI_IN_PLACE)
    E.Flags |= rawtrace::FlagInPlace;
  if (Unknown)
    E.Flags |= rawtrace::FlagSizeUnknown;
  if (CI.Request)
    E.Handle = handleBits(*CI.Request);
  commitEvent();
  Event R = partRecord(E, EventKind::RecvPart);
  R.Bytes = Received;
  R.Buffer = address(CI.RecvBuffer);
  if (CI.RecvBuffer == MPI_IN_PLACE)
    R.Flags |= rawtrace::FlagInPlace;
  pushEvent(R);
}

void recordCommCreate(const CallInfo &CI, Event &E) {
  commitEvent();
  if (CI.Request) // MPI_Comm_idup: the handle is valid only once complete.
    return;
  Event N = partRecord(E, EventKind::NewComm);
  N.Comm = registerNewComm(CI.NewComm ? *CI.NewComm : MPI_COMM_NULL);
  pushEvent(N);
}

} // namespace

/// Captures what the call will overwrite, then its begin time. \p F is a
/// template argument so that each wrapper keeps only its own family's code.
template <FunctionId F> inline void beforeCall(CallInfo &CI) {
  constexpr Family Fam = mpi::familyOf(F);
  if constexpr (Fam == Family::Wait || Fam == Family::Test ||
                Fam == Family::RequestFree || Fam == Family::Cancel ||
                Fam == Family::Start) {
    if (CI.Requests)
      CI.Handles.take(CI.Requests, CI.ArrayLength);
    else if (CI.Request)
      CI.Handles.take(CI.Request, 1);
  } else if constexpr (Fam == Family::BlockingRecv ||
                       Fam == Family::NonblockingRecv) {
    if (CI.Message)
      CI.MessageBefore = handleBits(*CI.Message);
  } else if constexpr (Fam == Family::BlockingSend ||
                       Fam == Family::NonblockingSend ||
                       Fam == Family::PersistentSendInit ||
                       Fam == Family::SendRecv) {
    // Before the call: MPI_Sendrecv_replace overwrites what it sends.
    if (hashingPayloads())
      CI.SendHash = hashMessage(CI.SendBuffer, CI.SendCount, CI.SendType);
  }
  CI.Begin = timestamp();
}

/// Records the call \p F once it returned \p RC.
template <FunctionId F> inline void afterCall(CallInfo &CI, int RC) {
  constexpr Family Fam = mpi::familyOf(F);
  uint64_t End = timestamp();
  // Filled in place; each record function commits it (see nextEvent()).
  Event &E = nextEvent();
  fillCallRecord(E, CI, End);
  if (RC != MPI_SUCCESS) {
    // Outputs are undefined after an error; keep the call, nothing else.
    commitEvent();
    return;
  }
  if constexpr (Fam == Family::BlockingSend || Fam == Family::NonblockingSend ||
                Fam == Family::PersistentSendInit)
    recordSend(CI, E);
  else if constexpr (Fam == Family::BlockingRecv)
    recordBlockingReceive(CI, E);
  else if constexpr (Fam == Family::NonblockingRecv)
    recordPostedReceive(CI, E, /*Persistent=*/false);
  else if constexpr (Fam == Family::PersistentRecvInit)
    recordPostedReceive(CI, E, /*Persistent=*/true);
  else if constexpr (Fam == Family::SendRecv)
    recordSendRecv(CI, E);
  else if constexpr (Fam == Family::BlockingProbe)
    recordProbe(CI, E, /*Blocking=*/true);
  else if constexpr (Fam == Family::NonblockingProbe)
    recordProbe(CI, E, /*Blocking=*/false);
  else if constexpr (Fam == Family::Wait || Fam == Family::Test)
    recordCompletion(CI, E, /*Test=*/Fam == Family::Test);
  else if constexpr (Fam == Family::RequestFree || Fam == Family::Cancel ||
                     Fam == Family::Start)
    recordRequestCall(CI, E, /*Free=*/Fam == Family::RequestFree);
  else if constexpr (Fam == Family::BlockingCollective ||
                     Fam == Family::NonblockingCollective)
    recordCollective(CI, E);
  else if constexpr (Fam == Family::CommCreate)
    recordCommCreate(CI, E);
  else
    commitEvent();
}

} // namespace rt
} // namespace mpilift

using mpilift::mpi::FunctionId;
using mpilift::rt::CallInfo;

#include "Wrappers.inc"

//===-- Hand-written wrappers
//----------------------------------------------===//

namespace {

/// Records a call that has no arguments worth recording beyond its time.
void recordPlainCall(FunctionId F, void *ReturnAddress, uint64_t Begin,
                     int32_t Tag = mpilift::rawtrace::TagNone) {
  CallInfo CI(F, ReturnAddress);
  CI.Begin = Begin;
  CI.Comm = MPI_COMM_WORLD;
  mpilift::rawtrace::Event E =
      mpilift::rt::callRecord(CI, mpilift::rt::timestamp());
  E.Tag = Tag;
  mpilift::rt::pushEvent(E);
}

} // namespace

extern "C" MPILIFT_EXPORT int MPI_Init(int *argc, char ***argv) {
  uint64_t Begin = mpilift::rt::timestamp();
  int RC = PMPI_Init(argc, argv);
  if (RC == MPI_SUCCESS)
    mpilift::rt::initialize(MPI_THREAD_SINGLE);
  if (mpilift::rt::tracing())
    recordPlainCall(FunctionId::Init, __builtin_return_address(0), Begin);
  return RC;
}

extern "C" MPILIFT_EXPORT int MPI_Init_thread(int *argc, char ***argv,
                                              int required, int *provided) {
  uint64_t Begin = mpilift::rt::timestamp();
  int RC = PMPI_Init_thread(argc, argv, required, provided);
  if (RC == MPI_SUCCESS)
    mpilift::rt::initialize(*provided);
  if (mpilift::rt::tracing())
    recordPlainCall(FunctionId::Init_thread, __builtin_return_address(0),
                    Begin);
  return RC;
}

extern "C" MPILIFT_EXPORT int MPI_Finalize(void) {
  if (mpilift::rt::tracing())
    recordPlainCall(FunctionId::Finalize, __builtin_return_address(0),
                    mpilift::rt::timestamp());
  mpilift::rt::finalize();
  return PMPI_Finalize();
}

extern "C" MPILIFT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  if (mpilift::rt::tracing())
    recordPlainCall(FunctionId::Abort, __builtin_return_address(0),
                    mpilift::rt::timestamp(), errorcode);
  mpilift::rt::flushAfterAbnormalEnd(mpilift::rawtrace::EndReason::Abort,
                                     errorcode);
  return PMPI_Abort(comm, errorcode);
}

extern "C" MPILIFT_EXPORT int MPI_Pcontrol(const int level, ...) {
  uint64_t Begin = mpilift::rt::timestamp();
  if (level == 0 && mpilift::rt::tracing())
    recordPlainCall(FunctionId::Pcontrol, __builtin_return_address(0), Begin,
                    level);
  mpilift::rt::setPaused(level == 0);
  if (level != 0 && mpilift::rt::tracing())
    recordPlainCall(FunctionId::Pcontrol, __builtin_return_address(0), Begin,
                    level);
  return PMPI_Pcontrol(level);
}

extern "C" MPILIFT_EXPORT int MPI_Comm_free(MPI_Comm *comm) {
  if (!mpilift::rt::active())
    return PMPI_Comm_free(comm);
  MPI_Comm Freed = *comm;
  uint64_t Begin = mpilift::rt::timestamp();
  bool Record = mpilift::rt::tracing();
  uint32_t Id = Record ? mpilift::rt::commId(Freed) : 0;
  int RC = PMPI_Comm_free(comm);
  // Always forget: the handle may be reused for a different communicator.
  mpilift::rt::forgetComm(Freed);
  if (Record) {
    CallInfo CI(FunctionId::Comm_free, __builtin_return_address(0));
    CI.Begin = Begin;
    mpilift::rawtrace::Event E =
        mpilift::rt::callRecord(CI, mpilift::rt::timestamp());
    E.Comm = Id;
    mpilift::rt::pushEvent(E);
  }
  return RC;
}
