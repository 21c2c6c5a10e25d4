//===- ParallelConverter.cpp - Every rank converts its own spill file -----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The conversion at MPI_Finalize. Each member reads its own spill file
/// (pass 1) and sends member 0 what the global definitions need: header,
/// footer, communicators, module paths. Member 0 unifies communicators and
/// numbers the module strings, and sends every member its communicator map
/// and the strings. Then each member writes its own OTF2 locations through
/// OTF2's collective callbacks (pass 2) and reports its event counts, times
/// and communicator parents; member 0 writes the global definitions. The
/// work per member is its own events; member 0 also does the work that is
/// linear in the number of ranks (definitions), as in the serial conversion.
///
/// Whenever a member cannot take part (no readable file, no archive), the
/// parallel attempt is closed on all members and member 0 converts serially,
/// which knows how to skip and report what is broken. If writing fails, the
/// spill files are kept and the error reported, as the serial conversion
/// does.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Dist/Wire.h"
#include "mpilift/TraceRuntime/Convert.h"

#include "ArchiveDefinitions.h"
#include "RankWriter.h"
#include "SpillFile.h"

namespace mpilift {
namespace tracert {
namespace {

using dist::WireReader;
using dist::WireWriter;

//===-- What travels
//-------------------------------------------------------===//

/// Pass 1 of one member, for member 0.
std::string encodeScan(bool Scanned, const std::string &Error,
                       const SpillFile &S) {
  WireWriter W;
  W.put<uint8_t>(Scanned);
  W.putString(Error);
  if (!Scanned)
    return W.bytes();
  W.putString(S.Path);
  W.put(S.Header);
  W.put<uint8_t>(S.HasFooter);
  W.put(S.TheFooter);
  W.put<uint8_t>(S.TornTail);
  W.put(S.EventCount);
  W.put<uint64_t>(S.Comms.size());
  for (const LocalComm &C : S.Comms) {
    W.put(C.Def);
    W.putVector(C.Members);
    W.putVector(C.Remote);
  }
  W.put<uint64_t>(S.Modules.size());
  for (const Module &M : S.Modules)
    W.putString(M.Path);
  return W.bytes();
}

/// Member 0's view of a member's file; false if the member could not read
/// it (\p Error says why) or the bytes are malformed.
bool decodeScan(const std::string &Bytes, SpillFile &S, std::string &Error) {
  WireReader R(Bytes);
  uint8_t Scanned = 0, HasFooter = 0, TornTail = 0;
  if (!R.get(Scanned) || !R.getString(Error) || !Scanned)
    return false;
  uint64_t NumComms = 0, NumModules = 0;
  R.getString(S.Path);
  R.get(S.Header);
  R.get(HasFooter);
  R.get(S.TheFooter);
  R.get(TornTail);
  R.get(S.EventCount);
  R.get(NumComms);
  for (uint64_t I = 0; I < NumComms && R.ok(); ++I) {
    LocalComm C;
    if (R.get(C.Def) && R.getVector(C.Members) && R.getVector(C.Remote))
      S.Comms.push_back(std::move(C));
  }
  R.get(NumModules);
  for (uint64_t I = 0; I < NumModules && R.ok(); ++I) {
    Module M{0, 0, 0, {}};
    if (R.getString(M.Path))
      S.Modules.push_back(std::move(M));
  }
  S.HasHeader = true;
  S.HasFooter = HasFooter;
  S.TornTail = TornTail;
  if (!R.atEnd())
    Error = "malformed pass-1 summary";
  return R.atEnd();
}

/// What member 0 decided after pass 1.
struct Plan {
  bool Go = false;
  /// Why not, for the warning.
  std::string Why;
  /// The strings events refer to, in reference order.
  std::vector<std::string> Strings;
  /// Local communicator id -> global index, per member.
  std::vector<std::vector<uint32_t>> CommMaps;
};

std::string encodePlan(const Plan &P) {
  WireWriter W;
  W.put<uint8_t>(P.Go);
  W.putString(P.Why);
  W.put<uint64_t>(P.Strings.size());
  for (const std::string &S : P.Strings)
    W.putString(S);
  W.put<uint64_t>(P.CommMaps.size());
  for (const std::vector<uint32_t> &M : P.CommMaps)
    W.putVector(M);
  return W.bytes();
}

bool decodePlan(const std::string &Bytes, Plan &P) {
  WireReader R(Bytes);
  uint8_t Go = 0;
  uint64_t NumStrings = 0, NumMaps = 0;
  R.get(Go);
  R.getString(P.Why);
  R.get(NumStrings);
  for (uint64_t I = 0; I < NumStrings && R.ok(); ++I) {
    std::string S;
    if (R.getString(S))
      P.Strings.push_back(std::move(S));
  }
  R.get(NumMaps);
  for (uint64_t I = 0; I < NumMaps && R.ok(); ++I) {
    std::vector<uint32_t> M;
    if (R.getVector(M))
      P.CommMaps.push_back(std::move(M));
  }
  P.Go = Go;
  return R.atEnd();
}

/// Pass 2 of one member, for member 0.
struct Written {
  bool Ok = false;
  std::string Error;
  RankWritten Result;
};

std::string encodeWritten(const Written &X) {
  WireWriter W;
  W.put<uint8_t>(X.Ok);
  W.putString(X.Error);
  const RankWritten &Res = X.Result;
  W.put<uint8_t>(Res.ClockUsable);
  W.put(Res.FirstNs);
  W.put(Res.LastNs);
  W.put(Res.Realtime);
  W.put<uint64_t>(Res.EventsPerThread.size());
  for (const auto &[Thread, Count] : Res.EventsPerThread) {
    W.put(Thread);
    W.put(Count);
  }
  W.put<uint64_t>(Res.ParentOf.size());
  for (const auto &[Comm, Parent] : Res.ParentOf) {
    W.put(Comm);
    W.put(Parent);
  }
  return W.bytes();
}

bool decodeWritten(const std::string &Bytes, Written &X) {
  WireReader R(Bytes);
  uint8_t Ok = 0, ClockUsable = 0;
  uint64_t N = 0;
  RankWritten &Res = X.Result;
  R.get(Ok);
  R.getString(X.Error);
  R.get(ClockUsable);
  R.get(Res.FirstNs);
  R.get(Res.LastNs);
  R.get(Res.Realtime);
  R.get(N);
  for (uint64_t I = 0; I < N && R.ok(); ++I) {
    uint16_t Thread = 0;
    uint64_t Count = 0;
    if (R.get(Thread) && R.get(Count))
      Res.EventsPerThread[Thread] = Count;
  }
  R.get(N);
  for (uint64_t I = 0; I < N && R.ok(); ++I) {
    uint32_t Comm = 0, Parent = 0;
    if (R.get(Comm) && R.get(Parent))
      Res.ParentOf[Comm] = Parent;
  }
  X.Ok = Ok;
  Res.ClockUsable = ClockUsable;
  return R.atEnd();
}

/// Whether every member says \p Mine is true; known to all members.
bool allAgree(ConversionGroup &Group, bool Mine) {
  std::vector<std::string> Votes = Group.gather(std::string(1, Mine ? 1 : 0));
  bool All = true;
  for (const std::string &V : Votes)
    All = All && V == std::string(1, 1);
  return Group.broadcast(std::string(1, All ? 1 : 0)) == std::string(1, 1);
}

//===-- The steps
//----------------------------------------------------------===//

/// Member 0, after pass 1: the files of all members in rank order, or why
/// the parallel conversion cannot go on.
Plan planConversion(const std::vector<std::string> &Scans,
                    std::vector<SpillFile> &Files,
                    std::vector<GlobalComm> &Comms) {
  Plan P;
  for (size_t Rank = 0; Rank < Scans.size(); ++Rank) {
    SpillFile S;
    std::string Error;
    if (!decodeScan(Scans[Rank], S, Error)) {
      P.Why = "rank " + std::to_string(Rank) + ": " + Error;
      return P;
    }
    if (S.Header.Rank != static_cast<int>(Rank) ||
        S.Header.Size != static_cast<int>(Scans.size())) {
      P.Why = "'" + S.Path + "' is not the spill file of rank " +
              std::to_string(Rank) + " of " + std::to_string(Scans.size());
      return P;
    }
    Files.push_back(std::move(S));
  }
  Comms = unifyComms(Files);
  P.Strings = moduleStrings(Files).all();
  for (const SpillFile &S : Files)
    P.CommMaps.push_back(S.GlobalComm);
  P.Go = true;
  return P;
}

/// Pass 2 of one member: its locations' events and (empty) local
/// definitions. Every OTF2 collective is called whatever happens locally.
Written writeOwnLocations(OTF2_Archive *Archive, const SpillFile &Own,
                          const StringTable &Strings) {
  Written X;
  X.Ok = OTF2_Archive_OpenEvtFiles(Archive) == OTF2_SUCCESS;
  if (!X.Ok)
    X.Error = "cannot open the OTF2 event files";
  if (X.Ok) {
    OTF2_AttributeList *Attributes = OTF2_AttributeList_New();
    RankWriter W(Archive, Own, Strings, Attributes);
    X.Ok = W.write(X.Error);
    OTF2_AttributeList_Delete(Attributes);
    X.Result = W.result();
  }
  if (OTF2_Archive_CloseEvtFiles(Archive) != OTF2_SUCCESS && X.Ok) {
    X.Ok = false;
    X.Error = "cannot close the OTF2 event files";
  }
  bool DefsOpen = OTF2_Archive_OpenDefFiles(Archive) == OTF2_SUCCESS;
  for (const auto &Entry : X.Result.EventsPerThread) {
    OTF2_DefWriter *D =
        DefsOpen ? OTF2_Archive_GetDefWriter(
                       Archive, locationOf(Own.Header.Rank, Entry.first))
                 : nullptr;
    if ((!D || OTF2_Archive_CloseDefWriter(Archive, D) != OTF2_SUCCESS) &&
        X.Ok) {
      X.Ok = false;
      X.Error = "cannot write the OTF2 local definitions";
    }
  }
  if (OTF2_Archive_CloseDefFiles(Archive) != OTF2_SUCCESS && X.Ok) {
    X.Ok = false;
    X.Error = "cannot close the OTF2 definition files";
  }
  return X;
}

/// Member 0, after pass 2: merges what the members wrote and writes the
/// global definitions. False, with \p Why, if a member failed.
bool writeGlobalPart(OTF2_Archive *Archive, std::vector<SpillFile> &Files,
                     std::vector<GlobalComm> &Comms,
                     const std::vector<std::string> &Reports,
                     StringTable &Strings, ConvertResult &Result,
                     std::string &Why) {
  std::vector<RankWritten> AllWritten;
  for (size_t I = 0; I < Files.size(); ++I) {
    Written X;
    if (!decodeWritten(Reports[I], X) || !X.Ok) {
      Why = (X.Error.empty() ? "malformed pass-2 summary" : X.Error) +
            " (rank " + std::to_string(I) + ")";
      return false;
    }
    AllWritten.push_back(std::move(X.Result));
    Result.Events += Files[I].EventCount;
  }
  OTF2_GlobalDefWriter *G = OTF2_Archive_GetGlobalDefWriter(Archive);
  if (!G) {
    Why = "cannot write the OTF2 global definitions";
    return false;
  }
  int WorldSize = static_cast<int>(Files.size());
  RankStatus Status = rankStatus(Files, WorldSize, Result.Warnings);
  mergeWritten(Files, AllWritten, Comms, Result.Warnings);
  writeGlobalDefinitions(G, Strings, Files, AllWritten, Comms, WorldSize);
  setArchiveProperties(Archive, Status,
                       Files[0].Header.Flags & rawtrace::RankHashesPayloads,
                       WorldSize);
  Result.Complete = Status.Complete;
  Result.Ranks = WorldSize;
  return true;
}

/// Member 0, when the parallel attempt failed: the serial conversion, with
/// a warning saying why it was needed.
ConvertResult convertSeriallyInstead(const std::string &TraceDir,
                                     const std::string &Why) {
  removeArchive(TraceDir, /*AndSpillFiles=*/false);
  ConvertResult R = convertSpillFiles(TraceDir);
  R.Warnings.insert(R.Warnings.begin(), "parallel conversion failed (" + Why +
                                            "); converted serially");
  return R;
}

} // namespace

ConvertResult convertInParallel(const std::string &TraceDir,
                                ConversionGroup &Group) {
  const int Rank = Group.rank();
  ConvertResult Mine;
  Mine.Ok = true;

  // Pass 1: each member its own file; member 0 plans.
  SpillFile Own;
  Own.Path = spillFilePath(TraceDir, Rank);
  std::string ScanError;
  bool Scanned = scanSpillFile(Own, ScanError);
  std::vector<std::string> Scans =
      Group.gather(encodeScan(Scanned, ScanError, Own));
  std::vector<SpillFile> Files;
  std::vector<GlobalComm> Comms;
  Plan P;
  if (Rank == 0) {
    P = planConversion(Scans, Files, Comms);
    if (P.Go)
      removeArchive(TraceDir, /*AndSpillFiles=*/false); // A previous attempt's.
  }
  Plan Sent; // Member 0's plan as every member received it.
  bool Received =
      decodePlan(Group.broadcast(encodePlan(P)), Sent) &&
      (!Sent.Go || Sent.CommMaps.size() == static_cast<size_t>(Group.size()));
  // Every member received the same bytes: they agree on going on or not.
  if (!Received || !Sent.Go)
    return Rank == 0 ? convertSeriallyInstead(
                           TraceDir, Received ? Sent.Why : "malformed plan")
                     : Mine;
  Own.GlobalComm = Sent.CommMaps[Rank];
  StringTable Strings;
  for (const std::string &S : Sent.Strings)
    Strings.get(S);

  // Pass 2: each member its own locations, through OTF2's collectives.
  OTF2_Archive *Archive = createArchive(TraceDir);
  bool Attached = Archive && Group.setCollectiveCallbacks(Archive);
  if (!allAgree(Group, Attached)) {
    // Closing is collective on the members that attached and not on the
    // others, so no member closes: the archive object is left behind (at
    // MPI_Finalize) rather than risk members waiting for each other.
    return Rank == 0 ? convertSeriallyInstead(
                           TraceDir, "cannot open the OTF2 archive in '" +
                                         TraceDir + "' on every rank")
                     : Mine;
  }
  Written X = writeOwnLocations(Archive, Own, Strings);
  std::vector<std::string> Reports = Group.gather(encodeWritten(X));
  std::string Why;
  bool GlobalOk = Rank != 0 || writeGlobalPart(Archive, Files, Comms, Reports,
                                               Strings, Mine, Why);
  bool Closed = OTF2_Archive_Close(Archive) == OTF2_SUCCESS;
  bool AllWritten = allAgree(Group, X.Ok && GlobalOk && Closed);
  if (Rank != 0) {
    Mine.Ok = X.Ok && Closed;
    Mine.Error = X.Error;
    return Mine;
  }
  if (!AllWritten) {
    // Writing failed (a full disk, most likely): a serial attempt would fail
    // the same way. The spill files stay for `mpilift trace recover`.
    Mine = ConvertResult();
    Mine.Error = (!GlobalOk ? Why
                  : Closed  ? "a rank could not finish its OTF2 files"
                            : "cannot finish the OTF2 archive") +
                 " in '" + TraceDir +
                 "'; the spill files are kept for 'mpilift trace recover'";
    return Mine;
  }
  removeTree(spillDirectory(TraceDir));
  return Mine;
}

} // namespace tracert
} // namespace mpilift
