//===- Convert.h - Turn spill files into an OTF2 archive --------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The trace runtime records each rank into a spill file under
/// DIR/.mpilift-raw/, which become the one OTF2 archive of the run
/// (DIR/traces.otf2). At MPI_Finalize every rank converts its own file
/// (convertInParallel()); after an abnormal end, `mpilift trace recover DIR`
/// (or any mpilift command that reads the trace) converts all files in one
/// process (convertSpillFiles()) and the archive is marked incomplete.
///
/// This library uses OTF2 and the C++ standard library only: no MPI, no LLVM.
/// The parallel conversion reaches the other processes through a
/// ConversionGroup, which the trace runtime implements with MPI.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACERUNTIME_CONVERT_H
#define MPILIFT_TRACERUNTIME_CONVERT_H

#include <cstdint>
#include <string>
#include <vector>

struct OTF2_Archive_struct;

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

/// The processes that convert a trace together, one per rank of the traced
/// run, and the few collective operations the conversion needs. Every
/// member calls each operation in the same order.
class ConversionGroup {
public:
  virtual ~ConversionGroup() = default;
  /// This member's index, which is the world rank whose spill file it
  /// converts, and the number of members.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// On member 0, every member's \p Bytes in rank order; elsewhere empty.
  virtual std::vector<std::string> gather(const std::string &Bytes) = 0;
  /// Member 0's \p Bytes, on every member.
  virtual std::string broadcast(const std::string &Bytes) = 0;
  /// Lets OTF2 synchronise the members while they write \p Archive.
  virtual bool setCollectiveCallbacks(OTF2_Archive_struct *Archive) = 0;
};

/// Converts the spill files of \p TraceDir with every member of \p Group
/// converting its own rank's file into its own OTF2 locations, and member 0
/// writing the global definitions: the same archive as convertSpillFiles()
/// makes. If a member cannot read its file or open the archive, member 0
/// converts all files serially instead (and says so in a warning); if
/// writing fails, the spill files are kept. The full result is on member 0;
/// elsewhere only Ok and Error of the member's own part.
ConvertResult convertInParallel(const std::string &TraceDir,
                                ConversionGroup &Group);

/// Removes the OTF2 archive of \p TraceDir (traces.otf2, traces.def and
/// traces/) and, with \p AndSpillFiles, the spill files; nothing else.
void removeArchive(const std::string &TraceDir, bool AndSpillFiles);

} // namespace tracert
} // namespace mpilift

#endif // MPILIFT_TRACERUNTIME_CONVERT_H
