//===- TraceReader.cpp - Read an OTF2 archive into per-rank events --------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads global definitions (strings, locations, regions, groups,
/// communicators, attributes), then every location's events. An MPI call is
/// the span between the Enter and Leave of a region named like an MPI
/// function; the OTF2 MPI records inside it, and mpilift's attributes on
/// them, fill in the call. Locations of one process are merged into one rank
/// in time order, and completions are linked to the calls that posted them.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Trace/Trace.h"

#include "mpilift/TraceRuntime/Convert.h"
#include "mpilift/TraceRuntime/TraceFormat.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>

namespace mpilift {
namespace trace {
namespace {

namespace tf = traceformat;

//===-- OTF2 error capture
//--------------------------------------------------===//

/// OTF2 prints its errors to stderr by default; collect them instead so the
/// caller gets one message that names the file. OTF2 has one error callback
/// for the whole process, and readers may run on several threads at once
/// (`detect --jobs`): the callback is installed while any capture lives,
/// and gives each error to the capture of the thread it happens on.
class ErrorCapture {
public:
  std::string First;

  ErrorCapture() : Outer(Current) {
    Current = this;
    std::lock_guard<std::mutex> Guard(Installed);
    if (Captures++ == 0)
      Previous = OTF2_Error_RegisterCallback(callback, nullptr);
  }
  ~ErrorCapture() {
    Current = Outer;
    std::lock_guard<std::mutex> Guard(Installed);
    if (--Captures == 0)
      OTF2_Error_RegisterCallback(Previous, nullptr);
  }
  ErrorCapture(const ErrorCapture &) = delete;
  ErrorCapture &operator=(const ErrorCapture &) = delete;

private:
  static OTF2_ErrorCode callback(void *, const char *, uint64_t, const char *,
                                 OTF2_ErrorCode Code, const char *Format,
                                 va_list Args) {
    char Buffer[512];
    vsnprintf(Buffer, sizeof(Buffer), Format, Args);
    if (!Current) // OTF2 used on a thread that reads no trace.
      fprintf(stderr, "OTF2: %s\n", Buffer);
    else if (Current->First.empty())
      Current->First = Buffer;
    return Code;
  }

  ErrorCapture *Outer;
  static thread_local ErrorCapture *Current;
  static std::mutex Installed;
  static unsigned Captures;
  static OTF2_ErrorCallback Previous;
};

thread_local ErrorCapture *ErrorCapture::Current = nullptr;
std::mutex ErrorCapture::Installed;
unsigned ErrorCapture::Captures = 0;
OTF2_ErrorCallback ErrorCapture::Previous = nullptr;

//===-- Definitions
//---------------------------------------------------------===//

struct GroupDef {
  OTF2_GroupType Type;
  std::vector<uint64_t> Members;
};

struct CommDef {
  uint32_t Name = 0;
  OTF2_GroupRef GroupA = OTF2_UNDEFINED_GROUP;
  OTF2_GroupRef GroupB = OTF2_UNDEFINED_GROUP; ///< Intercommunicators.
  OTF2_CommRef Parent = OTF2_UNDEFINED_COMM;
  bool IsInter = false;
};

struct Definitions {
  std::map<uint32_t, std::string> Strings;
  std::map<uint64_t, OTF2_LocationGroupRef> LocationGroupOf;
  std::map<uint64_t, OTF2_LocationType> LocationType;
  /// What the definitions say each location recorded; OTF2 writes no event
  /// file for a location without events (a rank killed before it wrote).
  std::map<uint64_t, uint64_t> EventCount;
  std::map<uint32_t, OTF2_LocationGroupType> LocationGroupType;
  std::map<uint32_t, const mpi::FunctionInfo *> RegionFunction;
  std::map<uint32_t, GroupDef> Groups;
  std::map<uint32_t, CommDef> Comms;
  std::map<uint32_t, tf::Attribute> Attributes;
  std::map<uint32_t, tf::Parameter> Parameters;
  uint64_t TimerResolution = 1000000000ull;
  uint64_t GlobalOffset = 0;

  std::string string(uint32_t Ref) const {
    auto It = Strings.find(Ref);
    return It == Strings.end() ? std::string() : It->second;
  }
};

OTF2_CallbackCode onString(void *D, OTF2_StringRef Self, const char *S) {
  static_cast<Definitions *>(D)->Strings[Self] = S ? S : "";
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onClock(void *D, uint64_t Resolution, uint64_t Offset,
                          uint64_t, uint64_t) {
  auto *Defs = static_cast<Definitions *>(D);
  Defs->TimerResolution = Resolution ? Resolution : 1;
  Defs->GlobalOffset = Offset;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onLocationGroup(void *D, OTF2_LocationGroupRef Self,
                                  OTF2_StringRef, OTF2_LocationGroupType Type,
                                  OTF2_SystemTreeNodeRef,
                                  OTF2_LocationGroupRef) {
  static_cast<Definitions *>(D)->LocationGroupType[Self] = Type;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onLocation(void *D, OTF2_LocationRef Self, OTF2_StringRef,
                             OTF2_LocationType Type, uint64_t NumEvents,
                             OTF2_LocationGroupRef Group) {
  auto *Defs = static_cast<Definitions *>(D);
  Defs->LocationGroupOf[Self] = Group;
  Defs->LocationType[Self] = Type;
  Defs->EventCount[Self] = NumEvents;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onRegion(void *D, OTF2_RegionRef Self, OTF2_StringRef Name,
                           OTF2_StringRef, OTF2_StringRef, OTF2_RegionRole,
                           OTF2_Paradigm, OTF2_RegionFlag, OTF2_StringRef,
                           uint32_t, uint32_t) {
  auto *Defs = static_cast<Definitions *>(D);
  Defs->RegionFunction[Self] = mpi::lookup(Defs->string(Name));
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onGroup(void *D, OTF2_GroupRef Self, OTF2_StringRef,
                          OTF2_GroupType Type, OTF2_Paradigm, OTF2_GroupFlag,
                          uint32_t N, const uint64_t *Members) {
  static_cast<Definitions *>(D)->Groups[Self] = {
      Type, std::vector<uint64_t>(Members, Members + N)};
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onComm(void *D, OTF2_CommRef Self, OTF2_StringRef Name,
                         OTF2_GroupRef Group, OTF2_CommRef Parent,
                         OTF2_CommFlag) {
  CommDef C;
  C.Name = Name;
  C.GroupA = Group;
  C.Parent = Parent;
  static_cast<Definitions *>(D)->Comms[Self] = C;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onInterComm(void *D, OTF2_CommRef Self, OTF2_StringRef Name,
                              OTF2_GroupRef A, OTF2_GroupRef B,
                              OTF2_CommRef Common, OTF2_CommFlag) {
  CommDef C;
  C.Name = Name;
  C.GroupA = A;
  C.GroupB = B;
  C.Parent = Common;
  C.IsInter = true;
  static_cast<Definitions *>(D)->Comms[Self] = C;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onAttribute(void *D, OTF2_AttributeRef Self,
                              OTF2_StringRef Name, OTF2_StringRef, OTF2_Type) {
  auto *Defs = static_cast<Definitions *>(D);
  std::string N = Defs->string(Name);
  for (unsigned A = 0; A < tf::NumAttributes; ++A)
    if (N == tf::attributeName(tf::Attribute(A)))
      Defs->Attributes[Self] = tf::Attribute(A);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onParameterDef(void *D, OTF2_ParameterRef Self,
                                 OTF2_StringRef Name, OTF2_ParameterType) {
  auto *Defs = static_cast<Definitions *>(D);
  std::string N = Defs->string(Name);
  for (unsigned P = 0; P < tf::NumParameters; ++P)
    if (N == tf::parameterName(tf::Parameter(P)))
      Defs->Parameters[Self] = tf::Parameter(P);
  return OTF2_CALLBACK_SUCCESS;
}

//===-- Events
//--------------------------------------------------------------===//

/// The facts mpilift attributes carry, read from one attribute list (one
/// per event: no allocation).
struct Attrs {
  uint64_t Values[tf::NumAttributes];
  uint32_t Present = 0; ///< Bit A: attribute A is in the list.
  static_assert(tf::NumAttributes <= 32, "Present holds a bit each");

  void set(tf::Attribute A, uint64_t V) {
    Values[A] = V;
    Present |= 1u << A;
  }
  bool has(tf::Attribute A) const { return Present & (1u << A); }
  uint64_t get(tf::Attribute A, uint64_t Default = 0) const {
    return has(A) ? Values[A] : Default;
  }
  int32_t getInt(tf::Attribute A, int32_t Default) const {
    return has(A) ? static_cast<int32_t>(get(A)) : Default;
  }
};

/// One location being read.
struct LocationState {
  std::vector<Event> Events;
  std::vector<RequestRecord> Requests;
  std::vector<EventLayout> Layouts;
  std::vector<LayoutRun> LayoutRuns;
  /// The layout values read so far inside the current call, by
  /// tf::Parameter: offset and length pairs.
  std::vector<uint64_t> LayoutValues[tf::NumParameters];
  bool InCall = false;
  Event Current;
  unsigned ForeignDepth = 0; ///< Nesting of non-MPI regions inside a call.
  uint16_t Thread = 0;
  int Rank = 0;
};

class Reader {
public:
  Reader(Definitions &Defs, Trace &T) : Defs(Defs), T(T) {}

  Attrs attributes(OTF2_AttributeList *List);
  uint64_t time(OTF2_TimeStamp Ts) const;
  int32_t worldRank(uint32_t Comm, uint32_t CommRank, int Self) const;
  uint32_t commIndex(OTF2_CommRef C) const {
    auto It = CommIndex.find(C);
    return It == CommIndex.end() ? NoComm : It->second;
  }
  uint32_t siteIndex(const Attrs &A);
  /// The mpilift parameter \p Param is, if any.
  std::optional<tf::Parameter> parameter(OTF2_ParameterRef Param) const {
    auto It = Defs.Parameters.find(Param);
    if (It == Defs.Parameters.end())
      return std::nullopt;
    return It->second;
  }
  /// Indexes the attribute definitions by reference (after the global
  /// definitions are read): every event's attributes are looked up.
  void indexAttributes() {
    for (const auto &[Ref, A] : Defs.Attributes) {
      if (Ref >= MaxAttributeRef)
        continue; // Not written by mpilift, which numbers them from 0.
      if (Ref >= AttributeOf.size())
        AttributeOf.resize(size_t(Ref) + 1, tf::NumAttributes);
      AttributeOf[Ref] = A;
    }
  }
  /// The call an MPI record belongs to, or a new call if it stands alone.
  Event &callFor(LocationState &L, mpi::FunctionId Standalone, uint64_t Time);
  void finishCall(LocationState &L, uint64_t Time);

  Definitions &Defs;
  Trace &T;
  std::map<uint32_t, uint32_t> CommIndex;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> SiteIndex;
  std::map<uint32_t, uint32_t> ModuleIndex;
  static constexpr uint32_t MaxAttributeRef = 1u << 16;
  /// Each attribute reference's mpilift attribute; NumAttributes for none.
  std::vector<tf::Attribute> AttributeOf;
  LocationState *Current = nullptr;
  /// The call sites the rank being read used, in the order it first used
  /// them, and for each site the last rank that used it (plus one).
  std::vector<uint32_t> RankSites;
  std::vector<uint32_t> LastUser;
};

Attrs Reader::attributes(OTF2_AttributeList *List) {
  Attrs A;
  if (!List)
    return A;
  uint32_t N = OTF2_AttributeList_GetNumberOfElements(List);
  for (uint32_t I = 0; I < N; ++I) {
    OTF2_AttributeRef Ref;
    OTF2_Type Type;
    OTF2_AttributeValue Value;
    if (OTF2_AttributeList_GetAttributeByIndex(List, I, &Ref, &Type, &Value) !=
        OTF2_SUCCESS)
      continue;
    if (Ref >= AttributeOf.size() || AttributeOf[Ref] == tf::NumAttributes)
      continue;
    uint64_t V = 0;
    switch (Type) {
    case OTF2_TYPE_UINT64:
      V = Value.uint64;
      break;
    case OTF2_TYPE_UINT32:
      V = Value.uint32;
      break;
    case OTF2_TYPE_INT32:
      V = static_cast<uint64_t>(static_cast<int64_t>(Value.int32));
      break;
    case OTF2_TYPE_STRING:
      V = Value.stringRef;
      break;
    case OTF2_TYPE_COMM:
      V = Value.commRef;
      break;
    default:
      continue;
    }
    A.set(AttributeOf[Ref], V);
  }
  return A;
}

uint64_t Reader::time(OTF2_TimeStamp Ts) const {
  uint64_t Rel = Ts >= Defs.GlobalOffset ? Ts - Defs.GlobalOffset : 0;
  if (Defs.TimerResolution == 1000000000ull)
    return Rel;
  return static_cast<uint64_t>(static_cast<long double>(Rel) * 1e9L /
                               Defs.TimerResolution);
}

int32_t Reader::worldRank(uint32_t Comm, uint32_t CommRank, int Self) const {
  if (Comm == NoComm || Comm >= T.Comms.size())
    return NoPeer;
  const Communicator &C = T.Comms[Comm];
  const std::vector<int32_t> *Group = &C.Members;
  if (C.IsInter) // Peers are in the group this rank is not in.
    Group = std::count(C.Members.begin(), C.Members.end(), Self) ? &C.Remote
                                                                 : &C.Members;
  if (CommRank >= Group->size())
    return NoPeer;
  return (*Group)[CommRank];
}

uint32_t Reader::siteIndex(const Attrs &A) {
  if (!A.has(tf::AttrCallSiteOffset))
    return NoSite;
  uint32_t Module = NoModule;
  if (A.has(tf::AttrCallSiteModule)) {
    uint32_t Str = static_cast<uint32_t>(A.get(tf::AttrCallSiteModule));
    auto It = ModuleIndex.find(Str);
    if (It == ModuleIndex.end()) {
      It = ModuleIndex.emplace(Str, T.Modules.size()).first;
      T.Modules.push_back(Defs.string(Str));
    }
    Module = It->second;
  }
  uint64_t Offset = A.get(tf::AttrCallSiteOffset);
  auto Key = std::make_pair(Module, Offset);
  auto It = SiteIndex.find(Key);
  if (It == SiteIndex.end()) {
    It = SiteIndex.emplace(Key, T.Sites.size()).first;
    T.Sites.push_back({Module, Offset});
    LastUser.push_back(0);
  }
  uint32_t Site = It->second;
  uint32_t User = static_cast<uint32_t>(Current->Rank) + 1;
  if (LastUser[Site] != User) {
    LastUser[Site] = User;
    RankSites.push_back(Site);
  }
  return Site;
}

Event &Reader::callFor(LocationState &L, mpi::FunctionId Standalone,
                       uint64_t Time) {
  if (!L.InCall) {
    for (std::vector<uint64_t> &Values : L.LayoutValues)
      Values.clear();
    L.Current = Event();
    L.Current.Function = Standalone;
    L.Current.Begin = L.Current.End = Time;
    L.Current.Thread = L.Thread;
    L.InCall = true;
    L.ForeignDepth = 0;
  }
  return L.Current;
}

/// The layout values \p L read inside its current call as the event's
/// layout.
void keepLayout(LocationState &L) {
  EventLayout Layout;
  Layout.First = static_cast<uint32_t>(L.LayoutRuns.size());
  uint32_t *Counts[tf::NumParameters] = {&Layout.SendRuns, &Layout.RecvRuns};
  for (unsigned P = 0; P < tf::NumParameters; ++P) {
    const std::vector<uint64_t> &Values = L.LayoutValues[P];
    for (size_t I = 0; I + 1 < Values.size(); I += 2)
      L.LayoutRuns.push_back({static_cast<int64_t>(Values[I]), Values[I + 1]});
    *Counts[P] = static_cast<uint32_t>(Values.size() / 2);
  }
  if (Layout.SendRuns + Layout.RecvRuns == 0)
    return;
  L.Layouts.push_back(Layout);
  L.Current.Layout = static_cast<uint32_t>(L.Layouts.size());
}

void Reader::finishCall(LocationState &L, uint64_t Time) {
  keepLayout(L);
  L.Current.End = std::max(Time, L.Current.Begin);
  L.Events.push_back(L.Current);
  L.InCall = false;
}

Reader *readerOf(void *Data) { return static_cast<Reader *>(Data); }

OTF2_CallbackCode onEnter(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                          void *Data, OTF2_AttributeList *List,
                          OTF2_RegionRef Region) {
  Reader &R = *readerOf(Data);
  LocationState &L = *R.Current;
  auto It = R.Defs.RegionFunction.find(Region);
  const mpi::FunctionInfo *F =
      It == R.Defs.RegionFunction.end() ? nullptr : It->second;
  if (L.InCall || !F) {
    // A region inside an MPI call (an MPI library's internals) or a user
    // region outside one: not an MPI call of the program.
    if (L.InCall)
      ++L.ForeignDepth;
    return OTF2_CALLBACK_SUCCESS;
  }
  Attrs A = R.attributes(List);
  Event &E = R.callFor(L, F->Id, R.time(Ts));
  E.Site = R.siteIndex(A);
  E.Buffer = A.get(tf::AttrBuffer);
  E.RecvBuffer = A.get(tf::AttrRecvBuffer);
  E.Flags = static_cast<uint32_t>(A.get(tf::AttrFlags));
  if (A.has(tf::AttrComm))
    E.Comm = R.commIndex(static_cast<uint32_t>(A.get(tf::AttrComm)));
  if (A.has(tf::AttrNewComm))
    E.NewComm = R.commIndex(static_cast<uint32_t>(A.get(tf::AttrNewComm)));
  if (A.has(tf::AttrTag))
    E.Tag = A.getInt(tf::AttrTag, NoTag);
  if (A.has(tf::AttrBytes))
    E.Bytes = A.get(tf::AttrBytes);
  if (A.has(tf::AttrRecvBytes))
    E.RecvBytes = A.get(tf::AttrRecvBytes);
  if (A.has(tf::AttrRequest))
    E.Request = A.get(tf::AttrRequest);
  if (A.has(tf::AttrPeer)) {
    // A collective's peer attribute is its root.
    int32_t P = A.getInt(tf::AttrPeer, NoPeer);
    int32_t &Target = mpi::isCollective(F->TheFamily) ? E.Root : E.Peer;
    Target = P >= 0 ? R.worldRank(E.Comm == NoComm ? 0 : E.Comm, P, L.Rank) : P;
  }
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onParameter(OTF2_LocationRef, OTF2_TimeStamp, uint64_t,
                              void *Data, OTF2_AttributeList *,
                              OTF2_ParameterRef Param, uint64_t Value) {
  Reader &R = *readerOf(Data);
  LocationState &L = *R.Current;
  if (!L.InCall || L.ForeignDepth)
    return OTF2_CALLBACK_SUCCESS;
  if (std::optional<tf::Parameter> P = R.parameter(Param))
    L.LayoutValues[*P].push_back(Value);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onLeave(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                          void *Data, OTF2_AttributeList *, OTF2_RegionRef) {
  Reader &R = *readerOf(Data);
  LocationState &L = *R.Current;
  if (!L.InCall)
    return OTF2_CALLBACK_SUCCESS;
  if (L.ForeignDepth) {
    --L.ForeignDepth;
    return OTF2_CALLBACK_SUCCESS;
  }
  R.finishCall(L, R.time(Ts));
  return OTF2_CALLBACK_SUCCESS;
}

void applyHash(const Attrs &A, bool &Has, uint64_t &Hash) {
  if (A.has(tf::AttrPayloadHash)) {
    Has = true;
    Hash = A.get(tf::AttrPayloadHash);
  }
}

/// Appends a request record to call \p E of location \p L.
RequestRecord &addRequestRecord(LocationState &L, Event &E, uint64_t Request) {
  if (E.NumRequestRecords == 0)
    E.FirstRequestRecord = static_cast<uint32_t>(L.Requests.size());
  ++E.NumRequestRecords;
  L.Requests.emplace_back();
  L.Requests.back().Request = Request;
  return L.Requests.back();
}

/// Runs \p Fill(Reader, Location, Call) on the call an MPI record belongs
/// to: the one whose region is open, or, for a record outside any MPI region
/// (some tracers write those), a call of \p Standalone made for it alone.
template <typename Fn>
OTF2_CallbackCode onRecord(void *Data, OTF2_TimeStamp Ts,
                           mpi::FunctionId Standalone, Fn Fill) {
  Reader &R = *readerOf(Data);
  LocationState &L = *R.Current;
  bool Alone = !L.InCall;
  uint64_t Time = R.time(Ts);
  Fill(R, L, R.callFor(L, Standalone, Time));
  if (Alone)
    R.finishCall(L, Time);
  return OTF2_CALLBACK_SUCCESS;
}

/// Whether \p E starts persistent requests: the MPI records inside it
/// become its started request records.
bool isStart(const Event &E) {
  return mpi::familyOf(E.Function) == mpi::Family::Start;
}

void addStarted(Reader &R, LocationState &L, Event &E, OTF2_AttributeList *List,
                uint64_t Request) {
  RequestRecord &Rec = addRequestRecord(L, E, Request);
  Rec.Started = true;
  Rec.Persistent = R.attributes(List).get(tf::AttrRequest);
}

/// The message of a send or receive record: communicator, peer (as a world
/// rank), tag, size and payload hash.
void setMessage(Reader &R, const LocationState &L, Event &E, OTF2_CommRef Comm,
                uint32_t Peer, uint32_t Tag, uint64_t Bytes, const Attrs &A) {
  E.Comm = R.commIndex(Comm);
  E.Peer = R.worldRank(E.Comm, Peer, L.Rank);
  E.Tag = static_cast<int32_t>(Tag);
  E.Bytes = Bytes;
  applyHash(A, E.HasHash, E.Hash);
}

OTF2_CallbackCode onSend(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                         void *Data, OTF2_AttributeList *List, uint32_t Peer,
                         OTF2_CommRef Comm, uint32_t Tag, uint64_t Bytes) {
  return onRecord(Data, Ts, mpi::FunctionId::Send,
                  [&](Reader &R, LocationState &L, Event &E) {
                    setMessage(R, L, E, Comm, Peer, Tag, Bytes,
                               R.attributes(List));
                  });
}

OTF2_CallbackCode onIsend(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                          void *Data, OTF2_AttributeList *List, uint32_t Peer,
                          OTF2_CommRef Comm, uint32_t Tag, uint64_t Bytes,
                          uint64_t Request) {
  return onRecord(Data, Ts, mpi::FunctionId::Isend,
                  [&](Reader &R, LocationState &L, Event &E) {
                    if (isStart(E))
                      return addStarted(R, L, E, List, Request);
                    setMessage(R, L, E, Comm, Peer, Tag, Bytes,
                               R.attributes(List));
                    E.Request = Request;
                  });
}

OTF2_CallbackCode onIrecvRequest(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                                 void *Data, OTF2_AttributeList *List,
                                 uint64_t Request) {
  return onRecord(Data, Ts, mpi::FunctionId::Irecv,
                  [&](Reader &R, LocationState &L, Event &E) {
                    if (isStart(E))
                      return addStarted(R, L, E, List, Request);
                    E.Request = Request;
                    Attrs A = R.attributes(List);
                    if (A.has(tf::AttrComm))
                      E.Comm = R.commIndex(
                          static_cast<uint32_t>(A.get(tf::AttrComm)));
                    if (A.has(tf::AttrTag))
                      E.Tag = A.getInt(tf::AttrTag, NoTag);
                    if (A.has(tf::AttrBytes))
                      E.Bytes = A.get(tf::AttrBytes);
                    if (A.has(tf::AttrPeer)) {
                      int32_t P = A.getInt(tf::AttrPeer, NoPeer);
                      E.Peer = P >= 0 ? R.worldRank(E.Comm, P, L.Rank) : P;
                    }
                  });
}

OTF2_CallbackCode onRecv(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                         void *Data, OTF2_AttributeList *List, uint32_t Peer,
                         OTF2_CommRef Comm, uint32_t Tag, uint64_t Bytes) {
  return onRecord(Data, Ts, mpi::FunctionId::Recv,
                  [&](Reader &R, LocationState &L, Event &E) {
                    Attrs A = R.attributes(List);
                    if (mpi::familyOf(E.Function) == mpi::Family::SendRecv) {
                      // The receive half of MPI_Sendrecv.
                      E.RecvPeer = R.worldRank(R.commIndex(Comm), Peer, L.Rank);
                      E.RecvTag = static_cast<int32_t>(Tag);
                      E.RecvBytes = Bytes;
                      applyHash(A, E.HasRecvHash, E.RecvHash);
                      return;
                    }
                    setMessage(R, L, E, Comm, Peer, Tag, Bytes, A);
                  });
}

// Completions belong to the enclosing wait or test.

OTF2_CallbackCode onIrecv(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                          void *Data, OTF2_AttributeList *List, uint32_t Peer,
                          OTF2_CommRef Comm, uint32_t Tag, uint64_t Bytes,
                          uint64_t Request) {
  return onRecord(Data, Ts, mpi::FunctionId::Wait,
                  [&](Reader &R, LocationState &L, Event &E) {
                    RequestRecord &Rec = addRequestRecord(L, E, Request);
                    Rec.Peer = R.worldRank(R.commIndex(Comm), Peer, L.Rank);
                    Rec.Tag = static_cast<int32_t>(Tag);
                    Rec.Bytes = Bytes;
                    applyHash(R.attributes(List), Rec.HasHash, Rec.Hash);
                  });
}

OTF2_CallbackCode onIsendComplete(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                                  void *Data, OTF2_AttributeList *,
                                  uint64_t Request) {
  return onRecord(Data, Ts, mpi::FunctionId::Wait,
                  [&](Reader &, LocationState &L, Event &E) {
                    addRequestRecord(L, E, Request);
                  });
}

OTF2_CallbackCode onCancelled(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                              void *Data, OTF2_AttributeList *,
                              uint64_t Request) {
  return onRecord(Data, Ts, mpi::FunctionId::Wait,
                  [&](Reader &, LocationState &L, Event &E) {
                    addRequestRecord(L, E, Request).Cancelled = true;
                  });
}

OTF2_CallbackCode onCollectiveComplete(OTF2_LocationRef, OTF2_TimeStamp Ts,
                                       uint64_t, void *Data,
                                       OTF2_AttributeList *, OTF2_CollectiveOp,
                                       OTF2_CommRef, uint32_t, uint64_t,
                                       uint64_t Received, uint64_t Request) {
  return onRecord(Data, Ts, mpi::FunctionId::Wait,
                  [&](Reader &, LocationState &L, Event &E) {
                    addRequestRecord(L, E, Request).Bytes = Received;
                  });
}

OTF2_CallbackCode onCollectiveEnd(OTF2_LocationRef, OTF2_TimeStamp Ts, uint64_t,
                                  void *Data, OTF2_AttributeList *,
                                  OTF2_CollectiveOp, OTF2_CommRef Comm,
                                  uint32_t Root, uint64_t Sent,
                                  uint64_t Received) {
  return onRecord(Data, Ts, mpi::FunctionId::Barrier,
                  [&](Reader &R, LocationState &L, Event &E) {
                    E.Comm = R.commIndex(Comm);
                    if (Root != OTF2_UNDEFINED_UINT32)
                      E.Root = R.worldRank(E.Comm, Root, L.Rank);
                    E.Bytes = Sent;
                    E.RecvBytes = Received;
                  });
}

OTF2_CallbackCode onCollectiveRequest(OTF2_LocationRef, OTF2_TimeStamp Ts,
                                      uint64_t, void *Data,
                                      OTF2_AttributeList *, uint64_t Request) {
  return onRecord(
      Data, Ts, mpi::FunctionId::Ibarrier,
      [&](Reader &, LocationState &, Event &E) { E.Request = Request; });
}

//===-- Putting it together
//-------------------------------------------------===//

llvm::Error archiveError(llvm::StringRef Path, const std::string &Detail) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("'{0}': {1}", Path, Detail).str());
}

} // namespace

/// Resolves DIR/traces.otf2 (or an anchor file given directly); converts
/// spill files left by an abnormal end first.
llvm::Expected<std::string> prepareTrace(llvm::StringRef Input,
                                         bool *Recovered) {
  if (!llvm::sys::fs::exists(Input))
    return archiveError(Input, "no such file or directory");
  if (!llvm::sys::fs::is_directory(Input)) {
    if (Input.ends_with(".otf2"))
      return Input.str();
    return archiveError(Input, "not a trace directory or OTF2 anchor file");
  }
  llvm::SmallString<256> Anchor(Input);
  llvm::sys::path::append(Anchor, "traces.otf2");
  if (tracert::hasSpillFiles(Input.str())) {
    tracert::ConvertResult C = tracert::convertSpillFiles(Input.str());
    if (!C.Ok)
      return archiveError(Input, "the run left unconverted spill files and "
                                 "converting them failed: " +
                                     C.Error);
    if (Recovered)
      *Recovered = true;
  }
  if (!llvm::sys::fs::exists(Anchor))
    return archiveError(Input, "not a trace directory (no traces.otf2 and no "
                               "spill files)");
  return std::string(Anchor);
}

namespace {

void readProperties(OTF2_Reader *R, Trace &T) {
  uint32_t N = 0;
  char **Names = nullptr;
  if (OTF2_Reader_GetPropertyNames(R, &N, &Names) != OTF2_SUCCESS)
    return;
  for (uint32_t I = 0; I < N; ++I) {
    char *Value = nullptr;
    if (OTF2_Reader_GetProperty(R, Names[I], &Value) != OTF2_SUCCESS)
      continue;
    std::string Name = Names[I], V = Value ? Value : "";
    free(Value);
    if (Name == tf::PropertyComplete) {
      T.Complete = V == "true";
      T.FromMpilift = true;
    } else if (Name == tf::PropertyPayloadHashes) {
      T.HasPayloadHashes = V == "true";
    } else if (Name == tf::PropertyRankStatus) {
      T.RankStatus = V;
    }
  }
  free(Names);
}

/// Builds Trace::Comms and the rank of every location from the definitions.
llvm::Error buildCommunicators(const Definitions &Defs, Reader &R,
                               std::map<uint64_t, int> &RankOfLocation,
                               llvm::StringRef Path) {
  Trace &T = R.T;
  // The COMM_LOCATIONS group lists the locations of world ranks in order.
  const GroupDef *World = nullptr;
  for (const auto &[Id, G] : Defs.Groups)
    if (G.Type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
      World = &G;
  std::map<OTF2_LocationGroupRef, int> RankOfGroup;
  if (World) {
    for (size_t Rank = 0; Rank < World->Members.size(); ++Rank) {
      auto It = Defs.LocationGroupOf.find(World->Members[Rank]);
      if (It != Defs.LocationGroupOf.end())
        RankOfGroup[It->second] = static_cast<int>(Rank);
    }
  } else {
    int Next = 0; // No MPI groups: number processes in definition order.
    for (const auto &[Group, Type] : Defs.LocationGroupType)
      if (Type == OTF2_LOCATION_GROUP_TYPE_PROCESS)
        RankOfGroup[Group] = Next++;
  }
  for (const auto &[Loc, Group] : Defs.LocationGroupOf) {
    auto It = RankOfGroup.find(Group);
    if (It != RankOfGroup.end())
      RankOfLocation[Loc] = It->second;
  }
  if (RankOfLocation.empty())
    return archiveError(Path, "no MPI process locations in the archive");
  // The world is as large as its group says, even if ranks are missing.
  int Size = World ? static_cast<int>(World->Members.size()) : 0;
  for (const auto &[Loc, Rank] : RankOfLocation)
    Size = std::max(Size, Rank + 1);
  T.WorldSize = Size;

  auto membersOf = [&](OTF2_GroupRef G) {
    std::vector<int32_t> M;
    auto It = Defs.Groups.find(G);
    if (It == Defs.Groups.end())
      return M;
    if (It->second.Type == OTF2_GROUP_TYPE_COMM_SELF)
      return M; // Resolved per rank: there is only the rank itself.
    for (uint64_t Member : It->second.Members)
      M.push_back(static_cast<int32_t>(Member));
    return M;
  };
  for (const auto &[Id, C] : Defs.Comms) {
    R.CommIndex[Id] = static_cast<uint32_t>(T.Comms.size());
    Communicator Out;
    Out.Name = Defs.string(C.Name);
    Out.Members = membersOf(C.GroupA);
    Out.Remote = C.IsInter ? membersOf(C.GroupB) : std::vector<int32_t>();
    Out.IsInter = C.IsInter;
    T.Comms.push_back(std::move(Out));
  }
  for (const auto &[Id, C] : Defs.Comms)
    if (C.Parent != OTF2_UNDEFINED_COMM)
      T.Comms[R.CommIndex[Id]].Parent = R.commIndex(C.Parent);
  return llvm::Error::success();
}

/// Whether the events of location \p L are already what a rank's events
/// must be: in time order, with their request records in the same order.
/// (A rank of one thread, as most are: its events are taken as they are.)
bool inRankOrder(const LocationState &L) {
  uint32_t Records = 0;
  for (size_t I = 0; I < L.Events.size(); ++I) {
    const Event &E = L.Events[I];
    if ((I > 0 && E.Begin < L.Events[I - 1].Begin) ||
        E.FirstRequestRecord != Records)
      return false;
    Records += E.NumRequestRecords;
  }
  return Records == L.Requests.size();
}

/// Merges \p Locations into \p Out in time order (by thread at a tie),
/// each event's request records with it.
void mergeLocations(RankTrace &Out, std::vector<LocationState *> &Locations) {
  struct Ref {
    uint64_t Begin;
    uint16_t Thread;
    size_t Location, Index;
  };
  std::vector<Ref> Order;
  for (size_t L = 0; L < Locations.size(); ++L)
    for (size_t I = 0; I < Locations[L]->Events.size(); ++I)
      Order.push_back(
          {Locations[L]->Events[I].Begin, Locations[L]->Thread, L, I});
  std::stable_sort(Order.begin(), Order.end(), [](const Ref &A, const Ref &B) {
    return std::tie(A.Begin, A.Thread) < std::tie(B.Begin, B.Thread);
  });
  Out.Events.reserve(Order.size());
  for (const Ref &Ref : Order) {
    LocationState &L = *Locations[Ref.Location];
    Event E = L.Events[Ref.Index];
    uint32_t First = static_cast<uint32_t>(Out.Requests.size());
    for (uint32_t K = 0; K < E.NumRequestRecords; ++K)
      Out.Requests.push_back(L.Requests[E.FirstRequestRecord + K]);
    E.FirstRequestRecord = First;
    if (E.Layout) {
      EventLayout Layout = L.Layouts[E.Layout - 1];
      uint32_t Runs = Layout.SendRuns + Layout.RecvRuns;
      Out.LayoutRuns.insert(Out.LayoutRuns.end(),
                            L.LayoutRuns.begin() + Layout.First,
                            L.LayoutRuns.begin() + Layout.First + Runs);
      Layout.First = static_cast<uint32_t>(Out.LayoutRuns.size() - Runs);
      Out.Layouts.push_back(Layout);
      E.Layout = static_cast<uint32_t>(Out.Layouts.size());
    }
    Out.Events.push_back(E);
  }
}

/// Links each completion and start in \p Out to the event that posted or
/// initialised its request (RequestRecord::PostedBy).
void linkRequests(RankTrace &Out) {
  llvm::DenseMap<uint64_t, uint32_t> PostedBy;
  for (uint32_t Index = 0; Index < Out.Events.size(); ++Index) {
    const Event &E = Out.Events[Index];
    if (E.Request &&
        mpi::info(E.Function).TheFamily != mpi::Family::RequestFree &&
        mpi::info(E.Function).TheFamily != mpi::Family::Cancel)
      PostedBy[E.Request] = Index;
    for (uint32_t K = 0; K < E.NumRequestRecords; ++K) {
      RequestRecord &Rec = Out.Requests[E.FirstRequestRecord + K];
      if (Rec.Started) {
        PostedBy[Rec.Request] = Index; // Its completion links to the start.
        auto Init = PostedBy.find(Rec.Persistent);
        if (Rec.Persistent && Init != PostedBy.end())
          Rec.PostedBy = Init->second;
        continue;
      }
      auto It = PostedBy.find(Rec.Request);
      if (It != PostedBy.end())
        Rec.PostedBy = It->second;
    }
  }
}

/// Merges a rank's locations in time order and links completions to posts.
void finishRank(RankTrace &Out, std::vector<LocationState *> &Locations) {
  if (Locations.size() == 1 && inRankOrder(*Locations[0])) {
    Out.Events = std::move(Locations[0]->Events);
    Out.Requests = std::move(Locations[0]->Requests);
    Out.Layouts = std::move(Locations[0]->Layouts);
    Out.LayoutRuns = std::move(Locations[0]->LayoutRuns);
    Out.Events.shrink_to_fit();
  } else {
    mergeLocations(Out, Locations);
  }
  linkRequests(Out);
  Out.Requests.shrink_to_fit();
}

} // namespace

llvm::Expected<Trace> readTrace(llvm::StringRef Directory, bool *Recovered,
                                RankReadCallback OnRank, RankFilter Wanted) {
  llvm::Expected<std::string> Anchor = prepareTrace(Directory, Recovered);
  if (!Anchor)
    return Anchor.takeError();
  ErrorCapture Errors;
  auto fail = [&](const std::string &What) {
    std::string Detail = What;
    if (!Errors.First.empty())
      Detail += " (" + Errors.First + ")";
    return archiveError(*Anchor, Detail);
  };

  OTF2_Reader *R = OTF2_Reader_Open(Anchor->c_str());
  if (!R)
    return fail("cannot open the OTF2 archive");
  struct Closer {
    OTF2_Reader *R;
    ~Closer() { OTF2_Reader_Close(R); }
  } Close{R};
  OTF2_Reader_SetSerialCollectiveCallbacks(R);

  Trace T;
  T.Directory = Directory.str();
  Definitions Defs;
  Reader Rd(Defs, T);
  readProperties(R, T);

  OTF2_GlobalDefReader *G = OTF2_Reader_GetGlobalDefReader(R);
  if (!G)
    return fail("cannot read the global definitions");
  OTF2_GlobalDefReaderCallbacks *GC = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(GC, onString);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(GC, onClock);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(GC, onLocationGroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(GC, onLocation);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(GC, onRegion);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(GC, onGroup);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(GC, onComm);
  OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(GC, onInterComm);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(GC, onAttribute);
  OTF2_GlobalDefReaderCallbacks_SetParameterCallback(GC, onParameterDef);
  OTF2_GlobalDefReader_SetCallbacks(G, GC, &Defs);
  OTF2_GlobalDefReaderCallbacks_Delete(GC);
  uint64_t NumDefs = 0;
  OTF2_ErrorCode Status = OTF2_Reader_ReadAllGlobalDefinitions(R, G, &NumDefs);
  OTF2_Reader_CloseGlobalDefReader(R, G);
  if (Status != OTF2_SUCCESS)
    return fail("cannot read the global definitions");
  Rd.indexAttributes();

  std::map<uint64_t, int> RankOfLocation;
  if (llvm::Error E = buildCommunicators(Defs, Rd, RankOfLocation, *Anchor))
    return E;

  // Ranks outside the world are read by whoever reads rank 0: their call
  // sites take numbers as the definitions of one reader give them.
  auto isWanted = [&](int Rank) {
    return !Wanted || Wanted(Rank >= 0 && Rank < T.WorldSize ? Rank : 0);
  };
  for (auto It = RankOfLocation.begin(); It != RankOfLocation.end();)
    It = isWanted(It->second) ? std::next(It) : RankOfLocation.erase(It);
  for (const auto &[Loc, Rank] : RankOfLocation)
    OTF2_Reader_SelectLocation(R, Loc);
  bool HaveDefFiles = OTF2_Reader_OpenDefFiles(R) == OTF2_SUCCESS;
  if (OTF2_Reader_OpenEvtFiles(R) != OTF2_SUCCESS)
    return fail("cannot open the event files");
  if (HaveDefFiles) {
    // Local definitions carry the ID mappings of foreign archives.
    for (const auto &[Loc, Rank] : RankOfLocation) {
      OTF2_DefReader *D = OTF2_Reader_GetDefReader(R, Loc);
      if (!D)
        continue;
      uint64_t N = 0;
      OTF2_Reader_ReadAllLocalDefinitions(R, D, &N);
      OTF2_Reader_CloseDefReader(R, D);
    }
    OTF2_Reader_CloseDefFiles(R);
  }

  OTF2_EvtReaderCallbacks *EC = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(EC, onEnter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(EC, onLeave);
  OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(EC, onParameter);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(EC, onSend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(EC, onIsend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(EC, onIsendComplete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(EC, onIrecvRequest);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(EC, onRecv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(EC, onIrecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(EC, onCancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(EC, onCollectiveEnd);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(
      EC, onCollectiveRequest);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(
      EC, onCollectiveComplete);

  // Rank by rank, each rank's locations (threads) in location order; a
  // rank is finished as soon as they are read, so that no event is held
  // twice (as read and as merged) for more than one rank at a time.
  T.Ranks.resize(T.WorldSize);
  for (int Rank = 0; Rank < T.WorldSize; ++Rank)
    T.Ranks[Rank].Rank = Rank;
  std::map<int, std::vector<uint64_t>> LocationsOf;
  for (const auto &[Loc, Rank] : RankOfLocation)
    LocationsOf[Rank].push_back(Loc);
  for (const auto &[Rank, Locations] : LocationsOf) {
    Rd.RankSites.clear();
    std::vector<LocationState> States(Locations.size());
    std::vector<LocationState *> Read;
    for (size_t I = 0; I < Locations.size(); ++I) {
      uint64_t Loc = Locations[I];
      LocationState &L = States[I];
      L.Rank = Rank;
      L.Thread = static_cast<uint16_t>(Loc >> 32);
      Read.push_back(&L);
      OTF2_EvtReader *E = OTF2_Reader_GetEvtReader(R, Loc);
      if (!E && Defs.EventCount.at(Loc) == 0)
        continue; // Nothing recorded, so no event file.
      if (!E) {
        OTF2_EvtReaderCallbacks_Delete(EC);
        return fail("cannot open the events of location " +
                    std::to_string(Loc) + " (rank " + std::to_string(Rank) +
                    ")");
      }
      Rd.Current = &L;
      OTF2_EvtReader_SetCallbacks(E, EC, &Rd);
      uint64_t N = 0;
      OTF2_ErrorCode S = OTF2_Reader_ReadAllLocalEvents(R, E, &N);
      OTF2_Reader_CloseEvtReader(R, E);
      if (S != OTF2_SUCCESS) {
        OTF2_EvtReaderCallbacks_Delete(EC);
        return fail("cannot read the events of rank " + std::to_string(Rank) +
                    " (truncated or corrupt event file)");
      }
      if (L.InCall) // Cut off inside a call (incomplete trace).
        Rd.finishCall(L, L.Current.Begin);
    }
    if (Rank >= 0 && Rank < T.WorldSize) {
      finishRank(T.Ranks[Rank], Read);
      T.Ranks[Rank].SiteOrder = Rd.RankSites;
      if (OnRank)
        OnRank(T, Rank);
    }
  }
  OTF2_EvtReaderCallbacks_Delete(EC);
  OTF2_Reader_CloseEvtFiles(R);
  return T;
}

} // namespace trace
} // namespace mpilift
