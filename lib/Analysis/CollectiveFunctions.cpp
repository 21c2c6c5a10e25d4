//===- CollectiveFunctions.cpp - Functions that are a broadcast -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CollectiveFunctions.h"

#include "CommQueries.h"
#include "FunctionFacts.h"
#include "RankUniformity.h"
#include "RegionFinder.h"
#include "StatementTree.h"

#include "mpilift/Analysis/LibraryHeaders.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The index of the parameter of \p F that \p E names, casts aside.
std::optional<unsigned> parameterIndex(const clang::Expr *E,
                                       const FunctionDecl &F) {
  const auto *Ref = E ? dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()) : nullptr;
  const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  if (!P || P->getDeclContext() != &F)
    return std::nullopt;
  return P->getFunctionScopeIndex();
}

/// `x` with \p E naming a local scalar of \p F that is neither a parameter
/// nor static.
bool isLocalScalar(const clang::Expr *E, const FunctionDecl &F) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
         V->getDeclContext() == &F && V->getType()->isScalarType() &&
         !V->getType()->isReferenceType();
}

/// Whether \p S only computes locals of \p F: it writes local scalars
/// alone, calls nothing but MPI_Comm_rank and MPI_Comm_size, and neither
/// returns nor jumps.
bool computesLocalsOnly(const Stmt *S, const FunctionDecl &F) {
  return !findFirst(S, [&](const Stmt *X) {
    if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt, LabelStmt, CXXThrowExpr,
            AsmStmt, CXXTryStmt>(X))
      return true;
    if (const auto *Call = dyn_cast<CallExpr>(X)) {
      const mpi::FunctionInfo *Info = mpiCallee(Call);
      return !Info || (Info->Id != mpi::FunctionId::Comm_rank &&
                       Info->Id != mpi::FunctionId::Comm_size);
    }
    if (const auto *Op = dyn_cast<BinaryOperator>(X))
      return Op->isAssignmentOp() && !isLocalScalar(Op->getLHS(), F);
    if (const auto *Op = dyn_cast<UnaryOperator>(X))
      return Op->isIncrementDecrementOp() &&
             !isLocalScalar(Op->getSubExpr(), F);
    if (const auto *Decl = dyn_cast<DeclStmt>(X))
      return llvm::any_of(Decl->decls(), [](const clang::Decl *D) {
        const auto *V = dyn_cast<VarDecl>(D);
        return !V || V->isStaticLocal() || V->getType()->isReferenceType();
      });
    return false;
  });
}

/// `E <= K`, `E < K + 1` or `E == K` (either way round) for the integer
/// \p K: the expression compared.
const clang::Expr *atMost(const clang::Expr *Cond, int64_t K,
                          const ASTContext &Ctx) {
  const auto *Op = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!Op)
    return nullptr;
  auto constant = [&](const clang::Expr *E) -> std::optional<int64_t> {
    if (E->isValueDependent())
      return std::nullopt;
    std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx);
    return V ? std::optional<int64_t>(V->getExtValue()) : std::nullopt;
  };
  if (std::optional<int64_t> R = constant(Op->getRHS())) {
    if ((Op->getOpcode() == BO_LE && *R == K) ||
        (Op->getOpcode() == BO_LT && *R == K + 1) ||
        (Op->getOpcode() == BO_EQ && *R == K))
      return Op->getLHS();
  }
  if (std::optional<int64_t> L = constant(Op->getLHS())) {
    if ((Op->getOpcode() == BO_GE && *L == K) ||
        (Op->getOpcode() == BO_GT && *L == K + 1) ||
        (Op->getOpcode() == BO_EQ && *L == K))
      return Op->getRHS();
  }
  return nullptr;
}

/// Whether every operand of the `||` chain \p Cond says the broadcast
/// moves nothing: its count \p Count (a parameter of \p F) is at most 0,
/// or a local that MPI_Comm_size wrote on its communicator \p Comm is at
/// most 1; or tests an MPI call's error code.
bool movesNothing(const clang::Expr *Cond, const ParmVarDecl *Count,
                  const clang::Expr *Comm, const FunctionDecl &F,
                  TranslationUnitFacts &TU) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Or = dyn_cast<BinaryOperator>(Cond);
      Or && Or->getOpcode() == BO_LOr)
    return movesNothing(Or->getLHS(), Count, Comm, F, TU) &&
           movesNothing(Or->getRHS(), Count, Comm, F, TU);
  // An MPI call's error: a proof speaks of runs without them.
  if (RankUniformity(TU).testsMPISuccess(Cond, F))
    return true;
  ASTContext &Ctx = TU.context();
  if (const clang::Expr *E = atMost(Cond, 0, Ctx))
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (Count && Ref->getDecl() == Count)
        return true;
  const clang::Expr *E = atMost(Cond, 1, Ctx);
  if (!E)
    return false;
  // `(size = g->npcol) <= 1` is no query's result; a local is.
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!Ref || !isLocalScalar(Ref, F))
    return false;
  std::optional<QueryValue> Size = queryValueOf(Ref->getDecl(), F, TU);
  return Size && Size->Query == CommQuery::Size &&
         Size->Comm == followedCommKey(Comm, F, TU);
}

/// Whether the statements of \p Body before the region (\p First) only
/// compute locals, or return where the broadcast moves nothing, and those
/// after it (from \p Last + 1) are at most a `return` of locals.
bool nothingElse(const CompoundStmt &Body, unsigned First, unsigned Last,
                 const ParmVarDecl *Count, const clang::Expr *Comm,
                 const FunctionDecl &F, TranslationUnitFacts &TU) {
  auto returnsLocals = [&](const Stmt *S) {
    const auto *Return = dyn_cast<ReturnStmt>(S);
    return Return && (!Return->getRetValue() ||
                      computesLocalsOnly(Return->getRetValue(), F));
  };
  for (unsigned I = 0; I < First; ++I) {
    const Stmt *S = Body.body_begin()[I];
    if (computesLocalsOnly(S, F))
      continue;
    const auto *If = dyn_cast<IfStmt>(S);
    const Stmt *Then = If ? If->getThen() : nullptr;
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Then))
      Then = Block->size() == 1 ? Block->body_front() : nullptr;
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        !Then || !returnsLocals(Then) ||
        !computesLocalsOnly(If->getCond(), F) ||
        !movesNothing(If->getCond(), Count, Comm, F, TU))
      return false;
  }
  for (unsigned I = Last + 1; I < Body.size(); ++I)
    if (!returnsLocals(Body.body_begin()[I]) || I + 1 != Body.size())
      return false;
  return true;
}

/// MPI's name for the datatype \p E gives when the parameter \p P is
/// \p Value: the arm of each conditional its value picks.
const PredefinedDatatype *typeWhen(const clang::Expr *E, const ParmVarDecl *P,
                                   int64_t Value, const ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Choice = dyn_cast<ConditionalOperator>(E)) {
    TripValue Param{P, false};
    std::optional<int64_t> Cond =
        evaluateWith(Choice->getCond(), Ctx, &Param, Value, nullptr, 0);
    if (!Cond)
      return nullptr;
    return typeWhen(*Cond ? Choice->getTrueExpr() : Choice->getFalseExpr(), P,
                    Value, Ctx);
  }
  return predefinedTypeOf(E, Ctx);
}

/// Records in \p Out the datatype \p E: MPI's own, a parameter of \p F
/// that is the datatype itself, or one for each value of the enumeration
/// of the one parameter it reads; false when it is none of these.
bool recordDatatype(const clang::Expr *E, const FunctionDecl &F,
                    BroadcastFunction &Out) {
  const ASTContext &Ctx = F.getASTContext();
  if (const PredefinedDatatype *Type = predefinedTypeOf(E, Ctx)) {
    Out.Type = Type->MPIName.str();
    return true;
  }
  if (std::optional<unsigned> Passed = parameterIndex(E, F);
      Passed && isDatatypeHandle(E->IgnoreParenCasts()->getType())) {
    Out.TypeArg = *Passed;
    return true;
  }
  const ParmVarDecl *Param = nullptr;
  bool Other = findFirst(E, [&](const Stmt *X) {
    const auto *Ref = dyn_cast<DeclRefExpr>(X);
    const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
    if (!P)
      return false;
    if (Param && Param != P)
      return true;
    Param = P;
    return false;
  });
  const auto *Enum = Param ? Param->getType()->getAs<EnumType>() : nullptr;
  if (Other || !Enum || !Enum->getDecl()->getDefinition())
    return false;
  for (const EnumConstantDecl *C : Enum->getDecl()->enumerators()) {
    int64_t Value = C->getInitVal().getExtValue();
    const PredefinedDatatype *Type = typeWhen(E, Param, Value, Ctx);
    if (!Type)
      return false;
    Out.TypeByValue.emplace_back(Value, Type->MPIName.str());
  }
  Out.TypeParam = Param->getFunctionScopeIndex();
  return !Out.TypeByValue.empty();
}

/// Whether \p F sends or receives messages, and every message's buffer is
/// one parameter and its communicator another: a cheap look before the
/// evaluation (HPL's panel broadcasts send from a structure's fields).
bool messagesOfParameters(const FunctionDecl &F) {
  std::optional<unsigned> Buffer, Comm;
  bool Any = false, Other = false;
  findFirst(F.getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
    if (!Info || (Info->TheFamily != mpi::Family::BlockingSend &&
                  Info->TheFamily != mpi::Family::BlockingRecv &&
                  Info->TheFamily != mpi::Family::NonblockingSend &&
                  Info->TheFamily != mpi::Family::NonblockingRecv))
      return false;
    bool Send = Info->TheFamily == mpi::Family::BlockingSend ||
                Info->TheFamily == mpi::Family::NonblockingSend;
    std::optional<unsigned> B = parameterIndex(
        mpiArg(Call, Send ? mpi::Role::SendBuffer : mpi::Role::RecvBuffer), F);
    std::optional<unsigned> C =
        parameterIndex(mpiArg(Call, mpi::Role::Comm), F);
    Other = !B || !C || (Buffer && *Buffer != *B) || (Comm && *Comm != *C);
    Buffer = B;
    Comm = C;
    Any = true;
    return Other;
  });
  return Any && !Other;
}

std::optional<BroadcastFunction> judgeBroadcast(const FunctionDecl &F,
                                                TranslationUnitFacts &TU) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F.getBody());
  if (!Body || F.isVariadic() || isa<CXXMethodDecl>(F) || F.isMain() ||
      F.isTemplateInstantiation() || F.getDescribedFunctionTemplate() ||
      LibraryHeaders(TU.context()).contain(F.getLocation()) ||
      !messagesOfParameters(F))
    return std::nullopt;
  // Proven with the parameters taken as the same on every rank.
  const FunctionDecl *Outer = TU.contract();
  std::vector<const ParmVarDecl *> OuterAssumed;
  std::swap(OuterAssumed, TU.contractAssumed());
  TU.assumeParametersOf(&F);
  auto Restore = llvm::make_scope_exit([&] {
    TU.assumeParametersOf(Outer);
    std::swap(OuterAssumed, TU.contractAssumed());
  });
  std::vector<ManualCollective> Found = findEvaluatedCollectives(TU, F);
  if (Found.size() != 1)
    return std::nullopt;
  const ManualCollective &C = Found.front();
  const std::optional<ProvenRegion> &R = C.Region;
  if (C.Kind != ManualKind::Bcast || !C.isSafe() || !R || C.Polling ||
      C.Fallback || R->Block != Body || !R->Comm || !R->Datatype)
    return std::nullopt;
  BroadcastFunction Out;
  std::optional<unsigned> Buffer = parameterIndex(R->Buffer, F);
  std::optional<unsigned> Comm = parameterIndex(R->Comm, F);
  if (!Buffer || !Comm)
    return std::nullopt;
  Out.Buffer = *Buffer;
  Out.Comm = *Comm;
  if (R->Count)
    Out.CountParam = parameterIndex(R->Count, F);
  else if (R->CountConstant)
    Out.Count = *R->CountConstant;
  if (R->Root)
    Out.RootParam = parameterIndex(R->Root, F);
  else if (R->RootConstant)
    Out.Root = *R->RootConstant;
  if ((R->Count && !Out.CountParam) || (!R->Count && !R->CountConstant) ||
      (R->Root && !Out.RootParam) || (!R->Root && !R->RootConstant) ||
      !recordDatatype(R->Datatype, F, Out))
    return std::nullopt;
  // The parameters the broadcast reads keep their values.
  const FunctionFacts &Facts = TU.factsOf(F);
  for (std::optional<unsigned> Index :
       {std::optional<unsigned>(Out.Buffer), std::optional<unsigned>(Out.Comm),
        Out.CountParam, Out.RootParam, Out.TypeParam, Out.TypeArg})
    if (Index && !Facts.writesOf(F.getParamDecl(*Index)).empty())
      return std::nullopt;
  const ParmVarDecl *Count =
      Out.CountParam ? F.getParamDecl(*Out.CountParam) : nullptr;
  if (!nothingElse(*Body, R->First, R->Last, Count, R->Comm, F, TU))
    return std::nullopt;
  for (const ParmVarDecl *P : TU.contractAssumed())
    Out.Uniform.push_back(P->getFunctionScopeIndex());
  llvm::sort(Out.Uniform);
  return Out;
}

/// The argument of \p Call at \p Index, or null.
const clang::Expr *argumentAt(const CallExpr *Call, unsigned Index) {
  return Index < Call->getNumArgs() ? Call->getArg(Index) : nullptr;
}

} // namespace

const PredefinedDatatype *predefinedTypeOf(const clang::Expr *E,
                                           const ASTContext &Ctx) {
  if (const PredefinedDatatype *Type =
          predefinedDatatype(mpiHandleName(E, Ctx)))
    return Type;
  const SourceManager &SM = Ctx.getSourceManager();
  for (SourceLocation L = E->IgnoreParens()->getBeginLoc(); L.isMacroID();
       L = SM.getImmediateMacroCallerLoc(L))
    if (const PredefinedDatatype *Type = predefinedDatatype(
            Lexer::getImmediateMacroName(L, SM, Ctx.getLangOpts())))
      return Type;
  return nullptr;
}

std::optional<BroadcastFunction> broadcastFunction(const FunctionDecl &F,
                                                   TranslationUnitFacts &TU) {
  std::optional<std::optional<BroadcastFunction>> &Slot = TU.broadcastSlot(F);
  if (Slot)
    return *Slot;
  Slot.emplace(); // Nothing while it is judged: a call of itself is none.
  // A std::map's slot stays where it is while others are added.
  Slot = judgeBroadcast(F, TU);
  return *Slot;
}

std::optional<BroadcastCall> broadcastCallOf(const CallExpr *Call,
                                             TranslationUnitFacts &TU) {
  const ASTContext &Ctx = TU.context();
  BroadcastCall Out;
  Out.Call = Call;
  if (const mpi::FunctionInfo *Info = mpiCallee(Call)) {
    if (Info->Id != mpi::FunctionId::Bcast)
      return std::nullopt;
    Out.Buffer = mpiArgAsWritten(Call, mpi::Role::InOutBuffer);
    Out.Count = mpiArgAsWritten(Call, mpi::Role::Count);
    Out.Root = mpiArgAsWritten(Call, mpi::Role::Root);
    Out.Comm = mpiArgAsWritten(Call, mpi::Role::Comm);
    Out.Type = predefinedDatatype(
        mpiHandleName(mpiArgAsWritten(Call, mpi::Role::Datatype), Ctx));
    return Out;
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || isa<CXXOperatorCallExpr>(Call))
    return std::nullopt;
  std::optional<BroadcastFunction> B;
  const FunctionDecl *Definition = nullptr;
  if (Callee->getBody(Definition))
    B = broadcastFunction(*Definition, TU);
  else if (const ProjectFacts *Project = TU.project())
    B = Project->broadcastFunction(functionKey(*Callee));
  if (!B)
    return std::nullopt;
  Out.Through = Callee->getNameAsString();
  Out.Buffer = argumentAt(Call, B->Buffer);
  Out.Comm = argumentAt(Call, B->Comm);
  if (B->CountParam)
    Out.Count = argumentAt(Call, *B->CountParam);
  else
    Out.CountConstant = B->Count;
  if (B->RootParam)
    Out.Root = argumentAt(Call, *B->RootParam);
  else
    Out.RootConstant = B->Root;
  std::optional<int64_t> TypeArgument;
  if (B->TypeParam)
    if (const clang::Expr *Arg = argumentAt(Call, *B->TypeParam);
        Arg && !Arg->isValueDependent())
      if (std::optional<llvm::APSInt> Value = Arg->getIntegerConstantExpr(Ctx))
        TypeArgument = Value->getExtValue();
  const clang::Expr *Passed =
      B->TypeArg ? argumentAt(Call, *B->TypeArg) : nullptr;
  const PredefinedDatatype *PassedType =
      Passed ? predefinedTypeOf(Passed, Ctx) : nullptr;
  Out.Type = predefinedDatatype(B->typeFor(
      TypeArgument, PassedType ? PassedType->MPIName : llvm::StringRef()));
  for (unsigned Index : B->Uniform) {
    const clang::Expr *Arg = argumentAt(Call, Index);
    if (!Arg)
      return std::nullopt;
    Out.MustAgree.push_back(Arg);
  }
  if (!Out.Buffer || !Out.Comm || (B->CountParam && !Out.Count) ||
      (B->RootParam && !Out.Root))
    return std::nullopt;
  return Out;
}

} // namespace analysis
} // namespace mpilift
