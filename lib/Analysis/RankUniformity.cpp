//===- RankUniformity.cpp - Values the same on every rank -----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "RankUniformity.h"

#include "CollectiveFunctions.h"
#include "CommQueries.h"
#include "ReachingWrites.h"
#include "SplitRanks.h"

#include "StatementTree.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace mpilift {
namespace analysis {

std::string quotedSource(const Expr *E, const ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Range = SM.getExpansionRange(E->getSourceRange());
  return "'" + Lexer::getSourceText(Range, SM, Context.getLangOpts()).str() +
         "'";
}

Coverage uniformingCoverage(const CallExpr *Call, const Expr *Address,
                            const ASTContext &Ctx) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  if (!Info || !Address)
    return Coverage::None;
  // The buffer left alike, and its count and datatype.
  unsigned Written;
  switch (Info->Id) {
  case mpi::FunctionId::Bcast:
    Written = 0;
    break;
  case mpi::FunctionId::Allreduce:
    Written = 1;
    break;
  case mpi::FunctionId::Allgather:
    Written = 3;
    break;
  default:
    return Coverage::None;
  }
  if (Written + 2 >= Call->getNumArgs() ||
      Call->getArg(Written)->IgnoreParenCasts() != Address->IgnoreParenCasts())
    return Coverage::None;
  // The object the address names: `&n` or a pointer's target is one
  // object, an array is all of it.
  const Expr *Object = Address->IgnoreParenCasts();
  QualType Type = Object->getType();
  if (Type->isPointerType())
    Type = Type->getPointeeType();
  const Expr *CountArg = Call->getArg(Written + 1);
  std::optional<uint64_t> Bytes =
      predefinedTypeSize(mpiHandleName(Call->getArg(Written + 2), Ctx), Ctx);
  std::optional<llvm::APSInt> Count =
      CountArg->isValueDependent() ? std::nullopt
                                   : CountArg->getIntegerConstantExpr(Ctx);
  if (!Bytes || !Count || Count->isNegative() || Type->isIncompleteType() ||
      Type->isDependentType() || Type->isVoidType())
    return Coverage::Part;
  // An allgather carries at least one block of this size.
  uint64_t Carried = Count->getZExtValue() * *Bytes;
  uint64_t Needed = Ctx.getTypeSizeInChars(Type).getQuantity();
  return Carried >= Needed ? Coverage::Whole : Coverage::Part;
}

bool isUniformingCollective(const CallExpr *Call, const Expr *Address,
                            const ASTContext &Ctx) {
  return uniformingCoverage(Call, Address, Ctx) == Coverage::Whole;
}

bool overwrittenForAll(
    const Write &W, llvm::ArrayRef<Write> Writes, SourceLocation Use,
    const FunctionDecl &F, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *, const Expr *)> Uniforming,
    const Write **By) {
  if (Use.isInvalid() || W.Kind == WriteKind::Init)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Before = [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                        SM.getExpansionLoc(B));
  };
  for (const Write &B : Writes) {
    if (&B == &W || B.Kind != WriteKind::AddressPass || !B.Call ||
        !Uniforming(B.Call, dyn_cast<Expr>(B.Where)) ||
        !Before(W.Where->getEndLoc(), B.Call->getBeginLoc()) ||
        !Before(B.Call->getEndLoc(), Use) ||
        !runsWithItsStatement(B.Call, F, Ctx))
      continue;
    bool Jumps = findFirst(F.getBody(), [](const Stmt *S) {
      return isa<GotoStmt, IndirectGotoStmt>(S);
    });
    if (By)
      *By = &B;
    return !Jumps;
  }
  return false;
}

bool isReadOnlyPass(const Write &W) {
  if (W.Kind != WriteKind::AddressPass || !mpiCallee(W.Call))
    return false;
  const Expr *Address = dyn_cast<Expr>(W.Where);
  const Expr *Sent = mpiArg(W.Call, mpi::Role::SendBuffer);
  return Address && Sent &&
         Sent->IgnoreParenCasts() == Address->IgnoreParenCasts();
}

std::string named(const NamedDecl *D) {
  return "'" + D->getNameAsString() + "'";
}

bool runsWithItsStatement(const CallExpr *Call, const FunctionDecl &F,
                          ASTContext &Ctx) {
  const Stmt *Child = Call;
  for (const Stmt *P = parentStmt(*Call, Ctx); P; P = parentStmt(*P, Ctx)) {
    if (P == F.getBody())
      return true;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Child != If->getCond())
        return false;
    } else if (const auto *Choice = dyn_cast<ConditionalOperator>(P)) {
      if (Child != Choice->getCond())
        return false;
    } else if (const auto *Op = dyn_cast<BinaryOperator>(P)) {
      // The right of `||` runs where the left is false, of `&&` where it
      // is true: in a run without MPI errors, after an MPI error test.
      if (Op->isLogicalOp() && Child == Op->getRHS() &&
          valueWithoutMPIErrors(Op->getLHS(), Ctx) !=
              (Op->getOpcode() == BO_LAnd))
        return false;
    } else if (!isa<Expr, DeclStmt, CompoundStmt>(P)) {
      return false;
    }
    Child = P;
  }
  return false;
}

namespace {

/// MPI_Type_contiguous, MPI_Type_create_struct, MPI_Type_commit, ...:
/// calls that build (or free) a derived datatype in the handle they are
/// given.
bool isDatatypeConstructor(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  // MPI_Type_free sets the handle to MPI_DATATYPE_NULL everywhere.
  return Callee && Callee->getIdentifier() &&
         Callee->getName().starts_with("MPI_Type_");
}

/// `v.size()` or `s.length()` of a standard container.
bool isSizeQuery(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  const CXXRecordDecl *Class = Method ? Method->getParent() : nullptr;
  return Class && Method->getIdentifier() && Call->getNumArgs() == 0 &&
         Class->isInStdNamespace() &&
         (Method->getName() == "size" || Method->getName() == "length");
}

} // namespace

bool isContainerAccessor(const Expr *E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E->IgnoreParenImpCasts());
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  return Method && Method->getIdentifier() &&
         Method->getParent()->isInStdNamespace() &&
         (Method->getName() == "data" || Method->getName() == "size");
}

bool isPureAccessor(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const Expr *Value = Callee ? soleReturnValue(*Callee) : nullptr;
  if (!Value)
    return false;
  // No call inside either (a call may change what the next one returns).
  const ASTContext &Ctx = Callee->getASTContext();
  return !Value->HasSideEffects(Ctx, /*IncludePossibleEffects=*/true) &&
         llvm::all_of(Call->arguments(), [&](const Expr *Arg) {
           return !Arg->HasSideEffects(Ctx, /*IncludePossibleEffects=*/true);
         });
}

bool isPureArithmeticCall(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return false;
  const DeclContext *Context = Callee->getDeclContext();
  bool InStd = Context->isStdNamespace() ||
               (Context->getParent() && Context->getParent()->isStdNamespace());
  if (!Context->isTranslationUnit() && !Context->isExternCContext() && !InStd)
    return false;
  return llvm::StringSwitch<bool>(Callee->getName())
      .Cases("abs", "labs", "llabs", "fabs", "fabsf", true)
      .Cases("min", "max", "fmin", "fmax", "fminf", "fmaxf", true)
      .Cases("sqrt", "floor", "ceil", "pow", "log2", "ilogb", true)
      .Default(false);
}

bool RankUniformity::uniformingWrite(const CallExpr *Call, const Expr *Address,
                                     const FunctionDecl &Where,
                                     unsigned Depth) {
  if (isUniformingCollective(Call, Address, TU.context()))
    return spansTheProof(mpiArgAsWritten(Call, mpi::Role::Comm), Where);
  return !mpiCallee(Call) &&
         broadcastFunctionWrites(Call, Address, Where, Depth);
}

bool RankUniformity::broadcastFunctionWrites(const CallExpr *Call,
                                             const Expr *Address,
                                             const FunctionDecl &Where,
                                             unsigned Depth) {
  ASTContext &Ctx = TU.context();
  std::optional<BroadcastCall> BC = broadcastCallOf(Call, TU);
  if (!BC || !Address || !BC->Type ||
      BC->Buffer->IgnoreParenCasts() != Address->IgnoreParenCasts() ||
      !spansTheProof(BC->Comm, Where))
    return false;
  // The whole object: `&n`'s, or an array's.
  std::optional<int64_t> Count = BC->CountConstant;
  if (BC->Count && !BC->Count->isValueDependent())
    if (std::optional<llvm::APSInt> K = BC->Count->getIntegerConstantExpr(Ctx))
      Count = K->getExtValue();
  QualType Object = Address->IgnoreParenCasts()->getType();
  if (Object->isPointerType())
    Object = Object->getPointeeType();
  if (!Count || *Count <= 0 || Object->isIncompleteType() ||
      Object->isDependentType() || Object->isVoidType() ||
      static_cast<uint64_t>(*Count) *
              Ctx.getTypeSizeInChars(Ctx.*(BC->Type->Type)).getQuantity() <
          static_cast<uint64_t>(Ctx.getTypeSizeInChars(Object).getQuantity()))
    return false;
  // Its proof took these as the same on every process.
  return llvm::none_of(BC->MustAgree, [&](const Expr *Arg) {
    return valueOf(Arg, Where, Depth + 1).has_value();
  });
}

std::optional<Divergence>
RankUniformity::replacedTooLittle(const std::string &Name, const Write &W,
                                  llvm::ArrayRef<Write> Writes,
                                  SourceLocation Use, const FunctionDecl &F) {
  ASTContext &Ctx = TU.context();
  const Write *By = nullptr;
  if (W.Kind == WriteKind::Escape ||
      !overwrittenForAll(
          W, Writes, Use, F, Ctx,
          [&](const CallExpr *Call, const Expr *Address) {
            return uniformingCoverage(Call, Address, Ctx) != Coverage::None;
          },
          &By))
    return std::nullopt;
  return collectiveFallsShort(Name, *By, F);
}

std::optional<Divergence>
RankUniformity::collectiveFallsShort(const std::string &Name, const Write &B,
                                     const FunctionDecl &F) {
  ASTContext &Ctx = TU.context();
  SourceLocation Loc = B.Call->getBeginLoc();
  switch (uniformingCoverage(B.Call, dyn_cast<Expr>(B.Where), Ctx)) {
  case Coverage::None:
    return std::nullopt;
  case Coverage::Part:
    return Divergence{Name + " is carried by " +
                          quotedSource(B.Call->getCallee(), Ctx) +
                          " only in part, as far as its count and datatype "
                          "show",
                      Loc};
  case Coverage::Whole:
    break;
  }
  const Expr *Comm = mpiArgAsWritten(B.Call, mpi::Role::Comm);
  if (spansTheProof(Comm, F))
    return std::nullopt;
  return Divergence{Name + " is made the same only on the processes of " +
                        quotedSource(Comm, Ctx) +
                        ", which may be fewer than those it must agree on",
                    Loc};
}

bool RankUniformity::spansTheProof(const Expr *Comm,
                                   const FunctionDecl &Where) {
  if (mpiHandleName(Comm, TU.context()) == "MPI_COMM_WORLD")
    return true;
  CommKey Key = followedCommKey(Comm, Where, TU);
  return Key.Handle == "MPI_COMM_WORLD" || (Scope.valid() && Key == Scope);
}

std::optional<Divergence>
RankUniformity::divergence(const Expr *E, const FunctionDecl &Where) {
  InProgress.clear();
  return valueOf(E, Where, 0);
}

std::optional<Divergence>
RankUniformity::visibleCallersDivergence(const FunctionDecl &F) {
  InProgress.clear();
  return visibleCallers(F, 0);
}

std::optional<Divergence> RankUniformity::visibleCallers(const FunctionDecl &F,
                                                         unsigned Depth) {
  return callerWalk(F, Depth, /*VisibleOnly=*/true);
}

std::optional<Divergence>
RankUniformity::controlDivergence(const Stmt *S, const FunctionDecl &Where) {
  InProgress.clear();
  return controlOf(S, Where, 0);
}

std::optional<Divergence>
RankUniformity::variableDivergence(const VarDecl *V, const FunctionDecl &Where,
                                   SourceLocation Use) {
  InProgress.clear();
  return variable(V, Use, Where, 0);
}

std::optional<Divergence>
RankUniformity::containerDivergence(const ValueDecl *D,
                                    const FunctionDecl &Where) {
  InProgress.clear();
  if (const auto *Field = dyn_cast<FieldDecl>(D))
    return memberContainerSize(Field, 0);
  if (const auto *V = dyn_cast<VarDecl>(D))
    if (V->hasLocalStorage() && !isa<ParmVarDecl>(V))
      return localContainerSize(V, Where, 0);
  if (const auto *P = dyn_cast<ParmVarDecl>(D))
    return parameterContainerSize(P, Where, 0);
  return Divergence{"cannot follow the size of " + named(D), D->getLocation()};
}

std::optional<Divergence> RankUniformity::valueOf(const Expr *E,
                                                  const FunctionDecl &Where,
                                                  unsigned Depth) {
  if (!E)
    return std::nullopt;
  ASTContext &Context = TU.context();
  E = E->IgnoreParenImpCasts();
  auto Fail = [&](std::string Why) -> std::optional<Divergence> {
    return Divergence{std::move(Why), E->getBeginLoc()};
  };
  if (!E->isValueDependent() && !E->isTypeDependent() &&
      E->getType()->isIntegralOrEnumerationType() &&
      E->isIntegerConstantExpr(Context))
    return std::nullopt;
  if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) ||
      isa<FloatingLiteral>(E) || isa<StringLiteral>(E) ||
      isa<CXXBoolLiteralExpr>(E) || isa<CXXNullPtrLiteralExpr>(E) ||
      isa<GNUNullExpr>(E) || isa<UnaryExprOrTypeTraitExpr>(E))
    return std::nullopt;
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
    return valueOf(Cast->getSubExpr(), Where, Depth);
  if (const auto *Op = dyn_cast<BinaryOperator>(E)) {
    // `a = b = v`: the inner assignment's value is v's (its write of b is
    // judged where b is read).
    if (Op->getOpcode() == BO_Assign)
      return valueOf(Op->getRHS(), Where, Depth);
    if (Op->isAssignmentOp())
      return Fail("the value is assigned inside " + quotedSource(E, Context));
    if (auto Why = valueOf(Op->getLHS(), Where, Depth))
      return Why;
    return valueOf(Op->getRHS(), Where, Depth);
  }
  if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
    switch (Op->getOpcode()) {
    case UO_Plus:
    case UO_Minus:
    case UO_Not:
    case UO_LNot:
      return valueOf(Op->getSubExpr(), Where, Depth);
    case UO_AddrOf: {
      // The address of a global object: MPI's predefined handles.
      const Expr *Sub = Op->getSubExpr()->IgnoreParens();
      if (const auto *Ref = dyn_cast<DeclRefExpr>(Sub))
        if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
          if (V->hasGlobalStorage() && !V->isStaticLocal())
            return std::nullopt;
      return Fail("cannot tell whether the address " +
                  quotedSource(E, Context) + " is the same on every rank");
    }
    default:
      return Fail("the value of " + quotedSource(E, Context) +
                  " cannot be followed");
    }
  }
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
    for (const Expr *Part :
         {Cond->getCond(), Cond->getTrueExpr(), Cond->getFalseExpr()})
      if (auto Why = valueOf(Part, Where, Depth))
        return Why;
    return std::nullopt;
  }
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Part : Init->inits())
      if (auto Why = valueOf(Part, Where, Depth))
        return Why;
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E))
    if (isSizeQuery(Call))
      return containerSize(Call, Where, Depth);
  // A getter of a field: what the field holds (`team.size()`).
  if (const MemberExpr *Field = getterField(E))
    return valueOf(Field, Where, Depth);
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    if (!isPureArithmeticCall(Call))
      return Fail("the value comes from a call of " +
                  quotedSource(Call->getCallee(), Context) +
                  ", which may return something else on another rank");
    for (const Expr *Arg : Call->arguments())
      if (auto Why = valueOf(Arg, Where, Depth))
        return Why;
    return std::nullopt;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl())) {
      if (Assumed) {
        Assumed->push_back(Field);
        return std::nullopt;
      }
      std::optional<Divergence> Why = memberDivergence(Field, Where, Depth);
      if (!Why)
        return std::nullopt;
      return Fail("cannot prove that " + quotedSource(E, Context) +
                  " is the same on every rank: " + Why->Reason);
    }
    if (std::optional<QueryValue> Q =
            queryValueOf(Member->getMemberDecl(), Where, TU))
      if (Q->Query == CommQuery::Size)
        return std::nullopt;
    return Fail("cannot prove that " + quotedSource(E, Context) +
                " is the same on every rank");
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(Ref->getDecl()) ||
        isa<FunctionDecl>(Ref->getDecl()))
      return std::nullopt;
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      return variable(V, E->getBeginLoc(), Where, Depth);
  }
  return Fail("cannot prove that " + quotedSource(E, Context) +
              " is the same on every rank");
}

std::optional<Divergence> RankUniformity::variable(const VarDecl *V,
                                                   SourceLocation Use,
                                                   const FunctionDecl &Where,
                                                   unsigned Depth) {
  if (!InProgress.insert(V).second)
    return std::nullopt; // Its other writes decide.
  if (V->hasGlobalStorage() && !V->isStaticLocal()) {
    if (V->getType().isConstQualified() && V->getInit())
      return valueOf(V->getInit(), Where, Depth);
    return Divergence{named(V) + " is a global variable; its writes cannot "
                                 "be followed",
                      Use};
  }
  if (V->getType()->isReferenceType())
    return Divergence{named(V) + " is a reference; what it refers to cannot "
                                 "be followed",
                      Use};
  const FunctionFacts &Facts = TU.factsOf(Where);
  llvm::ArrayRef<Write> Writes = Facts.writesOf(V);
  std::optional<llvm::BitVector> Reaching = writesReaching(V, Use, Where);
  RoundTrip Trip = roundTrip(V, Use, Where, Depth);
  if (Trip.Found && Reaching && !Reaching->test(Trip.Unpack))
    Trip = RoundTrip(); // The unpacked value does not reach this read.
  if (Trip.Why)
    return Trip.Why;
  for (unsigned I = 0; I < Writes.size(); ++I) {
    const Write &W = Writes[I];
    if ((Reaching && !Reaching->test(I)) ||
        (I < Trip.Covered.size() && Trip.Covered.test(I)))
      continue;
    if (overwrittenForAll(W, Writes, Use, Where, TU.context(),
                          [&](const CallExpr *Call, const Expr *Address) {
                            return uniformingWrite(Call, Address, Where, Depth);
                          }))
      continue;
    if (auto Why = replacedTooLittle(named(V), W, Writes, Use, Where))
      return Why;
    if (auto Why = write(V, W, Where, Depth))
      return Why;
  }
  if (const auto *Param = dyn_cast<ParmVarDecl>(V))
    return parameter(Param, Use, Where, Depth);
  if (Writes.empty())
    return Divergence{named(V) + " is never given a value", Use};
  return std::nullopt;
}

std::optional<llvm::BitVector>
RankUniformity::writesReaching(const VarDecl *V, SourceLocation Use,
                               const FunctionDecl &Where) {
  // A local scalar of this function, read at Use by a reference of its
  // own: a static one keeps its value from the last call, a captured one
  // may change where a lambda or block runs.
  if (Use.isInvalid() || V->hasGlobalStorage() ||
      !V->getType()->isScalarType() || V->getParentFunctionOrMethod() != &Where)
    return std::nullopt;
  const FunctionFacts &Facts = TU.factsOf(Where);
  const DeclRefExpr *Read = nullptr;
  for (const DeclRefExpr *Ref : Facts.referencesOf(V)) {
    if (Ref->refersToEnclosingVariableOrCapture())
      return std::nullopt;
    if (Ref->getBeginLoc() != Use)
      continue;
    if (Read)
      return std::nullopt; // One place, several expansions of a macro.
    Read = Ref;
  }
  if (!Read)
    return std::nullopt;
  std::optional<Reach> R =
      TU.reachingWritesOf(Where).reaching(Facts.writesOf(V), *Read);
  // A local that may be read before any write holds what no proof knows;
  // every write is judged then, as before.
  if (!R || (R->FromEntry && !isa<ParmVarDecl>(V)))
    return std::nullopt;
  return std::move(R->Writes);
}

std::optional<Divergence> RankUniformity::write(const VarDecl *V,
                                                const Write &W,
                                                const FunctionDecl &Where,
                                                unsigned Depth) {
  SourceLocation Loc = W.Where->getBeginLoc();
  // An initializer holds wherever the variable is in scope; any other
  // write must reach every rank.
  if (W.Kind != WriteKind::Init)
    if (auto Why = controlOf(W.Where, Where, Depth))
      return Divergence{
          named(V) + " is written where not every rank may get: " + Why->Reason,
          Loc};
  auto From = [&](const Expr *Value) -> std::optional<Divergence> {
    if (auto Why = valueOf(Value, Where, Depth))
      return Divergence{named(V) +
                            " is given a value that may differ "
                            "between ranks: " +
                            Why->Reason,
                        Loc};
    return std::nullopt;
  };
  switch (W.Kind) {
  case WriteKind::Init:
  case WriteKind::Assign:
  case WriteKind::Compound:
    return From(W.Value);
  case WriteKind::IncDec:
    return std::nullopt;
  case WriteKind::AddressPass: {
    const mpi::FunctionInfo *Info = mpiCallee(W.Call);
    if (Info && Info->Id == mpi::FunctionId::Comm_size)
      return std::nullopt;
    if (Info && Info->Id == mpi::FunctionId::Comm_rank)
      return Divergence{named(V) + " is the rank of the calling process", Loc};
    if (uniformingCoverage(W.Call, dyn_cast<Expr>(W.Where), TU.context()) !=
        Coverage::None)
      return collectiveFallsShort(named(V), W, Where);
    if (isDatatypeConstructor(W.Call))
      return datatypeArguments(V, W, Where, Depth);
    if (!Info) {
      // A function of the program that is a broadcast.
      if (broadcastFunctionWrites(W.Call, dyn_cast<Expr>(W.Where), Where,
                                  Depth))
        return std::nullopt;
      if (auto Why = returnedThrough(W.Call, dyn_cast<Expr>(W.Where), Depth))
        return Divergence{named(V) + " " + Why->Reason, Why->Loc};
      return std::nullopt;
    }
    return Divergence{named(V) + " is written by a call of " +
                          quotedSource(W.Call->getCallee(), TU.context()),
                      Loc};
  }
  case WriteKind::Element:
  case WriteKind::Escape:
    return Divergence{named(V) + " may be written through a reference or "
                                 "pointer",
                      Loc};
  }
  llvm_unreachable("unknown write kind");
}

std::optional<Divergence>
RankUniformity::datatypeArguments(const VarDecl *V, const Write &W,
                                  const FunctionDecl &Where, unsigned Depth) {
  const CallExpr *Call = W.Call;
  unsigned N = Call->getNumArgs();
  const auto *Address = dyn_cast<Expr>(W.Where);
  // Handed in as anything but the new type (the last argument): read.
  if (N == 0 || !Address ||
      Call->getArg(N - 1)->IgnoreParenCasts() != Address->IgnoreParenCasts())
    return std::nullopt;
  for (unsigned I = 0; I + 1 < N; ++I)
    if (auto Why = valueOf(Call->getArg(I), Where, Depth))
      return Divergence{named(V) +
                            " is built from a value that may differ "
                            "between ranks: " +
                            Why->Reason,
                        Call->getBeginLoc()};
  return std::nullopt;
}


/// " (why)" when \p F may be called where the unit does not show.
std::string RankUniformity::unseenCallersNote(const FunctionDecl &F) const {
  std::optional<std::string> Why = TU.unseenCallers(&F);
  return Why ? " (" + *Why + ")" : std::string();
}

std::optional<Divergence> RankUniformity::parameter(const ParmVarDecl *P,
                                                    SourceLocation Use,
                                                    const FunctionDecl &Where,
                                                    unsigned Depth) {
  if (Where.isMain())
    return Divergence{named(P) + " is a parameter of main: program input, "
                                 "which may differ between ranks",
                      Use};
  if (Depth >= MaxDepth)
    return Divergence{"gave up following " + named(P) + " through callers",
                      Use};
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Where))
    return constructorParameter(P, Use, *Ctor, Depth);
  // A summary leaves the parameters of functions other units may call to
  // the unit that reads it.
  if (AssumedParams && Where.isExternallyVisible()) {
    AssumedParams->push_back(P);
    return std::nullopt;
  }
  // The contract under which a function's own proof runs.
  if (TU.contract() == &Where) {
    if (!llvm::is_contained(TU.contractAssumed(), P))
      TU.contractAssumed().push_back(P);
    return std::nullopt;
  }
  ArrayRef<CallSite> Callers = TU.callersOf(&Where);
  std::optional<std::vector<CallRecord>> Elsewhere = TU.callsElsewhere(&Where);
  if (!Elsewhere || (Callers.empty() && Elsewhere->empty()))
    return Divergence{named(P) + " is a parameter of " + named(&Where) +
                          " whose callers are not all visible" +
                          unseenCallersNote(Where),
                      Use};
  std::vector<ArgumentSite> Sites;
  for (const CallSite &Site : Callers)
    Sites.push_back({Site.Call, Site.Caller,
                     P->getFunctionScopeIndex() < Site.Call->getNumArgs()
                         ? Site.Call->getArg(P->getFunctionScopeIndex())
                         : nullptr});
  return argumentsAtSites(P, Where, Sites, *Elsewhere, Depth);
}

std::optional<Divergence>
RankUniformity::constructorParameter(const ParmVarDecl *P, SourceLocation Use,
                                     const CXXConstructorDecl &Ctor,
                                     unsigned Depth) {
  ArrayRef<const CXXConstructExpr *> Sites = TU.constructionsOf(&Ctor);
  if (Sites.empty())
    return Divergence{named(P) + " is a parameter of a constructor of " +
                          named(Ctor.getParent()) +
                          " that this file never calls",
                      Use};
  std::vector<ArgumentSite> ArgSites;
  for (const CXXConstructExpr *Site : Sites)
    ArgSites.push_back({Site, enclosingFunction(*Site, TU.context()),
                        P->getFunctionScopeIndex() < Site->getNumArgs()
                            ? Site->getArg(P->getFunctionScopeIndex())
                            : nullptr});
  return argumentsAtSites(P, Ctor, ArgSites, {}, Depth);
}

std::optional<Divergence>
RankUniformity::fieldDivergence(const FieldDecl *Field, unsigned Depth) {
  if (!FieldsInProgress.insert(Field).second)
    return std::nullopt; // Its other writes decide.
  auto Done = llvm::make_scope_exit([&] { FieldsInProgress.erase(Field); });
  ASTContext &Context = TU.context();
  const RecordDecl *Record = Field->getParent();
  if (Depth >= MaxDepth)
    return Divergence{"gave up following " + named(Field),
                      Field->getLocation()};
  // The rank or the size in a communicator split beside a write: not the
  // same on every rank, or not that where the communicator is replaced.
  for (const MemberExpr *Use : TU.usesOf(Field))
    if (!isOnlyLoaded(*Use, Context))
      if (auto Why = splitDivergence(Field, *Use))
        return Why;
  if (!Field->getType()->isIntegralOrEnumerationType() ||
      Field->hasInClassInitializer() || Record->isUnion())
    return Divergence{"cannot follow the writes of " + named(Field),
                      Field->getLocation()};
  if (const auto *Class = dyn_cast<CXXRecordDecl>(Record)) {
    for (const CXXMethodDecl *Method : Class->methods())
      if (!Method->isImplicit() && !Method->isDefined() && !Method->isDeleted())
        return Divergence{"a member function of '" + Record->getNameAsString() +
                              "' defined elsewhere may write " + named(Field),
                          Method->getLocation()};
    // What a constructor initialises the field with is not followed.
    for (const CXXConstructorDecl *Ctor : Class->ctors())
      if (!Ctor->isImplicit())
        return Divergence{"'" + Record->getNameAsString() +
                              "' has a constructor, which may set " +
                              named(Field),
                          Ctor->getLocation()};
  }
  if (const Expr *Escape = TU.escapeOf(Record))
    return Divergence{"the address of a '" + Record->getNameAsString() +
                          "' goes here to code that may write " + named(Field),
                      Escape->getBeginLoc()};
  if (std::optional<std::string> Unknown = TU.unknownWriters(Field))
    return Divergence{*Unknown, Field->getLocation()};
  for (const FieldValue &W : TU.valuesElsewhere(Field))
    if (auto Why = writeInOtherUnit(Field, W, Depth))
      return Why;
  for (const MemberExpr *Use : TU.usesOf(Field)) {
    if (isOnlyLoaded(*Use, Context))
      continue;
    if (std::optional<QueryValue> Query = queryWritingField(*Use, Context))
      return queryDivergence(Field, *Query, Use);
    const Stmt *Child = nullptr;
    const auto *Assign = dyn_cast_or_null<BinaryOperator>(
        parentPastParens(*Use, Context, &Child));
    if (!Assign || Assign->getOpcode() != BO_Assign ||
        Assign->getLHS() != Child)
      return Divergence{named(Field) + " is changed here in a way that "
                                       "cannot be followed",
                        Use->getBeginLoc()};
    if (auto Why = fieldWrite(Field, Use, Assign->getRHS(), Depth)) {
      std::string Split = splitRefusalOf(*Use, TU);
      if (!Split.empty())
        Why->Reason += "; nor is it the rank or the size in the communicator "
                       "split beside it: " +
                       Split;
      return Why;
    }
  }
  unsigned Index = Field->getFieldIndex();
  for (const InitListExpr *Init : TU.initListsOf(Record))
    if (Index < Init->getNumInits())
      if (auto Why = fieldWrite(Field, Init, Init->getInit(Index), Depth))
        return Why;
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::fieldWrite(const FieldDecl *Field,
                                                     const Expr *At,
                                                     const Expr *Value,
                                                     unsigned Depth) {
  const FunctionDecl *F = TU.functionOf(At);
  if (!F)
    return Divergence{named(Field) + " is written here, outside a function "
                                     "the analysis follows",
                      At->getBeginLoc()};
  std::optional<Divergence> Why = inAnotherFunction([&] {
    std::optional<Divergence> Written = valueOf(Value, *F, Depth + 1);
    if (!Written)
      Written = controlOf(At, *F, Depth + 1);
    if (!Written)
      Written = callersOf(*F, Depth + 1);
    return Written;
  });
  if (Why)
    return Divergence{named(Field) +
                          " is given a value here that may differ "
                          "between ranks: " +
                          Why->Reason,
                      At->getBeginLoc()};
  return std::nullopt;
}


std::optional<Divergence>
RankUniformity::memberDivergence(const FieldDecl *Field,
                                 const FunctionDecl &Where, unsigned Depth) {
  // A field only MPI_Comm_size writes: a communicator's size is the same
  // on each of its processes.
  if (std::optional<QueryValue> Q = queryValueOf(Field, Where, TU))
    if (Q->Query == CommQuery::Size)
      return std::nullopt;
  return fieldDivergence(Field, Depth + 1);
}

std::optional<Divergence> RankUniformity::replacedComm(const FieldDecl *Field,
                                                       const FieldDecl *Comm,
                                                       StringRef Where,
                                                       SourceLocation Loc) {
  if (!Comm || queriedAfterCommWrites(Field, Comm, TU))
    return std::nullopt;
  return Divergence{named(Field) + " receives a query on " + named(Comm) + " " +
                        Where.str() + ", but " + named(Comm) +
                        " is written again where no new query follows, so "
                        "it may hold another communicator",
                    Loc};
}

std::optional<std::pair<const ParmVarDecl *, Divergence>>
RankUniformity::splitInputDivergence(const SplitProof &Proof,
                                     const FunctionDecl &F) {
  for (const ParmVarDecl *P : Proof.Inputs)
    if (auto Why = inAnotherFunction(
            [&] { return variableDivergence(P, F, P->getLocation()); }))
      return std::make_pair(P, std::move(*Why));
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::splitDivergence(const FieldDecl *Field, const MemberExpr &Use) {
  const SplitProof *Proof = nullptr;
  const SplitField *Split = splitFieldOf(Use, TU, &Proof);
  if (!Split)
    return std::nullopt;
  const FunctionDecl &F = *TU.functionOf(&Use);
  std::string What = named(Field) + " is the " +
                     (Split->Query == CommQuery::Rank ? "rank" : "size") +
                     " in " + named(Split->CommWrite->getMemberDecl()) +
                     " (the split in " + named(&F) + ")";
  if (const FunctionDecl *Ends = unprovenEnding(*Proof, TU))
    return Divergence{What + " only if " + named(Ends) +
                          " ends the program, which no unit's summary shows",
                      Use.getBeginLoc()};
  if (auto Input = splitInputDivergence(*Proof, F))
    return Divergence{What + " where " + named(Input->first) +
                          " is the same on every rank, which it may not "
                          "be: " +
                          Input->second.Reason,
                      Input->second.Loc};
  const auto *Comm = cast<FieldDecl>(Split->CommWrite->getMemberDecl());
  if (!queriedAfterCommWrites(Field, Comm, TU))
    return Divergence{What + " here, but " + named(Comm) +
                          " is written again where no new query follows, so "
                          "it may hold another communicator",
                      Use.getBeginLoc()};
  return queryDivergence(Field, splitQuery(*Split), &Use);
}

Divergence RankUniformity::queryDivergence(const FieldDecl *Field,
                                           const QueryValue &Query,
                                           const MemberExpr *Use) {
  if (auto Why =
          replacedComm(Field, dyn_cast_or_null<FieldDecl>(Query.Comm.Decl),
                       "here", Use->getBeginLoc()))
    return *Why;
  if (Query.Query == CommQuery::Rank)
    return Divergence{named(Field) + " receives the rank here",
                      Use->getBeginLoc()};
  return Divergence{named(Field) + " receives a communicator's size here, "
                                   "and not every write of it is that query",
                    Use->getBeginLoc()};
}

std::optional<Divergence>
RankUniformity::writeInFunction(const Stmt *At, const Expr *Value,
                                const FunctionDecl &F) {
  return inAnotherFunction([&] {
    std::optional<Divergence> Why = valueOf(Value, F, 0);
    if (!Why)
      Why = controlOf(At, F, 0);
    return Why;
  });
}


} // namespace analysis
} // namespace mpilift
