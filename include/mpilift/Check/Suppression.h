//===- Suppression.h - NOLINT comments --------------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// clang-tidy's suppression comments, for mpilift's findings:
/// `// NOLINT` on the finding's line, `// NOLINTNEXTLINE` on the line
/// before, and `// NOLINTBEGIN` ... `// NOLINTEND` around it; each optionally
/// restricted to checks with a glob list in parentheses:
/// `// NOLINT(mpilift-manual-bcast)`, `// NOLINTNEXTLINE(mpilift-*)`.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_SUPPRESSION_H
#define MPILIFT_CHECK_SUPPRESSION_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mpilift {
namespace check {

/// The suppression comments of one file.
class Suppressions {
public:
  /// Scans \p Code once.
  explicit Suppressions(llvm::StringRef Code);

  /// Whether a finding of \p Check at 1-based \p Line is suppressed.
  bool suppresses(unsigned Line, llvm::StringRef Check) const;

private:
  struct Comment {
    enum Kind { SameLine, NextLine, Begin, End } TheKind;
    unsigned Line;
    std::string Globs; ///< Empty: every check.
  };
  static bool selects(const Comment &C, llvm::StringRef Check);
  std::vector<Comment> Comments;
};

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_SUPPRESSION_H
