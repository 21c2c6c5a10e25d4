//===- BranchFacts.cpp - Paths that branches rule out ---------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "BranchFacts.h"

#include "StatementTree.h"
#include "mpilift/Analysis/MPICalls.h"
#include "mpilift/MPI/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The variable whose address \p E is (`&error`, through casts).
const VarDecl *addressOf(const Expr *E) {
  const auto *Addr =
      E ? dyn_cast<UnaryOperator>(E->IgnoreParenCasts()) : nullptr;
  return Addr && Addr->getOpcode() == UO_AddrOf
             ? namedVariable(Addr->getSubExpr())
             : nullptr;
}

/// Whether \p Call is a blocking MPI call a tracked variable's address may
/// go to: it writes there during the call and keeps no pointer.
bool takesTrackedAddress(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  if (!Info)
    return false;
  switch (Info->Id) {
  case mpi::FunctionId::Allreduce:
  case mpi::FunctionId::Bcast:
  case mpi::FunctionId::Comm_rank:
  case mpi::FunctionId::Comm_size:
    return true;
  default:
    return false;
  }
}

/// \p Facts with \p Fact's variable bounded by it as well; nothing when
/// the two bounds have no value in common.
std::optional<PathFacts> narrowed(PathFacts Facts, const ValueFact &Fact) {
  auto *It = llvm::lower_bound(
      Facts, Fact,
      [](const ValueFact &A, const ValueFact &B) { return A.Var < B.Var; });
  if (It == Facts.end() || It->Var != Fact.Var) {
    Facts.insert(It, Fact);
    return Facts;
  }
  It->Lo = std::max(It->Lo, Fact.Lo);
  It->Hi = std::min(It->Hi, Fact.Hi);
  if (It->Lo > It->Hi)
    return std::nullopt;
  return Facts;
}

/// \p Facts without a fact on \p V.
PathFacts forgetting(PathFacts Facts, const VarDecl *V) {
  llvm::erase_if(Facts, [&](const ValueFact &F) { return F.Var == V; });
  return Facts;
}

} // namespace

BranchFacts::BranchFacts(const FunctionDecl &F, ASTContext &Context)
    : F(F), Context(Context) {}

bool BranchFacts::isTracked(const VarDecl *V) {
  auto [It, New] = Tracked.try_emplace(V, false);
  if (!New)
    return It->second;
  if (!V || !V->hasLocalStorage() || V->getType()->isReferenceType() ||
      !V->getType()->isSignedIntegerType() ||
      V->getType().isVolatileQualified() || V->getDeclContext() != &F)
    return false;
  bool Clean = !findFirst(F.getBody(), [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    if (!Ref || Ref->getDecl() != V)
      return false;
    if (Ref->refersToEnclosingVariableOrCapture())
      return true;
    const Stmt *Parent = parentPastParens(*Ref, Context);
    if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent))
      return Cast->getCastKind() != CK_LValueToRValue;
    if (const auto *Op = dyn_cast_or_null<BinaryOperator>(Parent))
      return !Op->isAssignmentOp() || Op->getLHS()->IgnoreParens() != Ref;
    const auto *Unary = dyn_cast_or_null<UnaryOperator>(Parent);
    if (Unary && Unary->isIncrementDecrementOp())
      return false;
    if (!Unary || Unary->getOpcode() != UO_AddrOf)
      return true;
    // The address goes, through casts only, to one of the MPI calls.
    const Stmt *Up = parentStmt(*Unary, Context);
    while (isa_and_nonnull<CastExpr, ParenExpr>(Up))
      Up = parentStmt(*Up, Context);
    return !takesTrackedAddress(dyn_cast_or_null<CallExpr>(Up));
  });
  return Tracked[V] = Clean;
}

std::optional<BranchFacts::Bound>
BranchFacts::comparisonBound(const BinaryOperator &Op, bool Taken) {
  const Expr *Var = Op.getLHS(), *Constant = Op.getRHS();
  BinaryOperatorKind Kind = Op.getOpcode();
  if (!namedVariable(Var)) {
    std::swap(Var, Constant);
    Kind = BinaryOperator::reverseComparisonOp(Kind);
  }
  if (!Taken)
    Kind = BinaryOperator::negateComparisonOp(Kind);
  const VarDecl *V = namedVariable(Var);
  std::optional<llvm::APSInt> Value = Constant->getIntegerConstantExpr(Context);
  if (!V || !Value || !isTracked(V) || Value->getSignificantBits() > 63)
    return std::nullopt;
  int64_t K = Value->getExtValue();
  Bound B{V, ValueFact::Min, ValueFact::Max, false};
  switch (Kind) {
  case BO_EQ:
    B.Lo = B.Hi = K;
    break;
  case BO_NE:
    B.Lo = B.Hi = K;
    B.Except = true;
    break;
  case BO_LT:
    B.Hi = K - 1;
    break;
  case BO_LE:
    B.Hi = K;
    break;
  case BO_GT:
    B.Lo = K + 1;
    break;
  case BO_GE:
    B.Lo = K;
    break;
  default:
    return std::nullopt;
  }
  return B;
}

void BranchFacts::boundsOf(const Expr *C, bool Taken,
                           llvm::SmallVectorImpl<Bound> &Out) {
  C = C->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(C);
      Not && Not->getOpcode() == UO_LNot)
    return boundsOf(Not->getSubExpr(), !Taken, Out);
  if (const VarDecl *V = namedVariable(C)) {
    if (isTracked(V))
      Out.push_back({V, 0, 0, /*Except=*/Taken});
    return;
  }
  const auto *Op = dyn_cast<BinaryOperator>(C);
  if (!Op)
    return;
  if (Op->getOpcode() == (Taken ? BO_LAnd : BO_LOr)) {
    boundsOf(Op->getLHS(), Taken, Out);
    boundsOf(Op->getRHS(), Taken, Out);
    return;
  }
  if (Op->isComparisonOp())
    if (std::optional<Bound> B = comparisonBound(*Op, Taken))
      Out.push_back(*B);
}

std::optional<PathFacts> BranchFacts::narrowByBranch(PathFacts Facts,
                                                     const Expr *Condition,
                                                     bool Taken) {
  llvm::SmallVector<Bound, 2> Bounds;
  boundsOf(Condition, Taken, Bounds);
  for (const Bound &B : Bounds) {
    if (!B.Except) {
      std::optional<PathFacts> Narrowed =
          narrowed(std::move(Facts), {B.Var, B.Lo, B.Hi});
      if (!Narrowed)
        return std::nullopt;
      Facts = std::move(*Narrowed);
      continue;
    }
    // Anything but one value narrows a fact only at its ends.
    for (ValueFact &Fact : Facts) {
      if (Fact.Var != B.Var)
        continue;
      if (Fact.Lo == B.Lo && Fact.Hi == B.Lo)
        return std::nullopt;
      if (Fact.Lo == B.Lo)
        ++Fact.Lo;
      else if (Fact.Hi == B.Lo)
        --Fact.Hi;
    }
  }
  return Facts;
}

std::optional<PathFacts> BranchFacts::stepBack(PathFacts Facts, const Stmt &S) {
  // A value given as a whole: an assignment or the declaration.
  auto Given = [&](const VarDecl *V,
                   const Expr *Value) -> std::optional<PathFacts> {
    std::optional<llvm::APSInt> Constant =
        Value ? Value->getIntegerConstantExpr(Context) : std::nullopt;
    for (const ValueFact &Fact : Facts)
      if (Fact.Var == V && Constant &&
          (Constant->getSignificantBits() > 63 ||
           Constant->getExtValue() < Fact.Lo ||
           Constant->getExtValue() > Fact.Hi))
        return std::nullopt;
    return forgetting(std::move(Facts), V);
  };
  if (Facts.empty())
    return Facts;
  if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
    const auto *V =
        DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    return V ? Given(V, V->getInit()) : Facts;
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(&S)) {
    const VarDecl *V =
        Op->isAssignmentOp() ? namedVariable(Op->getLHS()) : nullptr;
    if (!V)
      return Facts;
    return Op->getOpcode() == BO_Assign ? Given(V, Op->getRHS())
                                        : forgetting(std::move(Facts), V);
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(&S)) {
    if (!Unary->isIncrementDecrementOp())
      return Facts;
    const VarDecl *V = namedVariable(Unary->getSubExpr());
    return V ? forgetting(std::move(Facts), V) : Facts;
  }
  const auto *Call = dyn_cast<CallExpr>(&S);
  if (!Call)
    return Facts;
  // A call writes what it is given the address of; a reduction bounds
  // the value it reduced.
  llvm::SmallVector<ValueFact, 2> Reduced;
  for (const Expr *Arg : Call->arguments()) {
    const VarDecl *V = addressOf(Arg);
    const auto *It =
        llvm::find_if(Facts, [&](const ValueFact &F) { return F.Var == V; });
    if (!V || It == Facts.end())
      continue;
    if (std::optional<ValueFact> Before = beforeReduction(*It, *Call))
      Reduced.push_back(*Before);
    Facts = forgetting(std::move(Facts), V);
  }
  for (const ValueFact &Before : Reduced) {
    std::optional<PathFacts> Narrowed = narrowed(std::move(Facts), Before);
    if (!Narrowed)
      return std::nullopt;
    Facts = std::move(*Narrowed);
  }
  return Facts;
}

std::optional<ValueFact> BranchFacts::beforeReduction(const ValueFact &Result,
                                                      const CallExpr &Call) {
  const mpi::FunctionInfo *Info = mpiCallee(&Call);
  if (!Info || Info->Id != mpi::FunctionId::Allreduce ||
      addressOf(mpiArgAsWritten(&Call, *Info, mpi::Role::RecvBuffer)) !=
          Result.Var)
    return std::nullopt;
  // The value reduced: the variable's own (in place) or another one's.
  const Expr *Send = mpiArgAsWritten(&Call, *Info, mpi::Role::SendBuffer);
  const VarDecl *From = Send && mpiHandleName(Send, Context) == "MPI_IN_PLACE"
                            ? Result.Var
                            : addressOf(Send);
  const Expr *Count = mpiArgAsWritten(&Call, *Info, mpi::Role::Count);
  std::optional<llvm::APSInt> One =
      Count ? Count->getIntegerConstantExpr(Context) : std::nullopt;
  const Expr *TypeArg = mpiArgAsWritten(&Call, *Info, mpi::Role::Datatype);
  const PredefinedDatatype *Type =
      TypeArg ? predefinedDatatype(mpiHandleName(TypeArg, Context)) : nullptr;
  if (!From || !isTracked(From) || !One || *One != 1 || !Type ||
      !Context.hasSameUnqualifiedType(Context.*(Type->Type),
                                      Result.Var->getType()) ||
      !Context.hasSameUnqualifiedType(From->getType(), Result.Var->getType()))
    return std::nullopt;
  // What the result's bounds say of this process's own value: the maximum
  // is at least it, the minimum at most it; a logical or bitwise or is 0
  // only where every value is 0 (a logical or is never below 0).
  const Expr *OpArg = mpiArgAsWritten(&Call, *Info, mpi::Role::Op);
  std::string Op = OpArg ? mpiHandleName(OpArg, Context) : "";
  ValueFact Before{From, ValueFact::Min, ValueFact::Max};
  if (Op == "MPI_MAX")
    Before.Hi = Result.Hi;
  else if (Op == "MPI_MIN")
    Before.Lo = Result.Lo;
  else if ((Op == "MPI_LOR" && Result.Hi <= 0) ||
           (Op == "MPI_BOR" && Result.Lo == 0 && Result.Hi == 0))
    Before.Lo = Before.Hi = 0;
  else
    return std::nullopt;
  return Before;
}

} // namespace analysis
} // namespace mpilift
