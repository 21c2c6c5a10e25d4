//===- BufferAccess.cpp - Which statements may touch a buffer -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "BufferAccess.h"
#include "StatementTree.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

bool writesThroughPointer(const Stmt *S);

/// Whether reading the lvalue \p E may write through a pointer: only its
/// parts that are not read as a whole (indices, pointer bases) may.
bool readLvalueWrites(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return Member->isArrow() ? writesThroughPointer(Member->getBase())
                             : readLvalueWrites(Member->getBase());
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
    const auto *Decay = dyn_cast<ImplicitCastExpr>(Sub->getBase());
    bool ArrayBase = Decay && Decay->getCastKind() == CK_ArrayToPointerDecay;
    return (ArrayBase ? readLvalueWrites(Decay->getSubExpr())
                      : writesThroughPointer(Sub->getBase())) ||
           writesThroughPointer(Sub->getIdx());
  }
  if (const auto *Op = dyn_cast<UnaryOperator>(E);
      Op && Op->getOpcode() == UO_Deref)
    return writesThroughPointer(Op->getSubExpr());
  return writesThroughPointer(E);
}

/// Whether \p S may write memory through a pointer, or take an address
/// through one: `p->f = x`, `++*p`, `&p[i]`. Reads (`x = p->f`) may not.
bool writesThroughPointer(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(S);
      Cast && Cast->getCastKind() == CK_LValueToRValue)
    return readLvalueWrites(Cast->getSubExpr());
  if (isPointerAccess(S))
    return true; // Not read as a whole: written, or its address taken.
  return llvm::any_of(S->children(),
                      [](const Stmt *C) { return writesThroughPointer(C); });
}

bool isTrusted(const CallExpr *Call, ArrayRef<const FunctionDecl *> Trusted) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && llvm::any_of(Trusted, [&](const FunctionDecl *T) {
           return T->getCanonicalDecl() == Callee->getCanonicalDecl();
         });
}

/// Whether the use \p Ref of a buffer only reads it: its value is loaded,
/// or its address goes where nothing writes through it (a `const`
/// parameter, the send buffer of an MPI call). Anything else, including an
/// address stored or passed on, counts as a write.
bool isReadOnlyUse(const Expr *Ref, ASTContext &Context) {
  const Expr *E = Ref;
  while (true) {
    const Stmt *Parent = parentStmt(*E, Context);
    if (!Parent)
      return false;
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent)) {
      // A loaded pointer still leads to the buffer; a loaded value does not.
      if (Cast->getCastKind() == CK_LValueToRValue &&
          !Cast->getType()->isPointerType())
        return true;
      E = Cast;
      continue;
    }
    if (isa<ParenExpr>(Parent) || isa<CStyleCastExpr>(Parent) ||
        isa<MemberExpr>(Parent)) {
      E = cast<Expr>(Parent);
      continue;
    }
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Parent)) {
      if (Sub->getIdx() == E)
        return true;
      E = Sub;
      continue;
    }
    if (const auto *Op = dyn_cast<UnaryOperator>(Parent)) {
      if (Op->isIncrementDecrementOp())
        return false;
      if (Op->getOpcode() == UO_Deref || Op->getOpcode() == UO_AddrOf) {
        E = Op;
        continue;
      }
      return true; // -x, !x, ~x read.
    }
    if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
      if (Op->isAssignmentOp())
        return Op->getRHS() == E && !E->getType()->isPointerType();
      if (Op->isAdditiveOp() && E->getType()->isPointerType()) {
        E = Op;
        continue;
      }
      return true; // Comparisons and arithmetic on values read.
    }
    if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
      if (!E->getType()->isPointerType())
        return true; // Passed by value.
      if (mpiCallee(Call))
        return mpiArg(Call, mpi::Role::SendBuffer) == E->IgnoreParenImpCasts();
      const FunctionDecl *Callee = Call->getDirectCallee();
      for (unsigned I = 0; Callee && I < Call->getNumArgs(); ++I)
        if (Call->getArg(I) == E && I < Callee->getNumParams()) {
          QualType T = Callee->getParamDecl(I)->getType();
          return T->isPointerType() && T->getPointeeType().isConstQualified();
        }
      return false;
    }
    return false;
  }
}

/// Whether \p Call gives \p V's address only to parameters its body
/// reads through and keeps nowhere (a `const T *` the callee only loads
/// from), so \p V stays as private as it was.
bool onlyReadsThrough(const CallExpr *Call, const VarDecl *V,
                      ASTContext &Context) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || !Callee->hasBody(Definition))
    return false;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    if (!mentions(Call->getArg(I), V))
      continue;
    if (I >= Definition->getNumParams())
      return false; // Variadic: nothing says what happens to it.
    const ParmVarDecl *P = Definition->getParamDecl(I);
    QualType T = P->getType();
    if (!T->isPointerType() || !T->getPointeeType().isConstQualified())
      return false;
    const Stmt *Escape = findFirst(Definition->getBody(), [&](const Stmt *X) {
      const auto *Ref = dyn_cast<DeclRefExpr>(X);
      return Ref && Ref->getDecl() == P && !isReadOnlyUse(Ref, Context);
    });
    if (Escape)
      return false;
  }
  return true;
}

/// Whether the pointer \p V holds memory only this function knows: set
/// once, from malloc, calloc, aligned_alloc or `new`, and used only to
/// index or dereference it, to compare it, and to give it to MPI, to free,
/// or to functions that only read through it.
bool isFreshAllocation(const VarDecl *V, const FunctionFacts &Facts,
                       ASTContext &Context) {
  ArrayRef<Write> Writes = Facts.writesOf(V);
  if (Writes.size() != 1 || !Writes[0].Value ||
      (Writes[0].Kind != WriteKind::Init &&
       Writes[0].Kind != WriteKind::Assign))
    return false;
  if (!isAllocation(Writes[0].Value))
    return false;
  for (const DeclRefExpr *Ref : Facts.referencesOf(V)) {
    const Stmt *Node = Ref;
    while (true) {
      const Stmt *Parent = parentStmt(*Node, Context);
      if (!Parent)
        return false;
      if (isa<ParenExpr>(Parent) || isa<ImplicitCastExpr>(Parent) ||
          isa<CStyleCastExpr>(Parent)) {
        Node = Parent;
        continue;
      }
      if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
        if (Op->getOpcode() == BO_Assign && Op->getLHS() == Node &&
            Writes[0].Where == Op)
          break; // The allocation itself.
        if (Op->isEqualityOp() || Op->isRelationalOp())
          break;
        if (Op->isAdditiveOp()) {
          Node = Op;
          continue;
        }
        return false;
      }
      if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Parent)) {
        if (Sub->getBase() != Node)
          return false;
        break;
      }
      if (const auto *Op = dyn_cast<UnaryOperator>(Parent)) {
        if (Op->getOpcode() != UO_Deref)
          return false;
        break;
      }
      if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        bool Harmless = mpiCallee(Call) ||
                        (Callee && Callee->getName() == "free") ||
                        onlyReadsThrough(Call, V, Context);
        if (!Harmless)
          return false;
        break;
      }
      if (isa<DeclStmt>(Parent) && Writes[0].Kind == WriteKind::Init)
        break; // `double *p = malloc(...)`.
      return false;
    }
  }
  return true;
}

/// Whether \p D is a local object whose address the function can follow:
/// not a parameter, a global or a reference; a pointer only when it holds
/// a fresh allocation (or when the variable itself is what matters).
bool isLocalObject(const ValueDecl *D, bool VariableItself,
                   const FunctionFacts &Facts, ASTContext &Context) {
  const auto *V = dyn_cast_or_null<VarDecl>(D);
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      V->getType()->isReferenceType())
    return false;
  if (V->getType()->isPointerType() && !VariableItself)
    return isFreshAllocation(V, Facts, Context);
  return true;
}

/// The statements where the address of the local object \p V goes
/// somewhere the analysis cannot follow: stored, or given to a function
/// other than MPI, a \p Trusted one, or one that only reads through it.
void escapesOf(const VarDecl *V, const FunctionFacts &Facts,
               ArrayRef<const FunctionDecl *> Trusted, ASTContext &Context,
               SmallVectorImpl<const Stmt *> &Out) {
  for (const Write &W : Facts.writesOf(V)) {
    bool Escapes =
        W.Kind == WriteKind::Escape ||
        (W.Kind == WriteKind::AddressPass && !mpiCallee(W.Call) &&
         !isTrusted(W.Call, Trusted) && !onlyReadsThrough(W.Call, V, Context));
    if (Escapes)
      Out.push_back(W.Where);
  }
}

} // namespace

BufferAccess::BufferAccess(ArrayRef<const ValueDecl *> Buffers,
                           const FunctionFacts &Facts, ASTContext &Context,
                           ArrayRef<const FunctionDecl *> Trusted,
                           AccessRules Rules)
    : Buffers(Buffers.begin(), Buffers.end()), Context(Context), Rules(Rules) {
  for (const ValueDecl *D : Buffers) {
    if (!isLocalObject(D, Rules.VariablesThemselves, Facts, Context)) {
      Local = false;
      continue;
    }
    // A fresh allocation's uses were all checked; an object's address may
    // still escape somewhere.
    if (!cast<VarDecl>(D)->getType()->isPointerType() ||
        Rules.VariablesThemselves)
      escapesOf(cast<VarDecl>(D), Facts, Trusted, Context, Escapes);
  }
}

/// Why \p S may touch a buffer by naming it; a read does not count under
/// AccessRules::WritesOnly.
std::optional<std::string> BufferAccess::mention(const Stmt *S) const {
  for (const ValueDecl *D : Buffers) {
    if (!D || !mentions(S, D))
      continue;
    if (!Rules.WritesOnly)
      return "this statement uses '" + D->getNameAsString() + "'";
    const Stmt *Write = findFirst(S, [&](const Stmt *X) {
      const auto *Ref = dyn_cast<DeclRefExpr>(X);
      const auto *Member = dyn_cast<MemberExpr>(X);
      bool Names = (Ref && Ref->getDecl() == D) ||
                   (Member && Member->getMemberDecl() == D);
      return Names && !isReadOnlyUse(cast<Expr>(X), Context);
    });
    if (Write)
      return "this statement may write '" + D->getNameAsString() + "'";
  }
  return std::nullopt;
}

/// Before its address first escapes, nothing but MPI can reach a local
/// object: \p S is before every escape and shares no loop with one (a loop
/// would bring a later escape round to it).
bool BufferAccess::isPrivateAt(const Stmt *S) const {
  if (!Local)
    return false;
  const SourceManager &SM = Context.getSourceManager();
  auto Within = [&](const Stmt *Inner, const Stmt *Outer) {
    return SM.isPointWithin(Inner->getBeginLoc(), Outer->getBeginLoc(),
                            Outer->getEndLoc());
  };
  for (const Stmt *Escape : Escapes) {
    if (!SM.isBeforeInTranslationUnit(S->getEndLoc(), Escape->getBeginLoc()))
      return false;
    for (const Stmt *Up = Escape; Up;) {
      Up = parentStmt(*Up, Context);
      if (isLoop(Up) && Within(S, Up))
        return false;
    }
  }
  return true;
}

std::optional<std::string> BufferAccess::mayTouch(const Stmt *S) const {
  if (std::optional<std::string> Why = mention(S))
    return Why;
  if (findFirst(S, [](const Stmt *X) {
        return isa<ReturnStmt>(X) || isa<BreakStmt>(X) ||
               isa<ContinueStmt>(X) || isa<GotoStmt>(X) ||
               isa<IndirectGotoStmt>(X) || isa<LabelStmt>(X) ||
               isa<CXXThrowExpr>(X) || isa<CXXTryStmt>(X);
      }))
    return std::string("this statement may leave the block");
  if (findFirst(S, [&](const Stmt *X) {
        const auto *Call = dyn_cast<CallExpr>(X);
        const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
        return Info &&
               (!Rules.CrossMPICalls || Info->Id == mpi::FunctionId::Finalize);
      }))
    return std::string("this statement calls MPI");
  if (isPrivateAt(S))
    return std::nullopt;
  if (findFirst(S, [](const Stmt *X) {
        return isa<CallExpr>(X) || isa<CXXConstructExpr>(X) ||
               isa<CXXDeleteExpr>(X);
      }))
    return std::string("this call may reach the buffer, which is not a "
                       "private local object");
  // A pending send's buffer may be read: only writes through pointers
  // matter then.
  if (Rules.WritesOnly ? writesThroughPointer(S) : accessesThroughPointer(S))
    return std::string("this access through a pointer may reach the buffer");
  return std::nullopt;
}

std::optional<WaitPoint> BufferAccess::sinkAfter(const Stmt *Pattern) const {
  const auto *Block =
      dyn_cast_or_null<CompoundStmt>(parentStmt(*Pattern, Context));
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
