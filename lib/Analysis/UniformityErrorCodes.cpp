//===- UniformityErrorCodes.cpp - MPI error codes in conditions -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// RankUniformity's part for MPI error codes: a proof speaks of runs
/// without MPI errors, where a condition that only tests whether MPI calls
/// succeeded has one value on every rank, and a function whose every
/// `return` gives such a code returns MPI_SUCCESS.
///
//===----------------------------------------------------------------------===//

#include "RankUniformity.h"
#include "ReachingWrites.h"

#include "StatementTree.h"
#include "mpilift/Analysis/ErrorFlow.h"

#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// What \p Cond compares with a constant \p IsZero accepts: `x` in `x`,
/// `!x`, `x != Z`, `Z == x`; null for other conditions.
const Expr *comparedWithZero(const Expr *Cond,
                             llvm::function_ref<bool(const Expr *)> IsZero) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond))
    return Not->getOpcode() == UO_LNot
               ? comparedWithZero(Not->getSubExpr(), IsZero)
               : nullptr;
  if (const auto *Compare = dyn_cast<BinaryOperator>(Cond)) {
    if (!Compare->isEqualityOp())
      return nullptr;
    if (IsZero(Compare->getRHS()))
      return Compare->getLHS()->IgnoreParenImpCasts();
    if (IsZero(Compare->getLHS()))
      return Compare->getRHS()->IgnoreParenImpCasts();
    return nullptr;
  }
  return Cond;
}

/// What \p Cond tests for zero: `x` in `x`, `!x`, `x != 0`, `MPI_SUCCESS
/// == x`; null for other conditions.
const Expr *zeroTested(const Expr *Cond, ASTContext &Context) {
  return comparedWithZero(Cond, [&](const Expr *E) {
    std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Context);
    return V && *V == 0;
  });
}

/// The pointer \p Cond tests against null: `p` in `p`, `!p`, `p == NULL`,
/// `nullptr != p`; null for other conditions.
const Expr *nullTested(const Expr *Cond, ASTContext &Context) {
  const Expr *Tested = comparedWithZero(Cond, [&](const Expr *E) {
    return E->IgnoreParenCasts()->isNullPointerConstant(
        Context, Expr::NPC_ValueDependentIsNotNull);
  });
  return Tested && Tested->getType()->isPointerType() ? Tested : nullptr;
}

/// The value \p E assigns when it is an assignment (`ierr = MPI_Send(...)`),
/// else \p E; parens and implicit casts aside.
const Expr *assignedOrItself(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Assign = dyn_cast<BinaryOperator>(E);
      Assign && Assign->getOpcode() == BO_Assign)
    return Assign->getRHS()->IgnoreParenImpCasts();
  return E;
}

bool isMPICall(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenImpCasts());
  return Call && mpiCallee(Call);
}

} // namespace

bool RankUniformity::testsMPISuccess(const Expr *Cond,
                                     const FunctionDecl &Where) {
  ASTContext &Context = TU.context();
  const Expr *Tested = zeroTested(Cond, Context);
  return Tested && givesMPICode(assignedOrItself(Tested), Where, 0);
}

std::optional<bool> valueWithoutMPIErrors(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  auto Code = [](const Expr *X) { return isMPICall(assignedOrItself(X)); };
  auto Zero = [&](const Expr *X) {
    std::optional<llvm::APSInt> V =
        X->isValueDependent() ? std::nullopt : X->getIntegerConstantExpr(Ctx);
    return V && *V == 0;
  };
  if (Code(E))
    return false;
  if (const auto *Not = dyn_cast<UnaryOperator>(E)) {
    if (Not->getOpcode() != UO_LNot)
      return std::nullopt;
    std::optional<bool> Inner = valueWithoutMPIErrors(Not->getSubExpr(), Ctx);
    return Inner ? std::optional<bool>(!*Inner) : std::nullopt;
  }
  const auto *Op = dyn_cast<BinaryOperator>(E);
  if (!Op)
    return std::nullopt;
  if (Op->isEqualityOp()) {
    bool Tests = (Code(Op->getLHS()) && Zero(Op->getRHS())) ||
                 (Code(Op->getRHS()) && Zero(Op->getLHS()));
    if (!Tests)
      return std::nullopt;
    return Op->getOpcode() == BO_EQ;
  }
  if (!Op->isLogicalOp())
    return std::nullopt;
  std::optional<bool> L = valueWithoutMPIErrors(Op->getLHS(), Ctx);
  std::optional<bool> R = valueWithoutMPIErrors(Op->getRHS(), Ctx);
  bool Or = Op->getOpcode() == BO_LOr;
  if (L == Or || R == Or)
    return Or; // One side decides.
  if (L && R)
    return !Or;
  return std::nullopt;
}

bool RankUniformity::testsAllocation(const Expr *Cond,
                                     const FunctionDecl &Where) {
  ASTContext &Context = TU.context();
  const Expr *Tested = nullTested(Cond, Context);
  const VarDecl *V = Tested ? namedVariable(Tested) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return false;
  llvm::ArrayRef<Write> Writes = TU.factsOf(Where).writesOf(V);
  std::optional<Reach> R = TU.reachingWritesOf(Where).reaching(Writes, *Cond);
  if (!R || R->FromEntry || R->Writes.none())
    return false;
  for (unsigned I : R->Writes.set_bits())
    if (!Writes[I].Value || !isAllocation(Writes[I].Value))
      return false;
  return true;
}

bool RankUniformity::givesMPICode(const Expr *E, const FunctionDecl &Where,
                                  unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  if (isMPICall(E))
    return true;
  // `ierr = up ? MPI_Send(...) : MPI_Recv(...)`: a code either way.
  if (const auto *Choice = dyn_cast<AbstractConditionalOperator>(E))
    return givesMPICode(Choice->getTrueExpr(), Where, Depth) &&
           givesMPICode(Choice->getFalseExpr(), Where, Depth);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    return Callee && returnsMPICode(*Callee, Depth);
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || Depth >= 4)
    return false;
  ASTContext &Context = TU.context();
  llvm::ArrayRef<Write> Writes = TU.factsOf(Where).writesOf(V);
  return !Writes.empty() && llvm::all_of(Writes, [&](const Write &W) {
    if (!W.Value)
      return false;
    const Expr *Value = W.Value->IgnoreParenImpCasts();
    std::optional<llvm::APSInt> Constant =
        Value->getIntegerConstantExpr(Context);
    // A call's code, or another such local's (`hplerr = mpierr;`).
    bool Code =
        (isa<CallExpr, AbstractConditionalOperator>(Value) &&
         givesMPICode(Value, Where, Depth)) ||
        (isa<DeclRefExpr>(Value) && givesMPICode(Value, Where, Depth + 1));
    switch (W.Kind) {
    case WriteKind::Init:
    case WriteKind::Assign:
      return Code || (Constant && *Constant == 0);
    case WriteKind::Compound: {
      const auto *Op = dyn_cast<CompoundAssignOperator>(W.Where);
      return Op && keepsErrorCodes(Op->getOpcode()) && Code;
    }
    default:
      return false;
    }
  });
}

bool RankUniformity::returnsMPICode(const FunctionDecl &Callee,
                                    unsigned Depth) {
  const FunctionDecl *Definition = nullptr;
  if (Depth >= 4 || !Callee.getReturnType()->isIntegerType())
    return false;
  if (!Callee.getBody(Definition)) {
    // Another unit's: its summary says.
    const ProjectFacts *Project = TU.project();
    return Project && Project->returnsMPICode(functionKey(Callee));
  }
  std::string Key = "code:" + functionKey(*Definition);
  if (!KeysInProgress.insert(Key).second)
    return true; // Recursion: the other returns decide.
  auto Done = llvm::make_scope_exit([&] { KeysInProgress.erase(Key); });
  ASTContext &Context = TU.context();
  bool Any = false;
  bool Other = findFirst(Definition->getBody(), [&](const Stmt *S) {
    const auto *Return = dyn_cast<ReturnStmt>(S);
    if (!Return)
      return false;
    Any = true;
    const Expr *Value = Return->getRetValue();
    if (!Value)
      return true;
    std::optional<llvm::APSInt> Constant =
        Value->IgnoreParenImpCasts()->getIntegerConstantExpr(Context);
    return !(Constant && *Constant == 0) &&
           !givesMPICode(Value, *Definition, Depth + 1);
  });
  return Any && !Other;
}

} // namespace analysis
} // namespace mpilift
