//===- VectorUses.h - How a std::vector variable is used ---------*- C++
//-*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Whether a std::vector's elements can be reached from elsewhere: the
/// facts of FunctionFacts.h take every member call of a class object for
/// an escape; for a reduction's buffers the uses that keep the elements in
/// the function (an element in place, the size, the data given to MPI, a
/// copy made) are told apart.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_VECTORUSES_H
#define MPILIFT_LIB_ANALYSIS_VECTORUSES_H

#include "StatementTree.h"

#include "mpilift/Analysis/MPICalls.h"

#include "clang/AST/ExprCXX.h"

namespace mpilift {
namespace analysis {

/// Whether \p T is a std::vector (or a reference to one).
inline bool isStdVector(clang::QualType T) {
  const auto *Class = T.getNonReferenceType()->getAsCXXRecordDecl();
  return Class && Class->isInStdNamespace() && Class->getIdentifier() &&
         Class->getName() == "vector";
}

/// Whether parameter \p Index of \p F is a reference to a std::vector
/// whose size every use in \p F's body leaves alone (element access, the
/// size, the data, passing it to a function that does the same in this
/// unit).
bool containerParameterKeepsSize(const clang::FunctionDecl &F, unsigned Index,
                                 clang::ASTContext &Context);

/// The parent of \p S past implicit casts and parentheses.
inline const clang::Stmt *plainParent(const clang::Stmt &S,
                                      clang::ASTContext &Ctx) {
  const clang::Stmt *Parent = parentStmt(S, Ctx);
  while (Parent && (llvm::isa<clang::ImplicitCastExpr>(Parent) ||
                    llvm::isa<clang::ParenExpr>(Parent)))
    Parent = parentStmt(*Parent, Ctx);
  return Parent;
}

/// Whether \p Ref, a use of a std::vector variable, only reads or writes
/// its elements in place (`v[i]`, `v.size()`, `v.data()` given to an MPI
/// call, a copy or move made of it, the vector returned) without letting
/// them be reached elsewhere.
inline bool vectorElementUseOnly(const clang::DeclRefExpr *Ref,
                                 clang::ASTContext &Ctx) {
  using namespace clang;
  const Stmt *Parent = plainParent(*Ref, Ctx);
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Parent))
    return Op->getOperator() == OO_Subscript;
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Parent))
    return Construct->getConstructor()->isCopyOrMoveConstructor();
  if (isa_and_nonnull<ReturnStmt>(Parent))
    return true;
  const auto *Call =
      Parent ? dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(*Parent, Ctx))
             : nullptr;
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier())
    return false;
  StringRef Name = Method->getName();
  if (Name == "size" || Name == "empty" || Name == "at")
    return true;
  if (Name != "data")
    return false;
  const auto *Mpi = dyn_cast_or_null<CallExpr>(plainParent(*Call, Ctx));
  return Mpi && mpiCallee(Mpi);
}

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_VECTORUSES_H
