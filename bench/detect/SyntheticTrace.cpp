//===- SyntheticTrace.cpp - Spill files of a large run, without the run ---===//
//
// Part of mpilift. bench/detect: writes the spill files the trace runtime
// would have written for a run of RANKS processes that each make about
// EVENTS MPI calls: a halo exchange with both ring neighbours (two
// MPI_Sendrecv) in every iteration and, every EVERY iterations, a
// broadcast written by hand (rank 0 sends to every other rank from one
// call site, the others receive). `mpilift trace recover DIR` turns them
// into the OTF2 archive `mpilift detect` reads. Runs of 1024 processes do
// not fit this machine; their traces do.
//
// Usage: detect-synthetic DIR RANKS EVENTS [EVERY]
//
//===----------------------------------------------------------------------===//

#include "../../trace-runtime/RawFormat.h"
#include "mpilift/MPI/Vocabulary.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <link.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace mpilift;
using namespace mpilift::rawtrace;

namespace {

/// The call sites are addresses in functions of this program, one each,
/// so that the archive names source lines as a traced program's would.
volatile int SiteWork;
#define MPILIFT_SYNTHETIC_SITE(Name)                                           \
  __attribute__((noinline)) void Name() {                                      \
    SiteWork = SiteWork + 1;                                                   \
    SiteWork = SiteWork * 3;                                                   \
  }
MPILIFT_SYNTHETIC_SITE(initCall)
MPILIFT_SYNTHETIC_SITE(starSend)
MPILIFT_SYNTHETIC_SITE(starRecv)
MPILIFT_SYNTHETIC_SITE(haloToNext)
MPILIFT_SYNTHETIC_SITE(haloToPrevious)
MPILIFT_SYNTHETIC_SITE(finalizeCall)
#undef MPILIFT_SYNTHETIC_SITE

/// A return address inside \p F (past its first instruction).
uint64_t siteIn(void (*F)()) { return reinterpret_cast<uint64_t>(F) + 4; }

/// This program as the runtime's module map would give it: its load bias
/// and the extent of its executable segments.
struct SelfModule {
  uint64_t LoadBias = 0, Low = UINT64_MAX, High = 0;
};

int findSelf(struct dl_phdr_info *Info, size_t, void *Data) {
  auto &Self = *static_cast<SelfModule *>(Data);
  Self.LoadBias = Info->dlpi_addr;
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type != PT_LOAD || !(P.p_flags & PF_X))
      continue;
    Self.Low = std::min<uint64_t>(Self.Low, Info->dlpi_addr + P.p_vaddr);
    Self.High =
        std::max<uint64_t>(Self.High, Info->dlpi_addr + P.p_vaddr + P.p_memsz);
  }
  return 1; // The first object is the program itself.
}

constexpr uint64_t Block = 0x7f0000010000, Left = 0x7f0000020000,
                   Right = 0x7f0000030000;
constexpr uint64_t BlockBytes = 64;

/// One rank's spill file, written in chunks as the runtime writes them.
class SpillWriter {
public:
  SpillWriter(const std::string &Path) : File(std::fopen(Path.c_str(), "wb")) {
    if (!File) {
      std::fprintf(stderr, "cannot write %s: %s\n", Path.c_str(),
                   std::strerror(errno));
      std::exit(1);
    }
  }
  ~SpillWriter() {
    flushEvents();
    if (std::fclose(File) != 0) {
      std::perror("close");
      std::exit(1);
    }
  }

  void chunk(ChunkType Type, const void *Payload, uint32_t Bytes) {
    ChunkHeader H{ChunkMagic, static_cast<uint16_t>(Type), 0, Bytes, 0};
    if (std::fwrite(&H, sizeof(H), 1, File) != 1 ||
        (Bytes && std::fwrite(Payload, Bytes, 1, File) != 1)) {
      std::perror("write");
      std::exit(1);
    }
  }

  /// A call of \p F with its send side (or only side).
  Event &call(mpi::FunctionId F, uint64_t Site) {
    Clock += 10;
    Event E;
    std::memset(&E, 0, sizeof(E));
    E.Begin = Clock;
    E.End = Clock + 5;
    E.CallSite = Site;
    E.Peer = PeerNone;
    E.Tag = TagNone;
    E.Comm = CommNone;
    E.Function = static_cast<uint16_t>(F);
    E.Kind = static_cast<uint8_t>(EventKind::Call);
    return push(E);
  }
  /// The receive side of the call just recorded, from its status.
  void receivedFrom(int32_t Peer, int32_t Tag, uint64_t Buffer) {
    Event R = Pending.back();
    R.Kind = static_cast<uint8_t>(EventKind::RecvPart);
    R.Peer = Peer;
    R.Tag = Tag;
    R.Bytes = BlockBytes;
    R.Buffer = Buffer;
    R.Handle = 0;
    R.Flags = FlagPeerIsStatus;
    push(R);
  }
  uint64_t clock() const { return Clock; }
  void flushEvents() {
    if (!Pending.empty())
      chunk(ChunkType::Events, Pending.data(),
            static_cast<uint32_t>(Pending.size() * sizeof(Event)));
    Pending.clear();
  }

private:
  Event &push(const Event &E) {
    if (Pending.size() == 4096)
      flushEvents();
    Pending.push_back(E);
    return Pending.back();
  }

  std::FILE *File;
  std::vector<Event> Pending;
  uint64_t Clock = 1000;
};

void writeRank(const std::string &Dir, const std::vector<char> &Module,
               int Rank, int Size, long Iterations, long Every) {
  char Name[64];
  std::snprintf(Name, sizeof(Name), SpillFilePattern, Rank);
  SpillWriter W(Dir + "/" + SpillDirName + "/" + Name);
  RankHeader H;
  std::memset(&H, 0, sizeof(H));
  H.Version = FormatVersion;
  H.Rank = Rank;
  H.Size = Size;
  H.Pid = 100000 + Rank;
  std::snprintf(H.Host, sizeof(H.Host), "synthetic");
  std::snprintf(H.Program, sizeof(H.Program), "detect-synthetic");
  W.chunk(ChunkType::RankHeader, &H, sizeof(H));
  Calibration Start{0, 1000000000, 1700000000000000000};
  W.chunk(ChunkType::Calibration, &Start, sizeof(Start));
  std::vector<int32_t> World(sizeof(CommDef) / sizeof(int32_t) + Size);
  CommDef D{0, 0, Size, 0};
  std::memcpy(World.data(), &D, sizeof(D));
  for (int R = 0; R < Size; ++R)
    World[sizeof(CommDef) / sizeof(int32_t) + R] = R;
  W.chunk(ChunkType::Comm, World.data(),
          static_cast<uint32_t>(World.size() * sizeof(int32_t)));
  W.chunk(ChunkType::Modules, Module.data(),
          static_cast<uint32_t>(Module.size()));

  W.call(mpi::FunctionId::Init, siteIn(initCall));
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  for (long It = 0; It < Iterations; ++It) {
    if (It % Every == 0) {
      if (Rank == 0) {
        for (int Peer = 1; Peer < Size; ++Peer) {
          Event &E = W.call(mpi::FunctionId::Send, siteIn(starSend));
          E.Comm = 0;
          E.Peer = Peer;
          E.Tag = 1;
          E.Bytes = BlockBytes;
          E.Buffer = Block;
        }
      } else {
        Event &E = W.call(mpi::FunctionId::Recv, siteIn(starRecv));
        E.Comm = 0;
        E.Peer = 0;
        E.Tag = 1;
        E.Bytes = BlockBytes;
        E.Buffer = Block;
        E.Flags = FlagPeerIsStatus;
      }
    }
    for (bool ToNext : {true, false}) {
      Event &E = W.call(mpi::FunctionId::Sendrecv,
                        siteIn(ToNext ? haloToNext : haloToPrevious));
      E.Comm = 0;
      E.Peer = ToNext ? Next : Prev;
      E.Tag = ToNext ? 2 : 3;
      E.Bytes = BlockBytes;
      E.Buffer = Block;
      W.receivedFrom(ToNext ? Prev : Next, ToNext ? 2 : 3,
                     ToNext ? Left : Right);
    }
  }
  W.call(mpi::FunctionId::Finalize, siteIn(finalizeCall));
  W.flushEvents();
  Calibration End{W.clock(), 1000000000 + W.clock(),
                  1700000000000000000 + W.clock()};
  W.chunk(ChunkType::Calibration, &End, sizeof(End));
  Footer F{static_cast<uint32_t>(EndReason::Finalize), 0, 0};
  W.chunk(ChunkType::Footer, &F, sizeof(F));
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 4 || Argc > 5) {
    std::fprintf(stderr, "usage: %s DIR RANKS EVENTS [EVERY]\n", Argv[0]);
    return 2;
  }
  std::string Dir = Argv[1];
  int Ranks = std::atoi(Argv[2]);
  long Events = std::atol(Argv[3]);
  long Every = Argc > 4 ? std::atol(Argv[4]) : 50;
  if (Ranks < 3 || Events < 10 || Every < 1) {
    std::fprintf(stderr, "need RANKS >= 3, EVENTS >= 10, EVERY >= 1\n");
    return 2;
  }
  std::string Spill = Dir + "/" + SpillDirName;
  if ((mkdir(Dir.c_str(), 0777) != 0 && errno != EEXIST) ||
      (mkdir(Spill.c_str(), 0777) != 0 && errno != EEXIST)) {
    std::fprintf(stderr, "cannot make %s: %s\n", Spill.c_str(),
                 std::strerror(errno));
    return 1;
  }
  // The call sites lie in this program, as the module map says.
  std::vector<char> Module;
  {
    char Exe[4096];
    ssize_t N = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
    std::string Path = N > 0 ? std::string(Exe, N) : std::string(Argv[0]);
    SelfModule Self;
    dl_iterate_phdr(findSelf, &Self);
    ModuleEntry E{Self.LoadBias, Self.Low, Self.High,
                  static_cast<uint32_t>(Path.size()), 0};
    uint32_t Count[2] = {1, 0}; // How many entries, padded to 8 bytes.
    Module.resize(sizeof(Count) + sizeof(E) + (Path.size() + 7) / 8 * 8);
    std::memcpy(Module.data(), Count, sizeof(Count));
    std::memcpy(Module.data() + sizeof(Count), &E, sizeof(E));
    std::memcpy(Module.data() + sizeof(Count) + sizeof(E), Path.data(),
                Path.size());
  }
  // A rank other than 0 makes two calls an iteration and one more every
  // EVERY iterations.
  long Iterations = Events * Every / (2 * Every + 1);
  for (int Rank = 0; Rank < Ranks; ++Rank)
    writeRank(Dir, Module, Rank, Ranks, Iterations, Every);
  std::printf("%ld\n", Iterations);
  return 0;
}
