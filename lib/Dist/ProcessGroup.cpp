//===- ProcessGroup.cpp - The processes of an mpirun launch ---------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Dist/ProcessGroup.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#ifndef MPILIFT_RELATIVE_LIBDIR
#define MPILIFT_RELATIVE_LIBDIR "../lib"
#endif

namespace mpilift {
namespace dist {

ProcessGroup::~ProcessGroup() = default;

std::string ProcessGroup::memberName(int Rank) const {
  return "process " + std::to_string(Rank);
}

namespace {

/// The functions of libmpilift-mpi.so (MPIPlugin.c).
struct PluginAPI {
  int (*Version)();
  int (*Init)(int *, int *);
  int (*Broadcast)(int *);
  int (*Send)(const char *, uint64_t);
  int (*ReceiveSize)(int, uint64_t *);
  int (*Receive)(int, char *, uint64_t);
  void (*ErrorString)(int, char *, int);
  int (*Finalize)();
};

/// Where the plugin is: $MPILIFT_MPI_PLUGIN, else in the library directory
/// beside this executable (as installed, or in the build tree).
std::string findPlugin() {
  if (const char *Path = std::getenv("MPILIFT_MPI_PLUGIN"))
    return Path;
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable("mpilift", &Anchor);
  llvm::StringRef Bin = llvm::sys::path::parent_path(Exe);
  for (const char *Relative : {MPILIFT_RELATIVE_LIBDIR, "../lib"}) {
    llvm::SmallString<256> Candidate(Bin);
    llvm::sys::path::append(Candidate, Relative, "libmpilift-mpi.so");
    if (llvm::sys::fs::exists(Candidate))
      return std::string(Candidate);
  }
  return "";
}

llvm::Expected<PluginAPI> loadPlugin() {
  std::string Path = findPlugin();
  if (Path.empty())
    return llvm::createStringError(
        "libmpilift-mpi.so is not in the library directory beside mpilift "
        "(set MPILIFT_MPI_PLUGIN to its path)");
  std::string Why;
  llvm::sys::DynamicLibrary Lib =
      llvm::sys::DynamicLibrary::getPermanentLibrary(Path.c_str(), &Why);
  if (!Lib.isValid())
    return llvm::createStringError(
        llvm::formatv("cannot load '{0}': {1}", Path, Why).str());
  std::vector<std::string> Missing;
  auto symbol = [&](const char *Name) {
    void *Address = Lib.getAddressOfSymbol(Name);
    if (!Address)
      Missing.push_back(Name);
    return Address;
  };
  PluginAPI API;
  API.Version =
      reinterpret_cast<int (*)()>(symbol("mpilift_mpi_plugin_version"));
  API.Init =
      reinterpret_cast<int (*)(int *, int *)>(symbol("mpilift_mpi_init"));
  API.Broadcast =
      reinterpret_cast<int (*)(int *)>(symbol("mpilift_mpi_broadcast"));
  API.Send = reinterpret_cast<int (*)(const char *, uint64_t)>(
      symbol("mpilift_mpi_send"));
  API.ReceiveSize = reinterpret_cast<int (*)(int, uint64_t *)>(
      symbol("mpilift_mpi_receive_size"));
  API.Receive = reinterpret_cast<int (*)(int, char *, uint64_t)>(
      symbol("mpilift_mpi_receive"));
  API.ErrorString = reinterpret_cast<void (*)(int, char *, int)>(
      symbol("mpilift_mpi_error_string"));
  API.Finalize = reinterpret_cast<int (*)()>(symbol("mpilift_mpi_finalize"));
  if (!Missing.empty())
    return llvm::createStringError(
        llvm::formatv("'{0}' is no mpilift MPI plugin (it lacks {1})", Path,
                      llvm::join(Missing, ", "))
            .str());
  if (API.Version() != 1)
    return llvm::createStringError(
        llvm::formatv("'{0}' speaks version {1} of the plugin interface, not 1",
                      Path, API.Version())
            .str());
  return API;
}

/// A process group over MPI_COMM_WORLD.
class MPIProcessGroup : public ProcessGroup {
public:
  MPIProcessGroup(PluginAPI API, int Rank, int Size)
      : API(API), Rank(Rank), Size(Size) {}
  ~MPIProcessGroup() override { API.Finalize(); }

  int rank() const override { return Rank; }
  int size() const override { return Size; }

  llvm::Expected<int> broadcast(int Value) override {
    if (int Err = API.Broadcast(&Value))
      return failure("broadcast", Err);
    return Value;
  }

  llvm::Error sendToFirst(std::string Data) override {
    if (int Err = API.Send(Data.data(), Data.size()))
      return failure("send to process 0", Err);
    return llvm::Error::success();
  }

  llvm::Expected<std::string> receiveFrom(int From) override {
    uint64_t Bytes = 0;
    if (int Err = API.ReceiveSize(From, &Bytes))
      return failure("receive from process " + std::to_string(From), Err);
    std::string Data(Bytes, '\0');
    if (int Err = API.Receive(From, Data.data(), Bytes))
      return failure("receive from process " + std::to_string(From), Err);
    return Data;
  }

private:
  llvm::Error failure(const std::string &What, int Err) const {
    char Text[512];
    API.ErrorString(Err, Text, sizeof(Text));
    return llvm::createStringError(
        llvm::formatv("MPI {0} failed: {1}", What, Text).str());
  }

  PluginAPI API;
  int Rank, Size;
};

/// The first of the environment variables \p Names that holds a
/// non-negative number (a launcher sets one of each kind); -1 if none.
int launcherValue(std::initializer_list<const char *> Names) {
  for (const char *Var : Names) {
    const char *Value = std::getenv(Var);
    unsigned N = 0;
    if (Value && llvm::to_integer(llvm::StringRef(Value), N, 10) &&
        N < unsigned(INT32_MAX))
      return static_cast<int>(N);
  }
  return -1;
}

} // namespace

int launchedProcesses() {
  int N = launcherValue({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"});
  return N > 0 ? N : 1;
}

int launchedRank() {
  int Rank = launcherValue({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"});
  return Rank >= 0 ? Rank : 0;
}

llvm::Expected<std::unique_ptr<ProcessGroup>> joinLaunchedProcesses() {
  if (launchedProcesses() <= 1)
    return nullptr;
  llvm::Expected<PluginAPI> API = loadPlugin();
  if (!API)
    return API.takeError();
  int Rank = 0, Size = 0;
  if (int Err = API->Init(&Rank, &Size)) {
    char Text[512];
    API->ErrorString(Err, Text, sizeof(Text));
    return llvm::createStringError(
        llvm::formatv("MPI_Init failed: {0}", Text).str());
  }
  return std::make_unique<MPIProcessGroup>(*API, Rank, Size);
}

} // namespace dist
} // namespace mpilift
