//===- SharedDetect.h - mpilift detect on several processes -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mpirun -np K mpilift detect DIR`: the K processes read and condense a
/// share of the trace's ranks each; process 0 gathers the steps and
/// searches them, with the same result as one process reading all.
/// `mpilift detect --jobs K DIR` shares the reading the same way among K
/// threads of one process.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_PATTERNS_SHAREDDETECT_H
#define MPILIFT_PATTERNS_SHAREDDETECT_H

#include "mpilift/Dist/ProcessGroup.h"
#include "mpilift/Patterns/Detect.h"
#include "mpilift/Trace/Trace.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace mpilift {
namespace patterns {

/// What process 0 of a shared detect ends with.
struct SharedDetectResult {
  /// The trace's definitions and every rank's call sites, numbered as one
  /// reader of the whole trace numbers them; no events.
  trace::Trace Trace;
  DetectResult Result;
  /// The run had ended abnormally: its spill files were converted first.
  bool Recovered = false;
};

/// Finds the patterns of the trace in \p Dir on the processes of \p Group.
/// Process 0 prepares the trace (converting spill files), each process
/// reads the events of every Group.size()-th rank, from its own rank on,
/// and condenses them into steps; process 0 gathers the steps, numbers the
/// call sites as one reader of every rank would, and searches them.
///
/// Process 0 gets the patterns detectPatterns finds on the whole trace, or
/// an error (naming the process, if another failed). The other processes
/// get nothing once they have sent their share or their failure to process
/// 0, or an error if they cannot reach it.
llvm::Expected<std::optional<SharedDetectResult>>
detectOnProcesses(llvm::StringRef Dir, dist::ProcessGroup &Group,
                  const DetectOptions &Options = DetectOptions());

/// detectOnProcesses on \p Threads threads of this process (a group made
/// by dist::makeThreadGroup): what its process 0 gets, or its error.
llvm::Expected<SharedDetectResult>
detectOnThreads(llvm::StringRef Dir, int Threads,
                const DetectOptions &Options = DetectOptions());

} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_PATTERNS_SHAREDDETECT_H
