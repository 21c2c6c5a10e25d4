//===- CompilerFlags.cpp - How a database's commands are parsed -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CompilerFlags.h"

#include "mpilift/Check/GlobList.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <map>
#include <optional>

namespace mpilift {
namespace check {

namespace {

/// GCC 12 warns where clang 19 stops: implicit int, implicit function
/// declarations, int/pointer conversions. Units built with GCC are parsed
/// as it would build them.
const char *const GCCLegacyFlags[] = {
    "-Wno-error=implicit-int", "-Wno-error=implicit-function-declaration",
    "-Wno-error=int-conversion",
    "-Wno-error=incompatible-function-pointer-types"};

/// What \p Path prints for \p Query, or nothing if it fails.
std::optional<std::string> ask(llvm::StringRef Path, llvm::StringRef Query) {
  llvm::SmallString<128> Out;
  if (llvm::sys::fs::createTemporaryFile("mpilift-wrapper", "txt", Out))
    return std::nullopt;
  std::optional<llvm::StringRef> Redirects[] = {
      std::nullopt, llvm::StringRef(Out), llvm::StringRef("")};
  int RC =
      llvm::sys::ExecuteAndWait(Path, {Path, Query}, std::nullopt, Redirects);
  auto Text = llvm::MemoryBuffer::getFile(Out);
  llvm::sys::fs::remove(Out);
  if (RC != 0 || !Text)
    return std::nullopt;
  return (*Text)->getBuffer().str();
}

/// The real path of \p Path, or \p Path if it has none.
std::string realPathOf(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    return Path.str();
  return std::string(Real);
}

/// Whether \p Path matches one of the comma-separated \p Globs.
bool allowedByGlobs(llvm::StringRef Globs, llvm::StringRef Path) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Globs.split(Parts, ',', -1, false);
  return llvm::any_of(Parts, [&](llvm::StringRef Glob) {
    Glob = Glob.trim();
    return !Glob.empty() && matchesGlob(Glob, Path);
  });
}

MPIWrapperFlags::Wrapper query(llvm::StringRef Path) {
  // Open MPI: --showme:compile prints only the flags, --showme:command
  // the compiler. MPICH: -show prints the whole command, the compiler
  // first; its -I and -D words are the ones that matter.
  MPIWrapperFlags::Wrapper W;
  std::optional<std::string> Text = ask(Path, "--showme:compile");
  if (Text) {
    if (std::optional<std::string> Command = ask(Path, "--showme:command"))
      W.Compiler = llvm::StringRef(*Command).trim().str();
  } else if ((Text = ask(Path, "-show"))) {
    W.Compiler = llvm::StringRef(*Text).trim().split(' ').first.str();
  } else {
    return W;
  }
  llvm::SmallVector<llvm::StringRef, 16> Words;
  llvm::StringRef(*Text).split(Words, ' ', -1, false);
  for (llvm::StringRef Word : Words) {
    Word = Word.trim();
    if (Word.starts_with("-I") || Word.starts_with("-D") ||
        Word.starts_with("-isystem") || Word == "-pthread")
      W.Flags.push_back(Word.str());
  }
  return W;
}

/// query(), once per program in the process: a language server checks each
/// edit in a session of its own, and asking a wrapper costs two processes.
MPIWrapperFlags::Wrapper queryOnce(const std::string &Path) {
  static std::mutex Mutex;
  static std::map<std::string, MPIWrapperFlags::Wrapper> Asked;
  std::lock_guard<std::mutex> Lock(Mutex);
  auto [It, New] = Asked.try_emplace(Path);
  if (New)
    It->second = query(Path);
  return It->second;
}

} // namespace

MPIWrapperFlags::MPIWrapperFlags(std::string QueryDriver,
                                 std::function<void(std::string)> Note)
    : QueryDriver(std::move(QueryDriver)), Note(std::move(Note)) {}

std::string MPIWrapperFlags::programToAsk(llvm::StringRef Compiler,
                                          bool &Replaced) const {
  Replaced = false;
  llvm::StringRef Name = llvm::sys::path::filename(Compiler);
  llvm::ErrorOr<std::string> OnPath = llvm::sys::findProgramByName(Name);
  if (!Compiler.contains('/'))
    return OnPath ? *OnPath : std::string();
  llvm::SmallString<256> Absolute(Compiler);
  llvm::sys::fs::make_absolute(Absolute);
  if (allowedByGlobs(QueryDriver, Compiler) ||
      allowedByGlobs(QueryDriver, Absolute))
    return std::string(Absolute);
  if (OnPath && realPathOf(*OnPath) == realPathOf(Absolute))
    return std::string(Absolute);
  Replaced = true;
  if (OnPath)
    return *OnPath;
  llvm::ErrorOr<std::string> MPICC = llvm::sys::findProgramByName("mpicc");
  return MPICC ? *MPICC : std::string();
}

const MPIWrapperFlags::Wrapper &
MPIWrapperFlags::wrapperFor(llvm::StringRef Compiler) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto [It, New] = Cache.try_emplace(Compiler);
  if (!New)
    return It->second;
  bool Replaced = false;
  std::string Program = programToAsk(Compiler, Replaced);
  if (Replaced && Note)
    Note("not running '" + Compiler.str() +
         "', the compiler the compile database names: only wrappers found "
         "on PATH or allowed by --query-driver are run; " +
         (Program.empty() ? std::string("no MPI wrapper on PATH either, so "
                                        "no MPI flags are added")
                          : "using the flags of '" + Program + "' instead"));
  if (!Program.empty())
    It->second = queryOnce(Program);
  return It->second;
}

bool MPIWrapperFlags::isWrapper(llvm::StringRef Compiler) {
  llvm::StringRef Name = llvm::sys::path::filename(Compiler);
  return Name.starts_with("mpicc") || Name.starts_with("mpicxx") ||
         Name.starts_with("mpic++") || Name.starts_with("mpiCC");
}

bool isGCC(llvm::StringRef Compiler) {
  llvm::StringRef Name = llvm::sys::path::filename(Compiler);
  auto [Stem, Version] = Name.rsplit('-');
  if (!Version.empty() && llvm::all_of(Version, llvm::isDigit))
    Name = Stem; // gcc-12
  for (llvm::StringRef GCC : {"gcc", "g++", "cc", "c++", "c89", "c99"})
    if (Name == GCC || Name.ends_with(("-" + GCC).str()))
      return true;
  return false;
}

clang::tooling::ArgumentsAdjuster
compilerAdjuster(std::shared_ptr<MPIWrapperFlags> Wrappers) {
  return [Wrappers](const clang::tooling::CommandLineArguments &Args,
                    llvm::StringRef) {
    clang::tooling::CommandLineArguments Out = Args;
    if (Args.empty())
      return Out;
    std::string Compiler = Args[0];
    if (MPIWrapperFlags::isWrapper(Args[0])) {
      const MPIWrapperFlags::Wrapper &W = Wrappers->wrapperFor(Args[0]);
      Out.insert(Out.begin() + 1, W.Flags.begin(), W.Flags.end());
      Compiler = W.Compiler;
    }
    if (isGCC(Compiler))
      Out.insert(Out.begin() + 1, std::begin(GCCLegacyFlags),
                 std::end(GCCLegacyFlags));
    bool HasResourceDir = llvm::any_of(Args, [](const std::string &A) {
      return llvm::StringRef(A).starts_with("-resource-dir");
    });
    if (!HasResourceDir &&
        llvm::sys::fs::is_directory(MPILIFT_CLANG_RESOURCE_DIR))
      Out.insert(Out.begin() + 1, "-resource-dir=" MPILIFT_CLANG_RESOURCE_DIR);
    return Out;
  };
}

} // namespace check
} // namespace mpilift
