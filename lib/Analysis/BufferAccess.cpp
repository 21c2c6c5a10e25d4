//===- BufferAccess.cpp - Which statements may touch a buffer -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "BufferAccess.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

bool isTrusted(const CallExpr *Call, ArrayRef<const FunctionDecl *> Trusted) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && llvm::any_of(Trusted, [&](const FunctionDecl *T) {
           return T->getCanonicalDecl() == Callee->getCanonicalDecl();
         });
}

/// A local object that only MPI calls (and \p Trusted functions, which
/// give it to nothing else) ever see the address of.
bool isPrivateObject(const ValueDecl *D, const FunctionFacts &Facts,
                     ArrayRef<const FunctionDecl *> Trusted) {
  const auto *V = dyn_cast<VarDecl>(D);
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      V->getType()->isPointerType() || V->getType()->isReferenceType())
    return false;
  for (const Write &W : Facts.writesOf(V)) {
    if (W.Kind == WriteKind::Escape)
      return false;
    if (W.Kind == WriteKind::AddressPass && !mpiCallee(W.Call) &&
        !isTrusted(W.Call, Trusted))
      return false;
  }
  return true;
}

} // namespace

BufferAccess::BufferAccess(ArrayRef<const ValueDecl *> Buffers,
                           const FunctionFacts &Facts, ASTContext &Context,
                           ArrayRef<const FunctionDecl *> Trusted)
    : Buffers(Buffers.begin(), Buffers.end()), Context(Context) {
  for (const ValueDecl *D : Buffers)
    Private &= D && isPrivateObject(D, Facts, Trusted);
}

std::optional<std::string> BufferAccess::mayTouch(const Stmt *S) const {
  for (const ValueDecl *D : Buffers)
    if (D && mentions(S, D))
      return "this statement uses '" + D->getNameAsString() + "'";
  if (findFirst(S, [](const Stmt *X) {
        return isa<ReturnStmt>(X) || isa<BreakStmt>(X) ||
               isa<ContinueStmt>(X) || isa<GotoStmt>(X) ||
               isa<IndirectGotoStmt>(X) || isa<LabelStmt>(X) ||
               isa<CXXThrowExpr>(X) || isa<CXXTryStmt>(X);
      }))
    return std::string("this statement may leave the block");
  if (findFirst(S, [](const Stmt *X) {
        const auto *Call = dyn_cast<CallExpr>(X);
        return Call && mpiCallee(Call);
      }))
    return std::string("this statement calls MPI");
  if (Private)
    return std::nullopt;
  if (findFirst(S, [](const Stmt *X) {
        return isa<CallExpr>(X) || isa<CXXConstructExpr>(X) ||
               isa<CXXDeleteExpr>(X);
      }))
    return std::string("this call may reach the buffer, which is not a "
                       "private local object");
  if (findFirst(S, [](const Stmt *X) {
        if (const auto *Op = dyn_cast<UnaryOperator>(X))
          return Op->getOpcode() == UO_Deref;
        if (const auto *Member = dyn_cast<MemberExpr>(X))
          return Member->isArrow();
        if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(X))
          return Sub->getBase()
              ->IgnoreParenImpCasts()
              ->getType()
              ->isPointerType();
        return false;
      }))
    return std::string("this access through a pointer may reach the buffer");
  return std::nullopt;
}

std::optional<WaitPoint> BufferAccess::sinkAfter(const Stmt *Pattern) const {
  DynTypedNodeList Parents = Context.getParents(*Pattern);
  const auto *Block =
      Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
  if (!Block)
    return std::nullopt;
  WaitPoint Point;
  Point.Block = Block;
  bool After = false;
  for (const Stmt *S : Block->body()) {
    if (S == Pattern) {
      After = true;
      continue;
    }
    if (!After)
      continue;
    if (std::optional<std::string> Why = mayTouch(S)) {
      Point.Before = S;
      Point.Reason = *Why;
      return Point;
    }
  }
  Point.Reason = "the end of the block";
  return Point;
}

} // namespace analysis
} // namespace mpilift
