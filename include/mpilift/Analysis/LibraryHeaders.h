//===- LibraryHeaders.h - Headers that are not the program's ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Which code of a translation unit belongs to libraries rather than to the
/// program: system headers, and the MPI library's own headers, which the
/// MPI compiler wrappers pass with -I (so Clang does not count them as
/// system headers). The rules look only at the program's code, and no
/// finding points into a library's header.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_LIBRARYHEADERS_H
#define MPILIFT_ANALYSIS_LIBRARYHEADERS_H

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceLocation.h"

#include <string>

namespace mpilift {
namespace analysis {

/// The library headers of one translation unit.
class LibraryHeaders {
public:
  /// Finds the MPI library's header directory: the directory of the header
  /// that declares MPI_Init.
  explicit LibraryHeaders(const clang::ASTContext &Context);

  /// Whether \p Loc (where it is expanded) lies in a system header or in
  /// the MPI library's header directory or below it (Open MPI's C++
  /// bindings live in openmpi/ompi/mpi/cxx below mpi.h). A location
  /// without a file counts as a library's.
  bool contain(clang::SourceLocation Loc) const;

private:
  const clang::SourceManager &SM;
  std::string MPIDir;
};

/// Restricts \p Context's traversal scope, and with it the parent map that
/// getParents builds, to the top-level declarations outside library
/// headers. The headers of a unit (the C library's, MPI's) hold most of
/// its declarations, and no analysis looks into them.
void scopeToProgramCode(clang::ASTContext &Context);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_LIBRARYHEADERS_H
