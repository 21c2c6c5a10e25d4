//===- MpiliftTidyModule.cpp - mpilift's rules in clang-tidy --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A clang-tidy module (`clang-tidy-19 --load=libmpiliftTidyModule.so
/// --checks='mpilift-*'`) registering mpilift's rules, for the editors that
/// run clang-tidy themselves (CLion, VS Code's C/C++ extension). It is a
/// front end over the check engine (mpilift/Check/Session.h): for each
/// translation unit clang-tidy checks, the engine checks the same file with
/// the flags of the compile_commands.json above it, and each finding of an
/// enabled rule is reported through clang-tidy with its fix-it (the lines
/// `mpilift check --fix` writes, so `--fix` and `--export-fixes` apply our
/// rewrites) and its notes.
///
/// Options, in `.clang-tidy` (`CheckOptions`) or `--config`, per rule or
/// global: `Trace` (a trace directory), `Patterns` (a file of `mpilift
/// detect --format json`), `Collectives` (blocking or nonblocking),
/// `AllowReassociation` (true or false), `CostProfile` (the machine profile
/// of `mpilift calibrate`). Which MPI wrappers outside PATH
/// may be run is not an option: a repository's .clang-tidy could name its
/// own scripts. It comes from the user's environment,
/// `MPILIFT_QUERY_DRIVER` (the globs of `mpilift check --query-driver`).
///
/// The module refuses to load into another clang-tidy than the one it is
/// built for (its classes would not match the host's): it says so and ends
/// the process with status 2.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Check/Edits.h"
#include "mpilift/Check/Findings.h"
#include "mpilift/Check/Session.h"
#include "mpilift/Patterns/PatternsJson.h"
#include "mpilift/Trace/Trace.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Version.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

using namespace clang;
using namespace clang::tidy;

namespace mpilift {
namespace tidy {

namespace {

/// The version of the clang libraries the host process runs with: the
/// first definition of clang::getClangFullVersion() in the process, which
/// is the host's own libclang-cpp when the host is another clang-tidy.
std::string hostClangVersion() {
  using VersionFn = std::string (*)();
  void *Sym = dlsym(RTLD_DEFAULT, "_ZN5clang19getClangFullVersionB5cxx11Ev");
  if (!Sym)
    return "";
  return reinterpret_cast<VersionFn>(Sym)();
}

/// Runs before the module registers itself (initializers of one file run
/// in order): in another clang-tidy, registering would hand the host
/// classes of another layout.
const bool HostChecked = [] {
  std::string Host = hostClangVersion();
  std::string Ours = "version " CLANG_VERSION_STRING;
  if (Host.empty() || Host.find(Ours) != std::string::npos)
    return true;
  llvm::errs() << "error: libmpiliftTidyModule.so is built for clang-tidy "
               << CLANG_VERSION_MAJOR << " (" << Ours
               << ") and cannot run in this clang-tidy (" << Host
               << "); run clang-tidy-" << CLANG_VERSION_MAJOR
               << " --load=..., or mpilift-clang-tidy\n";
  llvm::errs().flush();
  std::_Exit(2);
}();

/// A finding of the engine as clang-tidy reports it.
struct TidyFinding {
  check::Finding F;
  /// Its fix: lines [Begin, End) of the file become Text.
  std::optional<check::LineSpanEdit> Fix;
};

/// Keeps the findings of one run with their fixes, computed while the
/// engine's AST is alive.
class CollectingSink : public check::FindingSink {
public:
  explicit CollectingSink(std::vector<TidyFinding> &Out) : Out(Out) {}
  void found(const check::Finding &F, const tooling::AtomicChange *Change,
             const SourceManager &SM, SourceLocation Loc,
             CompilerInstance &) override {
    TidyFinding T{F, std::nullopt};
    if (Change) {
      FileID File = SM.getFileID(SM.getExpansionLoc(Loc));
      llvm::StringRef Code = SM.getBufferData(File);
      llvm::Expected<std::string> After =
          check::applyFormatted(Change->getFilePath(), Code, {*Change});
      if (After)
        T.Fix = check::changedLines(Code, *After);
      else
        llvm::consumeError(After.takeError());
    }
    Out.push_back(std::move(T));
  }

private:
  std::vector<TidyFinding> &Out;
};

/// What a run depends on besides the file.
struct RunSettings {
  std::string Checks, Trace, Patterns, Collectives, QueryDriver, CostProfile;
  bool AllowReassociation = false;
  bool operator<(const RunSettings &O) const {
    return std::tie(Checks, Trace, Patterns, Collectives, QueryDriver,
                    CostProfile, AllowReassociation) <
           std::tie(O.Checks, O.Trace, O.Patterns, O.Collectives, O.QueryDriver,
                    O.CostProfile, O.AllowReassociation);
  }
};

/// The engine's findings for a file, computed once for all the rules
/// clang-tidy runs on it.
class Runs {
public:
  static Runs &instance() {
    static Runs R;
    return R;
  }

  /// The findings for \p File; \p Problem says why there are none.
  const std::vector<TidyFinding> &
  get(llvm::StringRef File, const RunSettings &S, std::string &Problem) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto Key = std::make_pair(File.str(), S);
    auto It = Cache.find(Key);
    if (It == Cache.end()) {
      It = Cache.emplace(Key, Entry()).first;
      run(File, S, It->second);
    }
    Problem = It->second.Problem;
    return It->second.Findings;
  }

private:
  struct Entry {
    std::vector<TidyFinding> Findings;
    std::string Problem;
  };

  static void run(llvm::StringRef File, const RunSettings &S, Entry &E) {
    std::string Why;
    std::unique_ptr<tooling::CompilationDatabase> Database =
        tooling::CompilationDatabase::autoDetectFromSource(File, Why);
    if (!Database) {
      E.Problem = "mpilift: no compile_commands.json above '" + File.str() +
                  "'; its rules need the file's compile command";
      return;
    }
    check::SessionOptions Options;
    Options.Checks = S.Checks;
    if (!S.Collectives.empty())
      Options.Collectives = S.Collectives;
    Options.AllowReassociation = S.AllowReassociation;
    if (!S.CostProfile.empty()) {
      llvm::Expected<analysis::MachineProfile> Profile =
          analysis::readMachineProfile(S.CostProfile);
      if (!Profile) {
        E.Problem = "mpilift: " + llvm::toString(Profile.takeError());
        return;
      }
      Options.Profile =
          std::make_shared<analysis::MachineProfile>(std::move(*Profile));
    }
    Options.QueryDriver = S.QueryDriver;
    Options.Jobs = 1;
    Options.IndexCacheDir = check::indexCacheFor(File, "");
    IgnoringDiagConsumer Quiet;
    Options.Diagnostics = &Quiet;
    Options.OnMessage = [&E](const check::SessionMessage &M) {
      if (M.TheKind == check::SessionMessage::Error && E.Problem.empty())
        E.Problem = "mpilift: " + M.Text;
    };
    check::CheckSession Session(Options);
    if (llvm::Error Err = addEvidence(Session, S))
      E.Problem = "mpilift: " + llvm::toString(std::move(Err));
    CollectingSink Sink(E.Findings);
    if (Session.run(*Database, {File.str()}, &Sink) != 0 && E.Problem.empty())
      E.Problem = "mpilift: the engine could not check '" + File.str() + "'";
  }

  static llvm::Error addEvidence(check::CheckSession &Session,
                                 const RunSettings &S) {
    if (!S.Patterns.empty()) {
      auto Text = llvm::MemoryBuffer::getFile(S.Patterns);
      if (!Text)
        return llvm::createStringError("cannot read '" + S.Patterns +
                                       "': " + Text.getError().message());
      llvm::Expected<llvm::json::Value> Doc =
          llvm::json::parse((*Text)->getBuffer());
      if (!Doc)
        return Doc.takeError();
      return Session.addPatterns(*Doc, S.Patterns);
    }
    if (!S.Trace.empty()) {
      llvm::Expected<trace::Trace> T = trace::readTrace(S.Trace);
      if (!T)
        return T.takeError();
      return Session.addPatterns(patterns::detectPatternsAsJson(*T), S.Trace);
    }
    return llvm::Error::success();
  }

  std::mutex Mutex;
  std::map<std::pair<std::string, RunSettings>, Entry> Cache;
};

/// One of mpilift's rules as a clang-tidy check.
class RuleCheck : public ClangTidyCheck {
public:
  RuleCheck(llvm::StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context), Rule(Name.str()), Context(Context) {
    Settings.Trace = Options.getLocalOrGlobal("Trace", "").str();
    Settings.Patterns = Options.getLocalOrGlobal("Patterns", "").str();
    Settings.Collectives = Options.getLocalOrGlobal("Collectives", "").str();
    Settings.CostProfile = Options.getLocalOrGlobal("CostProfile", "").str();
    if (const char *Globs = std::getenv("MPILIFT_QUERY_DRIVER"))
      Settings.QueryDriver = Globs;
    // Read as text: clang-tidy keeps its integer and bool readers to itself.
    llvm::StringRef Reassociate =
        Options.getLocalOrGlobal("AllowReassociation", "false");
    Settings.AllowReassociation =
        Reassociate.equals_insensitive("true") || Reassociate == "1";
  }

  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    Options.store(Opts, "Trace", Settings.Trace);
    Options.store(Opts, "Patterns", Settings.Patterns);
    Options.store(Opts, "Collectives", Settings.Collectives);
    Options.store(Opts, "CostProfile", Settings.CostProfile);
    Options.store(Opts, "AllowReassociation",
                  Settings.AllowReassociation ? "true" : "false");
  }

  void registerMatchers(ast_matchers::MatchFinder *Finder) override {
    Finder->addMatcher(ast_matchers::translationUnitDecl().bind("unit"), this);
  }

  void check(const ast_matchers::MatchFinder::MatchResult &Result) override {
    const SourceManager &SM = *Result.SourceManager;
    OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
    if (!Main)
      return;
    llvm::StringRef Path = Main->getFileEntry().tryGetRealPathName();
    if (Path.empty())
      Path = Main->getName();
    RunSettings S = Settings;
    S.Checks = enabledRules();
    std::string Problem;
    const std::vector<TidyFinding> &Found =
        Runs::instance().get(Path, S, Problem);
    // Said once per file, by the first rule that runs.
    if (!Problem.empty() && firstEnabledRule() == Rule)
      diag(SM.getLocForStartOfFile(SM.getMainFileID()), Problem);
    for (const TidyFinding &T : Found)
      if (T.F.Rule == Rule)
        report(T, SM);
  }

private:
  /// The mpilift rules clang-tidy runs, as a glob list.
  std::string enabledRules() const {
    std::string Checks = "-*";
    for (const check::RuleInfo &R : check::allRules())
      if (Context->isCheckEnabled(R.Id))
        Checks += "," + R.Id;
    return Checks;
  }

  std::string firstEnabledRule() const {
    for (const check::RuleInfo &R : check::allRules())
      if (Context->isCheckEnabled(R.Id))
        return R.Id;
    return "";
  }

  /// \p Place in \p SM, if the file is one this unit read.
  static SourceLocation locationOf(const SourceManager &SM,
                                   const check::Place &P) {
    auto File = SM.getFileManager().getOptionalFileRef(P.File);
    if (!File)
      return {};
    return SM.translateFileLineCol(*File, P.Line, P.Column);
  }

  void report(const TidyFinding &T, const SourceManager &SM) {
    SourceLocation Loc = locationOf(SM, T.F.Where);
    if (Loc.isInvalid())
      return;
    llvm::StringRef Message = T.F.Message;
    Message.consume_back(" [" + T.F.Rule + "]");
    {
      DiagnosticBuilder D =
          diag(Loc, "%0",
               T.F.Error ? DiagnosticIDs::Error : DiagnosticIDs::Warning)
          << Message;
      if (T.Fix) {
        SourceLocation Start = SM.getLocForStartOfFile(SM.getFileID(Loc));
        D << FixItHint::CreateReplacement(
            CharSourceRange::getCharRange(Start.getLocWithOffset(T.Fix->Begin),
                                          Start.getLocWithOffset(T.Fix->End)),
            T.Fix->Text);
      }
    }
    for (const check::Note &N : T.F.Notes) {
      SourceLocation NoteLoc = locationOf(SM, N.Where);
      diag(NoteLoc.isValid() ? NoteLoc : Loc, "%0", DiagnosticIDs::Note)
          << N.Message;
    }
  }

  std::string Rule;
  ClangTidyContext *Context;
  RunSettings Settings;
};

class MpiliftModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    for (const check::RuleInfo &R : check::allRules())
      Factories.registerCheckFactory(
          R.Id, [](llvm::StringRef Name, ClangTidyContext *Context) {
            return std::make_unique<RuleCheck>(Name, Context);
          });
  }
};

} // namespace

} // namespace tidy
} // namespace mpilift

static clang::tidy::ClangTidyModuleRegistry::Add<mpilift::tidy::MpiliftModule>
    MpiliftModuleRegistration("mpilift-module",
                              "mpilift: hand-written collectives, fusion and "
                              "overlap rules");
