//===- GlobList.h - clang-tidy style check globs ----------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `--checks` and `--warnings-as-errors` take clang-tidy's glob lists: comma
/// separated globs where `*` matches any run of characters and a leading
/// `-` removes what it matches; the last glob that matches a name decides.
/// `mpilift-*,-mpilift-manual-alltoall` enables every check but one.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_GLOBLIST_H
#define MPILIFT_CHECK_GLOBLIST_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mpilift {
namespace check {

/// A parsed glob list.
class GlobList {
public:
  /// Parses \p Text; white space around globs is ignored, empty globs are
  /// skipped.
  explicit GlobList(llvm::StringRef Text);

  /// Whether \p Name is selected: the last glob matching it is positive.
  bool contains(llvm::StringRef Name) const;

private:
  struct Glob {
    bool Positive;
    std::string Pattern;
  };
  std::vector<Glob> Globs;
};

/// Whether \p Name matches \p Pattern, where `*` matches any run of
/// characters.
bool matchesGlob(llvm::StringRef Pattern, llvm::StringRef Name);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_GLOBLIST_H
