//===- SpillFile.cpp - Read one rank's spill file -------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "SpillFile.h"

#include "PackedEvents.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mpilift {
namespace tracert {

using namespace rawtrace;

File::File(const std::string &Path) : Fd(open(Path.c_str(), O_RDONLY)) {}

File::~File() {
  if (Fd >= 0)
    close(Fd);
}

bool File::readAt(uint64_t Offset, void *Out, size_t Bytes) const {
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

uint64_t File::size() const {
  struct stat St;
  return fstat(Fd, &St) == 0 ? static_cast<uint64_t>(St.st_size) : 0;
}

std::string spillDirectory(const std::string &TraceDir) {
  return TraceDir + "/" + SpillDirName;
}

std::string spillFilePath(const std::string &TraceDir, int Rank) {
  char Name[32];
  snprintf(Name, sizeof(Name), SpillFilePattern, Rank);
  return spillDirectory(TraceDir) + "/" + Name;
}

namespace {

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

} // namespace

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
    } else if (Type == ChunkType::PackedEvents) {
      // Whether the bytes are the records is known when they are unpacked.
      Good = H.Records > 0 &&
             H.PayloadBytes >= uint64_t(H.Records) * MinPackedRecordBytes &&
             H.PayloadBytes <= uint64_t(H.Records) * MaxPackedRecordBytes;
      if (Good) {
        S.Chunks.push_back(
            {Payload, H.Records, H.Thread, true, H.PayloadBytes});
        S.EventCount += H.Records;
      }
    } else {
      std::vector<char> P(H.PayloadBytes);
      Good = F.readAt(Payload, P.data(), P.size());
      switch (Type) {
      case ChunkType::RankHeader:
        Good = Good && P.size() == sizeof(RankHeader);
        if (Good) {
          memcpy(&S.Header, P.data(), sizeof(RankHeader));
          S.HasHeader = S.Header.Version >= OldestFormatVersion &&
                        S.Header.Version <= FormatVersion;
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

namespace {
int removeEntry(const char *Path, const struct stat *, int, FTW *) {
  return remove(Path);
}
} // namespace

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

} // namespace tracert
} // namespace mpilift
