//===- Converter.cpp - Turn spill files into an OTF2 archive --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The serial conversion: one process reads every rank's spill file for its
/// definitions (pass 1), unifies communicators, then writes one rank's
/// events at a time (pass 2) and the global definitions last. Used after an
/// abnormal end and wherever MPI is not at hand.
///
//===----------------------------------------------------------------------===//

#include "mpilift/TraceRuntime/Convert.h"

#include "ArchiveDefinitions.h"
#include "RankWriter.h"
#include "SpillFile.h"

#include <algorithm>

namespace mpilift {
namespace tracert {

using rawtrace::ArchiveName;

void removeArchive(const std::string &TraceDir, bool AndSpillFiles) {
  std::string Base = TraceDir + "/" + ArchiveName;
  removeTree(Base);
  remove((Base + ".otf2").c_str());
  remove((Base + ".def").c_str());
  if (AndSpillFiles)
    removeTree(spillDirectory(TraceDir));
}

bool hasSpillFiles(const std::string &TraceDir) {
  return !listSpillFiles(spillDirectory(TraceDir)).empty();
}

ConvertResult convertSpillFiles(const std::string &TraceDir) {
  ConvertResult Result;
  std::string SpillDir = spillDirectory(TraceDir);
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
  RankStatus Status = rankStatus(Files, WorldSize, Result.Warnings);
  std::vector<GlobalComm> Comms = unifyComms(Files);

  removeArchive(TraceDir, /*AndSpillFiles=*/false); // A previous attempt's.

  OTF2_Archive *Archive = createArchive(TraceDir);
  if (!Archive) {
    Result.Error = "cannot create the OTF2 archive in '" + TraceDir + "'";
    return Result;
  }
  auto Fail = [&](const std::string &What) {
    OTF2_Archive_Close(Archive);
    Result.Error = What + " in '" + TraceDir + "'";
    return Result;
  };
  OTF2_Archive_SetSerialCollectiveCallbacks(Archive);
  if (OTF2_Archive_OpenEvtFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot open the OTF2 event files");

  // Pass 2: events, one rank at a time.
  StringTable Strings = moduleStrings(Files);
  std::vector<RankWritten> Written;
  OTF2_AttributeList *Attributes = OTF2_AttributeList_New();
  for (size_t I = 0; I < Files.size(); ++I) {
    RankWriter W(Archive, Files[I], Strings, Attributes);
    std::string Error;
    if (!W.write(Error)) {
      OTF2_AttributeList_Delete(Attributes);
      return Fail(Error);
    }
    Written.push_back(W.result());
    Result.Events += Files[I].EventCount;
  }
  OTF2_AttributeList_Delete(Attributes);
  mergeWritten(Files, Written, Comms, Result.Warnings);
  if (OTF2_Archive_CloseEvtFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot close the OTF2 event files");

  if (OTF2_Archive_OpenDefFiles(Archive) != OTF2_SUCCESS)
    return Fail("cannot open the OTF2 definition files");
  for (size_t I = 0; I < Files.size(); ++I) {
    for (const auto &Entry : Written[I].EventsPerThread) {
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
  writeGlobalDefinitions(G, Strings, Files, Written, Comms, WorldSize);

  setArchiveProperties(Archive, Status,
                       Files[0].Header.Flags & rawtrace::RankHashesPayloads,
                       WorldSize);
  if (OTF2_Archive_Close(Archive) != OTF2_SUCCESS) {
    Result.Error = "cannot finish the OTF2 archive in '" + TraceDir + "'";
    return Result;
  }
  removeTree(SpillDir);
  Result.Ok = true;
  Result.Complete = Status.Complete;
  Result.Ranks = static_cast<int>(Files.size());
  return Result;
}

} // namespace tracert
} // namespace mpilift
