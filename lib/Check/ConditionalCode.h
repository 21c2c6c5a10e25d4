//===- ConditionalCode.h - Preprocessor conditionals of a unit --*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The proofs see the code one configuration compiles. A rewrite that
/// replaces text holding `#ifdef VERBOSE ... #endif` would drop what the
/// other configurations compile there, proven or not: the conditional
/// directives are recorded while a unit is parsed, so that such a rewrite
/// can be refused. (Text the preprocessor skipped begins at a directive, so
/// replaced text that reaches into it holds that directive.)
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_CHECK_CONDITIONALCODE_H
#define MPILIFT_LIB_CHECK_CONDITIONALCODE_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpilift {
namespace check {

/// The conditional directives of one unit.
class ConditionalCode {
public:
  /// A conditional directive: where its name stands, and the name (`ifdef`).
  struct Directive {
    clang::SourceLocation Loc;
    std::string Name;
  };

  /// Callbacks that record into this object; give them to the unit's
  /// preprocessor before it runs. This object must outlive them.
  std::unique_ptr<clang::PPCallbacks> recorder();

  /// The first directive within [\p Offset, \p Offset + \p Length) of the
  /// file \p Path; none if the text holds no conditional directive.
  std::optional<Directive> within(llvm::StringRef Path, unsigned Offset,
                                  unsigned Length,
                                  const clang::SourceManager &SM) const;

private:
  friend class ConditionalRecorder;
  std::vector<Directive> Directives;
};

} // namespace check
} // namespace mpilift

#endif // MPILIFT_LIB_CHECK_CONDITIONALCODE_H
