//===- mpilift.cpp - The mpilift command-line tool ------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// main() only: dispatches to the subcommands.
///
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <vector>

namespace {

const char *const Usage =
    "usage: mpilift <command> [options]\n"
    "\n"
    "commands:\n"
    "  trace dump DIR [--rank N] [--times]\n"
    "      print each rank's MPI calls with their source locations\n"
    "  trace recover DIR\n"
    "      turn what a run that ended abnormally recorded into its OTF2 "
    "archive\n"
    "  detect DIR [--format text|json] [-o FILE]\n"
    "      find point-to-point communication that implements a collective\n"
    "  check [-p DIR] [--patterns FILE | --trace DIR] [--fix] FILES... "
    "[-- ARGS]\n"
    "      prove hand-written collectives safe to replace and rewrite them\n"
    "  lsp [--trace DIR | --patterns FILE] [-p DIR]\n"
    "      the same checks in an editor: a language server on stdin/stdout\n"
    "  calibrate [-o FILE] [--mpirun CMD]\n"
    "      measure this machine's message start-up and per-byte times for the\n"
    "      fusion cost model (check --cost-profile FILE reads them)\n"
    "\n"
    "  --version\n"
    "      print the version and the LLVM it is built with\n"
    "\n"
    "Record a trace with: mpirun -np N mpilift-run -o DIR -- PROGRAM ARGS\n"
    "Run 'mpilift <command> --help' for a command's options.\n";

} // namespace

int main(int Argc, const char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  if (Argc < 2) {
    llvm::errs() << Usage;
    return mpilift::ExitBadInput;
  }
  if (!strcmp(Argv[1], "-h") || !strcmp(Argv[1], "--help") ||
      !strcmp(Argv[1], "help")) {
    llvm::outs() << Usage;
    return mpilift::ExitClean;
  }
  if (!strcmp(Argv[1], "--version") || !strcmp(Argv[1], "version")) {
    llvm::outs() << "mpilift " MPILIFT_VERSION " (LLVM " LLVM_VERSION_STRING
                    ")\n";
    return mpilift::ExitClean;
  }
  if (!strcmp(Argv[1], "trace"))
    return mpilift::runTraceCommand(Argc - 1, Argv + 1);
  if (!strcmp(Argv[1], "detect")) {
    std::vector<const char *> Args = {"mpilift detect"};
    Args.insert(Args.end(), Argv + 2, Argv + Argc);
    return mpilift::runDetectCommand(static_cast<int>(Args.size()),
                                     Args.data());
  }
  if (!strcmp(Argv[1], "check")) {
    std::vector<const char *> Args = {"mpilift check"};
    Args.insert(Args.end(), Argv + 2, Argv + Argc);
    int N = static_cast<int>(Args.size());
    return mpilift::runCheckCommand(N, Args.data());
  }
  if (!strcmp(Argv[1], "lsp")) {
    std::vector<const char *> Args = {"mpilift lsp"};
    Args.insert(Args.end(), Argv + 2, Argv + Argc);
    return mpilift::runLspCommand(static_cast<int>(Args.size()), Args.data());
  }
  if (!strcmp(Argv[1], "calibrate")) {
    std::vector<const char *> Args = {"mpilift calibrate"};
    Args.insert(Args.end(), Argv + 2, Argv + Argc);
    return mpilift::runCalibrateCommand(static_cast<int>(Args.size()),
                                        Args.data());
  }
  mpilift::error() << "unknown command '" << Argv[1] << "'\n\n" << Usage;
  return mpilift::ExitBadInput;
}
