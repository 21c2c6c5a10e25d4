//===- FusionLocal.cpp - A broadcast, then a combination of its value ----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Seed 001's rules into Local and Comcast: after MPI_Bcast every rank
/// holds the same value b, so a reduction of the broadcast buffer combines
/// p copies of b, and a scan gives rank k the combination of k + 1 copies.
/// Each rank that needs the result computes it without a message (BR-Local
/// for MPI_Reduce, BR-Alllocal for MPI_Allreduce, BS-Comcast for MPI_Scan,
/// the broadcast kept: the others may read b afterwards). Table 1 says all
/// three pay whatever the machine.
///
/// Safe when, between the calls, nothing changes the buffer on any rank
/// (or could: a call while its address is known elsewhere) nor what the
/// second call reads, and no rank leaves; and when the local combination
/// gives what MPI gave: the operation is one of MPI's with a C operator,
/// on a predefined datatype, and exact in any order (reduction-order)
/// unless reassociation is allowed.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Fusion.h"

#include "mpilift/Analysis/MPICalls.h"

#include "FunctionFacts.h"
#include "FusionForms.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

using namespace fusion;

bool isLocalFusion(FusionKind Kind) {
  return Kind == FusionKind::BcastReduce ||
         Kind == FusionKind::BcastAllreduce || Kind == FusionKind::BcastScan;
}

std::optional<std::string> combinedInC(StringRef Op, StringRef A, StringRef B) {
  std::string L = A.str(), R = B.str();
  if (Op == "MPI_SUM")
    return L + " + " + R;
  if (Op == "MPI_PROD")
    return L + " * " + R;
  if (Op == "MPI_MIN")
    return R + " < " + L + " ? " + R + " : " + L;
  if (Op == "MPI_MAX")
    return R + " > " + L + " ? " + R + " : " + L;
  if (Op == "MPI_BAND")
    return L + " & " + R;
  if (Op == "MPI_BOR")
    return L + " | " + R;
  if (Op == "MPI_BXOR")
    return L + " ^ " + R;
  if (Op == "MPI_LAND")
    return L + " && " + R;
  if (Op == "MPI_LOR")
    return L + " || " + R;
  if (Op == "MPI_LXOR")
    return "!" + L + " != !" + R;
  return std::nullopt;
}

namespace fusion {

/// The first place in \p S that writes \p Base as a whole or in part: an
/// assignment or increment of it, of an element, or of what it points to,
/// or its address (or the array) given to a call.
const Stmt *writeOf(const Stmt *S, const ValueDecl *Base) {
  return findFirst(S, [&](const Stmt *X) {
    if (const auto *Op = dyn_cast<BinaryOperator>(X))
      return Op->isAssignmentOp() && bufferBase(Op->getLHS()) == Base;
    if (const auto *Op = dyn_cast<UnaryOperator>(X))
      return Op->isIncrementDecrementOp() &&
             bufferBase(Op->getSubExpr()) == Base;
    if (const auto *Call = dyn_cast<CallExpr>(X))
      return llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
        QualType T = Arg->IgnoreParenImpCasts()->getType();
        bool Address = T->isPointerType() || T->isArrayType() ||
                       Arg->getType()->isPointerType();
        return Address && bufferBase(Arg) == Base;
      });
    return false;
  });
}

/// The first assignment or increment in \p S of anything but a local
/// variable as a whole: a write that may reach memory others point to.
const Stmt *writeThroughMemory(const Stmt *S) {
  auto Local = [](const Expr *E) {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return V && V->isLocalVarDeclOrParm() && !V->getType()->isReferenceType();
  };
  return findFirst(S, [&](const Stmt *X) {
    if (const auto *Op = dyn_cast<BinaryOperator>(X))
      return Op->isAssignmentOp() && !Local(Op->getLHS());
    if (const auto *Op = dyn_cast<UnaryOperator>(X))
      return Op->isIncrementDecrementOp() && !Local(Op->getSubExpr());
    return false;
  });
}

/// Whether evaluating \p E reads memory others may reach: through a
/// pointer, a field behind one, an element, or a global's value (not its
/// address: `MPI_INT` may be `&ompi_mpi_int`).
static bool readsIndirectly(const Stmt *E) {
  if (const auto *X = dyn_cast<Expr>(E))
    E = X->IgnoreParenCasts();
  if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
    if (Op->getOpcode() == UO_Deref)
      return true;
    if (Op->getOpcode() == UO_AddrOf &&
        isa<DeclRefExpr>(Op->getSubExpr()->IgnoreParenCasts()))
      return false;
  }
  if (const auto *M = dyn_cast<MemberExpr>(E); M && M->isArrow())
    return true;
  if (isa<ArraySubscriptExpr>(E))
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    return V && V->hasGlobalStorage();
  }
  return llvm::any_of(E->children(), [](const Stmt *Child) {
    return Child && readsIndirectly(Child);
  });
}

const Stmt *indirectChange(const Stmt *S, const Expr *Arg) {
  if (!Arg || !readsIndirectly(Arg))
    return nullptr;
  if (const Stmt *Call =
          findFirst(S, [](const Stmt *X) { return isa<CallExpr>(X); }))
    return Call;
  return writeThroughMemory(S);
}

std::optional<std::pair<const Stmt *, std::string>>
argumentChange(const Stmt *S, const CallExpr *Second,
               const llvm::SmallPtrSetImpl<const VarDecl *> &Reads,
               const FunctionFacts &Facts, ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  // A part used in place (`width = params[0]`) is read, not changed;
  // writeOf sees the parts that are written.
  for (const VarDecl *V : Reads) {
    const Stmt *Changed = writeOf(S, V);
    for (const Write &W : Facts.writesOf(V))
      if (!Changed && W.Kind != WriteKind::Element &&
          SM.isPointWithin(W.Where->getBeginLoc(), S->getBeginLoc(),
                           S->getEndLoc()))
        Changed = W.Where;
    if (Changed)
      return std::pair{Changed,
                       "this statement changes '" + V->getNameAsString() + "'"};
  }
  for (mpi::Role R : {mpi::Role::Count, mpi::Role::Datatype, mpi::Role::Op,
                      mpi::Role::Root, mpi::Role::Comm}) {
    const Expr *Arg = mpiArgAsWritten(Second, R);
    const Stmt *Changed = indirectChange(S, Arg);
    if (!Changed)
      continue;
    const auto *Call = dyn_cast<CallExpr>(Changed);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    std::string What = !Call
                           ? std::string("writes through a pointer or a field")
                       : Callee ? "calls '" + Callee->getNameAsString() + "'"
                                : std::string("calls a function");
    return std::pair{Changed, "this statement " + What +
                                  ", which may change '" +
                                  spelled(Arg, Context) + "'"};
  }
  return std::nullopt;
}

void checkSameElements(FusionSite &Site, StringRef FirstName,
                       ASTContext &Context) {
  const CallExpr *First = Site.Calls[0], *Second = Site.Calls[1];
  for (mpi::Role R : {mpi::Role::Count, mpi::Role::Datatype})
    if (!sameExpression(mpiArg(Second, R), mpiArg(First, R), Context))
      Site.Refusals.push_back(
          {SafetyCheck::MatchingArguments,
           "the " + nameOf(Second) + "'s " +
               std::string(R == mpi::Role::Count ? "count" : "datatype") +
               " '" + spelled(mpiArgAsWritten(Second, R), Context) +
               "' is not " + FirstName.str() + "'s '" +
               spelled(mpiArgAsWritten(First, R), Context) + "'",
           Second->getBeginLoc()});
}

const PredefinedDatatype *checkElementType(FusionSite &Site,
                                           const CallExpr *Call, StringRef Why,
                                           ASTContext &Context) {
  std::string Type =
      spelled(mpiArgAsWritten(Call, mpi::Role::Datatype), Context);
  const PredefinedDatatype *DT = predefinedDatatype(Type);
  if (DT)
    Site.ElementType = DT->CType.str();
  else
    Site.Refusals.push_back(
        {SafetyCheck::SourceForm,
         "'" + Type + "' is no predefined datatype" + Why.str(),
         Call->getBeginLoc()});
  return DT;
}

std::optional<int64_t> checkConstantCount(FusionSite &Site,
                                          const CallExpr *Call, StringRef Why,
                                          ASTContext &Context) {
  const Expr *Count = mpiArg(Call, mpi::Role::Count);
  std::optional<llvm::APSInt> N = Count && !Count->isValueDependent()
                                      ? Count->getIntegerConstantExpr(Context)
                                      : std::nullopt;
  if (N && !N->isNegative()) {
    Site.Counts.push_back(N->getExtValue());
    return Site.Counts.back();
  }
  Site.Refusals.push_back(
      {SafetyCheck::SourceForm,
       "the count '" +
           spelled(mpiArgAsWritten(Call, mpi::Role::Count), Context) +
           "' is no constant" + Why.str(),
       Call->getBeginLoc()});
  return std::nullopt;
}

void checkCOperation(FusionSite &Site, const Expr *OpArg,
                     const PredefinedDatatype *DT, StringRef Type,
                     StringRef User, ASTContext &Context) {
  std::string Op = spelled(OpArg, Context);
  if (!combinedInC(Op, "a", "b"))
    Site.Refusals.push_back({SafetyCheck::SourceForm,
                             "'" + Op +
                                 "' is no operation of MPI's with a C "
                                 "operator " +
                                 User.str() + " could use",
                             OpArg->getBeginLoc()});
  else if (DT && (Context.*(DT->Type))->isRealFloatingType() &&
           !definedOnFloating(Op))
    Site.Refusals.push_back(
        {SafetyCheck::SourceForm,
         "MPI does not define '" + Op + "' on '" + Type.str() + "'",
         OpArg->getBeginLoc()});
}

} // namespace fusion

std::optional<FusionFinder::NextCollective>
FusionFinder::combinationOfResult(const CompoundStmt &Block, unsigned First,
                                  const FunctionDecl &F, mpi::Role Result,
                                  const CallExpr *Call) {
  if (!Call)
    Call = statementCall(Block.body_begin()[First]);
  if (!Call)
    return std::nullopt;
  std::optional<NextCollective> Next = nextCollective(Block, First, F);
  // The second call may be returned or checked in place: the callers say
  // what becomes of its code.
  if (!Next ||
      !(calls(Next->Call, mpi::FunctionId::Reduce) ||
        calls(Next->Call, mpi::FunctionId::Allreduce) ||
        calls(Next->Call, mpi::FunctionId::Scan)) ||
      !sameExpression(mpiArg(Next->Call, mpi::Role::SendBuffer),
                      mpiArg(Call, Result), Context) ||
      !sameExpression(mpiArg(Next->Call, mpi::Role::Comm),
                      mpiArg(Call, mpi::Role::Comm), Context))
    return std::nullopt;
  return Next;
}

void FusionFinder::judgeLocal(FusionSite &Site, unsigned FirstIndex,
                              unsigned SecondIndex,
                              std::optional<unsigned> Skip) {
  const CallExpr *Bcast = Site.Calls[0], *Second = Site.Calls[1];
  std::string Name = nameOf(Second);
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  checkSameElements(Site, "the broadcast", Context);
  // A C operator on a C type.
  std::string Type =
      spelled(mpiArgAsWritten(Second, mpi::Role::Datatype), Context);
  const Expr *OpArg = mpiArgAsWritten(Second, mpi::Role::Op);
  std::string Op = spelled(OpArg, Context);
  const PredefinedDatatype *DT = checkElementType(
      Site, Second,
      " of one C type; the local combination needs the C type of the "
      "elements",
      Context);
  checkCOperation(Site, OpArg, DT, Type, "the local combination", Context);
  if (sameExpression(mpiArg(Second, mpi::Role::RecvBuffer),
                     mpiArg(Second, mpi::Role::SendBuffer), Context))
    Refuse(SafetyCheck::SourceForm,
           "the " + Name +
               " receives into its send buffer, which MPI does not allow",
           Second->getBeginLoc());
  std::optional<std::string> Order =
      orderDependence(Op, Type, "the local combination", Name);
  if (Order && !AllowReassociation)
    Refuse(SafetyCheck::ReductionOrder, *Order, OpArg->getBeginLoc());

  // What lies between: the buffer keeps the broadcast value on every rank,
  // the second call's arguments keep their values, no rank leaves.
  std::string Between = " between MPI_Bcast and " + Name;
  const Expr *Buffer = mpiArgAsWritten(Bcast, mpi::Role::InOutBuffer);
  const ValueDecl *Base = bufferBase(Buffer);
  if (!Base) {
    Refuse(SafetyCheck::MessageIntegrity,
           "the broadcast buffer '" + spelled(Buffer, Context) +
               "' is not a named variable, so that what changes it" + Between +
               " is not known",
           Buffer->getBeginLoc());
    return;
  }
  const FunctionFacts &Facts = TU->factsOf(*Site.Function);
  const auto *BaseVar = dyn_cast<VarDecl>(Base);
  bool Private = BaseVar && onlyMPISeesAddress(BaseVar, Facts);
  llvm::SmallPtrSet<const VarDecl *, 8> SecondReads;
  for (mpi::Role R :
       {mpi::Role::SendBuffer, mpi::Role::RecvBuffer, mpi::Role::Count,
        mpi::Role::Datatype, mpi::Role::Op, mpi::Role::Root, mpi::Role::Comm})
    if (const Expr *Arg = mpiArgAsWritten(Second, R))
      variablesIn(Arg, SecondReads);
  std::string BaseName = Base->getNameAsString();
  const VarDecl *BcastCode =
      errorVariableOf(Site.Block->body_begin()[FirstIndex]);
  for (unsigned K = FirstIndex + 1; K < SecondIndex; ++K) {
    const Stmt *S = Site.Block->body_begin()[K];
    if (K == Skip || isFailureCheckOf(S, BcastCode, Context))
      continue;
    if (const Stmt *Leave = leavesCode(S)) {
      Refuse(SafetyCheck::SourceForm,
             "this statement can leave the code" + Between +
                 ": a rank that leaves takes part in the broadcast and no "
                 "longer in the " +
                 Name,
             Leave->getBeginLoc());
      continue;
    }
    if (const Stmt *W = writeOf(S, Base)) {
      Refuse(SafetyCheck::MessageIntegrity,
             "this statement changes '" + BaseName + "'" + Between +
                 ", so that the ranks may no longer hold the broadcast value",
             W->getBeginLoc());
      continue;
    }
    if (!Private) {
      const Stmt *Call =
          findFirst(S, [](const Stmt *X) { return isa<CallExpr>(X); });
      const Stmt *Store = writeThroughMemory(S);
      if (Call || Store) {
        const FunctionDecl *Callee =
            Call ? cast<CallExpr>(Call)->getDirectCallee() : nullptr;
        std::string What =
            !Call    ? std::string("writes through a pointer or a field")
            : Callee ? "calls '" + Callee->getNameAsString() + "'"
                     : std::string("calls a function");
        Refuse(SafetyCheck::MessageIntegrity,
               "this statement " + What + Between + ", which may change '" +
                   BaseName + "': its address is known outside MPI calls",
               (Call ? Call : Store)->getBeginLoc());
        continue;
      }
    }
    if (std::optional<std::pair<const Stmt *, std::string>> Changed =
            argumentChange(S, Second, SecondReads, Facts, Context))
      Refuse(SafetyCheck::MatchingArguments,
             Changed->second + ", which the " + Name + " reads," + Between,
             Changed->first->getBeginLoc());
  }
}

} // namespace analysis
} // namespace mpilift
