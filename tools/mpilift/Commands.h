//===- Commands.h - The subcommands of the mpilift tool ---------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TOOLS_MPILIFT_COMMANDS_H
#define MPILIFT_TOOLS_MPILIFT_COMMANDS_H

#include "mpilift/Analysis/CostModel.h"
#include "mpilift/Trace/Trace.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace mpilift {

/// Exit statuses of every subcommand (README, "Exit status").
enum ExitStatus { ExitClean = 0, ExitFindingsAsErrors = 1, ExitBadInput = 2 };

/// "mpilift: error: " on standard error, in colour where it is a terminal.
llvm::raw_ostream &error();
/// "mpilift: warning: " likewise.
llvm::raw_ostream &warning();

/// Reads the trace in \p Dir for a subcommand: says so if the run had ended
/// abnormally and its spill files were converted now; on failure prints the
/// error and returns nothing (exit with ExitBadInput). \p OnRank as for
/// trace::readTrace.
std::optional<trace::Trace>
readTraceForCommand(const std::string &Dir,
                    trace::RankReadCallback OnRank = nullptr);

/// Says that the run that wrote the trace in \p Dir had ended abnormally
/// and that its spill files were converted now.
void warnRecovered(const std::string &Dir);

/// Reads the machine profile at \p Path into \p Out for a subcommand's
/// --cost-profile (an empty path leaves \p Out alone); on failure prints
/// the error and returns false (exit with ExitBadInput).
bool readCostProfile(const std::string &Path,
                     std::shared_ptr<const analysis::MachineProfile> &Out);

/// `mpilift trace dump|recover ...`; Argv[0] is "trace".
int runTraceCommand(int Argc, const char **Argv);

/// `mpilift detect DIR [--format text|json] [-o FILE]`; Argv[0] is "detect".
int runDetectCommand(int Argc, const char **Argv);

/// `mpilift check [-p DIR] [--patterns FILE | --trace DIR] [--fix] FILES...
/// [-- ARGS]`; Argv[0] is the program name.
int runCheckCommand(int Argc, const char **Argv);

/// `mpilift lsp [options]`: the language server on standard input and
/// output; Argv[0] is the program name.
int runLspCommand(int Argc, const char **Argv);

/// `mpilift calibrate [-o FILE] [--mpirun CMD]`: the machine profile of the
/// fusion cost model; Argv[0] is the program name.
int runCalibrateCommand(int Argc, const char **Argv);

} // namespace mpilift

#endif // MPILIFT_TOOLS_MPILIFT_COMMANDS_H
