//===- DetectCommand.cpp - mpilift detect ---------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/Dist/ProcessGroup.h"
#include "mpilift/Patterns/Detect.h"
#include "mpilift/Patterns/PatternsJson.h"
#include "mpilift/Patterns/SharedDetect.h"
#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/Trace/Trace.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

namespace mpilift {
namespace {

namespace cl = llvm::cl;

/// More reading threads than this would each hold a reader for nothing.
constexpr unsigned MaxJobs = 1024;

/// "0-3 5 7-8".
std::string rankList(const std::vector<int> &Ranks) {
  std::string S;
  for (size_t I = 0; I < Ranks.size();) {
    size_t J = I;
    while (J + 1 < Ranks.size() && Ranks[J + 1] == Ranks[J] + 1)
      ++J;
    S += (S.empty() ? "" : " ") + std::to_string(Ranks[I]);
    if (J > I)
      S += "-" + std::to_string(Ranks[J]);
    I = J + 1;
  }
  return S;
}

void printText(const trace::Trace &T, const patterns::DetectResult &R,
               patterns::SiteNames &Names, llvm::raw_ostream &OS) {
  OS << "patterns in '" << T.Directory << "' (" << T.WorldSize << " ranks"
     << (R.Partial ? ", incomplete trace: partial results" : "") << "):\n";
  if (R.Patterns.empty())
    OS << "  no collective patterns\n";
  for (const patterns::Pattern &P : R.Patterns) {
    OS << "  " << P.Collective << " " << P.Topology << " comm " << P.Comm;
    if (P.Root >= 0)
      OS << " root " << P.Root;
    if (!P.Roots.empty())
      OS << " roots " << rankList(P.Roots);
    OS << ", " << P.Bytes;
    if (P.MaxBytes)
      OS << " to " << P.MaxBytes;
    OS << " bytes, " << P.Occurrences << " occurrence"
       << (P.Occurrences == 1 ? "" : "s") << ", evidence " << P.Evidence;
    if (!P.Note.empty())
      OS << " (" << P.Note << ")";
    if (P.Contents == "same")
      OS << ", contents verified by hash";
    else if (P.Contents == "not recorded")
      OS << ", contents not verified (trace with --hash to verify)";
    OS << "\n";
    for (const patterns::PatternSite &S : P.Sites)
      OS << "    " << (S.Send ? "send" : "recv") << " " << Names.text(S.Site)
         << " ranks " << rankList(S.Ranks) << "\n";
  }
}

/// Prints the patterns \p R of the trace \p T (read from \p Dir) in
/// \p Format to \p Output, and the warnings.
int printResult(const std::string &Dir, const trace::Trace &T,
                const patterns::DetectResult &R, const std::string &Format,
                const std::string &Output) {
  if (T.Sites.empty())
    warning() << "'" << Dir
              << "' records no call sites (a foreign archive?): patterns "
                 "name no source locations\n";
  patterns::SiteNames Names(T);
  std::error_code EC;
  llvm::ToolOutputFile Out(Output, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    error() << "cannot write '" << Output << "': " << EC.message() << "\n";
    return ExitBadInput;
  }
  if (Format == "json")
    Out.os() << llvm::formatv("{0:2}", patterns::toJson(T, R, Names)) << "\n";
  else
    printText(T, R, Names, Out.os());
  Out.keep();
  for (const std::string &W : R.Warnings)
    warning() << W << "\n";
  for (const std::string &E : Names.Errors)
    warning() << "call sites cannot be mapped to source: " << E << "\n";
  return ExitClean;
}

/// printResult for what the member that gathered a shared detect ends with,
/// after the warning that the trace was recovered from a crashed run.
int printShared(const std::string &Dir, const patterns::SharedDetectResult &R,
                const std::string &Format, const std::string &Output) {
  if (R.Recovered)
    warnRecovered(Dir);
  return printResult(Dir, R.Trace, R.Result, Format, Output);
}

} // namespace

int runDetectCommand(int Argc, const char **Argv) {
  cl::OptionCategory Category("mpilift detect options");
  cl::opt<std::string> Dir(cl::Positional, cl::Required,
                           cl::desc("<trace directory>"), cl::cat(Category));
  cl::opt<std::string> Format("format", cl::desc("text or json"),
                              cl::init("text"), cl::cat(Category));
  cl::opt<std::string> Output("o", cl::desc("write to this file"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category));
  cl::opt<unsigned> Jobs(
      "jobs",
      cl::desc("threads that share the reading of the ranks' events (the "
               "search runs on one)"),
      cl::init(1), cl::cat(Category));
  cl::alias JobsShort("j", cl::desc("alias for --jobs"), cl::aliasopt(Jobs),
                      cl::cat(Category));
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv, "mpilift detect: collective patterns in a trace\n",
          &llvm::errs()))
    return ExitBadInput;
  if (Format != "text" && Format != "json") {
    error() << "--format must be text or json, not '" << Format << "'\n";
    return ExitBadInput;
  }
  if (Jobs == 0 || Jobs > MaxJobs) {
    error() << "--jobs must be between 1 and " << MaxJobs << ", not " << Jobs
            << "\n";
    return ExitBadInput;
  }
  llvm::Expected<std::unique_ptr<dist::ProcessGroup>> Group =
      dist::joinLaunchedProcesses();
  if (!Group) {
    std::string Why = llvm::toString(Group.takeError());
    if (dist::launchedRank() == 0) // Once, not from every process.
      error() << "mpirun started " << dist::launchedProcesses()
              << " processes, but they cannot share the work: " << Why << "\n";
    return ExitBadInput;
  }
  if (*Group && Jobs > 1) {
    if ((*Group)->rank() == 0)
      error() << "--jobs shares the reading among threads of one process; "
                 "under mpirun the processes share it\n";
    return ExitBadInput;
  }
  if (*Group) {
    llvm::Expected<std::optional<patterns::SharedDetectResult>> Shared =
        patterns::detectOnProcesses(Dir, **Group);
    if (!Shared) {
      error() << llvm::toString(Shared.takeError()) << "\n";
      return ExitBadInput;
    }
    if (!*Shared)
      return ExitClean; // Process 0 prints.
    return printShared(Dir, **Shared, Format, Output);
  }
  if (Jobs > 1) {
    llvm::Expected<patterns::SharedDetectResult> Shared =
        patterns::detectOnThreads(Dir, int(Jobs));
    if (!Shared) {
      error() << llvm::toString(Shared.takeError()) << "\n";
      return ExitBadInput;
    }
    return printShared(Dir, *Shared, Format, Output);
  }
  // Only the definitions are printed: each rank's events go once the
  // search has taken its steps, before the next rank is read.
  patterns::RankStepCollector Steps;
  std::optional<trace::Trace> T = readTraceForCommand(
      Dir, [&](trace::Trace &T, int Rank) { Steps.take(T, Rank); });
  if (!T)
    return ExitBadInput;
  patterns::DetectResult R = Steps.detect(*T);
  return printResult(Dir, *T, R, Format, Output);
}

} // namespace mpilift
