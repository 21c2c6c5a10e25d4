//===- ArchiveDefinitions.cpp - What the whole archive defines ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ArchiveDefinitions.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace mpilift {
namespace tracert {

using mpi::CollectiveKind;
using mpi::Family;
using traceformat::Attribute;

namespace {

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

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
// No post-flush callback: a flush while writing leaves no record in the
// events (it would carry a time of its own).
const OTF2_FlushCallbacks FlushCallbacks = {preFlush, nullptr};

/// The chunks of one OTF2 buffer. OTF2 keeps up to 128 MiB of chunks per
/// writer before it writes any; with at most MaxChunks the buffer is written
/// out whenever they are full and its chunks are used again, so a writer
/// touches a few MiB of memory however many events it writes (fresh pages
/// cost a fault each, which dominated the conversion of a rank).
struct ChunkPool {
  static constexpr size_t MaxChunks = 2;
  std::vector<void *> Free, InUse;
};

void *allocateChunk(void *, OTF2_FileType, OTF2_LocationRef, void **PerBuffer,
                    uint64_t Size) {
  auto *Pool = static_cast<ChunkPool *>(*PerBuffer);
  if (!Pool)
    *PerBuffer = Pool = new ChunkPool;
  if (Pool->InUse.size() >= ChunkPool::MaxChunks)
    return nullptr; // OTF2 flushes the buffer and frees its chunks.
  void *Chunk = nullptr;
  if (!Pool->Free.empty()) {
    Chunk = Pool->Free.back();
    Pool->Free.pop_back();
  } else {
    Chunk = malloc(Size);
  }
  if (Chunk)
    Pool->InUse.push_back(Chunk);
  return Chunk;
}

void freeAllChunks(void *, OTF2_FileType, OTF2_LocationRef, void **PerBuffer,
                   bool Final) {
  auto *Pool = static_cast<ChunkPool *>(*PerBuffer);
  if (!Pool)
    return;
  Pool->Free.insert(Pool->Free.end(), Pool->InUse.begin(), Pool->InUse.end());
  Pool->InUse.clear();
  if (!Final)
    return;
  for (void *Chunk : Pool->Free)
    free(Chunk);
  delete Pool;
  *PerBuffer = nullptr;
}
const OTF2_MemoryCallbacks MemoryCallbacks = {allocateChunk, freeAllChunks};

} // namespace

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

void mergeWritten(const std::vector<SpillFile> &Files,
                  const std::vector<RankWritten> &Written,
                  std::vector<GlobalComm> &Comms,
                  std::vector<std::string> &Warnings) {
  for (size_t I = 0; I < Files.size(); ++I) {
    if (!Written[I].ClockUsable)
      Warnings.push_back("rank " + std::to_string(Files[I].Header.Rank) +
                         " has too few clock readings; its times are "
                         "approximate");
    for (const auto &[Comm, Parent] : Written[I].ParentOf)
      if (Comm < Comms.size() && Comms[Comm].Parent == UINT32_MAX)
        Comms[Comm].Parent = Parent;
  }
}

StringTable moduleStrings(const std::vector<SpillFile> &Files) {
  StringTable Strings;
  for (const SpillFile &S : Files)
    for (const Module &M : S.Modules)
      Strings.get(M.Path);
  return Strings;
}

RankStatus rankStatus(const std::vector<SpillFile> &Files, int WorldSize,
                      std::vector<std::string> &Warnings) {
  RankStatus Status;
  Status.Complete = static_cast<int>(Files.size()) == WorldSize;
  std::vector<bool> Present(WorldSize, false);
  for (const SpillFile &S : Files) {
    if (S.TornTail)
      Warnings.push_back("'" + S.Path +
                         "' ends in a torn chunk; the events before it are "
                         "kept");
    if (S.Header.Rank >= 0 && S.Header.Rank < WorldSize)
      Present[S.Header.Rank] = true;
    bool Finalized = S.HasFooter && S.TheFooter.Reason ==
                                        uint32_t(rawtrace::EndReason::Finalize);
    if (!Finalized || S.TornTail || (S.HasFooter && S.TheFooter.DroppedEvents))
      Status.Complete = false;
    Status.Lines += std::to_string(S.Header.Rank) + ": " + endDescription(S);
    if (S.HasFooter && S.TheFooter.DroppedEvents)
      Status.Lines +=
          ", " + std::to_string(S.TheFooter.DroppedEvents) + " events lost";
    Status.Lines += "\n";
  }
  for (int R = 0; R < WorldSize; ++R) {
    if (Present[R])
      continue;
    Warnings.push_back("no spill file for rank " + std::to_string(R));
    Status.Lines += std::to_string(R) + ": missing\n";
  }
  return Status;
}

void writeGlobalDefinitions(OTF2_GlobalDefWriter *G, StringTable &Strings,
                            const std::vector<SpillFile> &Files,
                            const std::vector<RankWritten> &Written,
                            const std::vector<GlobalComm> &Comms,
                            int WorldSize) {
  // The clock spans the earliest to the latest event of any rank.
  uint64_t FirstNs = UINT64_MAX, LastNs = 0, Realtime = 0;
  for (const RankWritten &W : Written) {
    if (W.FirstNs < FirstNs) {
      FirstNs = W.FirstNs;
      Realtime = W.Realtime;
    }
    LastNs = std::max(LastNs, W.LastNs);
  }
  if (FirstNs == UINT64_MAX)
    FirstNs = LastNs = 0;
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
    for (const auto &Entry : Written[&S - Files.data()].EventsPerThread)
      Strings.get("rank " + std::to_string(S.Header.Rank) + " thread " +
                  std::to_string(Entry.first));
  }
  for (unsigned A = 0; A < traceformat::NumAttributes; ++A)
    Strings.get(traceformat::attributeName(Attribute(A)));
  for (unsigned P = 0; P < traceformat::NumParameters; ++P)
    Strings.get(traceformat::parameterName(traceformat::Parameter(P)));
  for (unsigned F = 0; F < mpi::NumFunctions; ++F)
    Strings.get(mpi::info(mpi::FunctionId(F)).Name);
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
    for (const auto &[Thread, Count] : Written[I].EventsPerThread) {
      std::string Name = "rank " + std::to_string(Rank);
      if (Thread != 0)
        Name += " thread " + std::to_string(Thread);
      OTF2_GlobalDefWriter_WriteLocation(
          G, locationOf(Rank, Thread), Strings.get(Name),
          OTF2_LOCATION_TYPE_CPU_THREAD, Count, Rank);
    }
  }
  for (unsigned F = 0; F < mpi::NumFunctions; ++F) {
    const mpi::FunctionInfo &Info = mpi::info(mpi::FunctionId(F));
    OTF2_StringRef Name = Strings.get(Info.Name);
    OTF2_GlobalDefWriter_WriteRegion(
        G, regionOf(mpi::FunctionId(F)), Name, Name, Empty, regionRole(Info),
        OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, Empty, 0, 0);
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
  for (unsigned P = 0; P < traceformat::NumParameters; ++P)
    OTF2_GlobalDefWriter_WriteParameter(
        G, P,
        Strings.get(traceformat::parameterName(traceformat::Parameter(P))),
        OTF2_PARAMETER_TYPE_UINT64);

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

OTF2_Archive *createArchive(const std::string &TraceDir) {
  OTF2_Archive *Archive = OTF2_Archive_Open(
      TraceDir.c_str(), rawtrace::ArchiveName, OTF2_FILEMODE_WRITE, 1024 * 1024,
      4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!Archive)
    return nullptr;
  OTF2_Archive_SetFlushCallbacks(Archive, &FlushCallbacks, nullptr);
  OTF2_Archive_SetMemoryCallbacks(Archive, &MemoryCallbacks, nullptr);
  OTF2_Archive_SetCreator(Archive, "mpilift-trace");
  OTF2_Archive_SetDescription(Archive, "MPI calls traced by mpilift");
  return Archive;
}

void setArchiveProperties(OTF2_Archive *Archive, const RankStatus &Status,
                          bool PayloadHashes, int WorldSize) {
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyComplete,
                           Status.Complete ? "true" : "false", true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyFormatVersion,
                           traceformat::FormatVersion, true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyPayloadHashes,
                           PayloadHashes ? "true" : "false", true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyWorldSize,
                           std::to_string(WorldSize).c_str(), true);
  OTF2_Archive_SetProperty(Archive, traceformat::PropertyRankStatus,
                           Status.Lines.c_str(), true);
}

} // namespace tracert
} // namespace mpilift
