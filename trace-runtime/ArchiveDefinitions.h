//===- ArchiveDefinitions.h - What the whole archive defines ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The parts of a conversion that look at all ranks at once: the status of
/// each rank, communicators unified across ranks, the strings events refer
/// to, and the global definitions and properties of the archive. Written by
/// one process, in the serial and in the parallel conversion alike, from the
/// pass-1 view of every rank's spill file.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_ARCHIVEDEFINITIONS_H
#define MPILIFT_TRACE_RUNTIME_ARCHIVEDEFINITIONS_H

#include "RankWriter.h"
#include "SpillFile.h"

#include <otf2/otf2.h>

#include <map>
#include <string>
#include <vector>

namespace mpilift {
namespace tracert {

/// A communicator with one index in the whole archive.
struct GlobalComm {
  bool IsInter;
  std::vector<int32_t> GroupA; ///< Intracomm: the members in rank order.
  std::vector<int32_t> GroupB; ///< Intercomm: the other group.
  int Occurrence;
  uint32_t Parent = UINT32_MAX;
};

/// Gives communicators that several ranks defined one global index: the
/// same member lists and the same position among communicators with those
/// members on each rank. World is index 0. Fills each file's GlobalComm.
std::vector<GlobalComm> unifyComms(std::vector<SpillFile> &Files);

/// Takes in what writing each rank left (\p Written[I] of \p Files[I]), in
/// rank order: the parent of a communicator is the one the first rank to
/// name one saw; a rank whose clock is approximate gets a warning.
void mergeWritten(const std::vector<SpillFile> &Files,
                  const std::vector<RankWritten> &Written,
                  std::vector<GlobalComm> &Comms,
                  std::vector<std::string> &Warnings);

/// The strings events refer to (the paths of loaded modules), in rank order
/// of first appearance, so that every process numbers them alike.
StringTable moduleStrings(const std::vector<SpillFile> &Files);

/// How the ranks of \p Files (sorted by rank) ended.
struct RankStatus {
  /// Every rank ended in MPI_Finalize and no data was lost.
  bool Complete = true;
  /// One line per rank, for the archive property.
  std::string Lines;
};

/// The status of each rank; warnings for torn chunks and missing ranks are
/// appended to \p Warnings.
RankStatus rankStatus(const std::vector<SpillFile> &Files, int WorldSize,
                      std::vector<std::string> &Warnings);

/// Writes the global definitions: the clock's span, strings, system tree,
/// locations (one per thread of \p Written[I] for Files[I]), regions,
/// attributes, groups and communicators.
void writeGlobalDefinitions(OTF2_GlobalDefWriter *G, StringTable &Strings,
                            const std::vector<SpillFile> &Files,
                            const std::vector<RankWritten> &Written,
                            const std::vector<GlobalComm> &Comms,
                            int WorldSize);

/// Opens DIR/traces.otf2 for writing (creator, description and flush
/// callbacks set); the caller sets the collective callbacks. Null if OTF2
/// cannot.
OTF2_Archive *createArchive(const std::string &TraceDir);

/// Sets the MPILIFT::* properties of the anchor file.
void setArchiveProperties(OTF2_Archive *Archive, const RankStatus &Status,
                          bool PayloadHashes, int WorldSize);

} // namespace tracert
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_ARCHIVEDEFINITIONS_H
