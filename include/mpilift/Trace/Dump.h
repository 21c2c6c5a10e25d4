//===- Dump.h - Print a trace for people ------------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The text `mpilift trace dump` prints: one line per MPI call with its
/// peers, sizes and source location. Without --times the output of the same
/// run is the same every time, except buffer addresses.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_DUMP_H
#define MPILIFT_TRACE_DUMP_H

#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/Trace/Trace.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>
#include <string>

namespace mpilift {
namespace trace {

struct DumpOptions {
  std::optional<int> Rank; ///< Only this rank.
  bool Times = false;      ///< Append begin time and duration.
};

/// Prints \p T to \p OS. Call sites that cannot be symbolized print as "?";
/// each distinct reason is added to \p SymbolizerErrors.
void dumpTrace(const Trace &T, Symbolizer &S, llvm::raw_ostream &OS,
               const DumpOptions &Options,
               std::set<std::string> &SymbolizerErrors);

} // namespace trace
} // namespace mpilift

#endif // MPILIFT_TRACE_DUMP_H
