//===- CheckCommand.cpp - mpilift check -----------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mpilift check [-p DIR] [--patterns FILE | --trace DIR] [--fix] FILES...
/// [-- COMPILER ARGS]`: the command-line front end of the check engine
/// (mpilift/Check/Session.h). It parses the options, prints the findings
/// as clang-style diagnostics with fix-its (or SARIF), and applies the
/// rewrites with --fix.
///
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/Check/Findings.h"
#include "mpilift/Check/Session.h"
#include "mpilift/Patterns/PatternsJson.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace clang;
namespace cl = llvm::cl;

namespace mpilift {

namespace {

/// Prints each finding through the unit's clang diagnostics, with the
/// fix-its of its rewrite and a note per note.
class TextSink : public check::FindingSink {
public:
  void found(const check::Finding &F, const tooling::AtomicChange *Change,
             const SourceManager &SM, SourceLocation Loc,
             CompilerInstance &CI) override {
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    DiagnosticsEngine::Level Level = F.Error    ? DiagnosticsEngine::Error
                                     : F.Remark ? DiagnosticsEngine::Remark
                                                : DiagnosticsEngine::Warning;
    unsigned ID = Diags.getCustomDiagID(Level, "%0");
    {
      DiagnosticBuilder B = Diags.Report(Loc, ID);
      B << F.Message;
      if (Change)
        addFixIts(B, *Change, SM, Loc);
    } // Emitted here, before its notes.
    unsigned NoteID = Diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
    for (const check::Note &N : F.Notes)
      Diags.Report(locationOf(SM, N.Where, Loc), NoteID) << N.Message;
  }

private:
  /// The source location of a place in \p SM (the file of \p SameFile,
  /// or another file the unit read).
  static SourceLocation locationOf(const SourceManager &SM,
                                   const check::Place &P,
                                   SourceLocation SameFile) {
    FileID File = SM.getFileID(SameFile);
    if (check::realFileOf(SM, SameFile, "") != P.File) {
      for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
        if (It->first.getFileEntry().tryGetRealPathName() == P.File) {
          File = SM.translateFile(It->first);
          break;
        }
    }
    return SM.translateLineCol(File, P.Line, P.Column);
  }

  static void addFixIts(DiagnosticBuilder &B,
                        const tooling::AtomicChange &Change,
                        const SourceManager &SM, SourceLocation Loc) {
    for (const tooling::Replacement &R : Change.getReplacements()) {
      SourceLocation Start = SM.getLocForStartOfFile(SM.getFileID(Loc))
                                 .getLocWithOffset(R.getOffset());
      B << FixItHint::CreateReplacement(
          CharSourceRange::getCharRange(Start,
                                        Start.getLocWithOffset(R.getLength())),
          R.getReplacementText());
    }
  }
};

/// Prints a problem or an action of the session as the command's own.
void printMessage(const check::SessionMessage &M) {
  switch (M.TheKind) {
  case check::SessionMessage::Error:
    error() << M.Text << "\n";
    return;
  case check::SessionMessage::Warning:
    warning() << M.Text << "\n";
    return;
  case check::SessionMessage::Info:
    llvm::errs() << "mpilift: " << M.Text << "\n";
    return;
  }
}

/// Writes \p Text to \p Path ("-": standard output).
bool writeOutput(StringRef Path,
                 llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  std::error_code EC;
  llvm::ToolOutputFile Out(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    error() << "cannot write '" << Path << "': " << EC.message() << "\n";
    return false;
  }
  Write(Out.os());
  Out.keep();
  return true;
}

} // namespace

int runCheckCommand(int Argc, const char **Argv) {
  static cl::OptionCategory Category("mpilift check options");
  cl::opt<bool> Fix("fix", cl::desc("apply the rewrites in place"),
                    cl::cat(Category));
  cl::opt<std::string> ExportFixes(
      "export-fixes",
      cl::desc("write the rewrites as YAML for clang-apply-replacements"),
      cl::value_desc("file"), cl::cat(Category));
  cl::opt<std::string> Format("format", cl::desc("text or sarif"),
                              cl::init("text"), cl::cat(Category));
  cl::opt<std::string> Output("o", cl::desc("where --format sarif writes"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category));
  cl::opt<unsigned> Jobs("jobs",
                         cl::desc("translation units checked in parallel"),
                         cl::init(1), cl::cat(Category));
  cl::alias JobsShort("j", cl::desc("alias for --jobs"), cl::aliasopt(Jobs),
                      cl::cat(Category));
  cl::opt<std::string> HeaderFilter(
      "header-filter",
      cl::desc("only headers whose path matches this regular expression "
               "are checked (default: every project header)"),
      cl::init(""), cl::cat(Category));
  cl::opt<std::string> ChecksGlob(
      "checks",
      cl::desc("which checks run (clang-tidy glob list; the overlap rules "
               "mpilift-split-send, mpilift-split-recv and mpilift-sink-wait "
               "run only when named)"),
      cl::init(check::DefaultChecks), cl::cat(Category));
  cl::opt<bool> ProgressPolling(
      "progress-polling",
      cl::desc("overlap rules: test the request in the loops between a "
               "split call and its wait, so MPI progresses"),
      cl::cat(Category));
  cl::opt<bool> AllowReassociation(
      "allow-reassociation",
      cl::desc("mpilift-fuse-collectives: fuse floating-point sums and "
               "products too, whose results may then differ in the last "
               "bits (the reduction-order check)"),
      cl::cat(Category));
  cl::opt<std::string> CostProfile(
      "cost-profile",
      cl::desc("mpilift-fuse-collectives: the machine profile 'mpilift "
               "calibrate' wrote, for fusions that pay only on some machines "
               "(default: the documented default profile)"),
      cl::value_desc("file"), cl::cat(Category));
  cl::opt<bool> OverlapAggressive(
      "overlap-aggressive",
      cl::desc("overlap rules: a split call's wait may leave its loop "
               "(Algorithm 2: a ring of requests completed where the loop "
               "touches the buffer again, and after the loop)"),
      cl::cat(Category));
  cl::opt<unsigned> PollInterval(
      "poll-interval",
      cl::desc("with --progress-polling, test every N loop iterations"),
      cl::init(64), cl::cat(Category));
  cl::opt<double> OverlapThreshold(
      "overlap-threshold-ms",
      cl::desc("with a trace, rewrite overlap sites only where the run spent "
               "at least this long blocked (all ranks together)"),
      cl::init(1.0), cl::cat(Category));
  cl::opt<std::string> ErrorsGlob(
      "warnings-as-errors",
      cl::desc("findings of these checks are errors (exit status 1)"),
      cl::init(""), cl::cat(Category));
  cl::opt<std::string> PatternsFile(
      "patterns", cl::desc("patterns from 'mpilift detect --format json'"),
      cl::value_desc("file"), cl::cat(Category));
  cl::opt<std::string> TraceDir(
      "trace", cl::desc("a trace directory; detect its patterns first"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::opt<std::string> Fallback(
      "fallback",
      cl::desc("none, or cdag: run patterns the trace shows as collectives "
               "but that fail only input or scale independence through "
               "libcdag"),
      cl::init("none"), cl::cat(Category));
  cl::opt<std::string> Collectives(
      "collectives",
      cl::desc("blocking (MPI_Bcast, ...) or nonblocking (MPI_Ibcast + "
               "MPI_Wait as late as is safe)"),
      cl::init("blocking"), cl::cat(Category));

  cl::opt<std::string> QueryDriver(
      "query-driver",
      cl::desc("comma-separated globs of MPI compiler wrappers (paths) the "
               "compile database names that may be run to ask for their "
               "flags; wrappers found by name on PATH always may"),
      cl::cat(Category));
  cl::opt<std::string> IndexCache(
      "index-cache",
      cl::desc("where the project index keeps each unit's summary between "
               "runs (default: .cache/mpilift beside compile_commands.json; "
               "empty: nowhere)"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::opt<std::string> BuildPath(
      "p", cl::desc("build directory with compile_commands.json"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::list<std::string> Sources(cl::Positional, cl::desc("[files...]"),
                                cl::cat(Category));
  // Flags after `--` make a fixed database for every file.
  std::string FixedError;
  int ToolArgc = Argc;
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      tooling::FixedCompilationDatabase::loadFromCommandLine(ToolArgc, Argv,
                                                             FixedError);
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          ToolArgc, Argv,
          "mpilift check: find hand-written collectives and rewrite them\n",
          &llvm::errs()))
    return ExitBadInput;
  if (!Compilations) {
    std::string Error;
    if (!BuildPath.empty())
      Compilations = tooling::CompilationDatabase::autoDetectFromDirectory(
          BuildPath, Error);
    else if (!Sources.empty())
      Compilations =
          tooling::CompilationDatabase::autoDetectFromSource(Sources[0], Error);
    else
      Compilations =
          tooling::CompilationDatabase::autoDetectFromDirectory(".", Error);
    if (!Compilations) {
      error() << "no compilation database: " << Error
              << "\n(give -p BUILD_DIR, or compile flags after '--')\n";
      return ExitBadInput;
    }
  }
  if (Collectives != "blocking" && Collectives != "nonblocking") {
    error() << "--collectives must be blocking or nonblocking, not '"
            << Collectives << "'\n";
    return ExitBadInput;
  }
  if (Format != "text" && Format != "sarif") {
    error() << "--format must be text or sarif, not '" << Format << "'\n";
    return ExitBadInput;
  }
  if (Fallback != "none" && Fallback != "cdag") {
    error() << "--fallback must be none or cdag, not '" << Fallback << "'\n";
    return ExitBadInput;
  }
  if (!PatternsFile.empty() && !TraceDir.empty()) {
    error() << "give --patterns or --trace, not both\n";
    return ExitBadInput;
  }

  if (PollInterval == 0) {
    error() << "--poll-interval must be at least 1\n";
    return ExitBadInput;
  }
  check::SessionOptions Options;
  Options.KeepFixes = Fix || !ExportFixes.empty();
  Options.Overlap.Polling = ProgressPolling;
  Options.Overlap.PollInterval = PollInterval;
  Options.OverlapThresholdMs = OverlapThreshold;
  Options.OverlapAggressive = OverlapAggressive;
  Options.AllowReassociation = AllowReassociation;
  if (!readCostProfile(CostProfile, Options.Profile))
    return ExitBadInput;
  Options.Jobs = Jobs;
  Options.QueryDriver = QueryDriver;
  if (IndexCache.getNumOccurrences())
    Options.IndexCacheDir = IndexCache;
  else if (!BuildPath.empty() || !Sources.empty())
    Options.IndexCacheDir = check::indexCacheFor(
        Sources.empty() ? std::string() : Sources[0], BuildPath);
  Options.OnMessage = printMessage;
  auto Given =
      [](const cl::opt<std::string> &Opt) -> std::optional<std::string> {
    if (Opt.getNumOccurrences() == 0)
      return std::nullopt;
    return Opt.getValue();
  };
  Options.Checks = Given(ChecksGlob);
  Options.WarningsAsErrors = Given(ErrorsGlob);
  Options.HeaderFilter = Given(HeaderFilter);
  Options.Collectives = Given(Collectives);
  Options.Fallback = Given(Fallback);
  check::CheckSession Session(Options);
  if (!PatternsFile.empty()) {
    auto Text = llvm::MemoryBuffer::getFile(PatternsFile);
    if (!Text) {
      error() << "cannot read '" << PatternsFile
              << "': " << Text.getError().message() << "\n";
      return ExitBadInput;
    }
    llvm::Expected<llvm::json::Value> Doc =
        llvm::json::parse((*Text)->getBuffer());
    if (!Doc) {
      error() << "'" << PatternsFile
              << "' is not JSON: " << llvm::toString(Doc.takeError()) << "\n";
      return ExitBadInput;
    }
    if (llvm::Error E = Session.addPatterns(*Doc, PatternsFile)) {
      error() << llvm::toString(std::move(E)) << "\n";
      return ExitBadInput;
    }
  }
  if (!TraceDir.empty()) {
    std::optional<trace::Trace> T = readTraceForCommand(TraceDir);
    if (!T)
      return ExitBadInput;
    if (llvm::Error E =
            Session.addPatterns(patterns::detectPatternsAsJson(*T), TraceDir)) {
      error() << llvm::toString(std::move(E)) << "\n";
      return ExitBadInput;
    }
    // The overlap rules named on the command line weigh each site by the
    // time the run blocked there.
    if (Session.wantsBlockedTime())
      Session.setBlockedTime(check::blockedTimeOf(*T));
  }

  std::vector<std::string> Files(Sources.begin(), Sources.end());
  if (Files.empty()) {
    Files = Compilations->getAllFiles();
    llvm::sort(Files); // The database's order is a hash order.
  }
  if (Files.empty()) {
    error() << "no source files: name them or give a compile database "
               "with -p\n";
    return ExitBadInput;
  }
  Files = Session.unitsToCheck(std::move(Files));
  bool Sarif = Format == "sarif";
  TextSink Text;
  int ToolStatus = Session.run(*Compilations, Files, Sarif ? nullptr : &Text);
  // A unit that does not parse makes the tool fail; so does one whose
  // findings were promoted to errors, which is not bad input.
  bool ParseProblem =
      Session.parseFailures() > 0 || (ToolStatus != 0 && !Session.anyError());
  if (Session.configErrors())
    return ExitBadInput;

  bool OK = true;
  if (Fix || !ExportFixes.empty()) {
    check::NewContents Contents;
    OK &= Session.computeFixes(*Compilations, Contents);
    if (!ExportFixes.empty())
      OK &= writeOutput(ExportFixes, [&](llvm::raw_ostream &OS) {
        check::writeReplacementsYaml(Contents, OS);
      });
    if (Fix)
      OK &= Session.writeFixes(*Compilations, Contents);
  }
  if (Sarif)
    OK &= writeOutput(Output, [&](llvm::raw_ostream &OS) {
      OS << llvm::formatv("{0:2}",
                          check::toSarif(Session.findings(), MPILIFT_VERSION))
         << "\n";
    });
  if (ParseProblem) {
    error() << "some translation units could not be parsed; they were not "
               "checked\n";
    return ExitBadInput;
  }
  if (!OK)
    return ExitBadInput;
  return Session.anyError() ? ExitFindingsAsErrors : ExitClean;
}

} // namespace mpilift
