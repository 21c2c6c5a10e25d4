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

/// What \p Cond tests for zero: `x` in `x`, `!x`, `x != 0`, `MPI_SUCCESS
/// == x`; null for other conditions.
const Expr *zeroTested(const Expr *Cond, ASTContext &Context) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond))
    return Not->getOpcode() == UO_LNot ? zeroTested(Not->getSubExpr(), Context)
                                       : nullptr;
  auto IsZero = [&](const Expr *E) {
    std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Context);
    return V && *V == 0;
  };
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

/// The pointer \p Cond tests against null: `p` in `p`, `!p`, `p == NULL`,
/// `nullptr != p`; null for other conditions.
const Expr *nullTested(const Expr *Cond, ASTContext &Context) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond))
    return Not->getOpcode() == UO_LNot ? nullTested(Not->getSubExpr(), Context)
                                       : nullptr;
  auto IsNull = [&](const Expr *E) {
    return E->IgnoreParenCasts()->isNullPointerConstant(
        Context, Expr::NPC_ValueDependentIsNotNull);
  };
  const Expr *Tested = Cond;
  if (const auto *Compare = dyn_cast<BinaryOperator>(Cond)) {
    if (!Compare->isEqualityOp())
      return nullptr;
    Tested = IsNull(Compare->getRHS())   ? Compare->getLHS()
             : IsNull(Compare->getLHS()) ? Compare->getRHS()
                                         : nullptr;
    if (!Tested)
      return nullptr;
    Tested = Tested->IgnoreParenImpCasts();
  }
  return Tested->getType()->isPointerType() ? Tested : nullptr;
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
  if (!Tested)
    return false;
  if (const auto *Assign = dyn_cast<BinaryOperator>(Tested))
    if (Assign->getOpcode() == BO_Assign)
      Tested = Assign->getRHS()->IgnoreParenImpCasts();
  return givesMPICode(Tested, Where, 0);
}

bool RankUniformity::testsAllocation(const Expr *Cond,
                                     const FunctionDecl &Where) {
  ASTContext &Context = TU.context();
  const Expr *Tested = nullTested(Cond, Context);
  const auto *Ref = Tested ? dyn_cast<DeclRefExpr>(Tested) : nullptr;
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
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
