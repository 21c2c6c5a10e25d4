//===- Convert.h - Turn spill files into an OTF2 archive --------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The trace runtime records each rank into a spill file under
/// DIR/.mpilift-raw/. convertSpillFiles() turns them into the one OTF2
/// archive of the run (DIR/traces.otf2). Rank 0 calls it at MPI_Finalize;
/// after an abnormal end, `mpilift trace recover DIR` (or any mpilift command
/// that reads the trace) calls it and the archive is marked incomplete.
///
/// This library uses OTF2 and the C++ standard library only: no MPI, no LLVM.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACERUNTIME_CONVERT_H
#define MPILIFT_TRACERUNTIME_CONVERT_H

#include <cstdint>
#include <string>
#include <vector>

namespace mpilift {
namespace tracert {

struct ConvertResult {
  bool Ok = false;
  /// Every rank ended in MPI_Finalize and no data was lost.
  bool Complete = false;
  /// Why Ok is false, naming the file and the problem.
  std::string Error;
  /// Problems that did not stop the conversion (torn chunk, missing rank).
  std::vector<std::string> Warnings;
  int Ranks = 0;
  uint64_t Events = 0;
};

/// Whether \p TraceDir holds spill files that were not yet converted.
bool hasSpillFiles(const std::string &TraceDir);

/// Converts the spill files of \p TraceDir into DIR/traces.otf2, replacing a
/// previous (partial) archive there. On success the spill files are removed.
ConvertResult convertSpillFiles(const std::string &TraceDir);

/// Removes the OTF2 archive of \p TraceDir (traces.otf2, traces.def and
/// traces/) and, with \p AndSpillFiles, the spill files; nothing else.
void removeArchive(const std::string &TraceDir, bool AndSpillFiles);

} // namespace tracert
} // namespace mpilift

#endif // MPILIFT_TRACERUNTIME_CONVERT_H
