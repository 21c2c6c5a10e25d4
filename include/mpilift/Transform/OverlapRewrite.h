//===- OverlapRewrite.h - Split blocking calls, sink waits ------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rewrites of the overlap passes (paper 004): a blocking send or
/// receive becomes its nonblocking form with a fresh request, and its
/// MPI_Wait goes to the site's sink point; an existing wait moves there.
/// A wait that leaves a conditional runs only where the original did: a
/// split call's request starts as MPI_REQUEST_NULL (waiting on it does
/// nothing), an existing wait gets the boolean flag of Algorithm 1.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRANSFORM_OVERLAPREWRITE_H
#define MPILIFT_TRANSFORM_OVERLAPREWRITE_H

#include "mpilift/Analysis/Overlap.h"

#include "clang/Tooling/Refactoring/AtomicChange.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

namespace mpilift {
namespace transform {

/// How to rewrite an overlap site.
struct OverlapOptions {
  /// Progress polling: MPI_Test on the request in the innermost loops the
  /// wait now crosses, every \c PollInterval iterations (only where the
  /// status is not needed).
  bool Polling = false;
  unsigned PollInterval = 64;
  /// Identifiers already taken in the file; new names are added.
  llvm::StringSet<> *TakenNames = nullptr;
};

/// The edits of \p Site, as one all-or-nothing change. \p Site must be
/// transformable.
llvm::Expected<clang::tooling::AtomicChange>
rewriteOverlap(const analysis::OverlapSite &Site, clang::ASTContext &Context,
               const OverlapOptions &Options = {});

/// The nonblocking form of the blocking call \p Name ("MPI_Isend" for
/// "MPI_Send"), or "" when there is none.
llvm::StringRef nonblockingName(llvm::StringRef Name);

} // namespace transform
} // namespace mpilift

#endif // MPILIFT_TRANSFORM_OVERLAPREWRITE_H
