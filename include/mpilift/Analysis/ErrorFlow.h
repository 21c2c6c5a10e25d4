//===- ErrorFlow.h - Where an MPI call's error code goes --------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Real codes keep the error code of every MPI call: `ierr = MPI_Send(...)`,
/// or accumulated over several calls, `ierr |= MPI_Send(...)` or `ierr +=
/// MPI_Send(...)`. A rewrite gives the call that replaces such calls the
/// same place, spelled the same way, so the program's checks of the code
/// still see the code of the call that now does the work.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_ERRORFLOW_H
#define MPILIFT_ANALYSIS_ERRORFLOW_H

#include "clang/AST/Decl.h"
#include "clang/AST/OperationKinds.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class ReturnStmt;
class Stmt;
} // namespace clang

namespace mpilift {
namespace analysis {

/// The variable a call's error code goes to, and how.
struct ErrorFlow {
  /// Null when the code is not kept in a variable.
  const clang::VarDecl *Var = nullptr;
  /// `=`, or `|=` and `+=` for a code accumulated over calls.
  clang::BinaryOperatorKind Op = clang::BO_Assign;
  /// The variable is declared by the call's statement (`int ierr =
  /// MPI_Send(...);`): a rewrite that removes it declares it again.
  bool Declared = false;

  explicit operator bool() const { return Var != nullptr; }
  /// Whether earlier codes stay in the variable (`|=`, `+=`): a call that
  /// succeeds leaves it as it was.
  bool accumulates() const { return Var && Op != clang::BO_Assign; }
  /// `ierr = `, `ierr |= `: what goes before a call whose code flows this
  /// way; empty without a variable.
  std::string spelling() const;

  friend bool operator==(const ErrorFlow &A, const ErrorFlow &B) {
    return A.Var == B.Var && (!A.Var || A.Op == B.Op);
  }
  friend bool operator!=(const ErrorFlow &A, const ErrorFlow &B) {
    return !(A == B);
  }
};

/// Whether \p Op keeps error codes: `=`, `|=` or `+=` (accumulated codes
/// stay non-zero once one call failed, as MPI's codes are non-negative).
bool keepsErrorCodes(clang::BinaryOperatorKind Op);

/// `V = Call`, `V |= Call` or `V += Call` as a statement of its own (also
/// as an `if` branch, a loop body or a case): where \p Call's error code
/// goes; no variable for any other use of the call.
ErrorFlow errorFlowOf(const clang::CallExpr *Call, clang::ASTContext &Ctx);

/// `int ierr = Call;`, a declaration of one integer variable: the
/// variable, declared by the call's statement; none otherwise.
ErrorFlow declaredErrorFlowOf(const clang::CallExpr *Call,
                              clang::ASTContext &Ctx);

/// `return MPI_Recv(...);`: the statement that returns \p Call's code as
/// the function's result (through parentheses and implicit conversions
/// only); null for any other use of the call.
const clang::ReturnStmt *returnOf(const clang::CallExpr *Call,
                                  clang::ASTContext &Ctx);

/// The source text of \p Check, a statement that checks \p Call's code
/// (`if (MPI_Send(...) != MPI_SUCCESS) return -1;`, with its semicolon),
/// with \p NewCall in the call's place.
std::string checkWithCall(const clang::Stmt *Check, const clang::CallExpr *Call,
                          llvm::StringRef NewCall, clang::ASTContext &Ctx);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_ERRORFLOW_H
