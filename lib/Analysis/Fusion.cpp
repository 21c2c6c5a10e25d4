//===- Fusion.cpp - Sequences of collectives one collective replaces -----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Fusion.h"

#include "mpilift/Analysis/MPICalls.h"

#include "FunctionFacts.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

StringRef fusionRuleId() { return "mpilift-fuse-collectives"; }

namespace {

/// The MPI call a statement of a block makes: `MPI_X(...);`, `ierr =
/// MPI_X(...);` or `int ierr = MPI_X(...);`.
const CallExpr *statementCall(const Stmt *S) {
  const Expr *E = nullptr;
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    const auto *V = Decl->isSingleDecl()
                        ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                        : nullptr;
    E = V ? V->getInit() : nullptr;
  } else if (const auto *Op = dyn_cast<BinaryOperator>(S)) {
    E = Op->getOpcode() == BO_Assign ? Op->getRHS() : nullptr;
  } else {
    E = dyn_cast<Expr>(S);
  }
  const auto *Call =
      E ? dyn_cast<CallExpr>(E->IgnoreImplicit()->IgnoreParenCasts()) : nullptr;
  return Call && mpiCallee(Call) ? Call : nullptr;
}

bool calls(const CallExpr *Call, mpi::FunctionId Id) {
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  return Info && Info->Id == Id;
}

/// The text of \p E as written.
std::string spelled(const Expr *E, const ASTContext &Context) {
  return E ? sourceText(E, Context) : std::string();
}

/// Whether a combination by \p Op on \p Type may round differently in
/// another order: floating-point sums and products, and operations the
/// program defines (nothing says they are exact).
std::optional<std::string> orderDependence(StringRef Op, StringRef Type) {
  static const char *const Exact[] = {"MPI_MAX",    "MPI_MIN",    "MPI_LAND",
                                      "MPI_LOR",    "MPI_LXOR",   "MPI_BAND",
                                      "MPI_BOR",    "MPI_BXOR",   "MPI_MAXLOC",
                                      "MPI_MINLOC", "MPI_REPLACE"};
  if (llvm::is_contained(Exact, Op))
    return std::nullopt;
  if (Op != "MPI_SUM" && Op != "MPI_PROD")
    return "'" + Op.str() +
           "' is an operation the program defines; whether it gives the "
           "same result in any order of combination is not known";
  static const char *const Floating[] = {"MPI_FLOAT",
                                         "MPI_DOUBLE",
                                         "MPI_LONG_DOUBLE",
                                         "MPI_C_FLOAT_COMPLEX",
                                         "MPI_C_DOUBLE_COMPLEX",
                                         "MPI_C_COMPLEX",
                                         "MPI_C_LONG_DOUBLE_COMPLEX",
                                         "MPI_CXX_FLOAT_COMPLEX",
                                         "MPI_CXX_DOUBLE_COMPLEX",
                                         "MPI_REAL",
                                         "MPI_DOUBLE_PRECISION"};
  bool Integer =
      predefinedDatatype(Type) && !llvm::is_contained(Floating, Type);
  if (Integer)
    return std::nullopt;
  return "a " + std::string(Op == "MPI_SUM" ? "sum" : "product") + " of '" +
         Type.str() +
         "' may round differently when MPI_Allreduce combines the values in "
         "another order than MPI_Reduce did; --allow-reassociation accepts "
         "results that differ in the last bits";
}

} // namespace

std::vector<FusionSite> FusionFinder::find(const FunctionDecl &F) {
  std::vector<FusionSite> Out;
  if (!F.doesThisDeclarationHaveABody() || F.isDependentContext())
    return Out;
  findFirst(F.getBody(), [&](const Stmt *S) {
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      findIn(F, *Block, Out);
    return false;
  });
  return Out;
}

void FusionFinder::findIn(const FunctionDecl &F, const CompoundStmt &Block,
                          std::vector<FusionSite> &Out) {
  unsigned Size = Block.size();
  for (unsigned I = 0; I < Size; ++I) {
    const CallExpr *Reduce = statementCall(Block.body_begin()[I]);
    if (!calls(Reduce, mpi::FunctionId::Reduce))
      continue;
    const Expr *Result = mpiArg(Reduce, mpi::Role::RecvBuffer);
    // The first broadcast after it, with nothing but plain statements (no
    // other collective) between: of the reduced buffer, it is the pair.
    for (unsigned J = I + 1; J < Size; ++J) {
      const CallExpr *Next = statementCall(Block.body_begin()[J]);
      if (!calls(Next, mpi::FunctionId::Bcast)) {
        if (Next &&
            mpiCallee(Next)->TheFamily == mpi::Family::BlockingCollective)
          break;
        continue;
      }
      if (!sameExpression(mpiArg(Next, mpi::Role::InOutBuffer), Result,
                          Context) ||
          !sameExpression(mpiArg(Next, mpi::Role::Root),
                          mpiArg(Reduce, mpi::Role::Root), Context) ||
          !sameExpression(mpiArg(Next, mpi::Role::Comm),
                          mpiArg(Reduce, mpi::Role::Comm), Context))
        break;
      FusionSite Site;
      Site.Function = &F;
      Site.Block = &Block;
      Site.FirstStmt = Block.body_begin()[I];
      Site.SecondStmt = Block.body_begin()[J];
      Site.First = Reduce;
      Site.Second = Next;
      judge(Site, I, J);
      Out.push_back(std::move(Site));
      break;
    }
  }
}

void FusionFinder::judge(FusionSite &Site, unsigned FirstIndex,
                         unsigned SecondIndex) {
  const CallExpr *Reduce = Site.First, *Bcast = Site.Second;
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  // The same message: count and datatype.
  for (mpi::Role R : {mpi::Role::Count, mpi::Role::Datatype})
    if (!sameExpression(mpiArg(Bcast, R), mpiArg(Reduce, R), Context))
      Refuse(SafetyCheck::MatchingArguments,
             "the broadcast's " +
                 std::string(R == mpi::Role::Count ? "count" : "datatype") +
                 " '" + spelled(mpiArgAsWritten(Bcast, R), Context) +
                 "' is not the reduction's '" +
                 spelled(mpiArgAsWritten(Reduce, R), Context) + "'",
             Bcast->getBeginLoc());
  // MPI_IN_PLACE on the root (`rank == root ? MPI_IN_PLACE : result`) is
  // MPI_IN_PLACE everywhere once every rank holds the result there.
  const Expr *Send = mpiArgAsWritten(Reduce, mpi::Role::SendBuffer);
  const Expr *Result = mpiArgAsWritten(Reduce, mpi::Role::RecvBuffer);
  Site.SendBuffer = spelled(Send, Context);
  if (Site.SendBuffer.find("MPI_IN_PLACE") != std::string::npos) {
    const auto *Choice =
        dyn_cast<ConditionalOperator>(Send->IgnoreParenImpCasts());
    const Expr *Other = nullptr;
    if (Choice && spelled(Choice->getTrueExpr()->IgnoreParenImpCasts(),
                          Context) == "MPI_IN_PLACE")
      Other = Choice->getFalseExpr();
    else if (Choice && spelled(Choice->getFalseExpr()->IgnoreParenImpCasts(),
                               Context) == "MPI_IN_PLACE")
      Other = Choice->getTrueExpr();
    if (Other && sameExpression(Other, Result, Context))
      Site.SendBuffer = "MPI_IN_PLACE";
    else
      Refuse(SafetyCheck::SourceForm,
             "the reduction's send buffer '" + spelled(Send, Context) +
                 "' is MPI_IN_PLACE on some ranks only, and the others do "
                 "not send from the result buffer",
             Send->getBeginLoc());
  }
  if (std::optional<std::string> Why = orderDependence(
          spelled(mpiArgAsWritten(Reduce, mpi::Role::Op), Context),
          spelled(mpiArgAsWritten(Reduce, mpi::Role::Datatype), Context));
      Why && !AllowReassociation)
    Refuse(SafetyCheck::ReductionOrder, *Why, Reduce->getBeginLoc());
  // What lies between: no message, no use of the result, nothing that
  // changes what the broadcast reads.
  const ValueDecl *Base = bufferBase(Result);
  llvm::SmallPtrSet<const VarDecl *, 8> BcastReads;
  for (mpi::Role R : {mpi::Role::Count, mpi::Role::Datatype, mpi::Role::Root,
                      mpi::Role::Comm})
    variablesIn(mpiArgAsWritten(Bcast, R), BcastReads);
  const auto *BaseVar = dyn_cast_or_null<VarDecl>(Base);
  // A local array or scalar whose address never leaves MPI calls cannot
  // be reached by a function the statements between call.
  bool Private = BaseVar && BaseVar->isLocalVarDecl() &&
                 !BaseVar->getType()->isPointerType() &&
                 !BaseVar->getType()->isReferenceType();
  const FunctionFacts Facts(Context, *Site.Function);
  if (Private)
    for (const Write &W : Facts.writesOf(BaseVar))
      if (W.Kind == WriteKind::Escape ||
          (W.Kind == WriteKind::AddressPass && !mpiCallee(W.Call)))
        Private = false;
  const SourceManager &SM = Context.getSourceManager();
  for (unsigned K = FirstIndex + 1; K < SecondIndex; ++K) {
    const Stmt *Between = Site.Block->body_begin()[K];
    if (const Stmt *Mpi = findFirst(Between, [](const Stmt *X) {
          const auto *Call = dyn_cast<CallExpr>(X);
          return Call && mpiCallee(Call);
        })) {
      Refuse(SafetyCheck::MessageOrder,
             "'" + cast<CallExpr>(Mpi)->getDirectCallee()->getName().str() +
                 "' between MPI_Reduce and MPI_Bcast: one MPI_Allreduce "
                 "would move the broadcast before it",
             Mpi->getBeginLoc());
      continue;
    }
    if (const Stmt *Leave = findFirst(Between, [](const Stmt *X) {
          const auto *Call = dyn_cast<CallExpr>(X);
          const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
          return isa<ReturnStmt>(X) || isa<BreakStmt>(X) ||
                 isa<ContinueStmt>(X) || isa<GotoStmt>(X) ||
                 isa<CXXThrowExpr>(X) || (Callee && Callee->isNoReturn());
        })) {
      Refuse(SafetyCheck::SourceForm,
             "this statement can leave the code between MPI_Reduce and "
             "MPI_Bcast, where the ranks that leave would have taken part in "
             "the broadcast already once the two are one MPI_Allreduce",
             Leave->getBeginLoc());
      continue;
    }
    if (!Base || mentions(Between, Base)) {
      Refuse(SafetyCheck::MessageIntegrity,
             "this statement uses '" +
                 (Base ? Base->getNameAsString() : spelled(Result, Context)) +
                 "' between MPI_Reduce and MPI_Bcast, where only the root "
                 "holds the reduced value; after MPI_Allreduce every rank "
                 "would",
             Between->getBeginLoc());
      continue;
    }
    if (const Stmt *Call =
            findFirst(Between, [](const Stmt *X) { return isa<CallExpr>(X); });
        Call && !Private) {
      const FunctionDecl *Callee = cast<CallExpr>(Call)->getDirectCallee();
      Refuse(SafetyCheck::MessageIntegrity,
             "this statement calls " +
                 (Callee ? "'" + Callee->getNameAsString() + "'"
                         : std::string("a function")) +
                 " between MPI_Reduce and MPI_Bcast, which may reach '" +
                 Base->getNameAsString() +
                 "', where only the root holds the reduced value",
             Call->getBeginLoc());
      continue;
    }
    for (const VarDecl *V : BcastReads)
      for (const Write &W : Facts.writesOf(V))
        if (SM.isPointWithin(W.Where->getBeginLoc(), Between->getBeginLoc(),
                             Between->getEndLoc())) {
          Refuse(SafetyCheck::MatchingArguments,
                 "this statement changes '" + V->getNameAsString() +
                     "', which the broadcast reads, between MPI_Reduce and "
                     "MPI_Bcast",
                 W.Where->getBeginLoc());
          break;
        }
  }
}

} // namespace analysis
} // namespace mpilift
