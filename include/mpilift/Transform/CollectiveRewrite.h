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
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

namespace mpilift {
namespace transform {

/// How to rewrite.
struct RewriteOptions {
  /// Use the nonblocking collective (MPI_Ibcast, ...) with its MPI_Wait at
  /// the analysis' wait point (`--collectives nonblocking`).
  bool Nonblocking = false;
  /// Identifiers already taken in the file, including requests earlier
  /// rewrites of the same run declared; new names are added.
  llvm::StringSet<> *TakenNames = nullptr;
};

/// The edits that replace \p Collective, as one all-or-nothing change.
/// \p Collective must have passed every safety check.
llvm::Expected<clang::tooling::AtomicChange>
rewriteManualCollective(const analysis::ManualCollective &Collective,
                        clang::ASTContext &Context,
                        const RewriteOptions &Options = {});

/// The edits that replace a pattern the rank-space evaluation proved
/// (\p Collective has a \c Region): the collective call at each of the
/// proof's places, the statements that only communicated removed.
llvm::Expected<clang::tooling::AtomicChange>
rewriteProvenRegion(const analysis::ManualCollective &Collective,
                    clang::ASTContext &Context,
                    const RewriteOptions &Options = {});

/// The `--fallback cdag` rewrite of a pattern with an eligible
/// \c Fallback: the region's sends and receives become libcdag operations
/// on a graph built on the first run and rebuilt only when a key variable
/// changed on some rank (checked with one MPI_Allreduce), then run; the
/// runtime replaces the graph by collectives where this run makes it one.
llvm::Expected<clang::tooling::AtomicChange>
rewriteToCDag(const analysis::ManualCollective &Collective,
              clang::ASTContext &Context, llvm::StringSet<> *TakenNames);

/// The MPI function the rewrite of \p Kind calls (\p Vector: its v form,
/// for a scatter or a gather).
llvm::StringRef collectiveFunction(analysis::ManualKind Kind, bool Nonblocking,
                                   bool Vector = false);

} // namespace transform
} // namespace mpilift

#endif // MPILIFT_TRANSFORM_COLLECTIVEREWRITE_H
