//===- TraceCommands.cpp - mpilift trace dump / recover -------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/Trace/Dump.h"
#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/Trace/Trace.h"
#include "mpilift/TraceRuntime/Convert.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mpilift {
namespace {

namespace cl = llvm::cl;

int dump(const std::string &Dir, std::optional<int> Rank, bool Times) {
  std::optional<trace::Trace> T = readTraceForCommand(Dir);
  if (!T)
    return ExitBadInput;
  if (Rank && (*Rank < 0 || *Rank >= T->WorldSize)) {
    error() << "--rank " << *Rank << " is not a rank of '" << Dir << "' (0 to "
            << T->WorldSize - 1 << ")\n";
    return ExitBadInput;
  }
  trace::Symbolizer S(*T);
  std::set<std::string> Errors;
  trace::DumpOptions Options;
  Options.Rank = Rank;
  Options.Times = Times;
  trace::dumpTrace(*T, S, llvm::outs(), Options, Errors);
  llvm::outs().flush();
  for (const std::string &E : Errors)
    error() << "call sites cannot be mapped to source: " << E << "\n";
  return Errors.empty() ? ExitClean : ExitBadInput;
}

int recover(const std::string &Dir) {
  if (!llvm::sys::fs::is_directory(Dir)) {
    error() << "'" << Dir << "': not a directory\n";
    return ExitBadInput;
  }
  if (!tracert::hasSpillFiles(Dir)) {
    if (llvm::sys::fs::exists(Dir + "/traces.otf2")) {
      llvm::outs() << "'" << Dir
                   << "' holds a converted trace; nothing to do\n";
      return ExitClean;
    }
    error() << "'" << Dir << "': not a trace directory (no spill files)\n";
    return ExitBadInput;
  }
  tracert::ConvertResult R = tracert::convertSpillFiles(Dir);
  for (const std::string &W : R.Warnings)
    warning() << W << "\n";
  if (!R.Ok) {
    error() << R.Error << "\n";
    return ExitBadInput;
  }
  llvm::outs() << "wrote '" << Dir << "/traces.otf2': " << R.Ranks << " ranks, "
               << R.Events << " records, "
               << (R.Complete ? "complete" : "incomplete") << "\n";
  return ExitClean;
}

} // namespace

int runTraceCommand(int Argc, const char **Argv) {
  cl::SubCommand DumpCommand("dump", "print each rank's MPI calls");
  cl::SubCommand RecoverCommand(
      "recover", "convert the spill files an abnormal end left behind");
  cl::opt<std::string> DumpDir(cl::Positional, cl::Required,
                               cl::desc("<trace directory>"),
                               cl::sub(DumpCommand));
  cl::opt<int> RankOption("rank", cl::desc("only this rank"),
                          cl::value_desc("N"), cl::sub(DumpCommand));
  cl::opt<bool> Times("times", cl::desc("print begin times and durations"),
                      cl::sub(DumpCommand));
  cl::opt<std::string> RecoverDir(cl::Positional, cl::Required,
                                  cl::desc("<trace directory>"),
                                  cl::sub(RecoverCommand));
  std::vector<const char *> Args = {"mpilift trace"};
  Args.insert(Args.end(), Argv + 1, Argv + Argc);
  if (Args.size() < 2 || (llvm::StringRef(Args[1]) != "dump" &&
                          llvm::StringRef(Args[1]) != "recover" &&
                          !llvm::StringRef(Args[1]).starts_with("-"))) {
    error() << "expected 'mpilift trace dump DIR' or 'mpilift trace recover "
               "DIR'\n";
    return ExitBadInput;
  }
  if (!cl::ParseCommandLineOptions(static_cast<int>(Args.size()), Args.data(),
                                   "mpilift trace: read MPI traces\n",
                                   &llvm::errs()))
    return ExitBadInput;
  if (DumpCommand) {
    std::optional<int> Rank;
    if (RankOption.getNumOccurrences())
      Rank = RankOption;
    return dump(DumpDir, Rank, Times);
  }
  if (RecoverCommand)
    return recover(RecoverDir);
  error() << "expected 'mpilift trace dump DIR' or 'mpilift trace recover "
             "DIR'\n";
  return ExitBadInput;
}

} // namespace mpilift
