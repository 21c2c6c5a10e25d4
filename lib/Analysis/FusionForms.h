//===- FusionForms.h - What the fusion rules share -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The statement forms and judgements the fusion rules share: a call's
/// error code, the broadcast that runs only if the first call succeeded,
/// and whether an operation is exact in any order.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_FUSIONFORMS_H
#define MPILIFT_LIB_ANALYSIS_FUSIONFORMS_H

#include "mpilift/Analysis/Fusion.h"
#include "mpilift/MPI/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <string>

namespace mpilift {
namespace analysis {

class FunctionFacts;

namespace fusion {

/// The variable statement \p S gives its call's error code to: `ierr =
/// MPI_Reduce(...);` or `int rc = MPI_Reduce(...);`.
const clang::VarDecl *errorVariableOf(const clang::Stmt *S);

/// The call of `if (ierr == MPI_SUCCESS) ierr = MPI_Bcast(...);` (no
/// `else`; the branch one statement that calls, giving its code to the
/// same variable or to none).
const clang::CallExpr *successGuardedCall(const clang::Stmt *S,
                                          const clang::VarDecl *Error,
                                          clang::ASTContext &Context);

/// `if (MPI_Reduce(...) != MPI_SUCCESS) ...`: the call \p S checks in place
/// (callCheckedBy); null for any other statement.
const clang::CallExpr *checkedCall(const clang::Stmt *S,
                                   clang::ASTContext &Context);
/// The call of a pair's statement \p S: its statementCall, or the call it
/// checks in place.
const clang::CallExpr *pairCallOf(const clang::Stmt *S,
                                  clang::ASTContext &Context);

/// Whether \p Call calls the MPI function \p Id.
bool calls(const clang::CallExpr *Call, mpi::FunctionId Id);

/// The text of \p E as written; empty for none.
/// Handles behind the program's macros as MPI's names (`COUNT_T` as
/// `MPI_LONG`, mpiHandleName).
std::string spelled(const clang::Expr *E, const clang::ASTContext &Context);

/// Whether MPI defines \p Op on a floating-point datatype: sums, products,
/// minima and maxima only.
inline bool definedOnFloating(llvm::StringRef Op) {
  return Op == "MPI_SUM" || Op == "MPI_PROD" || Op == "MPI_MIN" ||
         Op == "MPI_MAX";
}

/// The first place in \p S that writes \p Base as a whole or in part: an
/// assignment or increment of it, of an element, or of what it points to,
/// or its address (or the array) given to a call.
const clang::Stmt *writeOf(const clang::Stmt *S, const clang::ValueDecl *Base);

/// The first assignment or increment in \p S of anything but a local
/// variable as a whole: a write that may reach memory others point to.
const clang::Stmt *writeThroughMemory(const clang::Stmt *S);

/// When \p Arg reads memory others may reach (through a pointer, a field
/// behind one, a global, an element), the first call or write through
/// memory in \p S, which may change what it reads.
const clang::Stmt *indirectChange(const clang::Stmt *S, const clang::Expr *Arg);

/// Where \p S changes, or may change, what \p Second reads: a variable of
/// \p Reads written, or memory its count, datatype, operation, root or
/// communicator reads through a pointer or a field (indirectChange); and
/// the note's start ("this statement changes 'root'").
std::optional<std::pair<const clang::Stmt *, std::string>>
argumentChange(const clang::Stmt *S, const clang::CallExpr *Second,
               const llvm::SmallPtrSetImpl<const clang::VarDecl *> &Reads,
               const FunctionFacts &Facts, clang::ASTContext &Context);

/// matching-arguments: the second call of \p Site combines the elements the
/// first (\p FirstName, "the broadcast") wrote: the same count and
/// datatype.
void checkSameElements(FusionSite &Site, llvm::StringRef FirstName,
                       clang::ASTContext &Context);

/// source-form: \p Call's datatype is a predefined one of one C type,
/// which goes to Site.ElementType; otherwise a refusal "'T' is no
/// predefined datatype" followed by \p Why.
const PredefinedDatatype *checkElementType(FusionSite &Site,
                                           const clang::CallExpr *Call,
                                           llvm::StringRef Why,
                                           clang::ASTContext &Context);

/// source-form: \p Call's count is an integer constant, which goes to
/// Site.Counts and is returned; otherwise a refusal "the count 'n' is no
/// constant" followed by \p Why.
std::optional<int64_t> checkConstantCount(FusionSite &Site,
                                          const clang::CallExpr *Call,
                                          llvm::StringRef Why,
                                          clang::ASTContext &Context);

/// source-form: the operation \p OpArg has a C operator that \p User ("the
/// local combination") could use, and MPI defines it on \p DT (spelled
/// \p Type; null: unknown).
void checkCOperation(FusionSite &Site, const clang::Expr *OpArg,
                     const PredefinedDatatype *DT, llvm::StringRef Type,
                     llvm::StringRef User, clang::ASTContext &Context);

/// The name of the MPI function \p Call calls.
std::string nameOf(const clang::CallExpr *Call);

/// Why a combination by \p Op on \p Type may round differently when
/// \p Fused combines the values in another order than \p Before did
/// (floating-point sums and products, operations the program defines);
/// nothing when it is exact in any order.
std::optional<std::string> orderDependence(llvm::StringRef Op,
                                           llvm::StringRef Type,
                                           llvm::StringRef Fused,
                                           llvm::StringRef Before);

/// The first place in \p S that can leave the code around it: `return`,
/// `break`, `continue`, `goto`, `throw`, a call of a `noreturn` function.
const clang::Stmt *leavesCode(const clang::Stmt *S);

/// `if (ierr != MPI_SUCCESS) return ierr;` (also `if (ierr)`, `if (0 !=
/// ierr)`; any branch, no `else`): whether \p S does anything only when
/// \p Code, the first call's error code, says that call failed. Between
/// two calls that become one it may leave the code: with the default error
/// handler it never runs, and it stays after the fused call, which assigns
/// \p Code, testing that call's code.
bool isFailureCheckOf(const clang::Stmt *S, const clang::VarDecl *Code,
                      clang::ASTContext &Context);

/// Whether \p V is a local array or scalar (or a parameter passed by
/// value) whose address only MPI calls see, so that no function a
/// statement calls, nor a pointer, can reach it.
bool onlyMPISeesAddress(const clang::VarDecl *V, const FunctionFacts &Facts);

/// What the algebra of two operations allows.
enum class Algebra {
  Exact,     ///< (x) distributes over (+), exactly.
  Rounds,    ///< It does on real numbers; floating point rounds otherwise.
  Overflows, ///< It does, but a computation on pairs may add what the
             ///< program never adds, which may overflow where its sums do
             ///< not.
  None,      ///< It does not.
};

/// The note that \p Times does not distribute over \p Plus, which
/// \p Needs ("one collective on pairs") needs.
std::string notDistributive(llvm::StringRef Times, llvm::StringRef Plus,
                            llvm::StringRef Needs);

/// Whether \p Times distributes over \p Plus (MPI's names), on
/// floating-point elements when \p Floating.
Algebra distributes(llvm::StringRef Times, llvm::StringRef Plus, bool Floating);

} // namespace fusion
} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_FUSIONFORMS_H
