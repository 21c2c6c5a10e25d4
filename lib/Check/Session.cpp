//===- Session.cpp - One run of mpilift's rules over a database -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ProjectIndex.h"
#include "SessionImpl.h"

#include "mpilift/Analysis/Fusion.h"
#include "mpilift/Check/Edits.h"
#include "mpilift/Check/GlobList.h"

#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace clang;

namespace mpilift {
namespace check {

const char *const DefaultChecks = "mpilift-manual-*,mpilift-fuse-collectives";

FindingSink::~FindingSink() = default;

std::vector<std::string> cdagIncludeDirs() {
  std::vector<std::string> Dirs;
  for (const char *Dir : {MPILIFT_CDAG_INCLUDE_DIRS})
    if (llvm::sys::fs::exists(llvm::Twine(Dir) + "/cdag/cdag.h"))
      Dirs.push_back(Dir);
  return Dirs;
}

CheckSession::CheckSession(SessionOptions Options)
    : P(std::make_unique<Impl>(std::move(Options))) {}

CheckSession::~CheckSession() = default;

InvocationHook::~InvocationHook() = default;

const SessionOptions &CheckSession::options() const { return P->Options; }

llvm::Error CheckSession::addPatterns(const llvm::json::Value &Doc,
                                      llvm::StringRef Origin) {
  return addPatternSites(Doc, Origin, P->Evidence);
}

void CheckSession::setBlockedTime(BlockedTime Blocked) {
  P->Blocked = std::move(Blocked);
}

bool CheckSession::wantsBlockedTime() const {
  return anyOverlapRule(GlobList(P->Options.Checks.value_or(DefaultChecks)));
}

const TraceEvidence &CheckSession::evidence() const { return P->Evidence; }

const BlockedTime &CheckSession::blockedTime() const { return P->Blocked; }

std::vector<std::string>
CheckSession::unitsToCheck(std::vector<std::string> Files) {
  if (!P->Evidence.Present)
    return Files;
  std::string Note;
  std::vector<std::string> Kept =
      unitsWithSites(Files, P->Evidence, P->Blocked, Note);
  P->message(SessionMessage::Info, Note);
  return Kept;
}

std::unique_ptr<tooling::ClangTool>
newTool(const tooling::CompilationDatabase &Compilations,
        const std::vector<std::string> &Files, CheckSession::Impl &S,
        llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  auto Tool = FS ? std::make_unique<tooling::ClangTool>(
                       Compilations, Files,
                       std::make_shared<PCHContainerOperations>(), FS)
                 : std::make_unique<tooling::ClangTool>(Compilations, Files);
  Tool->appendArgumentsAdjuster(compilerAdjuster(S.Wrappers));
  return Tool;
}

int CheckSession::run(const tooling::CompilationDatabase &Compilations,
                      const std::vector<std::string> &Files, FindingSink *Sink,
                      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  Impl &S = *P;
  S.Sink = Sink;
  if (!S.ProjectBuilt) {
    S.Project = buildProjectFacts(Compilations, S, FS);
    S.ProjectBuilt = true;
  }
  std::unique_ptr<tooling::FrontendActionFactory> Factory =
      newUnitCheckFactory(S, Sink);
  unsigned Jobs = S.Options.Jobs;
  if (Jobs <= 1 || Files.size() <= 1) {
    std::unique_ptr<tooling::ClangTool> Tool =
        newTool(Compilations, Files, S, FS);
    if (S.Options.Diagnostics)
      Tool->setDiagnosticConsumer(S.Options.Diagnostics);
    return Tool->run(Factory.get());
  }
  // Several units at a time: each unit's diagnostics are printed whole and
  // in file order, and a progress line counts the units on a terminal.
  size_t N = Files.size();
  std::vector<std::string> Output(N);
  std::vector<bool> Done(N, false);
  size_t NextToPrint = 0, Finished = 0;
  std::mutex PrintMutex;
  std::atomic<size_t> Next{0};
  std::atomic<int> Status{0};
  bool Terminal = llvm::errs().is_displayed();
  auto Worker = [&] {
    for (size_t I = Next++; I < N; I = Next++) {
      std::string Buffer;
      llvm::raw_string_ostream OS(Buffer);
      llvm::IntrusiveRefCntPtr<DiagnosticOptions> Options(
          new DiagnosticOptions());
      Options->ShowColors = llvm::errs().has_colors();
      TextDiagnosticPrinter Printer(OS, Options.get());
      std::unique_ptr<tooling::ClangTool> Tool =
          newTool(Compilations, {Files[I]}, S, fileSystemForThread(FS));
      Tool->setDiagnosticConsumer(&Printer);
      if (Tool->run(Factory.get()) != 0)
        Status = 1;
      OS.flush();
      std::lock_guard<std::mutex> Lock(PrintMutex);
      Output[I] = std::move(Buffer);
      Done[I] = true;
      ++Finished;
      if (Terminal)
        llvm::errs() << "\r\x1b[K";
      while (NextToPrint < N && Done[NextToPrint])
        llvm::errs() << Output[NextToPrint++];
      if (Terminal)
        llvm::errs() << "[" << Finished << "/" << N << "] checked";
    }
  };
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T < std::min<size_t>(Jobs, N); ++T)
    Threads.emplace_back(Worker);
  for (std::thread &T : Threads)
    T.join();
  if (Terminal)
    llvm::errs() << "\r\x1b[K";
  return Status;
}

std::vector<Finding> CheckSession::findings() const {
  std::vector<Finding> Out = P->Results;
  // A deterministic order, whatever order the units ran in.
  llvm::stable_sort(Out, [](const Finding &A, const Finding &B) {
    return std::tie(A.Where.File, A.Where.Line, A.Where.Column) <
           std::tie(B.Where.File, B.Where.Line, B.Where.Column);
  });
  return Out;
}

bool CheckSession::anyError() const { return P->AnyError; }

unsigned CheckSession::parseFailures() const { return P->ParseFailures; }

unsigned CheckSession::configErrors() const { return P->ConfigErrors; }

std::vector<SessionMessage> CheckSession::takeMessages() {
  std::lock_guard<std::mutex> Lock(P->MessageMutex);
  return std::exchange(P->Messages, {});
}

namespace {

/// The new content of every file the kept rewrites change, formatted.
bool newContents(CheckSession::Impl &S, NewContents &Out) {
  bool OK = true;
  for (const auto &[File, Sited] : S.Changes) {
    std::vector<tooling::AtomicChange> Changes;
    for (const auto &[Site, Change] : Sited) {
      if (!S.RefusedSites.count(Site)) {
        Changes.push_back(Change);
        continue;
      }
      S.message(SessionMessage::Warning,
                "not rewriting the pattern at " + File + " (offset " +
                    llvm::StringRef(Site).rsplit(':').second.str() +
                    "): one translation unit proves it but another refuses "
                    "it, and one edit would serve both");
    }
    if (Changes.empty())
      continue;
    auto Code = llvm::MemoryBuffer::getFile(File);
    if (!Code) {
      S.message(SessionMessage::Error,
                "cannot read '" + File + "': " + Code.getError().message());
      OK = false;
      continue;
    }
    std::string StyleProblem;
    llvm::Expected<std::string> NewCode =
        applyFormatted(File, (*Code)->getBuffer(), Changes, &StyleProblem);
    if (!StyleProblem.empty())
      S.message(SessionMessage::Warning, "no usable clang-format style for '" +
                                             File +
                                             "', using LLVM: " + StyleProblem);
    if (!NewCode) {
      // Conflicting edits: none of this file's rewrites is applied.
      std::string Why = llvm::toString(NewCode.takeError());
      std::replace(Why.begin(), Why.end(), '\n', ' ');
      S.message(SessionMessage::Error,
                "cannot apply the rewrites to '" + File +
                    "' together: " + llvm::StringRef(Why).trim().str() +
                    "; none of them is applied");
      OK = false;
      continue;
    }
    Out[File] = {(*Code)->getBuffer().str(), std::move(*NewCode)};
  }
  return OK;
}

/// Counts the errors of a parse without printing anything twice.
class ErrorCounter : public DiagnosticConsumer {};

/// Parses, in memory, the translation unit each rewritten file came from
/// with every rewritten file in place; drops the files of a unit that no
/// longer compiles (that would be our bug: say so, write nothing for it).
bool verifyContents(const tooling::CompilationDatabase &Compilations,
                    CheckSession::Impl &S, NewContents &Contents) {
  bool OK = true;
  std::set<std::string> Units;
  for (const auto &[File, Content] : Contents)
    Units.insert(S.Origin.at(File));
  for (const std::string &Unit : Units) {
    std::unique_ptr<tooling::ClangTool> Tool =
        newTool(Compilations, {Unit}, S, nullptr);
    for (const std::string &Dir : cdagIncludeDirs())
      Tool->appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          ("-I" + Dir).c_str(), tooling::ArgumentInsertPosition::END));
    for (const auto &[File, Content] : Contents)
      Tool->mapVirtualFile(File, Content.second);
    ErrorCounter Errors;
    Tool->setDiagnosticConsumer(&Errors);
    std::unique_ptr<tooling::FrontendActionFactory> Factory =
        tooling::newFrontendActionFactory<SyntaxOnlyAction>();
    if (Tool->run(Factory.get()) == 0 && Errors.getNumErrors() == 0)
      continue;
    for (auto It = Contents.begin(); It != Contents.end();) {
      if (S.Origin.at(It->first) != Unit) {
        ++It;
        continue;
      }
      S.message(SessionMessage::Error, "the rewritten '" + It->first +
                                           "' does not compile (as part "
                                           "of '" +
                                           Unit +
                                           "'); nothing is written to it");
      It = Contents.erase(It);
      OK = false;
    }
  }
  return OK;
}

/// Writes each file atomically (a temporary file renamed over it); a
/// read-only file is left alone with a message.
bool writeContents(CheckSession::Impl &S, const NewContents &Contents) {
  bool OK = true;
  for (const auto &[File, Content] : Contents) {
    llvm::ErrorOr<llvm::sys::fs::perms> Perms =
        llvm::sys::fs::getPermissions(File);
    if (Perms && !(*Perms & llvm::sys::fs::owner_write)) {
      S.message(SessionMessage::Error,
                "cannot write '" + File +
                    "': it is read-only; its rewrites are not applied");
      OK = false;
      continue;
    }
    if (llvm::Error E = llvm::writeToOutput(File, [&](llvm::raw_ostream &OS) {
          OS << Content.second;
          return llvm::Error::success();
        })) {
      S.message(SessionMessage::Error,
                "cannot write '" + File + "': " + llvm::toString(std::move(E)));
      OK = false;
      continue;
    }
    if (Perms)
      llvm::sys::fs::setPermissions(File, *Perms);
    size_t N = 0;
    for (const auto &Sited : S.Changes.at(File))
      N += !S.RefusedSites.count(Sited.first);
    S.message(SessionMessage::Info, "applied " + std::to_string(N) +
                                        (N == 1 ? " fix" : " fixes") + " in " +
                                        File);
  }
  return OK;
}

} // namespace

bool CheckSession::computeFixes(
    const tooling::CompilationDatabase &Compilations, NewContents &Out) {
  bool OK = newContents(*P, Out);
  OK &= verifyContents(Compilations, *P, Out);
  return OK;
}

bool CheckSession::writeFixes(const tooling::CompilationDatabase &Compilations,
                              const NewContents &Contents) {
  if (!writeContents(*P, Contents))
    return false;
  if (Contents.empty())
    return true;
  // The rewrites may have made sequences of collectives that
  // mpilift-fuse-collectives fuses (a hand-written reduction, now
  // MPI_Reduce, before the program's MPI_Bcast of its result): one more
  // pass of that rule over the units of the written files fuses them, so
  // that --fix reaches the fused form in one go.
  std::string Rule = analysis::fusionRuleId().str();
  if (!GlobList(P->Options.Checks.value_or(DefaultChecks)).contains(Rule))
    return true;
  std::set<std::string> Units;
  for (const auto &[File, Content] : Contents) {
    auto It = P->Origin.find(File);
    Units.insert(It != P->Origin.end() ? It->second : File);
  }
  SessionOptions Again = P->Options;
  Again.Checks = Rule;
  Again.KeepFixes = true;
  Again.Jobs = 1;
  CheckSession Second(std::move(Again));
  std::vector<std::string> Files(Units.begin(), Units.end());
  Second.run(Compilations, Files, P->Sink);
  if (Second.P->Changes.empty())
    return true;
  NewContents More;
  bool OK = Second.computeFixes(Compilations, More);
  return OK && writeContents(*Second.P, More);
}

} // namespace check
} // namespace mpilift
