//===- LspCommand.cpp - mpilift lsp -----------------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mpilift lsp`: the language server (mpilift/LSP/Server.h) on standard
/// input and output. This file parses the options and hands the server
/// the trace reader.
///
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/LSP/Server.h"
#include "mpilift/Patterns/PatternsJson.h"

#include "llvm/Support/CommandLine.h"

#include <cstdio>

namespace cl = llvm::cl;

namespace mpilift {

int runLspCommand(int Argc, const char **Argv) {
  cl::OptionCategory Category("mpilift lsp options");
  cl::opt<std::string> TraceDir(
      "trace", cl::desc("a trace directory whose patterns are the evidence"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::opt<std::string> PatternsFile(
      "patterns",
      cl::desc("the same from `mpilift detect --format json -o FILE`"),
      cl::value_desc("file"), cl::cat(Category));
  cl::opt<std::string> ChecksGlob(
      "checks", cl::desc("which rules run (clang-tidy glob list)"),
      cl::cat(Category));
  cl::opt<std::string> Collectives("collectives",
                                   cl::desc("blocking or nonblocking rewrites"),
                                   cl::cat(Category));
  cl::opt<std::string> ErrorsGlob(
      "warnings-as-errors",
      cl::desc("findings of these rules are errors (severity 1)"),
      cl::cat(Category));
  cl::opt<std::string> QueryDriver(
      "query-driver",
      cl::desc("comma-separated globs of MPI compiler wrappers (paths) the "
               "compile database names that may be run to ask for their "
               "flags"),
      cl::cat(Category));
  cl::opt<std::string> BuildPath(
      "p",
      cl::desc("the build directory holding compile_commands.json "
               "(else the nearest one above each file)"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::opt<unsigned> DebounceMs(
      "debounce-ms",
      cl::desc("quiet interval after an edit before re-checking"),
      cl::init(300), cl::cat(Category));
  cl::opt<std::string> DocsBase(
      "docs-base",
      cl::desc("prefix of the rules' pages in diagnostics "
               "(<prefix>docs/checks/<rule>.md)"),
      cl::init(MPILIFT_DOCS_BASE), cl::cat(Category));
  cl::opt<bool> AllowReassociation(
      "allow-reassociation", cl::desc("rewrite floating-point reductions too"),
      cl::cat(Category));
  cl::opt<std::string> CostProfile(
      "cost-profile", cl::desc("the machine profile 'mpilift calibrate' wrote"),
      cl::value_desc("file"), cl::cat(Category));
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv,
          "mpilift lsp: a language server on standard input and output\n",
          &llvm::errs()))
    return ExitBadInput;
  if (!TraceDir.empty() && !PatternsFile.empty()) {
    error() << "give --patterns or --trace, not both\n";
    return ExitBadInput;
  }
  lsp::ServerOptions Options;
  Options.TraceDir = TraceDir;
  Options.PatternsFile = PatternsFile;
  Options.CompileCommandsDir = BuildPath;
  Options.DebounceMs = DebounceMs;
  Options.DocsBase = DocsBase;
  Options.Version = MPILIFT_VERSION;
  if (ChecksGlob.getNumOccurrences())
    Options.Check.Checks = ChecksGlob;
  if (Collectives.getNumOccurrences())
    Options.Check.Collectives = Collectives;
  if (ErrorsGlob.getNumOccurrences())
    Options.Check.WarningsAsErrors = ErrorsGlob;
  Options.Check.QueryDriver = QueryDriver;
  Options.Check.AllowReassociation = AllowReassociation;
  if (!readCostProfile(CostProfile, Options.Check.Profile))
    return ExitBadInput;
  Options.LoadTrace =
      [](llvm::StringRef Dir) -> llvm::Expected<llvm::json::Value> {
    llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
    if (!T)
      return T.takeError();
    return patterns::detectPatternsAsJson(*T);
  };
  lsp::MessageReader In(stdin);
  lsp::MessageWriter Out(llvm::outs());
  lsp::LanguageServer Server(std::move(Options), In, Out);
  return Server.run();
}

} // namespace mpilift
