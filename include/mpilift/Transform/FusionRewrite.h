//===- FusionRewrite.h - One collective for a fused sequence ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rewrite of a fusion site (mpilift/Analysis/Fusion.h): the first call
/// becomes the fused collective, with the error code going where the
/// first call's went; the second call's statement goes (a declaration
/// keeps its variable, now MPI_SUCCESS); the statements between stay.
/// A broadcast followed by a reduction or scan of its buffer keeps the
/// broadcast; the second call's statement becomes a loop in which each
/// rank that receives a result combines copies of the broadcast value.
/// Packed calls become one block: copies in, one call, copies out. A loop
/// of scatters from every root becomes one MPI_Alltoall.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRANSFORM_FUSIONREWRITE_H
#define MPILIFT_TRANSFORM_FUSIONREWRITE_H

#include "mpilift/Analysis/Fusion.h"

#include "clang/Tooling/Refactoring/AtomicChange.h"
#include "llvm/Support/Error.h"

namespace mpilift {
namespace transform {

/// The edits that fuse \p Site, which must be safe.
llvm::Expected<clang::tooling::AtomicChange>
rewriteFusion(const analysis::FusionSite &Site, clang::ASTContext &Context);

} // namespace transform
} // namespace mpilift

#endif // MPILIFT_TRANSFORM_FUSIONREWRITE_H
