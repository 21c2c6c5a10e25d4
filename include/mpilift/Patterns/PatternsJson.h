//===- PatternsJson.h - Patterns as mpilift detect writes them -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The patterns of a trace with their call sites named in source terms, as
/// the JSON document of `mpilift detect --format json`
/// (docs/patterns-format.md), which `mpilift check`, the language server
/// and the clang-tidy module take as evidence.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_PATTERNS_PATTERNSJSON_H
#define MPILIFT_PATTERNS_PATTERNSJSON_H

#include "mpilift/Patterns/Detect.h"
#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/Trace/Trace.h"

#include "llvm/Support/JSON.h"

#include <set>
#include <string>

namespace mpilift {
namespace patterns {

/// A call site in source terms; Known is false when it cannot be
/// symbolized.
struct SiteText {
  std::string File, Function;
  unsigned Line = 0, Column = 0;
  bool Known = false;
};

/// Names the call sites of a trace, keeping the symbolizer's errors.
class SiteNames {
public:
  explicit SiteNames(const trace::Trace &T) : T(T), S(T) {}
  SiteText get(uint32_t Site);
  /// "file:line:column", or "module+0xoffset" when unknown.
  std::string text(uint32_t Site);
  std::set<std::string> Errors;

private:
  const trace::Trace &T;
  trace::Symbolizer S;
};

/// The JSON document of \p R, the patterns of \p T.
llvm::json::Value toJson(const trace::Trace &T, const DetectResult &R,
                         SiteNames &Names);

/// detectPatterns(T) as that document.
llvm::json::Value detectPatternsAsJson(const trace::Trace &T);

} // namespace patterns
} // namespace mpilift

#endif // MPILIFT_PATTERNS_PATTERNSJSON_H
