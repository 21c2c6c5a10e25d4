//===- Runtime.cpp - State of the MPI trace runtime -----------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "MPIConversionGroup.h"
#include "PackedEvents.h"
#include "SpillFile.h"
#include "TypeSizes.h"

#include "mpilift/TraceRuntime/Convert.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <link.h>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace mpilift {
namespace rt {

std::atomic<bool> TracingOn{false};
bool HashPayloads = false;
__thread ThreadBuffer *CurrentBuffer
    __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

using namespace rawtrace;

constexpr uint32_t DefaultBufferEvents = 16384; // 1 MiB per thread.
/// So that a chunk's bytes, packed or not, fit its header's 32 bits.
constexpr uint32_t MaxBufferEvents = 1u << 22;

// Set once in initialize(), read-only afterwards.
/// The run is traced: every rank takes part in the conversion at
/// MPI_Finalize, even one that could not record.
bool Joined = false;
/// Convert in one process (MPILIFT_TRACE_CONVERT=serial) instead of on
/// every rank; rank 0 decides for all.
bool ConvertSerially = false;
bool Active = false;
int WorldRank = 0;
int WorldSize = 1;
uint32_t BufferEvents = DefaultBufferEvents;
std::string TraceDir;
std::string SpillPath;
char TraceDirForSignals[PATH_MAX];

std::atomic<int> SpillFd{-1};
std::atomic<bool> Paused{false};
std::atomic<bool> Ended{false};
std::atomic<bool> WriteFailed{false};
std::atomic<uint64_t> DroppedEvents{0};
std::atomic<ThreadBuffer *> AllBuffers{nullptr};
std::atomic<uint16_t> NextThread{0};

std::mutex ModulesMutex;
unsigned long long LastModuleAdds = 0;

void updateTracingOn() {
  TracingOn.store(Active && !Paused.load() && !Ended.load() &&
                      !WriteFailed.load(),
                  std::memory_order_relaxed);
}

//===-- Writing the spill file (async-signal-safe) ------------------------===//

/// Appends one chunk with a single writev(2). Returns false on failure.
bool writeChunk(ChunkType Type, uint16_t Thread, const void *Payload,
                uint32_t Bytes, uint32_t Records = 0) {
  int Fd = SpillFd.load();
  if (Fd < 0 || WriteFailed.load())
    return false;
  ChunkHeader H{ChunkMagic, static_cast<uint16_t>(Type), Thread, Bytes,
                Records};
  iovec Parts[2] = {{&H, sizeof(H)}, {const_cast<void *>(Payload), Bytes}};
  size_t Want = sizeof(H) + Bytes;
  ssize_t Got;
  do {
    Got = writev(Fd, Parts, Bytes ? 2 : 1);
  } while (Got < 0 && errno == EINTR);
  if (Got == static_cast<ssize_t>(Want))
    return true;
  if (Got >= 0)
    errno = ENOSPC; // A short append to a regular file means the disk is full.
  return false;
}

/// Formats an unsigned number without the C library (for signal handlers).
char *formatUnsigned(char *Out, unsigned long V) {
  char Digits[24];
  int N = 0;
  do {
    Digits[N++] = static_cast<char>('0' + V % 10);
    V /= 10;
  } while (V);
  while (N)
    *Out++ = Digits[--N];
  return Out;
}

void writeStderr(const char *Text) {
  ssize_t Ignored = write(STDERR_FILENO, Text, strlen(Text));
  (void)Ignored;
}

/// Stops tracing after a failed write and says so once.
void reportWriteFailure(int Errno) {
  if (WriteFailed.exchange(true))
    return;
  updateTracingOn();
  char Message[PATH_MAX + 256];
  snprintf(Message, sizeof(Message),
           "mpilift-trace: rank %d: cannot write the trace to '%s': %s; "
           "tracing stopped, the program continues\n",
           WorldRank, SpillPath.c_str(), strerror(Errno));
  writeStderr(Message);
}

bool writeChunkOrReport(ChunkType Type, uint16_t Thread, const void *Payload,
                        uint32_t Bytes, uint32_t Records = 0) {
  if (writeChunk(Type, Thread, Payload, Bytes, Records))
    return true;
  if (!WriteFailed.load())
    reportWriteFailure(errno);
  return false;
}

Calibration readClocks() {
  Calibration C;
  timespec Mono, Real;
  clock_gettime(CLOCK_MONOTONIC, &Mono);
  C.Tsc = timestamp();
  clock_gettime(CLOCK_REALTIME, &Real);
  C.MonotonicNs = Mono.tv_sec * 1000000000ull + Mono.tv_nsec;
  C.RealtimeNs = Real.tv_sec * 1000000000ull + Real.tv_nsec;
  return C;
}

bool writeCalibration() {
  Calibration C = readClocks();
  return writeChunk(ChunkType::Calibration, 0, &C, sizeof(C));
}

/// Writes out every thread's buffer that its owner is not writing right now.
void flushAllBuffers() {
  for (ThreadBuffer *B = AllBuffers.load(); B; B = B->Next) {
    if (B->Flushing.load())
      continue;
    uint32_t N = B->Count.load(std::memory_order_acquire);
    if (N == 0)
      continue;
    if (writeChunk(ChunkType::Events, B->Thread, B->Events, N * sizeof(Event)))
      B->Count.store(0);
    else
      DroppedEvents += N;
  }
}

//===-- Modules
//------------------------------------------------------------===//

struct ModuleSnapshot {
  std::vector<char> Payload;
  uint32_t Count = 0;
  unsigned long long Adds = 0;
};

int collectModule(dl_phdr_info *Info, size_t, void *Data) {
  auto &S = *static_cast<ModuleSnapshot *>(Data);
  S.Adds = Info->dlpi_adds;
  uint64_t Low = UINT64_MAX, High = 0;
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type != PT_LOAD || !(P.p_flags & PF_X))
      continue;
    uint64_t Begin = Info->dlpi_addr + P.p_vaddr;
    Low = std::min<uint64_t>(Low, Begin);
    High = std::max<uint64_t>(High, Begin + P.p_memsz);
  }
  if (Low >= High)
    return 0;
  std::string Path = Info->dlpi_name ? Info->dlpi_name : "";
  if (Path.empty()) {
    char Exe[PATH_MAX];
    ssize_t N = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
    if (N <= 0)
      return 0;
    Path.assign(Exe, N);
  }
  if (Path.find("linux-vdso") != std::string::npos)
    return 0;
  ModuleEntry E{Info->dlpi_addr, Low, High, static_cast<uint32_t>(Path.size()),
                0};
  const char *Raw = reinterpret_cast<const char *>(&E);
  S.Payload.insert(S.Payload.end(), Raw, Raw + sizeof(E));
  S.Payload.insert(S.Payload.end(), Path.begin(), Path.end());
  S.Payload.resize((S.Payload.size() + 7) & ~size_t(7), '\0');
  ++S.Count;
  return 0;
}

/// Reads the loader's count of module loads; stops at the first module.
int readModuleAdds(dl_phdr_info *Info, size_t, void *Data) {
  *static_cast<unsigned long long *>(Data) = Info->dlpi_adds;
  return 1;
}

/// Writes the module map when modules were loaded since the last one.
void writeModulesIfChanged() {
  std::lock_guard<std::mutex> Lock(ModulesMutex);
  // Every flush asks; walking all modules each time cost tens of
  // microseconds (a readlink among them), so compare the load count first.
  unsigned long long Adds = 0;
  dl_iterate_phdr(readModuleAdds, &Adds);
  if (Adds == LastModuleAdds && LastModuleAdds != 0)
    return;
  ModuleSnapshot S;
  S.Payload.resize(8, '\0');
  dl_iterate_phdr(collectModule, &S);
  LastModuleAdds = S.Adds;
  memcpy(S.Payload.data(), &S.Count, sizeof(S.Count));
  writeChunkOrReport(ChunkType::Modules, 0, S.Payload.data(),
                     static_cast<uint32_t>(S.Payload.size()));
}

//===-- Communicators
//------------------------------------------------------===//

std::mutex CommMutex;
std::unordered_map<MPI_Comm, uint32_t> CommIds;
uint32_t NextCommId = 1;
std::atomic<uint64_t> CommGeneration{1};

struct CommCache {
  MPI_Comm Handle;
  uint32_t Id;
  uint64_t Generation;
};
thread_local CommCache LastComm
    __attribute__((tls_model("initial-exec"))) = {MPI_COMM_NULL, CommNone, 0};

std::vector<int32_t> worldRanksOf(MPI_Group G) {
  int Size = 0;
  PMPI_Group_size(G, &Size);
  std::vector<int> Local(Size), World(Size);
  for (int I = 0; I < Size; ++I)
    Local[I] = I;
  MPI_Group WorldGroup;
  PMPI_Comm_group(MPI_COMM_WORLD, &WorldGroup);
  PMPI_Group_translate_ranks(G, Size, Local.data(), WorldGroup, World.data());
  PMPI_Group_free(&WorldGroup);
  return std::vector<int32_t>(World.begin(), World.end());
}

/// Writes the definition of communicator \p C under \p Id. CommMutex held.
void defineComm(MPI_Comm C, uint32_t Id) {
  int IsInter = 0;
  PMPI_Comm_test_inter(C, &IsInter);
  MPI_Group Local;
  PMPI_Comm_group(C, &Local);
  std::vector<int32_t> Members = worldRanksOf(Local);
  PMPI_Group_free(&Local);
  std::vector<int32_t> Remote;
  if (IsInter) {
    MPI_Group RemoteGroup;
    PMPI_Comm_remote_group(C, &RemoteGroup);
    Remote = worldRanksOf(RemoteGroup);
    PMPI_Group_free(&RemoteGroup);
  }
  CommDef D{Id, static_cast<uint32_t>(IsInter),
            static_cast<int32_t>(Members.size()),
            static_cast<int32_t>(Remote.size())};
  std::vector<char> Payload(sizeof(D) +
                            (Members.size() + Remote.size()) * sizeof(int32_t));
  memcpy(Payload.data(), &D, sizeof(D));
  memcpy(Payload.data() + sizeof(D), Members.data(),
         Members.size() * sizeof(int32_t));
  memcpy(Payload.data() + sizeof(D) + Members.size() * sizeof(int32_t),
         Remote.data(), Remote.size() * sizeof(int32_t));
  writeChunkOrReport(ChunkType::Comm, 0, Payload.data(),
                     static_cast<uint32_t>(Payload.size()));
}

uint32_t registerCommLocked(MPI_Comm C) {
  auto It = CommIds.find(C);
  if (It != CommIds.end())
    return It->second;
  uint32_t Id = NextCommId++;
  CommIds.emplace(C, Id);
  defineComm(C, Id);
  return Id;
}

//===-- Trace directory
//----------------------------------------------------===//

bool isEmptyDirectory(const std::string &Path) {
  DIR *D = opendir(Path.c_str());
  if (!D)
    return false;
  bool Empty = true;
  while (dirent *E = readdir(D)) {
    if (strcmp(E->d_name, ".") != 0 && strcmp(E->d_name, "..") != 0) {
      Empty = false;
      break;
    }
  }
  closedir(D);
  return Empty;
}

bool makeDirectories(const std::string &Path) {
  std::string Partial;
  size_t Pos = 0;
  while (Pos != std::string::npos) {
    Pos = Path.find('/', Pos + 1);
    Partial = Path.substr(0, Pos);
    if (mkdir(Partial.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
  }
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return false;
  if (!S_ISDIR(St.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return true;
}

enum class DirectoryDecision { Use, Refuse, Fail };

/// Rank 0 decides whether DIR may hold this run's trace and prepares it.
DirectoryDecision prepareTraceDirectory(bool Force, std::string &Message) {
  struct stat St;
  bool Exists = stat(TraceDir.c_str(), &St) == 0;
  if (Exists && !S_ISDIR(St.st_mode)) {
    Message = "mpilift-trace: '" + TraceDir +
              "' exists and is not a directory; tracing is off for this run\n";
    return DirectoryDecision::Refuse;
  }
  if (Exists && !isEmptyDirectory(TraceDir)) {
    if (!Force) {
      Message = "mpilift-trace: trace directory '" + TraceDir +
                "' already exists and is not empty; tracing is off for this "
                "run (set MPILIFT_TRACE_FORCE=1 to replace it)\n";
      return DirectoryDecision::Refuse;
    }
    tracert::removeArchive(TraceDir, /*AndSpillFiles=*/true);
  }
  if (!makeDirectories(tracert::spillDirectory(TraceDir))) {
    Message = "mpilift-trace: cannot create trace directory '" + TraceDir +
              "': " + strerror(errno) + "; tracing is off for this run\n";
    return DirectoryDecision::Fail;
  }
  return DirectoryDecision::Use;
}

std::string absolutePath(const char *Path) {
  if (Path[0] == '/')
    return Path;
  char Cwd[PATH_MAX];
  if (!getcwd(Cwd, sizeof(Cwd)))
    return Path;
  return std::string(Cwd) + "/" + Path;
}

bool envIsOne(const char *Name) {
  const char *V = getenv(Name);
  return V && strcmp(V, "1") == 0;
}

/// MPILIFT_TRACE_CONVERT: "parallel" (the default) or "serial"; anything
/// else is reported in \p Message and read as the default.
bool wantsSerialConversion(std::string &Message) {
  const char *V = getenv("MPILIFT_TRACE_CONVERT");
  if (!V || !*V || strcmp(V, "parallel") == 0)
    return false;
  if (strcmp(V, "serial") == 0)
    return true;
  Message += std::string("mpilift-trace: warning: MPILIFT_TRACE_CONVERT='") +
             V +
             "' is neither 'parallel' nor 'serial'; converting in "
             "parallel\n";
  return false;
}

//===-- Abnormal ends
//------------------------------------------------------===//

constexpr int HandledSignals[] = {SIGSEGV, SIGBUS,  SIGFPE, SIGILL,
                                  SIGABRT, SIGTERM, SIGINT, SIGQUIT};
struct sigaction PreviousActions[std::size(HandledSignals)];

void restorePreviousAction(int Signal) {
  for (size_t I = 0; I < std::size(HandledSignals); ++I)
    if (HandledSignals[I] == Signal)
      sigaction(Signal, &PreviousActions[I], nullptr);
}

void onFatalSignal(int Signal) {
  int SavedErrno = errno;
  flushAfterAbnormalEnd(EndReason::Signal, Signal);
  // Hand the signal to whoever had it before (Open MPI's handler, or the
  // default action) by re-raising it once this handler returns.
  restorePreviousAction(Signal);
  raise(Signal);
  errno = SavedErrno;
}

void installSignalHandlers() {
  for (size_t I = 0; I < std::size(HandledSignals); ++I) {
    struct sigaction Action;
    memset(&Action, 0, sizeof(Action));
    Action.sa_handler = onFatalSignal;
    sigemptyset(&Action.sa_mask);
    Action.sa_flags = SA_RESTART;
    if (sigaction(HandledSignals[I], nullptr, &PreviousActions[I]) != 0)
      continue;
    // A program that ignores a signal keeps ignoring it.
    if (PreviousActions[I].sa_handler == SIG_IGN &&
        !(PreviousActions[I].sa_flags & SA_SIGINFO))
      continue;
    sigaction(HandledSignals[I], &Action, nullptr);
  }
}

void onExit() { flushAfterAbnormalEnd(EndReason::ExitWithoutFinalize, 0); }

void describeAbnormalEnd(EndReason Reason, int Detail) {
  // Built by hand: this runs in signal handlers.
  char Text[PATH_MAX + 200];
  char *P = Text;
  auto Append = [&P, &Text](const char *S) {
    size_t N = strlen(S);
    size_t Room = sizeof(Text) - 1 - (P - Text);
    N = N < Room ? N : Room;
    memcpy(P, S, N);
    P += N;
  };
  Append("mpilift-trace: rank ");
  P = formatUnsigned(P, WorldRank);
  switch (Reason) {
  case EndReason::Signal:
    Append(" stopped by signal ");
    P = formatUnsigned(P, Detail);
    break;
  case EndReason::Abort:
    Append(" called MPI_Abort");
    break;
  case EndReason::ExitWithoutFinalize:
    Append(" exited without MPI_Finalize");
    break;
  default:
    Append(" stopped");
    break;
  }
  Append("; what it recorded is saved; 'mpilift trace recover ");
  Append(TraceDirForSignals);
  Append("' (or any mpilift command that reads it) completes the trace\n");
  *P = '\0';
  writeStderr(Text);
}

} // namespace

//===-- Public entry points
//------------------------------------------------===//

ThreadBuffer *createThreadBuffer() {
  auto *B = new ThreadBuffer;
  B->Events = static_cast<Event *>(
      aligned_alloc(64, sizeof(Event) * static_cast<size_t>(BufferEvents)));
  memset(B->Events, 0, sizeof(Event) * static_cast<size_t>(BufferEvents));
  // Pages are touched only as far as packing fills them.
  B->Packed = static_cast<uint8_t *>(
      malloc(MaxPackedRecordBytes * static_cast<size_t>(BufferEvents)));
  B->Capacity = BufferEvents;
  B->Count.store(0);
  B->Flushing.store(false);
  B->Thread = NextThread++;
  ThreadBuffer *Head = AllBuffers.load();
  do {
    B->Next = Head;
  } while (!AllBuffers.compare_exchange_weak(Head, B));
  CurrentBuffer = B;
  return B;
}

void flushFullBuffer(ThreadBuffer &B) {
  B.Flushing.store(true);
  uint32_t N = B.Count.load();
  bool Written =
      B.Packed
          ? writeChunkOrReport(
                ChunkType::PackedEvents, B.Thread, B.Packed,
                static_cast<uint32_t>(packEvents(B.Events, N, B.Packed)), N)
          : writeChunkOrReport(ChunkType::Events, B.Thread, B.Events,
                               N * sizeof(Event));
  if (!Written)
    DroppedEvents += N;
  B.Count.store(0);
  B.Flushing.store(false);
  // Cheap next to a 1 MiB write; keeps the clock mapping and modules fresh.
  writeCalibration();
  writeModulesIfChanged();
}

uint32_t lookupComm(MPI_Comm C) {
  uint64_t Generation = CommGeneration.load(std::memory_order_acquire);
  if (LastComm.Handle == C && LastComm.Generation == Generation)
    return LastComm.Id;
  std::lock_guard<std::mutex> Lock(CommMutex);
  uint32_t Id = registerCommLocked(C);
  LastComm = {C, Id, Generation};
  return Id;
}

uint32_t registerNewComm(MPI_Comm C) {
  if (C == MPI_COMM_NULL)
    return CommNone;
  std::lock_guard<std::mutex> Lock(CommMutex);
  return registerCommLocked(C);
}

void forgetComm(MPI_Comm C) {
  std::lock_guard<std::mutex> Lock(CommMutex);
  CommIds.erase(C);
  CommGeneration.fetch_add(1, std::memory_order_acq_rel);
}

bool active() { return Active; }

void setPaused(bool P) {
  Paused.store(P);
  updateTracingOn();
}

void initialize(int ThreadLevel) {
  const char *Dir = getenv("MPILIFT_TRACE_DIR");
  if (!Dir || !*Dir)
    return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &WorldRank);
  PMPI_Comm_size(MPI_COMM_WORLD, &WorldSize);
  HashPayloads = envIsOne("MPILIFT_TRACE_HASH");
  if (const char *Events = getenv("MPILIFT_TRACE_BUFFER_EVENTS"))
    BufferEvents = static_cast<uint32_t>(std::clamp(
        strtol(Events, nullptr, 10), 64L, static_cast<long>(MaxBufferEvents)));
  TraceDir = absolutePath(Dir);
  snprintf(TraceDirForSignals, sizeof(TraceDirForSignals), "%s",
           TraceDir.c_str());

  // Rank 0 decides for all: the directory, and how to convert.
  int Decision[2] = {static_cast<int>(DirectoryDecision::Use), 0};
  std::string Message;
  if (WorldRank == 0) {
    Decision[0] = static_cast<int>(
        prepareTraceDirectory(envIsOne("MPILIFT_TRACE_FORCE"), Message));
    Decision[1] = wantsSerialConversion(Message);
  }
  PMPI_Bcast(Decision, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (WorldRank == 0)
    writeStderr(Message.c_str());
  if (Decision[0] != static_cast<int>(DirectoryDecision::Use))
    return;
  Joined = true;
  ConvertSerially = Decision[1] != 0;

  SpillPath = tracert::spillFilePath(TraceDir, WorldRank);
  int Fd = open(SpillPath.c_str(),
                O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
  if (Fd < 0) {
    reportWriteFailure(errno);
    return;
  }
  SpillFd.store(Fd);

  RankHeader H;
  memset(&H, 0, sizeof(H));
  H.Version = FormatVersion;
  H.Rank = WorldRank;
  H.Size = WorldSize;
  H.Pid = getpid();
  H.Flags = HashPayloads ? uint32_t(RankHashesPayloads) : 0u;
  H.ThreadLevel = ThreadLevel;
  gethostname(H.Host, sizeof(H.Host) - 1);
  ssize_t N = readlink("/proc/self/exe", H.Program, sizeof(H.Program) - 1);
  (void)N;
  Calibration First = readClocks();
  if (!writeChunkOrReport(ChunkType::RankHeader, 0, &H, sizeof(H)) ||
      !writeChunkOrReport(ChunkType::Calibration, 0, &First, sizeof(First)))
    return;
  writeModulesIfChanged();
  {
    std::lock_guard<std::mutex> Lock(CommMutex);
    defineComm(MPI_COMM_WORLD, 0);
  }
  // A second clock reading a millisecond later gives the counter's rate
  // even if the program dies before the next one.
  while (readClocks().MonotonicNs < First.MonotonicNs + 1000000)
    ;
  writeCalibration();

  cachePredefinedTypeSizes();
  installSignalHandlers();
  atexit(onExit);
  Active = true;
  updateTracingOn();
}

void flushAfterAbnormalEnd(EndReason Reason, int Detail) {
  if (!Active || Ended.exchange(true))
    return;
  updateTracingOn();
  flushAllBuffers();
  writeCalibration();
  Footer F{static_cast<uint32_t>(Reason), Detail, DroppedEvents.load()};
  writeChunk(ChunkType::Footer, 0, &F, sizeof(F));
  describeAbnormalEnd(Reason, Detail);
}

/// Ends this rank's spill file: the last buffers, clocks and the footer.
void closeSpillFile() {
  updateTracingOn();
  flushAllBuffers();
  writeModulesIfChanged();
  writeCalibration();
  Footer F{static_cast<uint32_t>(EndReason::Finalize), 0, DroppedEvents.load()};
  bool Written = writeChunk(ChunkType::Footer, 0, &F, sizeof(F));
  int Fd = SpillFd.exchange(-1);
  if (Fd >= 0 && close(Fd) != 0)
    Written = false;
  if (!Written && !WriteFailed.load())
    reportWriteFailure(errno);
}

void reportConversion(const tracert::ConvertResult &R) {
  for (const std::string &W : R.Warnings)
    writeStderr(("mpilift-trace: warning: " + W + "\n").c_str());
  if (!R.Ok)
    writeStderr(("mpilift-trace: error: " + R.Error + "\n").c_str());
}

void finalize() {
  // Once only: a second MPI_Finalize is the program's error, for MPI to say.
  static std::atomic<bool> Finalized{false};
  if (!Joined || Finalized.exchange(true))
    return;
  // A rank that could not record still takes part in the conversion.
  if (Active && !Ended.exchange(true))
    closeSpillFile();
  if (!ConvertSerially) {
    MPIConversionGroup World(MPI_COMM_WORLD);
    tracert::ConvertResult R = tracert::convertInParallel(TraceDir, World);
    if (WorldRank == 0)
      reportConversion(R);
    return;
  }
  // Every spill file is complete once all ranks passed this barrier.
  PMPI_Barrier(MPI_COMM_WORLD);
  if (WorldRank == 0)
    reportConversion(tracert::convertSpillFiles(TraceDir));
}

} // namespace rt
} // namespace mpilift
