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
/// Conservative: a buffer is "private" at a statement when it is a local
/// object whose address has not yet gone anywhere but MPI calls and
/// functions that only read through it (and will not come round to the
/// statement in a loop); otherwise every pointer access and every call may
/// reach it.
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

/// What counts as touching the buffers.
struct AccessRules {
  /// Only writes matter: the buffer of a pending send may be read.
  bool WritesOnly = false;
  /// MPI calls that do not name the buffers may be crossed (point-to-point
  /// overlap: moving a wait later cannot change which messages match).
  /// MPI_Finalize never is.
  bool CrossMPICalls = false;
  /// The variables themselves are what matters (a request, a status), not
  /// what a pointer-typed one points to.
  bool VariablesThemselves = false;
};

/// The buffers of one communication, and what the function tells about
/// their reachability.
class BufferAccess {
public:
  /// \p Trusted functions receive a buffer's address but hand it to
  /// nothing but MPI calls, so passing it to them keeps it private.
  BufferAccess(llvm::ArrayRef<const clang::ValueDecl *> Buffers,
               const FunctionFacts &Facts, clang::ASTContext &Context,
               llvm::ArrayRef<const clang::FunctionDecl *> Trusted = {},
               AccessRules Rules = {});

  /// Why \p S may touch one of the buffers or must not be crossed by a wait
  /// (it leaves the block, or calls MPI); nothing when it provably does not.
  std::optional<std::string> mayTouch(const clang::Stmt *S) const;

  /// The latest point after \p Pattern in its enclosing block before which
  /// a wait for the buffers must run; none if \p Pattern is not directly in
  /// a block.
  std::optional<WaitPoint> sinkAfter(const clang::Stmt *Pattern) const;

private:
  std::optional<std::string> mention(const clang::Stmt *S) const;

  llvm::SmallVector<const clang::ValueDecl *, 2> Buffers;
  clang::ASTContext &Context;
  AccessRules Rules;
  bool isPrivateAt(const clang::Stmt *S) const;

  /// Every buffer is a local object the function can follow, and where
  /// their addresses escape.
  bool Local = true;
  llvm::SmallVector<const clang::Stmt *, 4> Escapes;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_BUFFERACCESS_H
