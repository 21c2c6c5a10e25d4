//===- UniformityRoundTrip.cpp - Values packed, broadcast, unpacked -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Input read by one process reaches the others through an array that a
/// broadcast carries (HPL_pdinfo, and most codes that read a parameter
/// file):
///
///   if (rank == 0) { nb = ...; order = ...;
///                    buf[0] = nb; buf[1] = (order == ROW ? 0 : 1); }
///   MPI_Bcast(buf, 2, MPI_INT, 0, comm);
///   if (rank != 0) { nb = buf[0]; order = (buf[1] == 0 ? ROW : COL); }
///
/// Afterwards `nb` and `order` hold the root's values everywhere: the root
/// keeps its own, and the others decode what the root encoded. No write of
/// them runs on every rank, so each write alone proves nothing; the round
/// trip as a whole does, when the shape is exactly this one: the three
/// statements follow each other in one block (nothing between them writes
/// the value or the array, nothing jumps into or out of them, no loop holds
/// them), the conditions test the rank in the broadcast's communicator
/// against its root, the element packed is the element unpacked and the
/// broadcast carries it, and decoding undoes encoding for every value the
/// root may hold (a copy of the same type, or constants the program
/// assigns, tried one by one).
///
//===----------------------------------------------------------------------===//

#include "CollectiveFunctions.h"
#include "RankUniformity.h"
#include "ReachingWrites.h"
#include "StatementTree.h"

#include "mpilift/Analysis/LibraryHeaders.h"
#include "mpilift/Analysis/MPICalls.h"
#include "mpilift/Analysis/ManualCollective.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// `buf[k]` with `buf` a local array, or a local pointer (to memory the
/// function allocates: freshAllocation), and `k` an integer constant.
struct Element {
  const VarDecl *Array = nullptr;
  int64_t Index = 0;
  const ArraySubscriptExpr *Expr = nullptr;
};

/// The type of the elements of \p Array, a local array or pointer.
QualType elementType(const VarDecl *Array, const ASTContext &Ctx) {
  if (const auto *Type = Ctx.getAsConstantArrayType(Array->getType()))
    return Type->getElementType();
  return Array->getType()->getPointeeType();
}

std::optional<Element> constantElement(const clang::Expr *E,
                                       const ASTContext &Ctx) {
  const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!Sub)
    return std::nullopt;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Sub->getBase()->IgnoreParenImpCasts());
  const auto *Array = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Array || !Array->hasLocalStorage() || isa<ParmVarDecl>(Array) ||
      (!Ctx.getAsConstantArrayType(Array->getType()) &&
       !Array->getType()->isPointerType()))
    return std::nullopt;
  std::optional<llvm::APSInt> K = Sub->getIdx()->getIntegerConstantExpr(Ctx);
  if (!K)
    return std::nullopt;
  return Element{Array, K->getExtValue(), Sub};
}

/// The one constant element of a local array \p E reads, if it reads
/// exactly one array element.
std::optional<Element> elementRead(const clang::Expr *E,
                                   const ASTContext &Ctx) {
  std::optional<Element> Found;
  bool Several = false;
  findFirst(E, [&](const Stmt *S) {
    if (!isa<ArraySubscriptExpr>(S))
      return false;
    std::optional<Element> El = constantElement(cast<clang::Expr>(S), Ctx);
    Several |= !El || Found.has_value();
    Found = El;
    return Several;
  });
  if (Several)
    return std::nullopt;
  return Found;
}

/// `r == R` (or `R == r`, `!r` for root 0): the rank variable and the
/// root expression; with \p Negated, `r != R` (or `r` alone).
struct RankTest {
  const VarDecl *Rank = nullptr;
  const clang::Expr *Root = nullptr; ///< Null: the constant 0.
};

std::optional<RankTest> rankTest(const clang::Expr *Cond, bool Negated) {
  Cond = Cond->IgnoreParenImpCasts();
  auto variable = [](const clang::Expr *E) -> const VarDecl * {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  };
  if (const auto *Op = dyn_cast<BinaryOperator>(Cond)) {
    if (Op->getOpcode() != (Negated ? BO_NE : BO_EQ))
      return std::nullopt;
    if (const VarDecl *R = variable(Op->getLHS()))
      return RankTest{R, Op->getRHS()};
    if (const VarDecl *R = variable(Op->getRHS()))
      return RankTest{R, Op->getLHS()};
    return std::nullopt;
  }
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond)) {
    if (Negated || Not->getOpcode() != UO_LNot)
      return std::nullopt;
    if (const VarDecl *R = variable(Not->getSubExpr()))
      return RankTest{R, nullptr};
    return std::nullopt;
  }
  if (Negated)
    if (const VarDecl *R = variable(Cond))
      return RankTest{R, nullptr};
  return std::nullopt;
}

/// The `if` whose then-branch holds the statement \p S at its top level
/// (directly or in its compound statement), and the block holding that
/// `if`; nothing when \p S sits anywhere else.
std::pair<const IfStmt *, const CompoundStmt *> guardingIf(const Stmt *S,
                                                           ASTContext &Ctx) {
  const Stmt *Child = S;
  const Stmt *Parent = parentStmt(*S, Ctx);
  if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Parent)) {
    Child = Body;
    Parent = parentStmt(*Body, Ctx);
  }
  const auto *If = dyn_cast_or_null<IfStmt>(Parent);
  if (!If || If->getThen() != Child || If->getElse() || If->getInit() ||
      If->getConditionVariable())
    return {nullptr, nullptr};
  return {If, dyn_cast_or_null<CompoundStmt>(parentStmt(*If, Ctx))};
}

/// The statements of an `if`'s then-branch, at its top level.
llvm::SmallVector<const Stmt *, 8> thenStatements(const IfStmt *If) {
  if (const auto *Body = dyn_cast<CompoundStmt>(If->getThen()))
    return llvm::SmallVector<const Stmt *, 8>(Body->body_begin(),
                                              Body->body_end());
  return {If->getThen()};
}


bool jumpsOrLabels(const Stmt *S) {
  return findFirst(S, [](const Stmt *X) {
    return isa<GotoStmt, IndirectGotoStmt, LabelStmt, ReturnStmt, BreakStmt,
               ContinueStmt, CXXThrowExpr, SwitchCase>(X);
  });
}

/// The integer constants \p E may give: a constant, or a conditional whose
/// arms give constants (`atoi(s) == 1 ? COL : ROW`).
bool constantsOf(const clang::Expr *E, const ASTContext &Ctx,
                 llvm::SmallVectorImpl<int64_t> &Out) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E))
    return constantsOf(Cond->getTrueExpr(), Ctx, Out) &&
           constantsOf(Cond->getFalseExpr(), Ctx, Out);
  if (E->isValueDependent() || !E->getType()->isIntegralOrEnumerationType())
    return false;
  std::optional<llvm::APSInt> K = E->getIntegerConstantExpr(Ctx);
  if (!K)
    return false;
  Out.push_back(K->getExtValue());
  return true;
}

/// Whether the roots \p A and \p B (null: the constant 0) are the same
/// constant or the same variable.
bool sameRootExpr(const clang::Expr *A, const clang::Expr *B,
                  const ASTContext &Ctx) {
  std::optional<llvm::APSInt> KA =
      A ? A->getIntegerConstantExpr(Ctx) : llvm::APSInt::get(0);
  std::optional<llvm::APSInt> KB =
      B ? B->getIntegerConstantExpr(Ctx) : llvm::APSInt::get(0);
  if (KA && KB)
    return llvm::APSInt::compareValues(*KA, *KB) == 0;
  const auto *RA =
      A ? dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts()) : nullptr;
  const auto *RB =
      B ? dyn_cast<DeclRefExpr>(B->IgnoreParenImpCasts()) : nullptr;
  return RA && RB && RA->getDecl() == RB->getDecl();
}

/// Whether one of \p Writes runs on the root before the packing \p Pack
/// (in the `if` \p PackIf of the block \p Body) on every path: a
/// statement at the top of an earlier `if` of the same block that tests
/// the root alike (\p Root), or of \p PackIf itself, that no jump before
/// it in its branch may pass, with no label between it and the packing
/// that a jump could enter by.
bool writtenFirstOnRoot(llvm::ArrayRef<Write> Writes, const RankTest &Root,
                        llvm::ArrayRef<Stmt *> Body, const IfStmt *PackIf,
                        const Stmt *Pack, ASTContext &Ctx) {
  auto Labels = [](const Stmt *S) {
    return findFirst(S, [](const Stmt *X) {
             return isa<LabelStmt, SwitchCase>(X);
           }) != nullptr;
  };
  for (const Write &W : Writes) {
    if (W.Kind != WriteKind::Assign && W.Kind != WriteKind::Init)
      continue;
    const IfStmt *If = guardingIf(W.Where, Ctx).first;
    std::optional<RankTest> Test =
        If ? rankTest(If->getCond(), /*Negated=*/false) : std::nullopt;
    auto From = llvm::find(Body, If), To = llvm::find(Body, PackIf);
    if (!Test || Test->Rank != Root.Rank ||
        !sameRootExpr(Test->Root, Root.Root, Ctx) || From == Body.end() ||
        To == Body.end() || From > To)
      continue;
    bool Clear = true;
    for (const Stmt *S : thenStatements(If)) {
      if (S == W.Where)
        break;
      Clear &= !jumpsOrLabels(S);
    }
    for (auto It = From; It != To && Clear; ++It)
      Clear &= !Labels(*It);
    for (const Stmt *S : thenStatements(PackIf)) {
      if (S == Pack)
        break;
      Clear &= !Labels(S);
    }
    if (Clear)
      return true;
  }
  return false;
}


/// Whether the buffer \p E starts at the first element of \p Array:
/// `buf`, `&buf[0]` or `(void *)iwork`.
bool startsAt(const clang::Expr *E, const VarDecl *Array) {
  E = E->IgnoreParenCasts();
  if (const auto *Addr = dyn_cast<UnaryOperator>(E);
      Addr && Addr->getOpcode() == UO_AddrOf)
    if (const auto *Sub =
            dyn_cast<ArraySubscriptExpr>(Addr->getSubExpr()->IgnoreParens())) {
      const auto *Zero =
          dyn_cast<IntegerLiteral>(Sub->getIdx()->IgnoreParenImpCasts());
      if (!Zero || Zero->getValue() != 0)
        return false;
      E = Sub->getBase()->IgnoreParenCasts();
    }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  return Ref && Ref->getDecl() == Array;
}

/// In a unit's summary: the argument of \p Call that is the start of the
/// array of \p El, when \p Call calls a function of the program that
/// another unit defines (whose summary says whether it is a broadcast).
std::optional<unsigned> deferrableBroadcast(const CallExpr *Call,
                                            const Element &El,
                                            TranslationUnitFacts &TU) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || mpiCallee(Call) || isa<CXXOperatorCallExpr>(Call) ||
      Callee->hasBody() ||
      LibraryHeaders(TU.context()).contain(Callee->getLocation()))
    return std::nullopt;
  for (unsigned I = 0; I < Call->getNumArgs(); ++I)
    if (startsAt(Call->getArg(I), El.Array))
      return I;
  return std::nullopt;
}

/// Whether \p E allocates fresh memory: `malloc(n)` or `calloc(n, s)`,
/// casts aside.
bool isFreshAllocation(const clang::Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenCasts());
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->getIdentifier() &&
         (Callee->getName() == "malloc" || Callee->getName() == "calloc");
}

/// Whether \p Sub, an element of an array, is written or has its address
/// taken where it stands (an operand it is not only read as).
bool isWrittenElement(const ArraySubscriptExpr *Sub, ASTContext &Ctx) {
  const Stmt *Child = nullptr;
  const Stmt *Parent = parentPastParens(*Sub, Ctx, &Child);
  if (const auto *Op = dyn_cast_or_null<BinaryOperator>(Parent))
    return Op->isAssignmentOp() && Op->getLHS()->IgnoreParens() == Sub;
  if (const auto *Op = dyn_cast_or_null<UnaryOperator>(Parent))
    return Op->isIncrementDecrementOp() || Op->getOpcode() == UO_AddrOf;
  return !isOnlyLoaded(*Sub, Ctx);
}

/// Whether \p S starts after \p From and before \p To.
bool startsBetween(const Stmt *S, SourceLocation From, SourceLocation To,
                   const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation L = SM.getExpansionLoc(S->getBeginLoc());
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(From), L) &&
         SM.isBeforeInTranslationUnit(L, SM.getExpansionLoc(To));
}

/// The first expression between \p From and \p To in \p F that may write
/// memory an alias of \p Array could reach: a call other than the
/// broadcast \p Bcast, or a write of anything but a local variable, an
/// element of \p Array, or what a parameter points or refers to (memory
/// the caller had before \p Array's existed); null when there is none.
const Stmt *effectBetween(const FunctionDecl &F, const CallExpr *Bcast,
                          const VarDecl *Array, SourceLocation From,
                          SourceLocation To, ASTContext &Ctx) {
  auto Within = [&](const Stmt *S) { return startsBetween(S, From, To, Ctx); };
  auto InBroadcast = [&](const Stmt *S) {
    return findFirst(Bcast, [&](const Stmt *X) { return X == S; }) != nullptr;
  };
  auto Named = [](const clang::Expr *E) -> const VarDecl * {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  };
  auto Harmless = [&](const clang::Expr *Target) {
    Target = Target->IgnoreParenImpCasts();
    if (const VarDecl *V = Named(Target))
      return isa<ParmVarDecl>(V) ||
             (V->hasLocalStorage() && !V->getType()->isReferenceType());
    const clang::Expr *Base = nullptr;
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Target))
      Base = Sub->getBase();
    else if (const auto *Deref = dyn_cast<UnaryOperator>(Target);
             Deref && Deref->getOpcode() == UO_Deref)
      Base = Deref->getSubExpr();
    const VarDecl *V = Base ? Named(Base) : nullptr;
    return V && (V == Array || isa<ParmVarDecl>(V));
  };
  return findFirst(F.getBody(), [&](const Stmt *S) {
    if (!Within(S) || S == Bcast || InBroadcast(S))
      return false;
    if (isa<CallExpr>(S))
      return true;
    if (const auto *Op = dyn_cast<BinaryOperator>(S))
      return Op->isAssignmentOp() && !Harmless(Op->getLHS());
    if (const auto *Op = dyn_cast<UnaryOperator>(S))
      return Op->isIncrementDecrementOp() && !Harmless(Op->getSubExpr());
    return false;
  });
}

/// For a round trip through a local pointer: the first use of \p Array
/// that may change the element \p El between \p From and \p To, or
/// through which the memory it points to may be reached another way (its
/// value copied, handed to a function other than the broadcast \p Bcast
/// and `free` where something between \p From and \p To may write what
/// it reaches (effectBetween), an element's address taken); null when
/// there is none. The pointer may only be null or point to memory the
/// function allocates.
const Stmt *pointerArrayChange(const Element &El, const FunctionFacts &Facts,
                               const CallExpr *Bcast, SourceLocation From,
                               SourceLocation To, ASTContext &Ctx) {
  auto Within = [&](const Stmt *S) { return startsBetween(S, From, To, Ctx); };
  bool EffectsBetween = effectBetween(Facts.function(), Bcast, El.Array, From,
                                      To, Ctx) != nullptr;
  for (const Write &W : Facts.writesOf(El.Array)) {
    bool Fresh = (W.Kind == WriteKind::Assign || W.Kind == WriteKind::Init) &&
                 W.Value &&
                 (isFreshAllocation(W.Value) ||
                  W.Value->isNullPointerConstant(
                      Ctx, clang::Expr::NPC_ValueDependentIsNotNull));
    if (!Fresh || Within(W.Where))
      return W.Where;
  }
  for (const DeclRefExpr *Ref : Facts.referencesOf(El.Array)) {
    const Stmt *Child = nullptr;
    const Stmt *Parent = parentPastParens(*Ref, Ctx, &Child);
    if (const auto *Op = dyn_cast_or_null<BinaryOperator>(Parent);
        Op && Op->getOpcode() == BO_Assign && Op->getLHS() == Child)
      continue; // The allocations judged above.
    const auto *Load = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    if (!Load || Load->getCastKind() != CK_LValueToRValue)
      return Ref;
    const Stmt *Use = Load;
    Parent = parentPastParens(*Load, Ctx, &Child);
    while (const auto *Cast = dyn_cast_or_null<CastExpr>(Parent)) {
      Use = Cast; // `(void *)iwork`
      Parent = parentPastParens(*Cast, Ctx, &Child);
    }
    if (const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Parent)) {
      if (Sub->getBase()->IgnoreParens() != Child)
        continue; // The pointer is the index: a read.
      if (!isWrittenElement(Sub, Ctx))
        continue;
      std::optional<Element> Other = constantElement(Sub, Ctx);
      auto *Addr = dyn_cast_or_null<UnaryOperator>(parentPastParens(*Sub, Ctx));
      if ((Addr && Addr->getOpcode() == UO_AddrOf) ||
          (Within(Sub) && (!Other || Other->Index == El.Index)))
        return Sub;
      continue;
    }
    if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Call == Bcast ||
          (Callee && Callee->getIdentifier() && Callee->getName() == "free"))
        continue;
      // Handed on elsewhere (HPL's second broadcast of `iwork`): a copy
      // the callee may keep is written only by code that runs, and what
      // runs between packing and unpacking writes nothing it may reach.
      if (!Within(Call) && !EffectsBetween)
        continue;
      return Use;
    }
    // Tested: `if (p)`, `!p`, `p == NULL`.
    if (isa_and_nonnull<IfStmt>(Parent))
      continue;
    if (const auto *Op = dyn_cast_or_null<UnaryOperator>(Parent);
        Op && Op->getOpcode() == UO_LNot)
      continue;
    if (const auto *Op = dyn_cast_or_null<BinaryOperator>(Parent);
        Op && Op->isEqualityOp())
      continue;
    return Use;
  }
  return nullptr;
}

} // namespace

std::optional<int64_t> evaluateWith(const clang::Expr *E, const ASTContext &Ctx,
                                    const TripValue *V, int64_t VValue,
                                    const ArraySubscriptExpr *El,
                                    int64_t ElValue) {
  E = E->IgnoreParens();
  if (const auto *Cast = dyn_cast<CastExpr>(E)) {
    if (!Cast->getType()->isIntegralOrEnumerationType() ||
        !Cast->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    std::optional<int64_t> Sub =
        evaluateWith(Cast->getSubExpr(), Ctx, V, VValue, El, ElValue);
    if (!Sub)
      return std::nullopt;
    llvm::APSInt Wide(llvm::APInt(64, uint64_t(*Sub), true), false);
    unsigned Bits = Ctx.getIntWidth(Cast->getType());
    llvm::APSInt Narrow = Wide.extOrTrunc(Bits);
    Narrow.setIsUnsigned(Cast->getType()->isUnsignedIntegerOrEnumerationType());
    return Narrow.getExtValue();
  }
  if (E == El)
    return ElValue;
  if (V && V->isRead(E))
    return VValue;
  if (!E->isValueDependent())
    if (std::optional<llvm::APSInt> K = E->getIntegerConstantExpr(Ctx))
      return K->getExtValue();
  auto eval = [&](const clang::Expr *Sub) {
    return evaluateWith(Sub, Ctx, V, VValue, El, ElValue);
  };
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E)) {
    std::optional<int64_t> C = eval(Cond->getCond());
    if (!C)
      return std::nullopt;
    return eval(*C ? Cond->getTrueExpr() : Cond->getFalseExpr());
  }
  if (const auto *Not = dyn_cast<UnaryOperator>(E)) {
    std::optional<int64_t> Sub = eval(Not->getSubExpr());
    if (!Sub)
      return std::nullopt;
    switch (Not->getOpcode()) {
    case UO_LNot:
      return int64_t(!*Sub);
    case UO_Minus:
      return -*Sub;
    case UO_Plus:
      return *Sub;
    default:
      return std::nullopt;
    }
  }
  const auto *Op = dyn_cast<BinaryOperator>(E);
  if (!Op)
    return std::nullopt;
  std::optional<int64_t> A = eval(Op->getLHS()), B = eval(Op->getRHS());
  if (!A || !B)
    return std::nullopt;
  switch (Op->getOpcode()) {
  case BO_EQ:
    return int64_t(*A == *B);
  case BO_NE:
    return int64_t(*A != *B);
  case BO_LT:
    return int64_t(*A < *B);
  case BO_LE:
    return int64_t(*A <= *B);
  case BO_GT:
    return int64_t(*A > *B);
  case BO_GE:
    return int64_t(*A >= *B);
  case BO_LAnd:
    return int64_t(*A && *B);
  case BO_LOr:
    return int64_t(*A || *B);
  case BO_Add:
    return *A + *B;
  case BO_Sub:
    return *A - *B;
  default:
    return std::nullopt;
  }
}


bool TripValue::isRead(const clang::Expr *E) const {
  E = E->IgnoreParenImpCasts();
  auto isDecl = [&](const clang::Expr *X) {
    const auto *Ref = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Decl;
  };
  if (!Pointee)
    return isDecl(E);
  if (const auto *Deref = dyn_cast<UnaryOperator>(E))
    return Deref->getOpcode() == UO_Deref && isDecl(Deref->getSubExpr());
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
    const auto *Zero = dyn_cast<IntegerLiteral>(Sub->getIdx()->IgnoreParens());
    return Zero && Zero->getValue() == 0 && isDecl(Sub->getBase());
  }
  return false;
}

QualType TripValue::type() const {
  QualType T = Decl->getType();
  return Pointee || T->isReferenceType() ? T->getPointeeType() : T;
}

std::string TripValue::name() const {
  return Pointee ? "'*" + Decl->getNameAsString() + "'" : named(Decl);
}

RankUniformity::RoundTrip RankUniformity::roundTrip(const VarDecl *V,
                                                    SourceLocation Use,
                                                    const FunctionDecl &Where,
                                                    unsigned Depth) {
  if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || Use.isInvalid() ||
      !V->getType()->isIntegralOrEnumerationType())
    return RoundTrip();
  return roundTripOf(TripValue{V, false}, TU.factsOf(Where).writesOf(V), Use,
                     Where, Depth);
}

RankUniformity::RoundTrip
RankUniformity::pointeeRoundTrip(const ParmVarDecl *P,
                                 llvm::ArrayRef<Write> Writes,
                                 const FunctionDecl &F, unsigned Depth) {
  TripValue V{P, !P->getType()->isReferenceType()};
  if (!V.type()->isIntegralOrEnumerationType() || !F.getBody())
    return RoundTrip();
  RoundTrip Out = roundTripOf(V, Writes, F.getBody()->getEndLoc(), F, Depth);
  if (!Out.Found || Out.Why)
    return Out;
  // The caller reads the value after any return: the round trip must lie
  // in the body itself, with no return before it ends.
  if (Out.Block != F.getBody() ||
      leavesBetween(F.getBody()->getBeginLoc(), Out.End, F)) {
    Out.Why = Divergence{V.name() +
                             " reaches the other ranks through a "
                             "broadcast that not every return of '" +
                             F.getNameAsString() + "' comes after",
                         Out.End};
    Out.Covered.clear();
  }
  return Out;
}

RankUniformity::RoundTrip
RankUniformity::roundTripOf(const TripValue &V, llvm::ArrayRef<Write> Writes,
                            SourceLocation Use, const FunctionDecl &Where,
                            unsigned Depth) {
  RoundTrip Out;
  ASTContext &Ctx = TU.context();
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionFacts &Facts = TU.factsOf(Where);
  auto before = [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                        SM.getExpansionLoc(B));
  };
  auto fail = [&](std::string Why, SourceLocation Loc) {
    Out.Why = Divergence{
        V.name() + " reaches the other ranks through " + std::move(Why), Loc};
    return Out;
  };

  // The unpacking: `V = D(buf[k])`, alone in the then-branch of an `if`
  // that leaves the root out.
  unsigned Unpack = Writes.size();
  std::optional<Element> El;
  const IfStmt *UnpackIf = nullptr;
  const CompoundStmt *Block = nullptr;
  std::optional<RankTest> Others;
  for (unsigned I = 0; I < Writes.size() && !UnpackIf; ++I) {
    const Write &W = Writes[I];
    if (W.Kind != WriteKind::Assign || !W.Value)
      continue;
    std::optional<Element> Read = elementRead(W.Value, Ctx);
    if (!Read)
      continue;
    auto [If, Holder] = guardingIf(W.Where, Ctx);
    std::optional<RankTest> Test =
        If ? rankTest(If->getCond(), /*Negated=*/true) : std::nullopt;
    if (!Test || !Holder)
      continue;
    Unpack = I;
    El = Read;
    UnpackIf = If;
    Block = Holder;
    Others = Test;
  }
  if (!UnpackIf)
    return Out; // No round trip here.
  const Write &Unpacked = Writes[Unpack];
  Out.Found = true;
  Out.Unpack = Unpack;
  Out.Block = Block;
  Out.End = UnpackIf->getEndLoc();

  // The broadcast of the array before it, and the packing before that, in
  // the same block.
  llvm::ArrayRef<Stmt *> Body(Block->body_begin(), Block->body_end());
  auto At = llvm::find(Body, UnpackIf);
  std::optional<BroadcastCall> BC;
  // In a unit's summary: a call of another unit's function that passes the
  // array, left to the reader (AssumedBroadcast).
  const CallExpr *Deferred = nullptr;
  unsigned DeferredBuffer = 0;
  const IfStmt *PackIf = nullptr;
  const Stmt *Pack = nullptr;
  const clang::Expr *Encoded = nullptr;
  for (auto It = At; It != Body.begin() && !PackIf;) {
    const Stmt *S = *--It;
    if (!BC && !Deferred) {
      findFirst(S, [&](const Stmt *X) {
        const auto *Call = dyn_cast<CallExpr>(X);
        if (Call)
          BC = broadcastCallOf(Call, TU);
        if (BC && bufferBase(BC->Buffer) != El->Array)
          BC.reset();
        if (!BC && Call && AssumedBroadcasts)
          if (std::optional<unsigned> At = deferrableBroadcast(Call, *El, TU)) {
            Deferred = Call;
            DeferredBuffer = *At;
          }
        return BC || Deferred;
      });
      continue;
    }
    const auto *If = dyn_cast<IfStmt>(S);
    std::optional<RankTest> Root =
        If && !If->getElse() ? rankTest(If->getCond(), /*Negated=*/false)
                             : std::nullopt;
    if (!Root || Root->Rank != Others->Rank)
      continue;
    for (const Stmt *T : thenStatements(If)) {
      const auto *Assign = dyn_cast<BinaryOperator>(T);
      std::optional<Element> Into = Assign && Assign->getOpcode() == BO_Assign
                                        ? constantElement(Assign->getLHS(), Ctx)
                                        : std::nullopt;
      if (Into && Into->Array == El->Array && Into->Index == El->Index) {
        PackIf = If;
        Pack = T;
        Encoded = Assign->getRHS();
      }
    }
  }
  if (!BC && !Deferred)
    return fail("'" + El->Array->getNameAsString() +
                    "', which no broadcast in the same block carries "
                    "(MPI_Bcast, or a function of the program that is one)",
                Unpacked.Where->getBeginLoc());
  const CallExpr *Bcast = BC ? BC->Call : Deferred;
  if (!PackIf)
    return fail("element " + std::to_string(El->Index) + " of '" +
                    El->Array->getNameAsString() +
                    "', which the root does not fill before the broadcast",
                Bcast->getBeginLoc());
  std::string Through =
      "element " + std::to_string(El->Index) + " of '" +
      El->Array->getNameAsString() + "' and the broadcast " +
      (BC && BC->Through.empty()
           ? ""
           : "by '" + Bcast->getDirectCallee()->getNameAsString() + "' ") +
      "at line " +
      std::to_string(SM.getExpansionLineNumber(Bcast->getBeginLoc()));
  SourceLocation BcastLoc = Bcast->getBeginLoc();

  // The root is the one process the packing runs on and the one the
  // unpacking leaves out, and the broadcast's.
  std::optional<RankTest> Root = rankTest(PackIf->getCond(), false);
  auto sameRoot = [&](const clang::Expr *A, const clang::Expr *B) {
    return sameRootExpr(A, B, Ctx);
  };
  std::optional<llvm::APSInt> RootConstant =
      Root->Root ? Root->Root->getIntegerConstantExpr(Ctx)
                 : llvm::APSInt::get(0);
  bool BcastRoot =
      BC ? (BC->Root ? sameRoot(Root->Root, BC->Root)
                     : RootConstant && BC->RootConstant &&
                           RootConstant->getExtValue() == *BC->RootConstant)
         : RootConstant.has_value(); // The reader compares the constants.
  if (!sameRoot(Root->Root, Others->Root) || !BcastRoot)
    return fail(Through + ", whose root may not be the process that packs "
                          "it and the one that does not unpack it",
                BcastLoc);
  if (Root->Root)
    if (auto Why = valueOf(Root->Root, Where, Depth))
      return fail(Through +
                      ", whose root may differ between ranks: " + Why->Reason,
                  BcastLoc);
  // The broadcast carries the element, of the array's own type (a
  // pointer's memory must hold the count, or the broadcast itself would
  // run past it).
  const auto *Array = Ctx.getAsConstantArrayType(El->Array->getType());
  QualType ElementType = elementType(El->Array, Ctx);
  std::optional<QueryValue> RankOf = queryValueOf(Root->Rank, Where, TU);
  auto isRankComm = [&](const clang::Expr *Comm) {
    return RankOf && RankOf->Query == CommQuery::Rank &&
           RankOf->Comm == followedCommKey(Comm, Where, TU);
  };
  // MPI_Bcast, or a function of the program proven one.
  auto carries = [&]() -> std::optional<Divergence> {
    for (const clang::Expr *Arg : BC->MustAgree)
      if (auto Why = valueOf(Arg, Where, Depth))
        return Divergence{"which is a broadcast only where its argument '" +
                              sourceText(Arg, Ctx) +
                              "' is the same on every rank, which it may not "
                              "be: " +
                              Why->Reason,
                          Arg->getBeginLoc()};
    if (!isRankComm(BC->Comm))
      return Divergence{"but '" + Root->Rank->getNameAsString() +
                            "' is not proven the rank in the broadcast's "
                            "communicator",
                        BcastLoc};
    if (!spansTheProof(BC->Comm, Where))
      return Divergence{"which makes it the same only on the processes of "
                        "its communicator, which may be fewer than those it "
                        "must agree on",
                        BcastLoc};
    const PredefinedDatatype *Type = BC->Type;
    std::optional<int64_t> Count = BC->CountConstant;
    if (BC->Count)
      if (std::optional<llvm::APSInt> K =
              BC->Count->getIntegerConstantExpr(Ctx))
        Count = K->getExtValue();
    if (!Type || !Ctx.hasSameUnqualifiedType(Ctx.*(Type->Type), ElementType) ||
        !startsAt(BC->Buffer, El->Array) || !Count || *Count <= El->Index ||
        El->Index < 0 ||
        (Array &&
         static_cast<uint64_t>(El->Index) >= Array->getSize().getZExtValue()))
      return Divergence{"which may not carry that element (its buffer must "
                        "start at the array, its count be a constant past "
                        "the element, its datatype the array's element type)",
                        BcastLoc};
    return std::nullopt;
  };
  // A function of another unit: what the reader needs to judge the call.
  auto defer = [&]() -> std::optional<Divergence> {
    AssumedBroadcast B;
    B.Function = functionKey(*Deferred->getDirectCallee());
    B.Buffer = DeferredBuffer;
    B.Root = RootConstant->getExtValue();
    B.Index = El->Index;
    B.Element = ElementType.getCanonicalType().getUnqualifiedType().getAsString(
        Ctx.getPrintingPolicy());
    if (B.Function.empty() || El->Index < 0 ||
        (Array &&
         static_cast<uint64_t>(El->Index) >= Array->getSize().getZExtValue()))
      return Divergence{"which may not carry that element", BcastLoc};
    for (const clang::Expr *Arg : Deferred->arguments()) {
      AssumedBroadcast::Argument A;
      if (!Arg->isValueDependent())
        if (std::optional<llvm::APSInt> K = Arg->getIntegerConstantExpr(Ctx))
          A.Constant = K->getExtValue();
      A.Uniform = !valueOf(Arg, Where, Depth);
      A.RankComm = isRankComm(Arg) && spansTheProof(Arg, Where);
      if (const PredefinedDatatype *Type = predefinedTypeOf(Arg, Ctx))
        A.Datatype = Type->MPIName.str();
      B.Arguments.push_back(A);
    }
    AssumedBroadcasts->push_back(std::move(B));
    return std::nullopt;
  };
  if (auto Why = Deferred ? defer() : carries())
    return fail(Through + ", " + Why->Reason, Why->Loc);

  // Nothing jumps into or out of the round trip, and no loop holds it.
  auto First = llvm::find(Body, PackIf), Last = At;
  for (auto It = First; It != Last + 1; ++It)
    if (jumpsOrLabels(*It))
      return fail(Through + ", which a jump may leave or enter",
                  (*It)->getBeginLoc());
  bool LabelAfter = findFirst(Where.getBody(), [&](const Stmt *X) {
    return isa<LabelStmt>(X) &&
           before(PackIf->getBeginLoc(), X->getBeginLoc()) &&
           before(X->getBeginLoc(), Use);
  });
  if (LabelAfter || !runsWithItsStatement(Bcast, Where, Ctx))
    return fail(Through + ", which may not run on every process that "
                          "reaches the read (a label or loop around it)",
                BcastLoc);
  if (!before(UnpackIf->getEndLoc(), Use))
    return fail(Through + ", which does not come before this read", Use);

  // The root's value stays as packed, and the others' as unpacked: the
  // value's other writes all come before the packing.
  for (unsigned I = 0; I < Writes.size(); ++I) {
    if (I == Unpack)
      continue;
    if (!before(Writes[I].Where->getEndLoc(), Pack->getBeginLoc()))
      return fail(Through + ", but it is written again after the root "
                            "packs it",
                  Writes[I].Where->getBeginLoc());
  }
  if (!Array)
    if (const Stmt *Change =
            pointerArrayChange(*El, Facts, Bcast, Pack->getEndLoc(),
                               Unpacked.Where->getEndLoc(), Ctx))
      return fail(Through + ", but '" + El->Array->getNameAsString() +
                      "' may change between the packing and the unpacking, "
                      "or its memory be reached another way",
                  Change->getBeginLoc());
  const Stmt *Effect =
      Array ? effectBetween(Where, Bcast, El->Array, Pack->getEndLoc(),
                            Unpacked.Where->getEndLoc(), Ctx)
            : nullptr;
  for (const Write &W : Facts.writesOf(El->Array)) {
    if (!Array)
      break; // Judged above.
    bool Between = before(Pack->getEndLoc(), W.Where->getBeginLoc()) &&
                   before(W.Where->getBeginLoc(), Unpacked.Where->getEndLoc());
    if (W.Kind == WriteKind::AddressPass && W.Call == Bcast)
      continue;
    // Its address handed out elsewhere: what runs between the packing and
    // the unpacking must write nothing such a copy may reach.
    if (!Between && Effect &&
        (W.Kind == WriteKind::AddressPass || W.Kind == WriteKind::Escape))
      return fail(Through + ", but '" + El->Array->getNameAsString() +
                      "' may be reached another way, and something "
                      "between the packing and the unpacking may write it",
                  Effect->getBeginLoc());
    if (!Between)
      continue;
    if (W.Kind == WriteKind::Element) {
      // A read of an element writes none; a write of another constant
      // element (the other parameters' packing) leaves this one.
      const Stmt *Parent = parentStmt(*W.Where, Ctx);
      const auto *Assign = dyn_cast_or_null<BinaryOperator>(Parent);
      bool Written = (Assign && Assign->isAssignmentOp() &&
                      Assign->getLHS()->IgnoreParens() == W.Where) ||
                     isa_and_nonnull<UnaryOperator>(Parent);
      std::optional<Element> Other =
          constantElement(cast<clang::Expr>(W.Where), Ctx);
      if (!Written || (Other && Other->Index != El->Index))
        continue;
    }
    return fail(Through + ", but '" + El->Array->getNameAsString() +
                    "' changes between the packing and the unpacking",
                W.Where->getBeginLoc());
  }

  // Decoding undoes encoding for every value the root may hold.
  const Stmt *Packed = findFirst(Encoded, [&](const Stmt *X) {
    const auto *E = dyn_cast<clang::Expr>(X);
    return E && V.isRead(E);
  });
  if (!Packed)
    return fail(Through + ", but the root packs another value there",
                Pack->getBeginLoc());
  const clang::Expr *Decoded = Unpacked.Value;
  bool Copy = V.isRead(Encoded) && Decoded->IgnoreParenImpCasts() == El->Expr &&
              Ctx.hasSameUnqualifiedType(V.type(), ElementType);
  if (!Copy) {
    // The constants tried are all the root may hold only where one of
    // them is written on every path to the packing: else the value it
    // had before (the caller's, or none) may be packed.
    std::optional<Reach> Reaching =
        TU.reachingWritesOf(Where).reaching(Writes, *Packed);
    // The graph does not know that two tests of the rank agree.
    if (!Reaching ||
        (Reaching->FromEntry &&
         !writtenFirstOnRoot(Writes, *Root, Body, PackIf, Pack, Ctx)))
      return fail(Through +
                      ", encoded and decoded, and on some path the "
                      "root packs it without writing it first (the "
                      "value it had when '" +
                      Where.getNameAsString() + "' began)",
                  Pack->getBeginLoc());
    llvm::SmallVector<int64_t, 4> Values;
    for (unsigned I = 0; I < Writes.size(); ++I)
      if (I != Unpack &&
          (!Writes[I].Value || !constantsOf(Writes[I].Value, Ctx, Values) ||
           (Writes[I].Kind != WriteKind::Assign &&
            Writes[I].Kind != WriteKind::Init)))
        return fail(Through + ", encoded and decoded, and the values the "
                              "root may hold are not all constants to try",
                    Writes[I].Where->getBeginLoc());
    if (Values.empty())
      return fail(Through + ", encoded and decoded, and the root gives it "
                            "no value to try",
                  Pack->getBeginLoc());
    for (int64_t Value : Values) {
      std::optional<int64_t> Sent =
          evaluateWith(Encoded, Ctx, &V, Value, nullptr, 0);
      std::optional<int64_t> Back =
          Sent ? evaluateWith(Decoded, Ctx, nullptr, 0, El->Expr, *Sent)
               : std::nullopt;
      if (!Back || *Back != Value)
        return fail(Through + ", but decoding does not give back the value " +
                        std::to_string(Value) + " the root may hold",
                    Unpacked.Where->getBeginLoc());
    }
  }
  Out.Why.reset();
  Out.Covered.resize(Writes.size());
  Out.Covered.set(); // Every write comes before the packing, or unpacks.
  return Out;
}

} // namespace analysis
} // namespace mpilift
