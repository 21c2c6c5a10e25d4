//===- Commands.h - The subcommands of the mpilift tool ---------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TOOLS_MPILIFT_COMMANDS_H
#define MPILIFT_TOOLS_MPILIFT_COMMANDS_H

namespace mpilift {

/// Exit statuses of every subcommand (docs/user-guide.md).
enum ExitStatus { ExitClean = 0, ExitFindingsAsErrors = 1, ExitBadInput = 2 };

/// `mpilift trace dump|recover ...`; Argv[0] is "trace".
int runTraceCommand(int Argc, const char **Argv);

/// `mpilift detect DIR [--format text|json] [-o FILE]`; Argv[0] is "detect".
int runDetectCommand(int Argc, const char **Argv);

} // namespace mpilift

#endif // MPILIFT_TOOLS_MPILIFT_COMMANDS_H
