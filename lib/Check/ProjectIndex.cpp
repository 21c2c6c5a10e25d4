//===- ProjectIndex.cpp - The project's facts, built and cached -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ProjectIndex.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

using namespace clang;

namespace mpilift {
namespace check {

namespace {

/// Bumped whenever what a summary holds changes.
constexpr int64_t CacheVersion = 11;

std::string hashOf(StringRef Bytes) {
  return llvm::utohexstr(llvm::xxh3_64bits(Bytes), /*LowerCase=*/true);
}

/// What tells this build of mpilift from another: the size and time of
/// its executable. A summary is judged by the code that made it, so one
/// made by another build (whose judgements may have been more lenient) is
/// made again rather than trusted.
const std::string &toolIdentity() {
  static const std::string Identity = [] {
    std::string Exe = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&toolIdentity));
    llvm::sys::fs::file_status Status;
    if (Exe.empty() || llvm::sys::fs::status(Exe, Status))
      // Unknown: a key no other run shares, so nothing cached is used.
      return "unknown build " +
             std::to_string(llvm::sys::Process::getProcessId()) + ' ' +
             std::to_string(
                 std::chrono::steady_clock::now().time_since_epoch().count());
    return Exe + '\0' + std::to_string(Status.getSize()) + '\0' +
           std::to_string(
               Status.getLastModificationTime().time_since_epoch().count());
  }();
  return Identity;
}

/// The hash of what decides how \p File is compiled, and of the build of
/// mpilift that summarises it.
std::string commandHash(const tooling::CompilationDatabase &Compilations,
                        StringRef File) {
  std::string Text = toolIdentity() + '\n';
  for (const tooling::CompileCommand &C :
       Compilations.getCompileCommands(File)) {
    Text += C.Directory + '\n';
    for (const std::string &Arg : C.CommandLine)
      Text += Arg + '\0';
  }
  return hashOf(Text);
}

/// The hash of \p Path's content, or empty if it cannot be read.
std::string contentHash(llvm::vfs::FileSystem &FS, StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      FS.getBufferForFile(Path);
  return Buffer ? hashOf((*Buffer)->getBuffer()) : std::string();
}

/// One unit's entry in the cache: its summary, and what it was made from.
struct CacheEntry {
  std::string Command;
  std::vector<std::pair<std::string, std::string>> Inputs; // path, hash
  analysis::UnitSummary Summary;
};

std::string cachePath(StringRef Dir, StringRef File) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, "index", hashOf(File) + ".json");
  return Path.str().str();
}

/// The cached summary of \p File when its command and inputs are the
/// ones it was made from.
std::optional<analysis::UnitSummary> cachedSummary(StringRef Dir,
                                                   StringRef File,
                                                   StringRef Command,
                                                   llvm::vfs::FileSystem &FS) {
  if (Dir.empty())
    return std::nullopt;
  auto Buffer = llvm::MemoryBuffer::getFile(cachePath(Dir, File));
  if (!Buffer)
    return std::nullopt;
  llvm::Expected<llvm::json::Value> Doc =
      llvm::json::parse((*Buffer)->getBuffer());
  if (!Doc) {
    llvm::consumeError(Doc.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *O = Doc->getAsObject();
  if (!O || O->getInteger("version") != CacheVersion ||
      O->getString("command") != Command)
    return std::nullopt;
  const llvm::json::Array *Inputs = O->getArray("inputs");
  const llvm::json::Value *Summary = O->get("summary");
  if (!Inputs || !Summary)
    return std::nullopt;
  for (const llvm::json::Value &Input : *Inputs) {
    const llvm::json::Object *I = Input.getAsObject();
    std::optional<StringRef> Path = I ? I->getString("path") : std::nullopt;
    std::optional<StringRef> Hash = I ? I->getString("hash") : std::nullopt;
    if (!Path || !Hash || contentHash(FS, *Path) != *Hash)
      return std::nullopt;
  }
  analysis::UnitSummary S;
  llvm::json::Path::Root Root;
  if (!fromJSON(*Summary, S, Root))
    return std::nullopt;
  return S;
}

/// Keeps \p Entry for the next run; a failure only costs that run time.
void keep(StringRef Dir, StringRef File, const CacheEntry &Entry) {
  if (Dir.empty())
    return;
  std::string Path = cachePath(Dir, File);
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)))
    return;
  llvm::json::Array Inputs;
  for (const auto &[Input, Hash] : Entry.Inputs)
    Inputs.push_back(llvm::json::Object{{"path", Input}, {"hash", Hash}});
  llvm::json::Object Doc{{"version", CacheVersion},
                         {"command", Entry.Command},
                         {"inputs", std::move(Inputs)},
                         {"summary", toJSON(Entry.Summary)}};
  // Written beside and renamed over, so no reader sees half an entry.
  std::string Temp =
      Path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Temp, EC);
    if (EC)
      return;
    OS << llvm::json::Value(std::move(Doc));
  }
  if (llvm::sys::fs::rename(Temp, Path))
    llvm::sys::fs::remove(Temp);
}

/// Summarises the unit it parses, with the files it read.
class SummaryAction : public ASTFrontendAction {
public:
  SummaryAction(CacheEntry &Out, llvm::vfs::FileSystem &FS)
      : Out(Out), FS(FS) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<ASTConsumer>();
  }

  void EndSourceFileAction() override {
    CompilerInstance &CI = getCompilerInstance();
    if (!CI.hasASTContext() ||
        CI.getDiagnostics().hasUncompilableErrorOccurred())
      return;
    ASTContext &Context = CI.getASTContext();
    Out.Summary = analysis::summarizeUnit(Context);
    const SourceManager &SM = Context.getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      StringRef Real = It->first.getFileEntry().tryGetRealPathName();
      std::string Path = Real.empty() ? It->first.getName().str() : Real.str();
      Out.Inputs.push_back({Path, contentHash(FS, Path)});
    }
    llvm::sort(Out.Inputs);
    Parsed = true;
  }

  bool parsed() const { return Parsed; }

private:
  CacheEntry &Out;
  llvm::vfs::FileSystem &FS;
  bool Parsed = false;
};

} // namespace

std::string indexCacheFor(StringRef File, StringRef DatabaseDir) {
  llvm::SmallString<256> Dir(DatabaseDir);
  if (Dir.empty()) {
    llvm::SmallString<256> Absolute(File);
    llvm::sys::fs::make_absolute(Absolute);
    for (StringRef Up = llvm::sys::path::parent_path(Absolute); !Up.empty();
         Up = llvm::sys::path::parent_path(Up)) {
      llvm::SmallString<256> Candidate(Up);
      llvm::sys::path::append(Candidate, "compile_commands.json");
      if (llvm::sys::fs::exists(Candidate)) {
        Dir = Up;
        break;
      }
    }
    if (Dir.empty())
      return "";
  }
  llvm::sys::path::append(Dir, ".cache", "mpilift");
  return Dir.str().str();
}

std::unique_ptr<analysis::ProjectFacts>
buildProjectFacts(const tooling::CompilationDatabase &Compilations,
                  CheckSession::Impl &Session,
                  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  std::vector<std::string> Files = Compilations.getAllFiles();
  if (Files.empty())
    return nullptr;
  auto Project = std::make_unique<analysis::ProjectFacts>();
  if (Files.size() == 1) {
    // The unit is all the program: what it does, its check sees.
    analysis::UnitSummary Alone;
    llvm::SmallString<256> Real;
    Alone.File = llvm::sys::fs::real_path(Files.front(), Real)
                     ? Files.front()
                     : Real.str().str();
    Project->add(std::move(Alone));
    return Project;
  }
  // Units parse on several threads.
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> ReaderFS =
      fileSystemForThread(FS);
  llvm::vfs::FileSystem &Reader = *ReaderFS;
  StringRef Dir = Session.Options.IndexCacheDir;
  std::vector<std::optional<analysis::UnitSummary>> Summaries(Files.size());
  std::vector<std::string> Failed;
  std::mutex FailedMutex;
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I; (I = Next++) < Files.size();) {
      const std::string &File = Files[I];
      std::string Command = commandHash(Compilations, File);
      Summaries[I] = cachedSummary(Dir, File, Command, Reader);
      if (Summaries[I])
        continue;
      CacheEntry Entry;
      Entry.Command = Command;
      SummaryAction *Action = nullptr;
      struct Factory : tooling::FrontendActionFactory {
        CacheEntry &Entry;
        llvm::vfs::FileSystem &FS;
        SummaryAction *&Made;
        Factory(CacheEntry &Entry, llvm::vfs::FileSystem &FS,
                SummaryAction *&Made)
            : Entry(Entry), FS(FS), Made(Made) {}
        std::unique_ptr<FrontendAction> create() override {
          auto A = std::make_unique<SummaryAction>(Entry, FS);
          Made = A.get();
          return A;
        }
      } Make(Entry, Reader, Action);
      std::unique_ptr<tooling::ClangTool> Tool =
          newTool(Compilations, {File}, Session, fileSystemForThread(FS));
      IgnoringDiagConsumer Quiet;
      Tool->setDiagnosticConsumer(&Quiet);
      bool Ran = Tool->run(&Make) == 0 && Action && Action->parsed();
      if (!Ran) {
        std::lock_guard<std::mutex> Lock(FailedMutex);
        Failed.push_back(File);
        continue;
      }
      keep(Dir, File, Entry);
      Summaries[I] = std::move(Entry.Summary);
    }
  };
  unsigned Jobs = std::max(1u, Session.Options.Jobs);
  std::vector<std::thread> Threads;
  for (unsigned T = 1; T < std::min<size_t>(Jobs, Files.size()); ++T)
    Threads.emplace_back(Work);
  Work();
  for (std::thread &T : Threads)
    T.join();
  if (!Failed.empty()) {
    llvm::sort(Failed);
    Session.message(
        SessionMessage::Warning,
        "the project index is incomplete: '" + Failed.front() + "'" +
            (Failed.size() > 1
                 ? " and " + std::to_string(Failed.size() - 1) + " other units"
                 : std::string()) +
            " could not be parsed; each unit is checked alone");
    return nullptr;
  }
  for (std::optional<analysis::UnitSummary> &S : Summaries)
    Project->add(std::move(*S));
  return Project;
}

} // namespace check
} // namespace mpilift
