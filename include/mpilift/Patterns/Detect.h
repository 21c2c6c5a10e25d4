//===- Detect.h - Collective patterns in MPI traces -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Finds point-to-point communication that implements a collective
/// operation in a trace:
///
///  - Template evidence (Preissl et al.): on the rank that would be the
///    root, contiguous steps matching a template's master repeat for some
///    (n, root, c); on every other rank of the communicator, the slave
///    repeat with the same number of occurrences and one call site each.
///    Each stream is condensed into a suffix array, where every instance
///    of a repeat is found by binary search.
///    Contiguity makes the pattern compact: no other message of that
///    communicator lies inside it.
///  - Dataflow evidence (Hoefler and Schneider): the operations of one
///    occurrence across ranks, or all point-to-point operations no template
///    explained, as a communication graph with buffer addresses; matching,
///    SST dataflow and detection (lib/CommGraph) classify it, which finds
///    trees, pipelines and rings no template lists.
///
/// Broadcast or scatter: identical buffer and size on every send of the
/// root is a broadcast; base + k * size is a scatter; otherwise the
/// dataflow decides, or the pattern says "unknown". A broadcast must also
/// carry the same bytes in every message of an occurrence where the trace
/// has payload hashes (a ring that changes the value at each hop uses one
/// buffer too); without hashes the pattern says its contents were not
/// verified.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_PATTERNS_DETECT_H
#define MPILIFT_PATTERNS_DETECT_H

#include "mpilift/Trace/Trace.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpilift {
namespace patterns {

/// A call site taking part in a pattern.
struct PatternSite {
  uint32_t Site;          ///< Index into the trace's call sites.
  bool Send;              ///< Role: the site sends (else it receives).
  std::vector<int> Ranks; ///< World ranks that call it in the pattern.
};

struct Pattern {
  std::string Collective; ///< bcast, scatter, gather, allgather, alltoall...
  std::string Topology;   ///< star, ring, ..., or "dataflow".
  uint32_t Comm = 0;      ///< Index into the trace's communicators.
  int Root = -1;          ///< World rank; -1 for none or when it varies.
  std::vector<int> Roots; ///< Several roots: the root changes.
  uint64_t Bytes = 0;     ///< Bytes per message.
  /// The largest occurrence's bytes when occurrences differ in size (Bytes
  /// is then the smallest's); 0 when they are all alike.
  uint64_t MaxBytes = 0;
  uint64_t Occurrences = 0;
  /// Each occurrence is one message sent in this many segments, one after
  /// the other from the same buffer (a pipeline); Bytes is the whole.
  uint64_t Segments = 1;
  std::string Evidence; ///< "template", "dataflow" or "both".
  /// Broadcasts: "same" when the payload hashes show every message of an
  /// occurrence carried the same bytes, "not recorded" when the trace has
  /// no hashes; "differ" marks a pattern the shape and addresses took for a
  /// broadcast whose messages carried different bytes (it is reported as
  /// "unknown"). Empty for other collectives.
  std::string Contents;
  std::vector<PatternSite> Sites;
  std::string Note;
};

struct DetectOptions {
  bool UseTemplates = true;
  bool UseDataflow = true;
};

struct DetectResult {
  std::vector<Pattern> Patterns;
  std::vector<std::string> Warnings;
  bool Partial = false; ///< The trace is incomplete.
};

/// Finds the collective patterns of \p T, deterministically ordered.
DetectResult detectPatterns(const trace::Trace &T,
                            const DetectOptions &Options = DetectOptions());

/// The same, for a caller that needs no more than the definitions of \p T
/// afterwards (its communicators, call sites, modules): every rank's events
/// and request records are released once the search has taken from them
/// the steps it reads, which lowers the peak memory on a long trace by
/// their size. The ranks stay, with no events.
DetectResult
detectPatternsReleasingEvents(trace::Trace &T,
                              const DetectOptions &Options = DetectOptions());

/// Takes what the search reads (each rank's point-to-point steps on each
/// communicator of three processes or more) from a trace rank by rank, as
/// trace::readTrace reads it, and releases each rank's events once taken:
/// the events of one rank are in memory at a time, not those of all.
///
/// \code
///   patterns::RankStepCollector Steps;
///   auto T = trace::readTrace(Dir, nullptr, [&](trace::Trace &T, int R) {
///     Steps.take(T, R);
///   });
///   if (T)
///     Result = Steps.detect(*T);
/// \endcode
class RankStepCollector {
public:
  RankStepCollector();
  ~RankStepCollector();
  RankStepCollector(const RankStepCollector &) = delete;
  RankStepCollector &operator=(const RankStepCollector &) = delete;

  /// Takes the steps of world rank \p World of \p T, whose definitions
  /// are complete, and releases that rank's events and request records.
  void take(trace::Trace &T, int World);
  /// The steps taken so far, with the call sites of \p T (by module and
  /// offset) and the order each rank taken first used them, as bytes for
  /// the collector of another process that read other ranks of the same
  /// trace (add). Each rank's steps are released once written: the
  /// collector holds no steps afterwards.
  std::string serialize(const trace::Trace &T);
  /// Adds the steps of the ranks another process's collector took from
  /// its reading of the trace \p T came from (serialize). Its call sites
  /// stay apart from those of \p T until numberSitesAsOneReader.
  llvm::Error add(const trace::Trace &T, const std::string &Bytes);
  /// Once every rank's steps are here, taken or added: numbers the call
  /// sites and modules of \p T as one reader of every rank would have
  /// (rank by rank, each rank's in the order it first used them), and the
  /// steps' sites with them, so that detect finds what it would on the
  /// trace read whole. Each rank's SiteOrder in \p T is set.
  void numberSitesAsOneReader(trace::Trace &T);
  /// The patterns of \p T once every rank was taken, as detectPatterns
  /// finds them.
  DetectResult detect(const trace::Trace &T,
                      const DetectOptions &Options = DetectOptions());

private:
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_PATTERNS_DETECT_H
