//===- RegionEdits.h - What a rewrite removes from a region -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A proven region becomes one collective call per rank. The rewrite
/// removes the statements that exist only for the hand-written
/// communication: the point-to-point calls and waits, the loops and
/// conditions around them, and the statements that compute values only
/// they use (a mask, a partner, a request array). Everything else stays
/// where it is (output, counters, data the program prepares). A statement
/// that mixes both stays, with its calls removed (a root loop that also
/// prints).
///
/// The collective goes before one of the anchors: a statement of the
/// region that holds a call and is a statement of a block or a branch of
/// an `if`. Which anchors, and whether every rank passes exactly one of
/// them with nothing kept in between touching the messages, the judge
/// proves by running the region with the anchors marked
/// (CollectiveJudge.h).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_REGIONEDITS_H
#define MPILIFT_LIB_ANALYSIS_REGIONEDITS_H

#include "FunctionFacts.h"
#include "RankEvaluator.h"

#include "mpilift/Analysis/ManualCollective.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <vector>

namespace mpilift {
namespace analysis {

struct RegionEdits {
  /// The region's MPI point-to-point calls and waits, in source order.
  std::vector<const clang::CallExpr *> Calls;
  /// Every statement the rewrite removes (nested ones included).
  llvm::SmallPtrSet<const clang::Stmt *, 32> Deleted;
  /// The removed statements whose parent stays: what the edits delete.
  std::vector<const clang::Stmt *> Removed;
  /// Where a collective call may go, in source order.
  std::vector<const clang::Stmt *> Anchors;
  /// The variable every removed call that keeps its error code assigns it
  /// to, and the one check of it that follows such calls (see
  /// ProvenRegion).
  ErrorFlow ErrorCode;
  const clang::IfStmt *ErrorCheck = nullptr;
  /// `if (MPI_Send(...) != MPI_SUCCESS) return -1;`: one of the checks
  /// that test the removed calls' own codes, all alike but for the call,
  /// and its call; the collective call is checked the same way.
  const clang::IfStmt *CallCheck = nullptr;
  const clang::CallExpr *CheckedCall = nullptr;
  /// `return MPI_Recv(...);`: removed calls whose code the function
  /// returns. Their statements stay and return the collective's code,
  /// kept in ErrorCode's variable (assigned, `=`), or in one the rewrite
  /// declares when the other calls keep none.
  std::vector<const clang::CallExpr *> Returned;
  /// Why the region cannot be rewritten this way, if it cannot.
  std::optional<Refusal> Problem;

  bool deleted(const clang::Stmt *S) const { return Deleted.count(S) != 0; }
  /// The statements to delete when the collective goes to \p Places: the
  /// removed statements, except those holding a place (their other parts
  /// go one by one) and the places themselves (the call replaces them).
  std::vector<const clang::Stmt *>
  removalsFor(llvm::ArrayRef<const clang::Stmt *> Places,
              clang::ASTContext &Ctx) const;
  /// Whether \p S is inside a removed statement (or is one).
  bool removedWith(const clang::Stmt *S, clang::ASTContext &Ctx) const;
};

/// Works out the edits of \p R. The variables \p Kept reads (the
/// collective call's arguments) stay, with what computes them. A
/// reduction's \p Combines (the statements that fold received values into
/// an accumulator) go with the calls, and so do the variables only its
/// messages and combines use (the value received, the value passed on).
RegionEdits planEdits(const Region &R, TranslationUnitFacts &TU,
                      llvm::ArrayRef<const clang::Expr *> Kept = {},
                      llvm::ArrayRef<const clang::Stmt *> Combines = {});

/// Whether \p If is `if (ierr == MPI_SUCCESS)` (or `!ierr`) of the error
/// code \p Error, without an `else`.
bool testsSuccess(const clang::IfStmt *If, const clang::VarDecl *Error,
                  clang::ASTContext &Context);

/// The MPI call a statement of a block makes: `MPI_X(...);`, `ierr =
/// MPI_X(...);` (also `|=`, `+=`) or `int ierr = MPI_X(...);`; null for
/// any other statement.
const clang::CallExpr *statementCall(const clang::Stmt *S);

/// `if (MPI_Send(...) != MPI_SUCCESS)`, `if (MPI_SUCCESS != ...)`, `if
/// (MPI_Send(...))`, also `if ((ierr = MPI_Send(...)) != MPI_SUCCESS)` (the
/// variable goes to \p Assigned): the MPI call whose code the condition of
/// \p If tests for failure; null for any other `if`, and for one with an
/// `else`, an initializer or a condition variable. With \p Gate, also such
/// a test followed by `&& ...` (the rest of the condition, evaluated only
/// when the call failed, goes to \p Gate).
const clang::CallExpr *callCheckedBy(const clang::IfStmt *If,
                                     const clang::VarDecl **Assigned,
                                     clang::ASTContext &Ctx,
                                     const clang::Expr **Gate = nullptr);

/// The first statement in \p S that assigns, increments, declares, or
/// jumps (`break`, `continue`, `goto`, a label): what keeps a check of an
/// error code from being copied after another call as written; null if
/// none.
const clang::Stmt *writesDeclaresOrJumps(const clang::Stmt *S);

/// \p If, a check of \p Call's code in place, without the call and without
/// white space: two checks with the same shape differ in nothing but
/// their calls (a block of one statement counts as that statement).
std::string checkShape(const clang::IfStmt *If, const clang::CallExpr *Call,
                       clang::ASTContext &Ctx);

/// Whether \p Cond is `ierr != MPI_SUCCESS` (or `ierr`, `0 != ierr`) of
/// the error code \p Error: true only after a call that failed.
bool isFailureTest(const clang::Expr *Cond, const clang::VarDecl *Error,
                   clang::ASTContext &Context);

/// Whether \p Cond is `ierr == MPI_SUCCESS` (or `!ierr`, `0 == ierr`) of
/// the error code \p Error.
bool isSuccessTest(const clang::Expr *Cond, const clang::VarDecl *Error,
                   clang::ASTContext &Context);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_REGIONEDITS_H
