//===- StatementTree.h - Walking Clang's statement tree --------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Small queries on Clang's statement tree that the analyses of
/// lib/Analysis share: searching under a statement, its parent, loops and
/// their parts, and reads through pointers.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_STATEMENTTREE_H
#define MPILIFT_LIB_ANALYSIS_STATEMENTTREE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mpilift {
namespace analysis {

/// Whether \p A and \p B are the same expression over the same
/// declarations (a shadowing variable of the same name is not the same);
/// false when either is null.
inline bool sameExpression(const clang::Expr *A, const clang::Expr *B,
                           const clang::ASTContext &Context) {
  if (!A || !B)
    return false;
  llvm::FoldingSetNodeID IdA, IdB;
  A->IgnoreParenImpCasts()->Profile(IdA, Context, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IdB, Context, /*Canonical=*/true);
  return IdA == IdB;
}

/// The first node under \p S (itself included) satisfying \p P, in
/// pre-order; null when none does.
template <typename Pred>
const clang::Stmt *findFirst(const clang::Stmt *S, Pred P) {
  if (!S)
    return nullptr;
  if (P(S))
    return S;
  for (const clang::Stmt *Child : S->children())
    if (const clang::Stmt *Found = findFirst(Child, P))
      return Found;
  return nullptr;
}

/// The statement \p S is a child of; null at the top of a body (whose
/// parent is a declaration).
inline const clang::Stmt *parentStmt(const clang::Stmt &S,
                                     clang::ASTContext &Context) {
  clang::DynTypedNodeList Parents = Context.getParents(S);
  return Parents.empty() ? nullptr : Parents[0].get<clang::Stmt>();
}

/// The statement \p S is a child of, past parentheses around \p S; in
/// \p Child (if given) the outermost of those parentheses, or \p S.
inline const clang::Stmt *
parentPastParens(const clang::Stmt &S, clang::ASTContext &Context,
                 const clang::Stmt **Child = nullptr) {
  const clang::Stmt *Inner = &S;
  const clang::Stmt *Parent = parentStmt(S, Context);
  while (clang::isa_and_nonnull<clang::ParenExpr>(Parent)) {
    Inner = Parent;
    Parent = parentStmt(*Parent, Context);
  }
  if (Child)
    *Child = Inner;
  return Parent;
}

/// The function whose body holds \p S; null at file scope.
inline const clang::FunctionDecl *
enclosingFunction(const clang::Stmt &S, clang::ASTContext &Context) {
  clang::DynTypedNodeList Parents = Context.getParents(S);
  while (!Parents.empty()) {
    if (const auto *F = Parents[0].get<clang::FunctionDecl>())
      return F;
    if (const auto *Parent = Parents[0].get<clang::Stmt>())
      Parents = Context.getParents(*Parent);
    else if (const auto *D = Parents[0].get<clang::Decl>())
      Parents = Context.getParents(*D);
    else
      break;
  }
  return nullptr;
}

/// Whether the lvalue \p E is only read: its value is loaded (an
/// lvalue-to-rvalue conversion, parentheses aside), not written, nor its
/// address taken.
inline bool isOnlyLoaded(const clang::Expr &E, clang::ASTContext &Context) {
  const auto *Cast = clang::dyn_cast_or_null<clang::ImplicitCastExpr>(
      parentPastParens(E, Context));
  return Cast && Cast->getCastKind() == clang::CK_LValueToRValue;
}

/// Like parentStmt, but the initializer of a local variable has the
/// declaration statement as its parent.
inline const clang::Stmt *enclosingStmt(const clang::Stmt &S,
                                        clang::ASTContext &Context) {
  clang::DynTypedNodeList Parents = Context.getParents(S);
  if (Parents.empty())
    return nullptr;
  if (const auto *Parent = Parents[0].get<clang::Stmt>())
    return Parent;
  if (const auto *Var = Parents[0].get<clang::VarDecl>()) {
    clang::DynTypedNodeList Up = Context.getParents(*Var);
    return Up.empty() ? nullptr : Up[0].get<clang::DeclStmt>();
  }
  return nullptr;
}

/// Whether \p E (casts and parentheses aside) allocates fresh memory:
/// malloc, calloc, aligned_alloc or `new`.
inline bool isAllocation(const clang::Expr *E) {
  E = E->IgnoreParenCasts();
  if (clang::isa<clang::CXXNewExpr>(E))
    return true;
  const auto *Call = clang::dyn_cast<clang::CallExpr>(E);
  const clang::FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier())
    return false;
  llvm::StringRef Name = Callee->getName();
  return Name == "malloc" || Name == "calloc" || Name == "aligned_alloc";
}

/// `for`, `while`, `do` or range-based `for`.
inline bool isLoop(const clang::Stmt *S) {
  return S &&
         (clang::isa<clang::ForStmt>(S) || clang::isa<clang::WhileStmt>(S) ||
          clang::isa<clang::DoStmt>(S) ||
          clang::isa<clang::CXXForRangeStmt>(S));
}

/// The body of the loop \p Loop.
inline const clang::Stmt *loopBody(const clang::Stmt *Loop) {
  if (const auto *L = clang::dyn_cast<clang::ForStmt>(Loop))
    return L->getBody();
  if (const auto *L = clang::dyn_cast<clang::WhileStmt>(Loop))
    return L->getBody();
  if (const auto *L = clang::dyn_cast<clang::DoStmt>(Loop))
    return L->getBody();
  return clang::cast<clang::CXXForRangeStmt>(Loop)->getBody();
}

/// The condition of the loop \p Loop; null for `for (;;)` and range-based
/// loops.
inline const clang::Expr *loopCondition(const clang::Stmt *Loop) {
  if (const auto *L = clang::dyn_cast<clang::ForStmt>(Loop))
    return L->getCond();
  if (const auto *L = clang::dyn_cast<clang::WhileStmt>(Loop))
    return L->getCond();
  if (const auto *L = clang::dyn_cast<clang::DoStmt>(Loop))
    return L->getCond();
  return nullptr;
}

/// \p S, or the only statement of the block \p S is; null for a block of
/// another size.
inline const clang::Stmt *soleStatement(const clang::Stmt *S) {
  if (const auto *Block = clang::dyn_cast_or_null<clang::CompoundStmt>(S))
    return Block->size() == 1 ? Block->body_front() : nullptr;
  return S;
}

/// Whether \p X itself is an access through a pointer (`*p`, `p->f`,
/// `p[i]`).
inline bool isPointerAccess(const clang::Stmt *X) {
  if (const auto *Op = clang::dyn_cast<clang::UnaryOperator>(X))
    return Op->getOpcode() == clang::UO_Deref;
  if (const auto *Member = clang::dyn_cast<clang::MemberExpr>(X))
    return Member->isArrow();
  if (const auto *Sub = clang::dyn_cast<clang::ArraySubscriptExpr>(X))
    return Sub->getBase()->IgnoreParenImpCasts()->getType()->isPointerType();
  return false;
}

/// Whether \p S reads or writes memory through a pointer (`*p`, `p->f`,
/// `p[i]`): it may reach any object whose address has escaped.
inline bool accessesThroughPointer(const clang::Stmt *S) {
  return findFirst(S, isPointerAccess) != nullptr;
}

namespace detail {
inline const clang::Stmt *leavingJumpIn(const clang::Stmt *S,
                                        const clang::Stmt *Top, bool InLoop) {
  if (!S)
    return nullptr;
  if (const auto *Goto = clang::dyn_cast<clang::GotoStmt>(S)) {
    const clang::LabelStmt *Target = Goto->getLabel()->getStmt();
    bool Inside = Target && findFirst(Top, [&](const clang::Stmt *X) {
                    return X == Target;
                  });
    return Inside ? nullptr : S;
  }
  if (clang::isa<clang::ReturnStmt>(S) || clang::isa<clang::CXXThrowExpr>(S))
    return S;
  if (!InLoop &&
      (clang::isa<clang::BreakStmt>(S) || clang::isa<clang::ContinueStmt>(S)))
    return S;
  bool Nested = InLoop || isLoop(S) || clang::isa<clang::SwitchStmt>(S);
  for (const clang::Stmt *Child : S->children())
    if (const clang::Stmt *Found = leavingJumpIn(Child, Top, Nested))
      return Found;
  return nullptr;
}
} // namespace detail

/// A jump that may leave the statement holding it: `return`, `throw`,
/// `goto` to a label outside \p S (HPL's `goto label_error` to the end of
/// the same block stays inside), and `break`/`continue` that are not
/// inside a loop or switch of their own within \p S.
inline const clang::Stmt *leavingJump(const clang::Stmt *S,
                                      bool InLoop = false) {
  return detail::leavingJumpIn(S, S, InLoop);
}

/// Every variable \p S names, in \p Out.
inline void variablesIn(const clang::Stmt *S,
                        llvm::SmallPtrSetImpl<const clang::VarDecl *> &Out) {
  findFirst(S, [&](const clang::Stmt *X) {
    if (const auto *Ref = llvm::dyn_cast<clang::DeclRefExpr>(X))
      if (const auto *V = llvm::dyn_cast<clang::VarDecl>(Ref->getDecl()))
        Out.insert(V);
    return false;
  });
}

/// The value \p S gives a variable as a whole: the initializer of the
/// declaration of one variable (`int n = f();`) or the right-hand side of
/// an assignment to it (`n = f();`, `n += 1;`); null for anything else.
/// The variable is assignedVariable(S).
inline const clang::Expr *assignedValue(const clang::Stmt *S) {
  if (const auto *DS = llvm::dyn_cast_or_null<clang::DeclStmt>(S)) {
    const auto *V = DS->isSingleDecl()
                        ? llvm::dyn_cast<clang::VarDecl>(DS->getSingleDecl())
                        : nullptr;
    return V ? V->getInit() : nullptr;
  }
  const auto *Op = llvm::dyn_cast_or_null<clang::BinaryOperator>(S);
  if (!Op || !Op->isAssignmentOp() ||
      !llvm::isa<clang::DeclRefExpr>(Op->getLHS()->IgnoreParenImpCasts()))
    return nullptr;
  return Op->getRHS();
}

/// The variable whose value \p S gives (see assignedValue); null if none.
inline const clang::VarDecl *assignedVariable(const clang::Stmt *S) {
  if (!assignedValue(S))
    return nullptr;
  if (const auto *DS = llvm::dyn_cast<clang::DeclStmt>(S))
    return llvm::cast<clang::VarDecl>(DS->getSingleDecl());
  const auto *Op = llvm::cast<clang::BinaryOperator>(S);
  return llvm::dyn_cast<clang::VarDecl>(
      llvm::cast<clang::DeclRefExpr>(Op->getLHS()->IgnoreParenImpCasts())
          ->getDecl());
}

/// What the body of \p F's definition returns when that body is a single
/// `return E;` (a getter, a traits function); null otherwise.
inline const clang::Expr *soleReturnValue(const clang::FunctionDecl &F) {
  const clang::FunctionDecl *Def = nullptr;
  if (!F.hasBody(Def) || !Def)
    return nullptr;
  const auto *Body =
      clang::dyn_cast_or_null<clang::CompoundStmt>(Def->getBody());
  if (!Body || Body->size() != 1)
    return nullptr;
  const auto *Return = clang::dyn_cast<clang::ReturnStmt>(Body->body_front());
  return Return ? Return->getRetValue() : nullptr;
}

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_STATEMENTTREE_H
