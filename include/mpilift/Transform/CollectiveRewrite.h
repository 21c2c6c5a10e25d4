//===- CollectiveRewrite.h - Manual collectives to MPI calls ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rewrite of a proven manual collective (paper 002, Algorithm 4):
/// the collective statement of the root and the call of the other branch
/// become the MPI collective, each in its own branch, so everything else the
/// branches do keeps its place. Where both branches hold nothing but the
/// pattern and spell the same call, the whole guard becomes one call.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRANSFORM_COLLECTIVEREWRITE_H
#define MPILIFT_TRANSFORM_COLLECTIVEREWRITE_H

#include "mpilift/Analysis/ManualCollective.h"

#include "clang/Tooling/Refactoring/AtomicChange.h"
#include "llvm/Support/Error.h"

namespace mpilift {
namespace transform {

/// The edits that replace \p Collective, as one all-or-nothing change.
/// \p Collective must have passed every safety check.
llvm::Expected<clang::tooling::AtomicChange>
rewriteManualCollective(const analysis::ManualCollective &Collective,
                        clang::ASTContext &Context);

} // namespace transform
} // namespace mpilift

#endif // MPILIFT_TRANSFORM_COLLECTIVEREWRITE_H
