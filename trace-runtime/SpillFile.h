//===- SpillFile.h - What one rank's spill file holds -----------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A spill file read for its definitions (header, communicators, modules,
/// clock calibration, footer), with the places of its event chunks noted:
/// the first pass of every conversion, serial or parallel.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_SPILLFILE_H
#define MPILIFT_TRACE_RUNTIME_SPILLFILE_H

#include "RawFormat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpilift {
namespace tracert {

/// Where a chunk of one thread's events lies in the file.
struct EventChunk {
  uint64_t Offset; ///< Of the payload in the file.
  uint32_t Count;
  uint16_t Thread;
  /// Packed (PackedEvents.h) in Bytes; otherwise Count whole records.
  bool Packed = false;
  uint32_t Bytes = 0;
};

/// A communicator as one rank defined it.
struct LocalComm {
  rawtrace::CommDef Def;
  std::vector<int32_t> Members;
  std::vector<int32_t> Remote;
};

/// A loaded module: call sites in [Low, High) belong to it.
struct Module {
  uint64_t LoadBias, Low, High;
  std::string Path;
};

/// Everything pass 1 learns of one rank's file.
struct SpillFile {
  std::string Path;
  bool HasHeader = false;
  rawtrace::RankHeader Header;
  std::vector<EventChunk> Chunks;
  std::vector<LocalComm> Comms;
  std::vector<Module> Modules;
  std::vector<rawtrace::Calibration> Clocks;
  bool HasFooter = false;
  rawtrace::Footer TheFooter;
  bool TornTail = false;
  uint64_t EventCount = 0;
  std::vector<uint32_t> GlobalComm; ///< Local comm id -> global comm index.
};

/// A file opened for reading at offsets; closed when destroyed.
class File {
public:
  explicit File(const std::string &Path);
  ~File();
  File(const File &) = delete;
  File &operator=(const File &) = delete;
  bool ok() const { return Fd >= 0; }
  /// Reads exactly \p Bytes at \p Offset; false if the file is shorter.
  bool readAt(uint64_t Offset, void *Out, size_t Bytes) const;
  uint64_t size() const;

private:
  int Fd;
};

/// DIR/.mpilift-raw, where the ranks of a trace directory write.
std::string spillDirectory(const std::string &TraceDir);

/// DIR/.mpilift-raw/rank-NNNNNN.raw, the spill file of world rank \p Rank.
std::string spillFilePath(const std::string &TraceDir, int Rank);

/// Pass 1 over one file (S.Path). A chunk that is cut short or malformed
/// ends the file: everything before it is kept and TornTail is set. False,
/// with \p Error naming the file, if it has no valid header.
bool scanSpillFile(SpillFile &S, std::string &Error);

/// The spill files (rank-NNNNNN.raw) in \p SpillDir, sorted by name.
std::vector<std::string> listSpillFiles(const std::string &SpillDir);

/// Removes \p Path and, if it is a directory, everything below it.
void removeTree(const std::string &Path);

/// How the rank ended, for the archive's rank status: "MPI_Finalize",
/// "signal 11 (Segmentation fault)", ...
std::string endDescription(const SpillFile &S);

} // namespace tracert
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_SPILLFILE_H
