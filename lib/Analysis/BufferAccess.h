//===- BufferAccess.h - Which statements may touch a buffer -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The buffer-access analysis shared by the collective rewrite (where to
/// wait for a nonblocking collective) and the overlap passes: whether a
/// statement may read or write a message buffer, directly, through a pointer
/// that may alias it, or through a call; and how far a wait can sink.
///
/// Conservative: a buffer is "private" only when it is a local object whose
/// address never leaves MPI calls; otherwise every pointer access and every
/// call may reach it.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_BUFFERACCESS_H
#define MPILIFT_LIB_ANALYSIS_BUFFERACCESS_H

#include "FunctionFacts.h"

#include "mpilift/Analysis/ManualCollective.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace mpilift {
namespace analysis {

/// The buffers of one communication, and what the function tells about
/// their reachability.
class BufferAccess {
public:
  /// \p Trusted functions receive a buffer's address but hand it to
  /// nothing but MPI calls, so passing it to them keeps it private.
  BufferAccess(llvm::ArrayRef<const clang::ValueDecl *> Buffers,
               const FunctionFacts &Facts, clang::ASTContext &Context,
               llvm::ArrayRef<const clang::FunctionDecl *> Trusted = {});

  /// Why \p S may touch one of the buffers or must not be crossed by a wait
  /// (it leaves the block, or calls MPI); nothing when it provably does not.
  std::optional<std::string> mayTouch(const clang::Stmt *S) const;

  /// The latest point after \p Pattern in its enclosing block before which
  /// a wait for the buffers must run; none if \p Pattern is not directly in
  /// a block.
  std::optional<WaitPoint> sinkAfter(const clang::Stmt *Pattern) const;

private:
  llvm::SmallVector<const clang::ValueDecl *, 2> Buffers;
  clang::ASTContext &Context;
  bool Private = true;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_BUFFERACCESS_H
