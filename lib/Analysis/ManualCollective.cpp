//===- ManualCollective.cpp - Hand-written collectives in the AST ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The recogniser of star-shaped hand-written broadcasts, scatters and
/// gathers, and the safety checks of paper 002 (Algorithms 1-3) plus the
/// argument, ordering and status rules of the rewrite.
///
/// Every proof here is syntactic and local to the translation unit; where
/// it cannot see far enough it refuses and says which statement stopped it.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/ManualCollective.h"

#include "BufferAccess.h"
#include "Fallback.h"
#include "FunctionFacts.h"
#include "RankArithmetic.h"
#include "RankUniformity.h"
#include "RegionFinder.h"
#include "StatementTree.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

using namespace clang;

namespace mpilift {
namespace analysis {

StringRef checkName(SafetyCheck Check) {
  switch (Check) {
  case SafetyCheck::InputIndependence:
    return "input-independence";
  case SafetyCheck::ScaleIndependence:
    return "scale-independence";
  case SafetyCheck::MessageIntegrity:
    return "message-integrity";
  case SafetyCheck::MatchingArguments:
    return "matching-arguments";
  case SafetyCheck::MessageOrder:
    return "message-order";
  case SafetyCheck::StatusUse:
    return "status-use";
  case SafetyCheck::SourceForm:
    return "source-form";
  case SafetyCheck::PollingLoop:
    return "polling-loop";
  }
  llvm_unreachable("unknown safety check");
}

StringRef ruleId(ManualKind Kind) {
  switch (Kind) {
  case ManualKind::Bcast:
    return "mpilift-manual-bcast";
  case ManualKind::Scatter:
    return "mpilift-manual-scatter";
  case ManualKind::Gather:
    return "mpilift-manual-gather";
  case ManualKind::Allgather:
    return "mpilift-manual-allgather";
  case ManualKind::Alltoall:
    return "mpilift-manual-alltoall";
  }
  llvm_unreachable("unknown collective");
}

std::string withArticle(StringRef Noun) {
  bool Vowel = !Noun.empty() && StringRef("aeiou").contains(Noun.front());
  return (Vowel ? "an " : "a ") + Noun.str();
}

StringRef topologyName(ManualTopology Topology) {
  switch (Topology) {
  case ManualTopology::Star:
    return "star";
  case ManualTopology::Ring:
    return "ring";
  case ManualTopology::Chain:
    return "chain";
  case ManualTopology::Tree:
    return "tree";
  case ManualTopology::Exchange:
    return "exchange";
  }
  llvm_unreachable("unknown topology");
}

StringRef collectiveNoun(ManualKind Kind) {
  switch (Kind) {
  case ManualKind::Bcast:
    return "broadcast";
  case ManualKind::Scatter:
    return "scatter";
  case ManualKind::Gather:
    return "gather";
  case ManualKind::Allgather:
    return "allgather";
  case ManualKind::Alltoall:
    return "alltoall";
  }
  llvm_unreachable("unknown collective");
}

std::string sourceText(const Expr *E, const ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Range = SM.getExpansionRange(E->getSourceRange());
  return Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
}

bool writtenAsItself(const Expr *E, const ASTContext &Context) {
  SourceRange Range = E->getSourceRange();
  if (!Range.getBegin().isMacroID() && !Range.getEnd().isMacroID())
    return true;
  return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Range),
                                  Context.getSourceManager(),
                                  Context.getLangOpts())
      .isValid();
}

std::string squeezed(StringRef Text) {
  std::string Out;
  for (char C : Text)
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

namespace {

/// The text \p E is spelled with, for a part of a macro's body the text
/// in the macro's definition.
std::string spellingText(const Expr *E, const ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Begin = SM.getSpellingLoc(E->getBeginLoc());
  SourceLocation End = SM.getSpellingLoc(E->getEndLoc());
  if (SM.getFileID(Begin) != SM.getFileID(End))
    return "";
  return Lexer::getSourceText(CharSourceRange::getTokenRange(Begin, End), SM,
                              Context.getLangOpts())
      .str();
}

/// Whether \p A and \p B are written alike: the same text, and for parts
/// of macro bodies the same part (`TOTAL` in `NSEG` is not `NSEG`).
bool sameSpelling(const Expr *A, const Expr *B, const ASTContext &Context) {
  if (!A || !B ||
      squeezed(sourceText(A, Context)) != squeezed(sourceText(B, Context)))
    return false;
  bool WholeA = writtenAsItself(A, Context);
  if (WholeA != writtenAsItself(B, Context))
    return false;
  return WholeA || squeezed(spellingText(A, Context)) ==
                       squeezed(spellingText(B, Context));
}

/// The same text naming the same declarations.
bool sameArgument(const Expr *A, const Expr *B, const ASTContext &Context) {
  return sameSpelling(A, B, Context) && sameExpression(A, B, Context);
}

std::string quoted(const Expr *E, const ASTContext &Context) {
  return "'" + sourceText(E, Context) + "'";
}

bool isBlockingSend(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  return Info && Info->TheFamily == mpi::Family::BlockingSend;
}

bool isRecv(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  return Info && Info->Id == mpi::FunctionId::Recv;
}

bool isProbe(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  return Info && Info->Id == mpi::FunctionId::Iprobe;
}

bool isPointToPoint(const mpi::FunctionInfo &Info) {
  switch (Info.TheFamily) {
  case mpi::Family::BlockingSend:
  case mpi::Family::NonblockingSend:
  case mpi::Family::BlockingRecv:
  case mpi::Family::NonblockingRecv:
  case mpi::Family::SendRecv:
  case mpi::Family::BlockingProbe:
  case mpi::Family::NonblockingProbe:
  case mpi::Family::PersistentSendInit:
  case mpi::Family::PersistentRecvInit:
    return true;
  default:
    return false;
  }
}

/// Every call expression under \p S, in source order.
template <typename T>
void collectAll(const Stmt *S, SmallVectorImpl<const T *> &Out) {
  if (!S)
    return;
  if (const auto *Node = dyn_cast<T>(S))
    Out.push_back(Node);
  for (const Stmt *Child : S->children())
    collectAll(Child, Out);
}

void collectCalls(const Stmt *S, SmallVectorImpl<const CallExpr *> &Out) {
  collectAll(S, Out);
}

/// Whether \p S is a declaration statement that declares \p V.
bool declares(const Stmt *S, const VarDecl *V) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  return DS && llvm::is_contained(DS->decls(), V);
}

/// Whether \p E is exactly `V`.
bool isVariable(const Expr *E, const VarDecl *V) {
  return E && namedVariable(E) == V;
}

/// Integer value of \p E when it is a constant expression.
std::optional<int64_t> constantValue(const Expr *E, const ASTContext &Context) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  if (std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Context))
    return V->getExtValue();
  return std::nullopt;
}

/// Whether \p A and \p B may have the same value: always, unless both are
/// constants that differ, or variables that differ in name (a conflict
/// check; `TAG` and `7` may be the same tag).
bool mayBeEqual(const Expr *A, const Expr *B, const ASTContext &Context) {
  if (!A || !B)
    return true;
  std::optional<int64_t> X = constantValue(A, Context);
  std::optional<int64_t> Y = constantValue(B, Context);
  if (X && Y)
    return *X == *Y;
  if (X || Y)
    return true;
  return sameSpelling(A, B, Context);
}

/// A per-peer offset `V`, `V*Count` or `Count*V`, spelled with \p Count.
bool isPeerOffset(const Expr *Offset, const VarDecl *V, const Expr *Count,
                  const ASTContext &Context) {
  Offset = Offset->IgnoreParenImpCasts();
  if (isVariable(Offset, V))
    return constantValue(Count, Context) == 1;
  const auto *Mul = dyn_cast<BinaryOperator>(Offset);
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return false;
  if (isVariable(Mul->getLHS(), V))
    return sameArgument(Mul->getRHS(), Count, Context);
  if (isVariable(Mul->getRHS(), V))
    return sameArgument(Mul->getLHS(), Count, Context);
  return false;
}

/// For `base + off`, `off + base` and `&base[off]` with a per-peer offset,
/// the base expression; else null.
const Expr *peerBlockBase(const Expr *Buffer, const VarDecl *V,
                          const Expr *Count, const ASTContext &Context) {
  Buffer = Buffer->IgnoreParenCasts();
  if (const auto *Add = dyn_cast<BinaryOperator>(Buffer)) {
    if (Add->getOpcode() != BO_Add)
      return nullptr;
    const Expr *L = Add->getLHS(), *R = Add->getRHS();
    if (R->getType()->isPointerType())
      std::swap(L, R);
    if (isPeerOffset(R, V, Count, Context) && !mentions(L, V))
      return L->IgnoreParenImpCasts();
    return nullptr;
  }
  if (const auto *Addr = dyn_cast<UnaryOperator>(Buffer)) {
    if (Addr->getOpcode() != UO_AddrOf)
      return nullptr;
    const auto *Sub =
        dyn_cast<ArraySubscriptExpr>(Addr->getSubExpr()->IgnoreParens());
    if (!Sub || !isPeerOffset(Sub->getIdx(), V, Count, Context) ||
        mentions(Sub->getBase(), V))
      return nullptr;
    return Sub->getBase()->IgnoreParenImpCasts();
  }
  return nullptr;
}

/// The element type a pointer or array expression addresses.
QualType elementType(const Expr *Base) {
  QualType T = Base->IgnoreParenImpCasts()->getType();
  if (const auto *Array = T->getAsArrayTypeUnsafe())
    return Array->getElementType();
  if (T->isPointerType())
    return T->getPointeeType();
  return QualType();
}

/// The type of the scalars an object of type \p T is made of, through
/// arrays and pointers (`double[4]`, `double *` -> `double`); a record or
/// anything else is returned as it is.
QualType scalarElementType(QualType T) {
  while (true) {
    if (const auto *Array = T->getAsArrayTypeUnsafe())
      T = Array->getElementType();
    else if (T->isPointerType())
      T = T->getPointeeType();
    else
      return T;
  }
}

/// Whether a store through an lvalue of type \p Written can change an
/// object made of scalars of type \p Message: by C's effective-type rule
/// (C11 6.5p7, C++ [basic.lval]) it cannot when both are scalar types that
/// differ other than in signedness, and neither is a character type.
bool cannotAlias(QualType Written, QualType Message,
                 const ASTContext &Context) {
  if (Written.isNull() || Message.isNull() || !Written->isScalarType() ||
      !Message->isScalarType() || Written->isAnyCharacterType() ||
      Message->isAnyCharacterType())
    return false;
  auto Plain = [&](QualType T) {
    T = T.getCanonicalType().getUnqualifiedType();
    if (T->isUnsignedIntegerType() && !T->isBooleanType() &&
        !T->isEnumeralType())
      T = const_cast<ASTContext &>(Context).getCorrespondingSignedType(T);
    return T;
  };
  return Plain(Written) != Plain(Message);
}

/// Functions the message-integrity check knows do not write user memory.
bool isKnownNonWritingCall(const CallExpr *Call) {
  // A standard container's subscript and accessors write nothing; a store
  // through what they return is an assignment, which is checked as one.
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
  if (Method && Method->getParent()->isInStdNamespace()) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      return Op->getOperator() == OO_Subscript;
    return Method->getIdentifier() &&
           llvm::StringSwitch<bool>(Method->getName())
               .Cases("size", "data", "at", "front", "back", "empty", true)
               .Cases("begin", "end", "cbegin", "cend", "c_str", true)
               .Default(false);
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return false;
  return llvm::StringSwitch<bool>(Callee->getName())
      .Cases("printf", "fprintf", "puts", "fputs", "fflush", "putchar", true)
      .Default(false);
}

/// Every `if` statement of a body, in source order.
void collectIfs(const Stmt *S, SmallVectorImpl<const IfStmt *> &Out) {
  collectAll(S, Out);
}

/// Every `for` statement of a body, in source order.
void collectLoops(const Stmt *S, SmallVectorImpl<const ForStmt *> &Out) {
  collectAll(S, Out);
}

/// A counted loop over peers, whatever statement spells it:
/// `for (init; cond; inc) body`, or `init; while (cond) { ...; inc; }` (and
/// the same with `do`), the increment being the body's last statement.
/// Accessors are named as ForStmt's so the checks read the same.
struct PeerLoop {
  const Stmt *S = nullptr;
  const Stmt *Init = nullptr;
  const Expr *Cond = nullptr;
  const Expr *Inc = nullptr;
  const Stmt *Body = nullptr;
  bool IsDo = false;

  const Stmt *getInit() const { return Init; }
  const Expr *getCond() const { return Cond; }
  const Expr *getInc() const { return Inc; }
  const Stmt *getBody() const { return Body; }
  SourceLocation getBeginLoc() const { return S->getBeginLoc(); }
};

/// \p S as a peer loop: a `for`, or a `while`/`do` whose block ends with
/// an increment and which follows the statement initializing its variable.
std::optional<PeerLoop> asPeerLoop(const Stmt *S, ASTContext &Context) {
  PeerLoop L;
  L.S = S;
  if (const auto *For = dyn_cast<ForStmt>(S)) {
    L.Init = For->getInit();
    L.Cond = For->getCond();
    L.Inc = For->getInc();
    L.Body = For->getBody();
    return L;
  }
  if (const auto *While = dyn_cast<WhileStmt>(S)) {
    L.Cond = While->getCond();
    L.Body = While->getBody();
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    L.Cond = Do->getCond();
    L.Body = Do->getBody();
    L.IsDo = true;
  } else {
    return std::nullopt;
  }
  const auto *Block = dyn_cast_or_null<CompoundStmt>(L.Body);
  if (!Block || Block->body_empty())
    return std::nullopt;
  L.Inc = dyn_cast<Expr>(Block->body_back());
  DynTypedNodeList Parents = Context.getParents(*S);
  const auto *Outer =
      Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
  if (!Outer || !L.Inc)
    return std::nullopt;
  const Stmt *Prev = nullptr;
  for (const Stmt *X : Outer->body()) {
    if (X == S)
      break;
    Prev = X;
  }
  L.Init = Prev;
  return L;
}

/// One candidate under construction, with everything the checks need.
class CandidateBuilder {
public:
  CandidateBuilder(TranslationUnitFacts &TU, const FunctionDecl &F)
      : TU(TU), Context(TU.context()), F(F), Facts(TU.factsOf(F)) {}

  std::optional<ManualCollective> tryGuard(const IfStmt *If);

private:
  void refuse(SafetyCheck Check, std::string Reason, SourceLocation Loc) {
    Result.Refusals.push_back({Check, std::move(Reason), Loc});
  }

  /// Source form: a call spelled inside a macro is not ours to rewrite.
  void refuseCallsInMacros(ArrayRef<const CallExpr *> Calls) {
    for (const CallExpr *Call : Calls)
      if (Call->getBeginLoc().isMacroID())
        refuse(SafetyCheck::SourceForm,
               "the call is spelled inside a macro; rewriting it would change "
               "every use of the macro",
               Context.getSourceManager().getExpansionLoc(Call->getBeginLoc()));
  }

  bool refusedFor(SafetyCheck Check) const {
    return llvm::any_of(Result.Refusals,
                        [&](const Refusal &R) { return R.Check == Check; });
  }

  /// The candidate, its refusals in source order.
  ManualCollective finished() {
    const SourceManager &SM = Context.getSourceManager();
    llvm::stable_sort(Result.Refusals, [&](const Refusal &A, const Refusal &B) {
      return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
    });
    return std::move(Result);
  }

  std::optional<PeerLoop> findPeerLoop(const Stmt *Branch);
  bool matchLoopHeader(const PeerLoop *Loop);
  void checkLoopBody(const PeerLoop *Loop);
  const CallExpr *findPeerCall(const Stmt *Branch);
  void checkExecutedOnce(const Stmt *S, const Stmt *Branch, StringRef What);
  void checkGuard(const BinaryOperator *Cond);
  void checkScale(const PeerLoop *Loop);
  void checkMessage(const PeerLoop *Loop);
  void checkArguments();
  void checkElementType(const Expr *Base, mpi::Role TypeRole);
  bool isBlockCopy(const Stmt *S, const Expr *Dest, const Expr *Source,
                   const Expr *Count, QualType Element);
  bool isOwnBlock(const Expr *E, const Expr *Base, const VarDecl *Self,
                  const Expr *Count);

public:
  std::optional<ManualCollective> tryExchange(const ForStmt *Loop);

private:
  void chooseRoot(const BinaryOperator *Cond);
  const Stmt *statementOf(const Stmt *S, const Stmt *Branch);
  std::optional<std::pair<const Stmt *, const Expr *>>
  guardedSend(const CallExpr *Send, const Stmt *Branch);
  std::optional<ManualCollective> tryChain(const IfStmt *If,
                                           const BinaryOperator *Cond,
                                           const Stmt *Root, const Stmt *Peer);
  void checkStatementsBetween(const Stmt *Branch, const Stmt *From,
                              const Stmt *To, const ValueDecl *Base);
  void checkChainScale(const Expr *RootCond, const CallExpr *RootRecv,
                       const CallExpr *PeerRecv, const CallExpr *Forward,
                       const Expr *ForwardCond);
  std::optional<std::string>
  simulateChain(const RankArithmetic &Arith, RankEnvironment &Env,
                const VarDecl *Rank, int64_t N, int64_t R, const Expr *RootCond,
                const Expr *RootDest, const Expr *RootSource,
                const Expr *PeerSource, const Expr *ForwardDest,
                const Expr *ForwardCond, bool &SawRing);
  void checkSameArguments(const clang::CallExpr *A, const clang::CallExpr *B);
  void findResidualLoop(const PeerLoop *Loop);
  void checkUniform(const Expr *E, StringRef What);
  void checkLoopInvariant(const Expr *E, StringRef What);
  void checkNoWrites(const Stmt *S, const ValueDecl *Base, const Stmt *Skip);
  const ValueDecl *messageObject(const Expr *Buffer);
  void checkOrder();
  void checkStatus(const CallExpr *Recv, const Stmt *Scope);
  void checkValueFromQuery(const VarDecl *V, StringRef Query, const Expr *Comm,
                           const Stmt *Use, const FunctionDecl &Where,
                           SafetyCheck Check, StringRef Role, unsigned Depth);
  std::optional<std::pair<std::string, SourceLocation>>
  inputDependence(const Expr *E, const FunctionDecl &Where, unsigned Depth,
                  llvm::SmallPtrSetImpl<const VarDecl *> &Seen);

  TranslationUnitFacts &TU;
  ASTContext &Context;
  const FunctionDecl &F;
  const FunctionFacts &Facts;
  ManualCollective Result;
  const VarDecl *LoopVar = nullptr;
  const Expr *Bound = nullptr;
  const Expr *Start = nullptr;
  const IfStmt *RootSkip = nullptr;
  /// The root's loop over peers (star) or the exchange loop.
  const Stmt *PatternLoop = nullptr;
  const Stmt *RootBranch = nullptr;
  const Stmt *PeerBranch = nullptr;
  /// Every call the rewrite replaces or deletes.
  SmallVector<const CallExpr *, 4> PatternCalls;
};

/// The first loop under \p S (not inside a nested loop) whose body holds
/// a blocking send to or receive from the loop variable.
std::optional<PeerLoop> CandidateBuilder::findPeerLoop(const Stmt *S) {
  if (!S)
    return std::nullopt;
  if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S)) {
    std::optional<PeerLoop> Loop = asPeerLoop(S, Context);
    if (!Loop)
      return std::nullopt;
    SmallVector<const CallExpr *, 4> Calls;
    collectCalls(Loop->getBody(), Calls);
    for (const CallExpr *Call : Calls) {
      const Expr *Peer = isBlockingSend(Call) ? mpiArg(Call, mpi::Role::Dest)
                         : isRecv(Call)       ? mpiArg(Call, mpi::Role::Source)
                                              : nullptr;
      const VarDecl *V = namedVariable(Peer);
      if (V && Loop->getInit() &&
          (mentions(Loop->getInit(), V) || declares(Loop->getInit(), V)))
        return Loop;
    }
    return std::nullopt;
  }
  for (const Stmt *Child : S->children())
    if (std::optional<PeerLoop> Loop = findPeerLoop(Child))
      return Loop;
  return std::nullopt;
}

/// `for (i = A; i < B; i++)` with `int i = A` also accepted, and the
/// `while`/`do` forms.
bool CandidateBuilder::matchLoopHeader(const PeerLoop *Loop) {
  const Stmt *Init = Loop->getInit();
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init)) {
    if (!DS->isSingleDecl())
      return false;
    LoopVar = dyn_cast<VarDecl>(DS->getSingleDecl());
    Start = LoopVar ? LoopVar->getInit() : nullptr;
  } else if (const auto *Assign = dyn_cast_or_null<BinaryOperator>(Init)) {
    if (Assign->getOpcode() != BO_Assign)
      return false;
    LoopVar = namedVariable(Assign->getLHS());
    Start = Assign->getRHS();
  }
  if (!LoopVar || !Start)
    return false;
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(Loop->getCond()->IgnoreParenImpCasts());
  if (Cond && Cond->getOpcode() == BO_LT && isVariable(Cond->getLHS(), LoopVar))
    Bound = Cond->getRHS()->IgnoreParenImpCasts();
  else if (Cond && Cond->getOpcode() == BO_GT &&
           isVariable(Cond->getRHS(), LoopVar))
    Bound = Cond->getLHS()->IgnoreParenImpCasts();
  else if (Cond && Cond->getOpcode() == BO_NE &&
           isVariable(Cond->getLHS(), LoopVar))
    Bound = Cond->getRHS()->IgnoreParenImpCasts();
  if (!Bound) {
    refuse(SafetyCheck::ScaleIndependence,
           "the loop test is not 'i < size' over the loop variable",
           Loop->getCond() ? Loop->getCond()->getBeginLoc()
                           : Loop->getBeginLoc());
    return true;
  }
  if (Loop->IsDo)
    refuse(SafetyCheck::ScaleIndependence,
           "a do loop runs its body once even when there is no peer",
           Loop->getBeginLoc());
  const Expr *Inc =
      Loop->getInc() ? Loop->getInc()->IgnoreParenImpCasts() : nullptr;
  bool StepOne = false;
  if (const auto *Op = dyn_cast_or_null<UnaryOperator>(Inc))
    StepOne = Op->isIncrementOp() && isVariable(Op->getSubExpr(), LoopVar);
  else if (const auto *Op = dyn_cast_or_null<BinaryOperator>(Inc))
    StepOne = Op->getOpcode() == BO_AddAssign &&
              isVariable(Op->getLHS(), LoopVar) &&
              constantValue(Op->getRHS(), Context) == 1;
  if (!StepOne)
    refuse(SafetyCheck::ScaleIndependence,
           "the loop does not step through the ranks one by one",
           Inc ? Inc->getBeginLoc() : Loop->getBeginLoc());
  return true;
}

/// Algorithm 1 on the loop body: no conditional except the root skip, no
/// jump, exactly one point-to-point call (to or from the loop variable).
void CandidateBuilder::checkLoopBody(const PeerLoop *Loop) {
  for (const Write &W : Facts.writesOf(LoopVar))
    if (W.Where != Loop->getInc() && W.Where->getBeginLoc().isValid() &&
        Context.getSourceManager().isPointWithin(W.Where->getBeginLoc(),
                                                 Loop->getBody()->getBeginLoc(),
                                                 Loop->getBody()->getEndLoc()))
      refuse(SafetyCheck::ScaleIndependence,
             "the loop variable " + LoopVar->getNameAsString() +
                 " is changed inside the loop",
             W.Where->getBeginLoc());

  // Walk the body: statements that decide whether or how often something
  // runs are refused, except the skip of the root.
  SmallVector<const Stmt *, 16> Work = {Loop->getBody()};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      const auto *Cond =
          dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
      bool ComparesLoopVarToRoot =
          Cond && (Cond->getOpcode() == BO_NE || Cond->getOpcode() == BO_EQ) &&
          ((isVariable(Cond->getLHS(), LoopVar) &&
            sameArgument(Cond->getRHS(), Result.Root, Context)) ||
           (isVariable(Cond->getRHS(), LoopVar) &&
            sameArgument(Cond->getLHS(), Result.Root, Context)));
      bool SkipByContinue = ComparesLoopVarToRoot &&
                            Cond->getOpcode() == BO_EQ && !If->getElse() &&
                            isa<ContinueStmt>(If->getThen());
      bool SkipByGuard = ComparesLoopVarToRoot && Cond->getOpcode() == BO_NE &&
                         !If->getElse() && !RootSkip;
      if (!RootSkip && (SkipByContinue || SkipByGuard)) {
        RootSkip = If;
        if (SkipByGuard)
          Work.push_back(If->getThen());
        continue;
      }
      refuse(SafetyCheck::InputIndependence,
             "conditional statement inside the collective statement",
             If->getBeginLoc());
      continue;
    }
    if (isa<SwitchStmt>(S) || isa<ConditionalOperator>(S) ||
        isa<BinaryConditionalOperator>(S) || isa<BreakStmt>(S) ||
        isa<ContinueStmt>(S) || isa<ReturnStmt>(S) || isa<GotoStmt>(S) ||
        isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<ForStmt>(S) ||
        isa<CXXForRangeStmt>(S)) {
      refuse(SafetyCheck::InputIndependence,
             "control flow inside the collective statement", S->getBeginLoc());
      continue;
    }
    if (const auto *Op = dyn_cast<BinaryOperator>(S))
      if (Op->getOpcode() == BO_LAnd || Op->getOpcode() == BO_LOr)
        refuse(SafetyCheck::InputIndependence,
               "short-circuit condition inside the collective statement",
               S->getBeginLoc());
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
}

/// The one point-to-point call of the non-root branch that talks to the
/// root: a receive for broadcast and scatter, a send for gather.
const CallExpr *CandidateBuilder::findPeerCall(const Stmt *Branch) {
  SmallVector<const CallExpr *, 8> Calls;
  collectCalls(Branch, Calls);
  const CallExpr *Found = nullptr;
  for (const CallExpr *Call : Calls) {
    bool Wanted =
        Result.Kind == ManualKind::Gather ? isBlockingSend(Call) : isRecv(Call);
    if (!Wanted)
      continue;
    if (Found) {
      refuse(SafetyCheck::MessageOrder,
             "the non-root branch exchanges more than one message",
             Call->getBeginLoc());
      continue;
    }
    Found = Call;
  }
  return Found;
}

/// \p S must run exactly once whenever \p Branch runs: every statement
/// between them is a plain block.
void CandidateBuilder::checkExecutedOnce(const Stmt *S, const Stmt *Branch,
                                         StringRef What) {
  const Stmt *Child = S;
  while (Child != Branch) {
    DynTypedNodeList Parents = Context.getParents(*Child);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!Parent)
      return;
    // `ierr = MPI_Recv(...)` runs the call once as well.
    const auto *Assign = dyn_cast<BinaryOperator>(Parent);
    bool KeepsErrorCode = Assign && Assign->isAssignmentOp() &&
                          Assign->getRHS()->IgnoreParenImpCasts() == Child;
    bool Transparent = isa<CompoundStmt>(Parent) || KeepsErrorCode ||
                       (isa<Expr>(Parent) && Parent != Branch &&
                        (isa<ParenExpr>(Parent) || isa<CastExpr>(Parent)));
    if (!Transparent && Parent != Branch) {
      refuse(SafetyCheck::InputIndependence,
             "the " + What.str() + " does not run exactly once in its branch",
             Parent->getBeginLoc());
      return;
    }
    if (isa<Expr>(Parent) && !isa<CastExpr>(Parent) && !isa<ParenExpr>(Parent))
      return;
    Child = Parent;
  }
}

/// The value of \p V at \p Use is what \p Query ("MPI_Comm_size" or
/// "MPI_Comm_rank") wrote for \p Comm: written once, by that call, on the
/// straight-line path before \p Use, or a parameter every caller passes
/// such a value to.
void CandidateBuilder::checkValueFromQuery(const VarDecl *V, StringRef Query,
                                           const Expr *Comm, const Stmt *Use,
                                           const FunctionDecl &Where,
                                           SafetyCheck Check, StringRef Role,
                                           unsigned Depth) {
  std::string Name = "'" + V->getNameAsString() + "'";
  if (Depth > 4) {
    refuse(Check, "gave up following " + Name + " through callers",
           Use->getBeginLoc());
    return;
  }
  if (!V->hasLocalStorage()) {
    refuse(Check,
           (Role + " " + Name +
            " is a global or static variable; its writes cannot be followed")
               .str(),
           Use->getBeginLoc());
    return;
  }
  const FunctionFacts &WhereFacts = TU.factsOf(Where);
  const SourceManager &SM = Context.getSourceManager();
  const CallExpr *QueryCall = nullptr;
  for (const Write &W : WhereFacts.writesOf(V)) {
    const mpi::FunctionInfo *Info = W.Call ? mpiCallee(W.Call) : nullptr;
    if (W.Kind == WriteKind::AddressPass && Info && Info->Name == Query &&
        !QueryCall) {
      QueryCall = W.Call;
      continue;
    }
    refuse(Check,
           (Role + " " + Name + " is written here, not only by " + Query).str(),
           W.Where->getBeginLoc());
    return;
  }
  if (const auto *Param = dyn_cast<ParmVarDecl>(V)) {
    if (QueryCall) {
      refuse(Check,
             (Role + " " + Name + " is a parameter written by " + Query).str(),
             QueryCall->getBeginLoc());
      return;
    }
    ArrayRef<CallSite> Callers = TU.callersOf(&Where);
    if (Callers.empty() || TU.mayBeCalledIndirectly(&Where)) {
      refuse(Check,
             (Role + " " + Name + " is a parameter of '" +
              Where.getNameAsString() +
              "' whose callers are not all visible in this translation unit")
                 .str(),
             Use->getBeginLoc());
      return;
    }
    unsigned Index = Param->getFunctionScopeIndex();
    const auto *CommParam = dyn_cast_or_null<ParmVarDecl>(namedVariable(Comm));
    for (const CallSite &Site : Callers) {
      if (!Site.Caller || Index >= Site.Call->getNumArgs()) {
        refuse(Check,
               "a call of '" + Where.getNameAsString() +
                   "' outside any function body",
               Site.Call->getBeginLoc());
        return;
      }
      const Expr *Arg = Site.Call->getArg(Index)->IgnoreParenImpCasts();
      const VarDecl *ArgVar = namedVariable(Arg);
      if (!ArgVar) {
        refuse(Check,
               (Role + " " + Name + " receives " + quoted(Arg, Context) +
                " here, not a variable set by " + Query)
                   .str(),
               Arg->getBeginLoc());
        return;
      }
      const Expr *CallerComm = Comm;
      if (CommParam && CommParam->getDeclContext() == &Where &&
          CommParam->getFunctionScopeIndex() < Site.Call->getNumArgs())
        CallerComm = Site.Call->getArg(CommParam->getFunctionScopeIndex())
                         ->IgnoreParenImpCasts();
      checkValueFromQuery(ArgVar, Query, CallerComm, Site.Call, *Site.Caller,
                          Check, Role, Depth + 1);
    }
    return;
  }
  if (!QueryCall) {
    refuse(Check,
           (Role + " " + Name + " is not set by " + Query + " in '" +
            Where.getNameAsString() + "'")
               .str(),
           Use->getBeginLoc());
    return;
  }
  const Expr *QueryComm = mpiArg(QueryCall, mpi::Role::Comm);
  if (!sameArgument(QueryComm, Comm, Context)) {
    refuse(Check,
           (Role + " " + Name + " is set by " + Query + " on " +
            quoted(QueryComm, Context) + ", but the pattern runs on " +
            quoted(Comm, Context))
               .str(),
           QueryCall->getBeginLoc());
    return;
  }
  // The same name must still be the same communicator at the pattern.
  if (const VarDecl *CommVar = namedVariable(QueryComm))
    for (const Write &W : WhereFacts.writesOf(CommVar))
      if (SM.isBeforeInTranslationUnit(QueryCall->getBeginLoc(),
                                       W.Where->getBeginLoc()) &&
          SM.isBeforeInTranslationUnit(W.Where->getBeginLoc(),
                                       Use->getBeginLoc()) &&
          !(W.Kind == WriteKind::AddressPass && mpiCallee(W.Call) &&
            mpiCallee(W.Call)->TheFamily == mpi::Family::CommQuery)) {
        refuse(Check,
               "the communicator " + quoted(QueryComm, Context) +
                   " is written here, between " + Query.str() +
                   " and the pattern",
               W.Where->getBeginLoc());
        return;
      }
  // The query must run unconditionally in the body, before the use.
  const Stmt *Child = QueryCall;
  while (true) {
    DynTypedNodeList Parents = Context.getParents(*Child);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!Parent || Parent == Where.getBody())
      break;
    if (!isa<CompoundStmt>(Parent) && !isa<CastExpr>(Parent) &&
        !isa<ParenExpr>(Parent)) {
      refuse(Check,
             (Query + " may not run before the pattern: it is inside another "
                      "statement")
                 .str(),
             Parent->getBeginLoc());
      return;
    }
    Child = Parent;
  }
  if (!SM.isBeforeInTranslationUnit(QueryCall->getBeginLoc(),
                                    Use->getBeginLoc()))
    refuse(Check, (Query + " runs after the pattern").str(),
           QueryCall->getBeginLoc());
}

/// Where \p E may depend on program input (argv, files, received data, any
/// call), the reason and the place; nothing when it provably does not.
std::optional<std::pair<std::string, SourceLocation>>
CandidateBuilder::inputDependence(
    const Expr *E, const FunctionDecl &Where, unsigned Depth,
    llvm::SmallPtrSetImpl<const VarDecl *> &Seen) {
  E = E->IgnoreParenImpCasts();
  auto Fail = [&](std::string Why, SourceLocation Loc)
      -> std::optional<std::pair<std::string, SourceLocation>> {
    return std::make_pair(std::move(Why), Loc);
  };
  if (isa<IntegerLiteral>(E) || isa<CharacterLiteral>(E) ||
      constantValue(E, Context))
    return std::nullopt;
  if (const auto *Op = dyn_cast<BinaryOperator>(E)) {
    if (Op->isAssignmentOp() || Op->isCommaOp())
      return Fail("the value is computed by " + quoted(E, Context),
                  E->getBeginLoc());
    if (auto Why = inputDependence(Op->getLHS(), Where, Depth, Seen))
      return Why;
    return inputDependence(Op->getRHS(), Where, Depth, Seen);
  }
  if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
    if (Op->getOpcode() != UO_Minus && Op->getOpcode() != UO_Plus &&
        Op->getOpcode() != UO_Not)
      return Fail("the value is computed by " + quoted(E, Context),
                  E->getBeginLoc());
    return inputDependence(Op->getSubExpr(), Where, Depth, Seen);
  }
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E)) {
    for (const Expr *Part :
         {Cond->getCond(), Cond->getTrueExpr(), Cond->getFalseExpr()})
      if (auto Why = inputDependence(Part, Where, Depth, Seen))
        return Why;
    return std::nullopt;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return Fail("the value comes from a call of " +
                    quoted(Call->getCallee(), Context),
                Call->getBeginLoc());
  const VarDecl *V = namedVariable(E);
  if (!V)
    return Fail("the value of " + quoted(E, Context) + " cannot be followed",
                E->getBeginLoc());
  if (!Seen.insert(V).second)
    return std::nullopt;
  std::string Name = "'" + V->getNameAsString() + "'";
  if (!V->hasLocalStorage())
    return Fail(Name + " is a global or static variable", E->getBeginLoc());
  if (Depth > 4)
    return Fail("gave up following " + Name + " through callers",
                E->getBeginLoc());
  const auto *Param = dyn_cast<ParmVarDecl>(V);
  if (Param && Where.isMain())
    return Fail(Name + " is a parameter of main: program input",
                E->getBeginLoc());
  const FunctionFacts &WhereFacts = TU.factsOf(Where);
  for (const Write &W : WhereFacts.writesOf(V)) {
    switch (W.Kind) {
    case WriteKind::IncDec:
      continue;
    case WriteKind::Init:
    case WriteKind::Assign:
    case WriteKind::Compound:
      if (auto Why = inputDependence(W.Value, Where, Depth, Seen))
        return Why;
      continue;
    case WriteKind::AddressPass: {
      const mpi::FunctionInfo *Info = mpiCallee(W.Call);
      if (Info && Info->TheFamily == mpi::Family::CommQuery)
        continue;
      return Fail(Name + " is written by a call of " +
                      quoted(W.Call->getCallee(), Context),
                  W.Call->getBeginLoc());
    }
    case WriteKind::Escape:
    case WriteKind::Element:
      return Fail(Name + " may be written through a reference or pointer",
                  W.Where->getBeginLoc());
    }
  }
  if (!Param)
    return std::nullopt;
  ArrayRef<CallSite> Callers = TU.callersOf(&Where);
  if (Callers.empty() || TU.mayBeCalledIndirectly(&Where))
    return Fail(Name + " is a parameter of '" + Where.getNameAsString() +
                    "' whose callers are not all visible",
                E->getBeginLoc());
  for (const CallSite &Site : Callers) {
    unsigned Index = Param->getFunctionScopeIndex();
    if (!Site.Caller || Index >= Site.Call->getNumArgs())
      return Fail("a call of '" + Where.getNameAsString() +
                      "' cannot be followed",
                  Site.Call->getBeginLoc());
    llvm::SmallPtrSet<const VarDecl *, 8> CallerSeen;
    if (auto Why = inputDependence(Site.Call->getArg(Index), *Site.Caller,
                                   Depth + 1, CallerSeen))
      return Why;
  }
  return std::nullopt;
}

/// The guard compares the rank of the pattern's communicator with a root
/// that does not depend on input.
void CandidateBuilder::checkGuard(const BinaryOperator *Cond) {
  const Expr *Comm = mpiArg(Result.RootCall, mpi::Role::Comm);
  const Expr *RankSide = Result.Root == Cond->getRHS()->IgnoreParenImpCasts()
                             ? Cond->getLHS()
                             : Cond->getRHS();
  const VarDecl *Rank = namedVariable(RankSide);
  if (!Rank) {
    refuse(SafetyCheck::MatchingArguments,
           "the guard does not compare a rank variable", Cond->getBeginLoc());
    return;
  }
  checkValueFromQuery(Rank, "MPI_Comm_rank", Comm, Result.Guard, F,
                      SafetyCheck::MatchingArguments, "the guard's rank", 0);
  llvm::SmallPtrSet<const VarDecl *, 8> Seen;
  if (auto Why = inputDependence(Result.Root, F, 0, Seen))
    refuse(SafetyCheck::InputIndependence,
           "the root " + quoted(Result.Root, Context) +
               " may depend on program input: " + Why->first,
           Why->second);
  else
    checkUniform(Result.Root, "root");
}

/// Algorithm 2: the loop visits every rank of the communicator but the
/// root, and its bound is what MPI_Comm_size wrote.
void CandidateBuilder::checkScale(const PeerLoop *Loop) {
  const Expr *Comm = mpiArg(Result.RootCall, mpi::Role::Comm);
  if (!Bound)
    return;
  const VarDecl *Size = namedVariable(Bound);
  if (!Size) {
    refuse(SafetyCheck::ScaleIndependence,
           "the loop bound " + quoted(Bound, Context) + " is not the size of " +
               quoted(Comm, Context),
           Bound->getBeginLoc());
  } else {
    checkValueFromQuery(Size, "MPI_Comm_size", Comm, Loop->S, F,
                        SafetyCheck::ScaleIndependence, "the loop bound", 0);
  }
  std::optional<int64_t> From = constantValue(Start, Context);
  std::optional<int64_t> RootValue = constantValue(Result.Root, Context);
  bool Covers = (From == 0 && RootSkip) || (From == 1 && RootValue == 0);
  if (!Covers)
    refuse(SafetyCheck::ScaleIndependence,
           "the loop does not visit exactly the ranks other than the root",
           Loop->getBeginLoc());
}

/// Refuses every write under \p S (but \p Skip) that may change \p Base:
/// direct writes, writes through pointers that may alias it, and calls that
/// could write it.
void CandidateBuilder::checkNoWrites(const Stmt *S, const ValueDecl *Base,
                                     const Stmt *Skip) {
  SmallVector<const Stmt *, 16> Work = {S};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S || S == Skip)
      continue;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      // Other MPI calls are the message-order check's business.
      if (!mpiCallee(Call) && !isKnownNonWritingCall(Call)) {
        refuse(SafetyCheck::MessageIntegrity,
               "the call of " + quoted(Call->getCallee(), Context) +
                   " may change the message",
               Call->getBeginLoc());
        continue;
      }
    }
    const Expr *Target = nullptr;
    if (const auto *Op = dyn_cast<BinaryOperator>(S))
      if (Op->isAssignmentOp())
        Target = Op->getLHS();
    if (const auto *Op = dyn_cast<UnaryOperator>(S))
      if (Op->isIncrementDecrementOp())
        Target = Op->getSubExpr();
    if (Target) {
      const Expr *T = Target->IgnoreParenImpCasts();
      const ValueDecl *Written = bufferBase(T);
      bool PlainOther = isa<DeclRefExpr>(T) && Written && Written != Base;
      bool OtherArray = isa<ArraySubscriptExpr>(T) && Written &&
                        Written != Base && Written->getType()->isArrayType();
      if (!PlainOther && !OtherArray &&
          !cannotAlias(T->getType(), scalarElementType(Base->getType()),
                       Context))
        refuse(SafetyCheck::MessageIntegrity,
               Written == Base
                   ? "the message " + quoted(Result.RootBuffer, Context) +
                         " is changed inside the collective statement"
                   : "this write may change the message through an alias",
               S->getBeginLoc());
    }
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
}

/// The object \p Buffer addresses, or a refusal naming it.
const ValueDecl *CandidateBuilder::messageObject(const Expr *Buffer) {
  const ValueDecl *Base = bufferBase(Buffer);
  if (!Base)
    refuse(SafetyCheck::MessageIntegrity,
           "cannot tell which object the buffer " + quoted(Buffer, Context) +
               " is",
           Buffer->getBeginLoc());
  return Base;
}

/// Algorithm 3: nothing in the collective statement may change the
/// message; a scatter or gather addresses block `i` as `base + i*count`.
void CandidateBuilder::checkMessage(const PeerLoop *Loop) {
  const ValueDecl *Base = messageObject(Result.RootBuffer);
  if (!Base)
    return;
  checkNoWrites(Loop->getBody(), Base, Result.RootCall);
  if (Result.Kind == ManualKind::Bcast)
    return;
  // Scatter and gather: the block of peer i is `count` elements of the
  // datatype; the C element type must have the datatype's size.
  checkElementType(Result.RootBuffer, mpi::Role::Datatype);
}

/// Both sides use the same communicator, tag, datatype and count; the
/// receive names the root (or any source).
void CandidateBuilder::checkArguments() {
  const CallExpr *B = Result.PeerCall;
  checkSameArguments(Result.RootCall, B);
  const Expr *Peer =
      mpiArg(B, Result.Kind == ManualKind::Gather ? mpi::Role::Dest
                                                  : mpi::Role::Source);
  bool AnySource = Peer && sourceText(Peer, Context) == "MPI_ANY_SOURCE";
  if (!AnySource && !sameArgument(Peer, Result.Root, Context))
    refuse(SafetyCheck::MatchingArguments,
           "the peer " + quoted(Peer, Context) + " is not the guard's root " +
               quoted(Result.Root, Context),
           Peer->getBeginLoc());
}

/// \p A and \p B use the same communicator, tag, datatype and count, none
/// of which varies with the loop.
void CandidateBuilder::checkSameArguments(const CallExpr *A,
                                          const CallExpr *B) {
  for (mpi::Role R : {mpi::Role::Comm, mpi::Role::Tag, mpi::Role::Datatype,
                      mpi::Role::Count}) {
    const Expr *X = mpiArg(A, R), *Y = mpiArg(B, R);
    std::string What = StringRef(mpi::name(R)).lower();
    if (LoopVar && mentions(X, LoopVar)) {
      refuse(SafetyCheck::MatchingArguments,
             "the " + What + " " + quoted(X, Context) + " differs per peer",
             X->getBeginLoc());
      continue;
    }
    if (!sameArgument(X, Y, Context)) {
      refuse(SafetyCheck::MatchingArguments,
             "the " + What + " differs: " + quoted(X, Context) + " against " +
                 quoted(Y, Context),
             Y->getBeginLoc());
      continue;
    }
    // The same spelling is not the same value: both sides must read a
    // value every rank has (the communicator is one object for all ranks
    // that exchange messages on it).
    checkLoopInvariant(X, What);
    if (R == mpi::Role::Comm)
      continue;
    checkUniform(X, What);
    checkUniform(Y, What);
  }
  const Expr *Tag = mpiArg(B, mpi::Role::Tag);
  if (Tag && sourceText(Tag, Context) == "MPI_ANY_TAG")
    refuse(SafetyCheck::MatchingArguments,
           "a receive with MPI_ANY_TAG may match another message",
           Tag->getBeginLoc());
}

/// The argument \p E (the \p What of a call of the pattern) has the same
/// value on every rank; else a matching-arguments refusal saying why not.
void CandidateBuilder::checkUniform(const Expr *E, StringRef What) {
  if (!E)
    return;
  RankUniformity Uniformity(TU);
  std::optional<Divergence> Why = Uniformity.divergence(E, F);
  if (!Why)
    return;
  std::string Reason = "the " + What.str() + " " + quoted(E, Context) +
                       " may differ between ranks: " + Why->Reason;
  if (llvm::any_of(Result.Refusals, [&](const Refusal &R) {
        return R.Reason == Reason && R.Loc == Why->Loc;
      }))
    return;
  refuse(SafetyCheck::MatchingArguments, std::move(Reason), Why->Loc);
}

/// The argument \p E of the root's call inside its loop has the same value
/// for every peer; else a matching-arguments refusal.
void CandidateBuilder::checkLoopInvariant(const Expr *E, StringRef What) {
  if (!E || !PatternLoop)
    return;
  RankUniformity Uniformity(TU);
  if (std::optional<Divergence> Why =
          Uniformity.loopVariance(E, PatternLoop, F))
    refuse(SafetyCheck::MatchingArguments,
           "the " + What.str() + " " + quoted(E, Context) +
               " is not proven the same for every peer: " + Why->Reason,
           Why->Loc);
}

/// No other point-to-point message on the same communicator and tag in
/// the function, which the rewrite could reorder against the pattern's.
void CandidateBuilder::checkOrder() {
  const Expr *Comm = mpiArg(Result.RootCall, mpi::Role::Comm);
  const Expr *Tag = mpiArg(Result.RootCall, mpi::Role::Tag);
  if (!Tag)
    Tag = mpiArg(Result.RootCall, mpi::Role::SendTag);
  SmallVector<const CallExpr *, 32> Calls, Conflicts;
  collectCalls(F.getBody(), Calls);
  for (const CallExpr *Call : Calls) {
    if (llvm::is_contained(PatternCalls, Call))
      continue;
    const mpi::FunctionInfo *Info = mpiCallee(Call);
    if (!Info || !isPointToPoint(*Info))
      continue;
    const Expr *OtherComm = mpiArg(Call, mpi::Role::Comm);
    if (OtherComm && !sameSpelling(OtherComm, Comm, Context))
      continue;
    bool SameTag = true;
    for (mpi::Role R : {mpi::Role::Tag, mpi::Role::SendTag, mpi::Role::RecvTag})
      if (const Expr *OtherTag = mpiArg(Call, R)) {
        std::string Text = sourceText(OtherTag, Context);
        SameTag = Text == "MPI_ANY_TAG" || mayBeEqual(OtherTag, Tag, Context);
        if (SameTag)
          break;
      }
    if (SameTag)
      Conflicts.push_back(Call);
  }
  if (Conflicts.empty())
    return;
  // One note, at the first: a function full of messages would bury the
  // other reasons.
  std::string More = Conflicts.size() > 1
                         ? " (and " + std::to_string(Conflicts.size() - 1) +
                               " more in this function)"
                         : "";
  refuse(SafetyCheck::MessageOrder,
         "another message on the same communicator and tag" + More +
             "; the rewrite could change which receive it matches",
         Conflicts.front()->getBeginLoc());
}

/// The status of a receive the rewrite removes must not be read later.
void CandidateBuilder::checkStatus(const CallExpr *Recv, const Stmt *Scope) {
  const Expr *Status = mpiArg(Recv, mpi::Role::Status);
  if (!Status || sourceText(Status, Context) == "MPI_STATUS_IGNORE")
    return;
  const auto *V = dyn_cast_or_null<VarDecl>(bufferBase(Status));
  const auto *Addr = dyn_cast<UnaryOperator>(Status);
  if (!V || !Addr || Addr->getOpcode() != UO_AddrOf ||
      !isa<DeclRefExpr>(Addr->getSubExpr()->IgnoreParens()) ||
      !V->hasLocalStorage() || isa<ParmVarDecl>(V)) {
    refuse(SafetyCheck::StatusUse,
           "the status " + quoted(Status, Context) +
               " may be read outside this function",
           Status->getBeginLoc());
    return;
  }
  const SourceManager &SM = Context.getSourceManager();
  for (const DeclRefExpr *Ref : Facts.referencesOf(V)) {
    if (Addr->getSubExpr()->IgnoreParens() == Ref)
      continue;
    // `&status` handed to another MPI call that overwrites it is fine.
    DynTypedNodeList Parents = Context.getParents(*Ref);
    const auto *AddrOf =
        Parents.empty() ? nullptr : Parents[0].get<UnaryOperator>();
    if (AddrOf && AddrOf->getOpcode() == UO_AddrOf) {
      DynTypedNodeList Up = Context.getParents(*AddrOf);
      const auto *Call = Up.empty() ? nullptr : Up[0].get<CallExpr>();
      if (mpiCallee(Call) && mpiArg(Call, mpi::Role::Status) == AddrOf &&
          SM.isBeforeInTranslationUnit(Recv->getBeginLoc(),
                                       Call->getBeginLoc()))
        continue;
    }
    bool After =
        SM.isBeforeInTranslationUnit(Recv->getEndLoc(), Ref->getBeginLoc());
    bool InLoop =
        Scope && SM.isPointWithin(Ref->getBeginLoc(), Scope->getBeginLoc(),
                                  Scope->getEndLoc());
    if (After || InLoop) {
      refuse(SafetyCheck::StatusUse,
             "the status '" + V->getNameAsString() +
                 "' of the receive is read afterwards",
             Ref->getBeginLoc());
      return;
    }
  }
}

/// Which side of the guard is the root: the one that is not a rank
/// variable set by MPI_Comm_rank. Prefer the right-hand side.
void CandidateBuilder::chooseRoot(const BinaryOperator *Cond) {
  const Expr *L = Cond->getLHS()->IgnoreParenImpCasts();
  const Expr *R = Cond->getRHS()->IgnoreParenImpCasts();
  Result.Root = R;
  if (const VarDecl *RV = namedVariable(R)) {
    for (const Write &W : Facts.writesOf(RV))
      if (W.Kind == WriteKind::AddressPass && mpiCallee(W.Call) &&
          mpiCallee(W.Call)->Id == mpi::FunctionId::Comm_rank)
        Result.Root = L;
  }
}

/// The statement of \p Branch (a block, or a single statement) that
/// holds \p S.
const Stmt *CandidateBuilder::statementOf(const Stmt *S, const Stmt *Branch) {
  const Stmt *Child = S;
  while (Child && Child != Branch) {
    DynTypedNodeList Parents = Context.getParents(*Child);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (Parent == Branch)
      return isa<CompoundStmt>(Branch) ? Child : Branch;
    Child = Parent;
  }
  return Child;
}

/// For a send that is its statement, or the only statement of an `if`
/// without else: that statement and the `if`'s condition.
std::optional<std::pair<const Stmt *, const Expr *>>
CandidateBuilder::guardedSend(const CallExpr *Send, const Stmt *Branch) {
  const Stmt *S = statementOf(Send, Branch);
  if (!S)
    return std::nullopt;
  if (const auto *E = dyn_cast<Expr>(S))
    if (E->IgnoreParenCasts() == Send)
      return std::make_pair(S, nullptr);
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const Stmt *Then = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Then)) {
    if (Block->size() != 1)
      return std::nullopt;
    Then = Block->body_front();
  }
  const auto *E = dyn_cast<Expr>(Then);
  if (!E || E->IgnoreParenCasts() != Send)
    return std::nullopt;
  return std::make_pair(S, If->getCond());
}

/// Ring and chain broadcasts (Listing 2): the root sends to its neighbour;
/// every other rank receives from its predecessor and forwards to its
/// successor unless the message has gone round. A ring may return the
/// message to the root, which receives it last.
std::optional<ManualCollective>
CandidateBuilder::tryChain(const IfStmt *If, const BinaryOperator *Cond,
                           const Stmt *Root, const Stmt *Peer) {
  auto PointToPoint = [](const Stmt *Branch) {
    SmallVector<const CallExpr *, 4> Calls, Out;
    collectCalls(Branch, Calls);
    for (const CallExpr *Call : Calls)
      if (const mpi::FunctionInfo *Info = mpiCallee(Call))
        if (isPointToPoint(*Info))
          Out.push_back(Call);
    return Out;
  };
  SmallVector<const CallExpr *, 4> RootCalls = PointToPoint(Root);
  SmallVector<const CallExpr *, 4> PeerCalls = PointToPoint(Peer);
  // Listing 7: the other branch probes first and receives only when the
  // message is there.
  const CallExpr *Probe = nullptr;
  if (PeerCalls.size() == 3 && isProbe(PeerCalls[0])) {
    Probe = PeerCalls[0];
    PeerCalls.erase(PeerCalls.begin());
  }
  if (RootCalls.empty() || RootCalls.size() > 2 || PeerCalls.size() != 2 ||
      !isBlockingSend(RootCalls[0]) ||
      (RootCalls.size() == 2 && !isRecv(RootCalls[1])) ||
      !isRecv(PeerCalls[0]) || !isBlockingSend(PeerCalls[1]))
    return std::nullopt;
  const CallExpr *RootSend = RootCalls[0];
  const CallExpr *RootRecv = RootCalls.size() == 2 ? RootCalls[1] : nullptr;
  const CallExpr *PeerRecv = PeerCalls[0], *Forward = PeerCalls[1];
  // Where the receive and the forwarding send are: the branch, or the
  // probe's `if` in it.
  const Stmt *Receiving = Peer;
  if (Probe) // Listing 7: the evaluation proves it (Polling.h).
    return std::nullopt;
  auto RootSide = guardedSend(RootSend, Root);
  auto ForwardSide = guardedSend(Forward, Receiving);
  if (!RootSide || !ForwardSide)
    return std::nullopt;
  const Stmt *RecvStmt = statementOf(PeerRecv, Receiving);
  const Stmt *RootRecvStmt = RootRecv ? statementOf(RootRecv, Root) : nullptr;
  auto IsCallStatement = [](const Stmt *S, const CallExpr *Call) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    return E && E->IgnoreParenCasts() == Call;
  };
  if (!IsCallStatement(RecvStmt, PeerRecv) ||
      (RootRecv && !IsCallStatement(RootRecvStmt, RootRecv)))
    return std::nullopt;

  RootBranch = Root;
  PeerBranch = Peer;
  Result.Function = &F;
  Result.Guard = If;
  Result.Kind = ManualKind::Bcast;
  Result.Topology = ManualTopology::Chain;
  Result.RootStmt = RootSide->first;
  Result.RootCall = RootSend;
  Result.PeerCall = PeerRecv;
  Result.RootBuffer = mpiArg(RootSend, mpi::Role::SendBuffer);
  Result.Removed.push_back(ForwardSide->first);
  if (RootRecvStmt)
    Result.Removed.push_back(RootRecvStmt);
  PatternCalls = {RootSend, PeerRecv, Forward};
  if (RootRecv)
    PatternCalls.push_back(RootRecv);
  if (Probe) {
    PatternCalls.push_back(Probe);
    Result.Removed.push_back(RecvStmt);
  }
  chooseRoot(Cond);

  refuseCallsInMacros(PatternCalls);
  if (refusedFor(SafetyCheck::SourceForm))
    return Result;

  checkGuard(Cond);
  for (const CallExpr *Call : {PeerRecv, Forward, RootRecv})
    if (Call)
      checkSameArguments(RootSend, Call);
  // The message goes round unchanged: each rank forwards what it received,
  // and the root gets back what it sent.
  const Expr *PeerBuffer = mpiArg(PeerRecv, mpi::Role::RecvBuffer);
  const Expr *Forwarded = mpiArg(Forward, mpi::Role::SendBuffer);
  if (!sameArgument(PeerBuffer, Forwarded, Context))
    refuse(SafetyCheck::MessageIntegrity,
           "forwards " + quoted(Forwarded, Context) + ", not the received " +
               quoted(PeerBuffer, Context),
           Forwarded->getBeginLoc());
  if (const ValueDecl *Base = messageObject(PeerBuffer))
    checkStatementsBetween(Receiving, RecvStmt, ForwardSide->first, Base);
  if (RootRecv) {
    const Expr *Back = mpiArg(RootRecv, mpi::Role::RecvBuffer);
    if (!sameArgument(Back, Result.RootBuffer, Context))
      refuse(SafetyCheck::MessageIntegrity,
             "the root receives into " + quoted(Back, Context) +
                 ", not the buffer it sent",
             Back->getBeginLoc());
    if (const ValueDecl *Base = messageObject(Result.RootBuffer))
      checkStatementsBetween(Root, RootSide->first, RootRecvStmt, Base);
  }
  checkChainScale(RootSide->second, RootRecv, PeerRecv, Forward,
                  ForwardSide->second);
  checkOrder();
  checkStatus(PeerRecv, nullptr);
  if (RootRecv)
    checkStatus(RootRecv, nullptr);

  return finished();
}

/// No statement of \p Branch strictly between \p From and \p To may
/// change \p Base.
void CandidateBuilder::checkStatementsBetween(const Stmt *Branch,
                                              const Stmt *From, const Stmt *To,
                                              const ValueDecl *Base) {
  const auto *Block = dyn_cast<CompoundStmt>(Branch);
  if (!Block)
    return;
  bool Inside = false;
  for (const Stmt *S : Block->body()) {
    if (S == To)
      return;
    if (Inside)
      checkNoWrites(S, Base, nullptr);
    if (S == From)
      Inside = true;
  }
}

/// Algorithm 2 for rings and chains: the neighbour expressions are
/// evaluated for every rank at every size up to past the largest constant
/// they mention, and the messages they describe must form a broadcast from
/// the root: every other rank receives exactly once, from the rank it names,
/// and the message reaches it from the root.
void CandidateBuilder::checkChainScale(const Expr *RootCond,
                                       const CallExpr *RootRecv,
                                       const CallExpr *PeerRecv,
                                       const CallExpr *Forward,
                                       const Expr *ForwardCond) {
  RankArithmetic Arith(Facts, Context);
  const Expr *RootDest = mpiArg(Result.RootCall, mpi::Role::Dest);
  const Expr *RootSource =
      RootRecv ? mpiArg(RootRecv, mpi::Role::Source) : nullptr;
  const Expr *PeerSource = mpiArg(PeerRecv, mpi::Role::Source);
  const Expr *ForwardDest = mpiArg(Forward, mpi::Role::Dest);
  const Expr *Exprs[] = {RootCond,   RootDest,    RootSource,
                         PeerSource, ForwardDest, ForwardCond};
  const auto *Guard =
      cast<BinaryOperator>(Result.Guard->getCond()->IgnoreParenImpCasts());
  const VarDecl *Rank = namedVariable(
      Result.Root == Guard->getRHS()->IgnoreParenImpCasts() ? Guard->getLHS()
                                                            : Guard->getRHS());
  if (!Rank)
    return; // checkGuard has refused already.
  const VarDecl *RootVar = namedVariable(Result.Root);
  SmallVector<const VarDecl *, 4> Known = {Rank};
  if (RootVar)
    Known.push_back(RootVar);
  SmallVector<const VarDecl *, 4> Free;
  int64_t Largest = Arith.largestLiteral(Result.Root);
  for (const Expr *E : Exprs) {
    Arith.freeVariables(E, Known, Free);
    Largest = std::max(Largest, Arith.largestLiteral(E));
  }
  const Expr *Comm = mpiArg(Result.RootCall, mpi::Role::Comm);
  const VarDecl *Size = nullptr;
  for (const VarDecl *V : Free) {
    if (!Size) {
      Size = V;
      continue;
    }
    refuse(SafetyCheck::InputIndependence,
           "the neighbours depend on '" + V->getNameAsString() +
               "' as well as on '" + Size->getNameAsString() +
               "'; only the rank, the size and the root are allowed",
           Result.RootStmt->getBeginLoc());
    return;
  }
  if (Size)
    checkValueFromQuery(Size, "MPI_Comm_size", Comm, Result.RootStmt, F,
                        SafetyCheck::ScaleIndependence,
                        "the neighbours' modulus", 0);
  // A rank the root exists for at every size: a variable root is tried in
  // every position, a root computed from the size is evaluated.
  int64_t MaxSize =
      std::min<int64_t>(256, std::max<int64_t>(16, 2 * Largest + 4));
  bool SawRing = false;
  for (int64_t N = 1; N <= MaxSize; ++N) {
    RankEnvironment Env;
    if (Size)
      Env[Size] = N;
    SmallVector<int64_t, 16> Roots;
    if (RootVar && !Arith.evaluate(Result.Root, Env)) {
      for (int64_t R = 0; R < N; ++R)
        Roots.push_back(R);
    } else if (std::optional<int64_t> R = Arith.evaluate(Result.Root, Env)) {
      if (*R < 0 || *R >= N)
        continue; // No such root at this size; both versions fail alike.
      Roots.push_back(*R);
    } else {
      refuse(SafetyCheck::InputIndependence,
             "cannot evaluate the root " + quoted(Result.Root, Context) +
                 " from the size",
             Result.Root->getBeginLoc());
      return;
    }
    for (int64_t R : Roots) {
      if (RootVar)
        Env[RootVar] = R;
      std::optional<std::string> Why =
          simulateChain(Arith, Env, Rank, N, R, RootCond, RootDest, RootSource,
                        PeerSource, ForwardDest, ForwardCond, SawRing);
      if (Why) {
        refuse(SafetyCheck::ScaleIndependence,
               "at " + std::to_string(N) +
                   (N == 1 ? " process" : " processes") + " with root " +
                   std::to_string(R) + ", " + *Why,
               Result.RootStmt->getBeginLoc());
        return;
      }
    }
  }
}

/// One run of the ring or chain at \p N processes with root \p R; what
/// goes wrong, or nothing.
std::optional<std::string> CandidateBuilder::simulateChain(
    const RankArithmetic &Arith, RankEnvironment &Env, const VarDecl *Rank,
    int64_t N, int64_t R, const Expr *RootCond, const Expr *RootDest,
    const Expr *RootSource, const Expr *PeerSource, const Expr *ForwardDest,
    const Expr *ForwardCond, bool &SawRing) {
  auto At = [&](const Expr *E, int64_t Me) {
    Env[Rank] = Me;
    return Arith.evaluate(E, Env);
  };
  auto Cannot = [&](const Expr *E) {
    return "cannot evaluate " + quoted(E, Context);
  };
  std::vector<std::vector<int64_t>> Inbox(N);
  std::vector<int64_t> Source(N, -1);
  auto Send = [&](const Expr *Cond, const Expr *Dest,
                  int64_t Me) -> std::optional<std::string> {
    if (Cond) {
      std::optional<int64_t> Go = At(Cond, Me);
      if (!Go)
        return Cannot(Cond);
      if (!*Go)
        return std::nullopt;
    }
    std::optional<int64_t> To = At(Dest, Me);
    if (!To)
      return Cannot(Dest);
    if (*To < 0 || *To >= N)
      return "rank " + std::to_string(Me) + " sends to rank " +
             std::to_string(*To) + ", which does not exist";
    Inbox[*To].push_back(Me);
    return std::nullopt;
  };
  if (auto Why = Send(RootCond, RootDest, R))
    return Why;
  for (int64_t Me = 0; Me < N; ++Me) {
    if (Me == R)
      continue;
    std::optional<int64_t> From = At(PeerSource, Me);
    if (!From)
      return Cannot(PeerSource);
    Source[Me] = *From;
    if (auto Why = Send(ForwardCond, ForwardDest, Me))
      return Why;
  }
  if (N > 1) {
    std::optional<int64_t> Next = At(ForwardDest, N - 1);
    if (Next && *Next == 0 && !SawRing) {
      SawRing = true;
      Result.Topology = ManualTopology::Ring;
    }
  }
  for (int64_t Me = 0; Me < N; ++Me) {
    std::vector<int64_t> Expected;
    if (Me != R) {
      Expected.push_back(Source[Me]);
    } else if (RootSource) {
      std::optional<int64_t> From = At(RootSource, Me);
      if (!From)
        return Cannot(RootSource);
      Expected.push_back(*From);
    }
    if (Inbox[Me].size() == 1 && Expected.size() == 1 && Inbox[Me] != Expected)
      return "rank " + std::to_string(Me) + " receives from rank " +
             std::to_string(Expected[0]) + " but rank " +
             std::to_string(Inbox[Me][0]) + " sends to it";
    if (Inbox[Me] != Expected)
      return "rank " + std::to_string(Me) + " receives " +
             std::to_string(Expected.size()) + " message" +
             (Expected.size() == 1 ? "" : "s") + " but is sent " +
             std::to_string(Inbox[Me].size());
  }
  // Every rank hears from the root through its chain of sources.
  for (int64_t Me = 0; Me < N; ++Me) {
    int64_t At = Me;
    for (int64_t Step = 0; Step < N && At != R; ++Step)
      At = Source[At] < 0 ? R : Source[At];
    if (At != R)
      return "rank " + std::to_string(Me) +
             " waits in a cycle without the root";
  }
  return std::nullopt;
}

/// `memcpy(Dest, Source, count * sizeof(T))` with \p Dest, \p Source and
/// the element count spelled as given, and `sizeof` of the element size.
bool CandidateBuilder::isBlockCopy(const Stmt *S, const Expr *Dest,
                                   const Expr *Source, const Expr *Count,
                                   QualType Element) {
  const auto *Call = dyn_cast_or_null<CallExpr>(
      isa_and_nonnull<Expr>(S) ? cast<Expr>(S)->IgnoreParenCasts() : nullptr);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier() ||
      (Callee->getName() != "memcpy" && Callee->getName() != "memmove") ||
      Call->getNumArgs() != 3 || Element.isNull())
    return false;
  if (!sameArgument(Call->getArg(0)->IgnoreParenCasts(), Dest, Context) ||
      !sameArgument(Call->getArg(1)->IgnoreParenCasts(), Source, Context))
    return false;
  const auto *Mul =
      dyn_cast<BinaryOperator>(Call->getArg(2)->IgnoreParenImpCasts());
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return false;
  for (auto [A, B] : {std::pair(Mul->getLHS(), Mul->getRHS()),
                      std::pair(Mul->getRHS(), Mul->getLHS())}) {
    const auto *Size =
        dyn_cast<UnaryExprOrTypeTraitExpr>(B->IgnoreParenImpCasts());
    if (!Size || Size->getKind() != UETT_SizeOf ||
        !sameArgument(A->IgnoreParenImpCasts(), Count, Context))
      continue;
    if (Context.getTypeSizeInChars(Size->getTypeOfArgument()) ==
        Context.getTypeSizeInChars(Element))
      return true;
  }
  return false;
}

/// The block of \p Base that belongs to rank \p Self, as an expression
/// `Base + Self*Count` or `&Base[Self*Count]` is spelled in \p E.
bool CandidateBuilder::isOwnBlock(const Expr *E, const Expr *Base,
                                  const VarDecl *Self, const Expr *Count) {
  const Expr *Found = peerBlockBase(E, Self, Count, Context);
  return Found && sameArgument(Found, Base, Context);
}

/// Allgather and alltoall written as a loop of MPI_Sendrecv over every
/// other rank: block i of the receive array comes from rank i; what is sent
/// is the same block (allgather) or block i of the send array (alltoall).
std::optional<ManualCollective>
CandidateBuilder::tryExchange(const ForStmt *ForLoop) {
  std::optional<PeerLoop> Wrapped = asPeerLoop(ForLoop, Context);
  if (!Wrapped)
    return std::nullopt;
  const PeerLoop *Loop = &*Wrapped;
  SmallVector<const CallExpr *, 4> Calls;
  collectCalls(Loop->getBody(), Calls);
  const CallExpr *Exchange = nullptr;
  for (const CallExpr *Call : Calls) {
    const mpi::FunctionInfo *Info = mpiCallee(Call);
    if (Info && Info->Id == mpi::FunctionId::Sendrecv && !Exchange)
      Exchange = Call;
  }
  if (!Exchange || !matchLoopHeader(Loop))
    return std::nullopt;
  PatternLoop = Loop->S;
  if (namedVariable(mpiArg(Exchange, mpi::Role::Dest)) != LoopVar ||
      namedVariable(mpiArg(Exchange, mpi::Role::Source)) != LoopVar)
    return std::nullopt;
  for (const CallExpr *Call : Calls)
    if (Call != Exchange && mpiCallee(Call))
      refuse(SafetyCheck::MessageOrder,
             "another MPI call inside the collective statement",
             Call->getBeginLoc());

  // The rank the loop skips is the calling rank.
  SmallVector<const IfStmt *, 4> Ifs;
  collectIfs(Loop->getBody(), Ifs);
  for (const IfStmt *If : Ifs) {
    const auto *Cond =
        dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
    if (!Cond || (Cond->getOpcode() != BO_NE && Cond->getOpcode() != BO_EQ))
      continue;
    if (isVariable(Cond->getLHS(), LoopVar))
      Result.Root = Cond->getRHS()->IgnoreParenImpCasts();
    else if (isVariable(Cond->getRHS(), LoopVar))
      Result.Root = Cond->getLHS()->IgnoreParenImpCasts();
    if (Result.Root)
      break;
  }
  const VarDecl *Self = namedVariable(Result.Root);
  if (!Self)
    return std::nullopt;

  const Expr *Count = mpiArg(Exchange, mpi::Role::SendCount);
  const Expr *Send = mpiArg(Exchange, mpi::Role::SendBuffer);
  const Expr *Recv = mpiArg(Exchange, mpi::Role::RecvBuffer);
  const Expr *RecvBase = peerBlockBase(Recv, LoopVar, Count, Context);
  bool PerPeerSend = mentions(Send, LoopVar);
  const Expr *SendBase =
      PerPeerSend ? peerBlockBase(Send, LoopVar, Count, Context) : Send;
  if (!RecvBase || !SendBase)
    return std::nullopt;
  Result.Function = &F;
  Result.Kind = PerPeerSend ? ManualKind::Alltoall : ManualKind::Allgather;
  Result.RootStmt = Loop->S;
  Result.RootCall = Exchange;
  Result.RootBuffer = RecvBase;
  Result.SendBuffer = SendBase;
  PatternCalls = {Exchange};
  if (Exchange->getBeginLoc().isMacroID() || Loop->getBeginLoc().isMacroID()) {
    refuse(SafetyCheck::SourceForm, "the exchange is spelled inside a macro",
           Context.getSourceManager().getExpansionLoc(Loop->getBeginLoc()));
    return Result;
  }

  for (auto [A, B] : {std::pair(mpi::Role::SendCount, mpi::Role::RecvCount),
                      std::pair(mpi::Role::SendType, mpi::Role::RecvType),
                      std::pair(mpi::Role::SendTag, mpi::Role::RecvTag)}) {
    const Expr *X = mpiArg(Exchange, A), *Y = mpiArg(Exchange, B);
    if (mentions(X, LoopVar) || mentions(Y, LoopVar))
      refuse(SafetyCheck::MatchingArguments,
             "the " + StringRef(mpi::name(A)).lower() + " differs per peer",
             X->getBeginLoc());
    else if (!sameArgument(X, Y, Context))
      refuse(SafetyCheck::MatchingArguments,
             "sends with " + quoted(X, Context) + " but receives with " +
                 quoted(Y, Context),
             Y->getBeginLoc());
    else if (A != mpi::Role::SendTag) {
      // Every rank sends what the others receive: one value for all.
      checkLoopInvariant(X, StringRef(mpi::name(A)).lower());
      checkUniform(X, StringRef(mpi::name(A)).lower());
    }
  }
  checkValueFromQuery(Self, "MPI_Comm_rank", mpiArg(Exchange, mpi::Role::Comm),
                      Loop->S, F, SafetyCheck::ScaleIndependence,
                      "the skipped rank", 0);
  checkLoopBody(Loop);
  checkScale(Loop);

  // Message integrity: neither array changes in the loop, elements are the
  // datatype's size, and the rank's own block ends as MPI would leave it.
  QualType Element = elementType(RecvBase);
  for (const Expr *Base : {RecvBase, SendBase})
    if (const ValueDecl *Object = messageObject(Base))
      checkNoWrites(Loop->getBody(), Object, Exchange);
  checkElementType(RecvBase, mpi::Role::RecvType);
  if (PerPeerSend)
    checkElementType(SendBase, mpi::Role::SendType);
  if (PerPeerSend)
    Result.InPlace = sameArgument(SendBase, RecvBase, Context);
  else
    Result.InPlace = isOwnBlock(Send, RecvBase, Self, Count);
  if (!Result.InPlace) {
    // The loop leaves the own block alone; MPI writes it. Accept only when
    // the program itself copies the same data there next to the loop.
    const Expr *OwnSource = Send;
    const Stmt *Before = nullptr, *After = nullptr;
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(
            Context.getParents(*Loop->S).empty()
                ? nullptr
                : Context.getParents(*Loop->S)[0].get<CompoundStmt>())) {
      const Stmt *Prev = nullptr;
      bool Next = false;
      for (const Stmt *S : Block->body()) {
        if (Next) {
          After = S;
          break;
        }
        if (S == Loop->S) {
          Before = Prev;
          Next = true;
        }
        Prev = S;
      }
    }
    auto Copies = [&](const Stmt *S) {
      if (!S)
        return false;
      const auto *Call = dyn_cast<CallExpr>(
          isa<Expr>(S) ? cast<Expr>(S)->IgnoreParenCasts() : S);
      if (!Call || Call->getNumArgs() != 3)
        return false;
      const Expr *Dest = Call->getArg(0)->IgnoreParenCasts();
      const Expr *Source = Call->getArg(1)->IgnoreParenCasts();
      bool SourceOK = PerPeerSend ? isOwnBlock(Source, SendBase, Self, Count)
                                  : sameArgument(Source, OwnSource, Context);
      return isOwnBlock(Dest, RecvBase, Self, Count) && SourceOK &&
             isBlockCopy(S, Dest, Source, Count, Element);
    };
    if (!Copies(Before) && !Copies(After))
      refuse(SafetyCheck::MessageIntegrity,
             "the loop leaves this rank's own block of " +
                 quoted(RecvBase, Context) +
                 " alone and nothing next to it copies the rank's data "
                 "there; the collective would write it",
             Loop->getBeginLoc());
  }
  checkStatus(Exchange, Loop->S);
  checkOrder();
  findResidualLoop(Loop);

  return finished();
}

/// An element of \p Base has the size of the datatype of role \p Type.
void CandidateBuilder::checkElementType(const Expr *Base, mpi::Role TypeRole) {
  const Expr *Type = mpiArg(Result.RootCall, TypeRole);
  QualType Element = elementType(Base);
  std::optional<uint64_t> TypeSize =
      predefinedTypeSize(squeezed(sourceText(Type, Context)), Context);
  if (Element.isNull() || Element->isIncompleteType() || !TypeSize ||
      Context.getTypeSizeInChars(Element).getQuantity() !=
          static_cast<int64_t>(*TypeSize))
    refuse(SafetyCheck::MessageIntegrity,
           "cannot prove that an element of " + quoted(Base, Context) +
               " is one " + quoted(Type, Context),
           Type->getBeginLoc());
}

std::optional<ManualCollective> CandidateBuilder::tryGuard(const IfStmt *If) {
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cond || (Cond->getOpcode() != BO_EQ && Cond->getOpcode() != BO_NE) ||
      !If->getElse())
    return std::nullopt;
  // The root branch is the one holding the loop over peers.
  const Stmt *Equal =
      Cond->getOpcode() == BO_EQ ? If->getThen() : If->getElse();
  const Stmt *Unequal =
      Cond->getOpcode() == BO_EQ ? If->getElse() : If->getThen();
  std::optional<PeerLoop> FoundLoop = findPeerLoop(Equal);
  if (!FoundLoop)
    return tryChain(If, Cond, Equal, Unequal);
  const PeerLoop *Loop = &*FoundLoop;
  PatternLoop = Loop->S;
  RootBranch = Equal;
  PeerBranch = Unequal;
  Result.Function = &F;
  Result.Guard = If;
  Result.RootStmt = Loop->S;

  SmallVector<const CallExpr *, 4> Calls;
  collectCalls(Loop->getBody(), Calls);
  for (const CallExpr *Call : Calls) {
    if (!mpiCallee(Call))
      continue;
    if ((isBlockingSend(Call) || isRecv(Call)) && !Result.RootCall) {
      Result.RootCall = Call;
      continue;
    }
    refuse(SafetyCheck::MessageOrder,
           "another MPI call inside the collective statement",
           Call->getBeginLoc());
  }
  if (!Result.RootCall)
    return std::nullopt;
  if (!matchLoopHeader(Loop))
    return std::nullopt;
  const VarDecl *PeerVar = namedVariable(
      mpiArg(Result.RootCall,
             isRecv(Result.RootCall) ? mpi::Role::Source : mpi::Role::Dest));
  if (PeerVar != LoopVar)
    return std::nullopt;

  chooseRoot(Cond);

  const Expr *Buffer =
      mpiArg(Result.RootCall, isRecv(Result.RootCall) ? mpi::Role::RecvBuffer
                                                      : mpi::Role::SendBuffer);
  const Expr *Count = mpiArg(Result.RootCall, mpi::Role::Count);
  if (isRecv(Result.RootCall))
    Result.Kind = ManualKind::Gather;
  else
    Result.Kind =
        mentions(Buffer, LoopVar) ? ManualKind::Scatter : ManualKind::Bcast;
  Result.RootBuffer = Buffer;
  if (Result.Kind == ManualKind::Bcast)
    checkLoopInvariant(Buffer, "buffer");
  if (Result.Kind != ManualKind::Bcast) {
    const Expr *Base = peerBlockBase(Buffer, LoopVar, Count, Context);
    if (Base)
      checkLoopInvariant(Base, "buffer");
    if (Base)
      Result.RootBuffer = Base;
    else
      refuse(SafetyCheck::MessageIntegrity,
             "the buffer " + quoted(Buffer, Context) +
                 " is not 'base + i*count' with the call's count",
             Buffer->getBeginLoc());
  }

  Result.PeerCall = findPeerCall(PeerBranch);
  if (!Result.PeerCall) {
    refuse(SafetyCheck::MatchingArguments,
           Result.Kind == ManualKind::Gather
               ? "the other branch sends nothing to the root"
               : "the other branch receives nothing from the root",
           PeerBranch->getBeginLoc());
    return Result;
  }

  // Inside a macro the spelling of the arguments is not ours to compare or
  // rewrite; nothing else is checked.
  refuseCallsInMacros({Result.RootCall, Result.PeerCall});
  if (If->getBeginLoc().isMacroID() || Loop->getBeginLoc().isMacroID())
    refuse(SafetyCheck::SourceForm, "the pattern is inside a macro expansion",
           If->getBeginLoc());
  if (refusedFor(SafetyCheck::SourceForm))
    return Result;

  PatternCalls = {Result.RootCall, Result.PeerCall};
  checkExecutedOnce(Loop->S, RootBranch, "collective statement");
  checkExecutedOnce(Result.PeerCall, PeerBranch, "peer's call");
  checkLoopBody(Loop);
  checkGuard(Cond);
  checkScale(Loop);
  checkMessage(Loop);
  checkArguments();
  checkOrder();
  if (Result.Kind == ManualKind::Gather)
    checkStatus(Result.RootCall, Loop->S);
  else
    checkStatus(Result.PeerCall, nullptr);
  findResidualLoop(Loop);
  // The skip compares the peer with the root: the root must not change
  // inside the loop either.
  if (RootSkip)
    checkLoopInvariant(Result.Root, "root");

  return finished();
}

/// The statement of the loop's body that holds the root's call and nothing
/// else; when it is not the whole body, the loop does more than
/// communicate and stays (ManualCollective::LoopCallStmt). The collective
/// runs before the loop: for a gather, nothing the loop does before its
/// receive may read the data the collective brings.
void CandidateBuilder::findResidualLoop(const PeerLoop *Loop) {
  const Stmt *Only = Result.RootCall;
  while (const Stmt *Parent = parentStmt(*Only, Context)) {
    if (Parent == Loop->S)
      return; // The body is the call alone: the whole loop goes.
    const auto *Block = dyn_cast<CompoundStmt>(Parent);
    const auto *If = dyn_cast<IfStmt>(Parent);
    // The skip of the root (`if (i == root) continue;`) is no work either.
    auto IsOther = [&](const Stmt *S) { return S != Only && S != RootSkip; };
    bool HoldsOnlyThis = (Block && llvm::none_of(Block->body(), IsOther)) ||
                         (If && If == RootSkip && !If->getElse()) ||
                         isa<Expr>(Parent);
    if (!HoldsOnlyThis)
      break;
    Only = Parent;
  }
  Result.LoopCallStmt = Only;
  if (Result.Kind == ManualKind::Bcast || Result.Kind == ManualKind::Scatter)
    return; // The root's data stays as it is.
  const ValueDecl *Base = bufferBase(Result.RootBuffer);
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *Read = findFirst(Loop->getBody(), [&](const Stmt *S) {
    return Base &&
           SM.isBeforeInTranslationUnit(S->getBeginLoc(),
                                        Result.RootCall->getBeginLoc()) &&
           !findFirst(S, [&](const Stmt *X) { return X == Result.RootCall; }) &&
           mentions(S, Base);
  });
  if (Read)
    refuse(SafetyCheck::MessageIntegrity,
           "the loop reads " + quoted(Result.RootBuffer, Context) +
               " before its receive; the collective, which runs before the "
               "rest of the loop, would already have filled it",
           Read->getBeginLoc());
}

/// Where the nonblocking form of \p C completes: after the whole pattern
/// statement, as late as no statement may touch its buffers.
void findWaitPoint(ManualCollective &C, TranslationUnitFacts &TU) {
  if (!C.isSafe())
    return;
  SmallVector<const ValueDecl *, 2> Buffers;
  for (const Expr *E : {C.RootBuffer, C.SendBuffer})
    if (E)
      Buffers.push_back(bufferBase(E));
  if (C.PeerCall)
    for (mpi::Role R : {mpi::Role::SendBuffer, mpi::Role::RecvBuffer})
      if (const Expr *E = mpiArg(C.PeerCall, R))
        Buffers.push_back(bufferBase(E));
  if (llvm::is_contained(Buffers, nullptr))
    return;
  BufferAccess Access(Buffers, TU.factsOf(*C.Function), TU.context());
  C.Wait = Access.sinkAfter(C.PatternStmt);
  if (!C.Guard)
    return;
  // Inside the branches, after the calls the rewrite puts in place.
  ASTContext &Context = TU.context();
  for (const Stmt *Replaced :
       {C.RootStmt, static_cast<const Stmt *>(C.PeerCall)}) {
    const Stmt *Child = Replaced;
    const CompoundStmt *Block = nullptr;
    while (Child) {
      DynTypedNodeList Parents = Context.getParents(*Child);
      const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
      if (!Parent || Parent == C.Guard)
        break;
      if ((Block = dyn_cast<CompoundStmt>(Parent)))
        break;
      Child = Parent;
    }
    if (!Block)
      continue;
    bool After = false;
    for (const Stmt *S : Block->body()) {
      if (S == Child) {
        After = true;
        continue;
      }
      if (!After || llvm::is_contained(C.Removed, S))
        continue;
      if (Access.mayTouch(S)) {
        C.BranchWaits.push_back(S);
        break;
      }
    }
  }
}

} // namespace

ManualCollectiveFinder::ManualCollectiveFinder(ASTContext &Context)
    : Facts(std::make_unique<TranslationUnitFacts>(Context)) {}

ManualCollectiveFinder::~ManualCollectiveFinder() = default;

std::vector<UnjudgedCalls>
ManualCollectiveFinder::unjudged(const FunctionDecl &Function) const {
  auto It = Unjudged.find(&Function);
  return It == Unjudged.end() ? std::vector<UnjudgedCalls>() : It->second;
}

std::vector<ManualCollective>
ManualCollectiveFinder::find(const FunctionDecl &Function) {
  TranslationUnitFacts &TU = *Facts;
  std::vector<ManualCollective> Found;
  if (!Function.doesThisDeclarationHaveABody())
    return Found;
  SmallVector<const IfStmt *, 16> Ifs;
  collectIfs(Function.getBody(), Ifs);
  llvm::SmallPtrSet<const Stmt *, 8> Claimed;
  for (const IfStmt *If : Ifs) {
    if (Claimed.count(If))
      continue;
    CandidateBuilder Builder(TU, Function);
    std::optional<ManualCollective> C = Builder.tryGuard(If);
    if (!C)
      continue;
    // A guard nested inside an accepted pattern's loop is not another one.
    SmallVector<const IfStmt *, 4> Inner;
    collectIfs(C->RootStmt, Inner);
    Claimed.insert(Inner.begin(), Inner.end());
    Found.push_back(std::move(*C));
  }
  // Exchange loops that no guard claimed.
  SmallVector<const ForStmt *, 16> Loops;
  collectLoops(Function.getBody(), Loops);
  for (const ForStmt *Loop : Loops) {
    if (llvm::any_of(Found, [&](const ManualCollective &C) {
          return C.RootStmt == Loop;
        }))
      continue;
    CandidateBuilder Builder(TU, Function);
    if (std::optional<ManualCollective> C = Builder.tryExchange(Loop))
      Found.push_back(std::move(*C));
  }
  for (ManualCollective &C : Found) {
    C.PatternStmt = C.Guard ? static_cast<const Stmt *>(C.Guard) : C.RootStmt;
    // One rewrite of a template's text serves every instantiation, whose
    // types (and so buffers and datatypes) the checks have not seen; the
    // other checks say little about unresolved code.
    if (Function.isDependentContext())
      C.Refusals = {{SafetyCheck::SourceForm,
                     "the pattern is in a template; its instantiations may "
                     "use other types than the checks can see",
                     C.PatternStmt->getBeginLoc()}};
    findWaitPoint(C, TU);
    findFallback(C, TU);
  }
  const SourceManager &SM = Function.getASTContext().getSourceManager();
  // The rank-space evaluation decides wherever it found a pattern; the
  // template recogniser speaks only where it did not.
  std::vector<UnjudgedCalls> &Stops = Unjudged[&Function];
  std::vector<ManualCollective> Evaluated =
      findEvaluatedCollectives(TU, Function, &Stops);
  auto Overlapping = [&](const ManualCollective &Old) -> ManualCollective * {
    SourceRange OldRange = Old.PatternStmt->getSourceRange();
    for (ManualCollective &New : Evaluated)
      if (SM.isPointWithin(OldRange.getBegin(), New.Range.getBegin(),
                           New.Range.getEnd()) ||
          SM.isPointWithin(New.Range.getBegin(), OldRange.getBegin(),
                           OldRange.getEnd()))
        return &New;
    return nullptr;
  };
  for (ManualCollective &Old : Found) {
    if (Overlapping(Old))
      continue;
    Old.Range = Old.PatternStmt->getSourceRange();
    Evaluated.push_back(std::move(Old));
  }
  Found = std::move(Evaluated);
  llvm::stable_sort(Found,
                    [&](const ManualCollective &A, const ManualCollective &B) {
                      return SM.isBeforeInTranslationUnit(
                          A.RootStmt->getBeginLoc(), B.RootStmt->getBeginLoc());
                    });
  // Calls a finding speaks for are judged.
  for (UnjudgedCalls &U : Stops)
    llvm::erase_if(U.Calls, [&](const CallExpr *Call) {
      return llvm::any_of(Found, [&](const ManualCollective &C) {
        return SM.isPointWithin(Call->getBeginLoc(), C.Range.getBegin(),
                                C.Range.getEnd());
      });
    });
  llvm::erase_if(Stops, [](const UnjudgedCalls &U) { return U.Calls.empty(); });
  return Found;
}

} // namespace analysis
} // namespace mpilift
