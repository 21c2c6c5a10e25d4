//===- Evidence.h - What a trace says about the source ----------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The evidence a trace gives a check: the call sites of the patterns
/// `mpilift detect` found (with the collective each forms), and how long
/// the traced run was blocked at each send, receive and wait, by source
/// line. Sites are matched by real path and line, or, for sources checked
/// elsewhere than where the traced binary was built (a copy, another
/// checkout), by file name, line and function.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_EVIDENCE_H
#define MPILIFT_CHECK_EVIDENCE_H

#include "mpilift/Trace/Trace.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace mpilift {
namespace check {

/// Call sites of the patterns a trace shows, each with the collective the
/// trace names there ("bcast").
struct TraceEvidence {
  bool Present = false;
  std::map<std::pair<std::string, unsigned>, std::string> Sites;
  std::map<std::tuple<std::string, unsigned, std::string>, std::string> Named;

  /// The collective the trace shows with a call at \p Line of \p File.
  std::optional<std::string> kindAt(llvm::StringRef File, unsigned Line,
                                    llvm::StringRef Function) const;
  bool covers(llvm::StringRef File, unsigned Line,
              llvm::StringRef Function) const {
    return kindAt(File, Line, Function).has_value();
  }
};

/// How long the traced run spent in each blocking send, receive and wait,
/// by call site: what the overlap rules could win there.
struct BlockedTime {
  struct Total {
    uint64_t Nanoseconds = 0;
    unsigned Calls = 0;
  };
  bool Present = false;
  std::map<std::pair<std::string, unsigned>, Total> ByPlace;
  std::map<std::tuple<std::string, unsigned, std::string>, Total> ByName;

  /// The total at a call on \p Line of \p File (or of a file with the
  /// same name in the same function, for a copied tree); null if none.
  const Total *at(llvm::StringRef File, unsigned Line,
                  llvm::StringRef Function) const;
};

/// Sums, over every rank, the time of the calls the overlap rules look at.
BlockedTime blockedTimeOf(const trace::Trace &T);

/// Reads the call sites of every pattern in a document of `mpilift detect
/// --format json` into \p Evidence; \p Origin names it in errors.
llvm::Error addPatternSites(const llvm::json::Value &Doc,
                            llvm::StringRef Origin, TraceEvidence &Evidence);

/// The units of \p Files that hold a pattern's call site or a blocked call
/// (trace-guided checks parse only those); all of them when a site is in
/// none (a header). \p Note receives what was decided, for the user.
std::vector<std::string> unitsWithSites(const std::vector<std::string> &Files,
                                        const TraceEvidence &Evidence,
                                        const BlockedTime &Blocked,
                                        std::string &Note);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_EVIDENCE_H
