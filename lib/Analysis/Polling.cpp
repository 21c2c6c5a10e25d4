//===- Polling.cpp - Callers of a polling broadcast -----------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Polling.h"

#include "BufferAccess.h"
#include "LoopStability.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "mpilift/Analysis/MPICalls.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The three ways through the polling function.
enum class PollPath {
  Root,    ///< The root's branch.
  Arrived, ///< The other branch, when the probe found the message.
  Waiting, ///< The other branch, when it did not.
};

/// What one way through the function reports.
struct Reported {
  std::optional<int64_t> Out; ///< The last value stored through the flag.
  std::optional<int64_t> Ret; ///< The value returned.
  bool Returned = false;
  bool Unknown = false; ///< A statement the walk cannot follow.
};

bool isWithin(const Stmt *Inner, const Stmt *Outer, const SourceManager &SM) {
  return Inner && Outer &&
         SM.isPointWithin(SM.getExpansionLoc(Inner->getBeginLoc()),
                          SM.getExpansionLoc(Outer->getBeginLoc()),
                          SM.getExpansionLoc(Outer->getEndLoc()));
}

std::string quoted(const Expr *E, const ASTContext &Context) {
  return "'" + sourceText(E, Context) + "'";
}

/// Whether \p Ref stands for a value that cannot change: the address of
/// \p V (`&v`, through parens; an array), or a constant.
bool isAddressOnly(const DeclRefExpr *Ref, const VarDecl *V,
                   ASTContext &Context) {
  if (V->getType()->isArrayType() || V->getType().isConstQualified())
    return true;
  const Stmt *Node = Ref;
  while (true) {
    const Stmt *Parent = parentStmt(*Node, Context);
    if (const auto *Op = dyn_cast_or_null<UnaryOperator>(Parent))
      return Op->getOpcode() == UO_AddrOf;
    if (!isa_and_nonnull<ParenExpr>(Parent))
      return false;
    Node = Parent;
  }
}

class PollingProof {
public:
  PollingProof(const PollingForm &P, const clang::FunctionDecl &F,
               TranslationUnitFacts &TU)
      : Form(P), TU(TU), Context(TU.context()), F(F), FFacts(TU.factsOf(F)) {}

  std::vector<Refusal> run();

private:
  void refuse(SafetyCheck Check, std::string Reason, SourceLocation Loc) {
    Refusals.push_back({Check, std::move(Reason), Loc});
  }
  const ParmVarDecl *findFlagParameter() const;
  bool isFlagStore(const Expr *E) const;
  std::optional<int64_t> valueOf(const Expr *E, const Reported &R) const;
  void walk(const Stmt *S, PollPath Path, Reported &R) const;
  bool isEarlyExit(const IfStmt *If) const;
  std::optional<int64_t> report(PollPath Path, bool ThroughReturn) const;
  bool givesBufferOnlyToMPI(const ParmVarDecl *P) const;
  const Stmt *pollingLoop(const CallExpr *Call) const;
  void checkCaller(const CallSite &Site);
  bool checkCondition(const CallSite &Site, const Stmt *Loop, const Expr *Cond);
  void checkBuffer(const CallSite &Site, const Stmt *Loop);
  void checkArguments(const CallSite &Site, const Stmt *Loop);
  std::optional<std::string> unstableInCallee(const Expr *E,
                                              const CallSite &Site,
                                              const Stmt *Loop, unsigned Depth);
  std::optional<std::string>
  unstableInCaller(const Expr *E, const CallSite &Site, const Stmt *Loop);

  const PollingForm &Form;
  TranslationUnitFacts &TU;
  ASTContext &Context;
  const FunctionDecl &F;
  const FunctionFacts &FFacts;
  const ParmVarDecl *Flag = nullptr;
  std::vector<Refusal> Refusals;
};

/// A pointer-to-integer parameter the function stores constants through:
/// Listing 7's `int *IFLAG`.
const ParmVarDecl *PollingProof::findFlagParameter() const {
  for (const ParmVarDecl *P : F.parameters()) {
    QualType T = P->getType();
    if (!T->isPointerType() || !T->getPointeeType()->isIntegerType())
      continue;
    auto Stores = [&](const Stmt *S) {
      const auto *Op = dyn_cast<BinaryOperator>(S);
      if (!Op || Op->getOpcode() != BO_Assign)
        return false;
      const auto *Deref =
          dyn_cast<UnaryOperator>(Op->getLHS()->IgnoreParenImpCasts());
      return Deref && Deref->getOpcode() == UO_Deref &&
             namedVariable(Deref->getSubExpr()) == P;
    };
    if (findFirst(F.getBody(), Stores))
      return P;
  }
  return nullptr;
}

/// `*Flag`.
bool PollingProof::isFlagStore(const Expr *E) const {
  const auto *Deref = dyn_cast<UnaryOperator>(E->IgnoreParenImpCasts());
  return Flag && Deref && Deref->getOpcode() == UO_Deref &&
         namedVariable(Deref->getSubExpr()) == Flag;
}

/// A constant, or `*Flag` as the walk last stored it.
std::optional<int64_t> PollingProof::valueOf(const Expr *E,
                                             const Reported &R) const {
  if (isFlagStore(E))
    return R.Out;
  // `ierr == MPI_SUCCESS ? HPL_SUCCESS : HPL_FAILURE`: MPI's default error
  // handler aborts on errors, so calls that return succeeded.
  if (const auto *Choice =
          dyn_cast<ConditionalOperator>(E->IgnoreParenImpCasts());
      Choice && isSuccessTest(Choice->getCond(), Form.ErrorCode.Var, Context))
    return valueOf(Choice->getTrueExpr(), R);
  Expr::EvalResult Result;
  if (E->isValueDependent() || !E->EvaluateAsInt(Result, Context))
    return std::nullopt;
  return Result.Val.getInt().getSExtValue();
}

/// Follows one way through the function in statement order. Only the
/// guard, the probe's `if`, stores of constants through the flag and
/// returns are followed; any other statement that holds one of them, or
/// mentions the flag, makes the walk give up.
void PollingProof::walk(const Stmt *S, PollPath Path, Reported &R) const {
  if (!S || R.Returned || R.Unknown)
    return;
  if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *Child : Block->body())
      walk(Child, Path, R);
    return;
  }
  if (S == Form.Guard) {
    const Stmt *PeerBranch = Form.RootBranch == Form.Guard->getThen()
                                 ? Form.Guard->getElse()
                                 : Form.Guard->getThen();
    walk(Path == PollPath::Root ? Form.RootBranch : PeerBranch, Path, R);
    return;
  }
  if (S == Form.ErrorGuard) {
    walk(Form.ErrorGuard->getThen(), Path, R); // The probe succeeded.
    return;
  }
  if (const auto *Exit = dyn_cast<IfStmt>(S); Exit && isEarlyExit(Exit)) {
    // `if (size <= 1) { *IFLAG = DONE; return DONE; }` before the guard:
    // a way out that reaches no probe and no send, which the rewrite keeps.
    return;
  }
  if (S == Form.Arrived) {
    if (Path == PollPath::Root)
      R.Unknown = true;
    else
      walk(Path == PollPath::Arrived ? Form.Arrived->getThen()
                                     : Form.Arrived->getElse(),
           Path, R);
    return;
  }
  if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
    R.Returned = true;
    if (const Expr *Value = Ret->getRetValue()) {
      R.Ret = valueOf(Value, R);
      R.Unknown |= !R.Ret;
    }
    return;
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(S))
    if (Op->getOpcode() == BO_Assign && isFlagStore(Op->getLHS())) {
      R.Out = valueOf(Op->getRHS(), R);
      R.Unknown |= !R.Out;
      return;
    }
  if (findFirst(S, [&](const Stmt *X) {
        if (X == Form.Guard || X == Form.Arrived || isa<ReturnStmt>(X) ||
            isa<GotoStmt>(X) || isa<IndirectGotoStmt>(X) ||
            isa<CXXThrowExpr>(X))
          return true;
        const auto *Ref = dyn_cast<DeclRefExpr>(X);
        return Flag && Ref && Ref->getDecl() == Flag;
      }))
    R.Unknown = true;
}

/// Whether \p If, a statement of the function's body before the guard,
/// has no `else` and its branch always returns without holding the
/// pattern.
bool PollingProof::isEarlyExit(const IfStmt *If) const {
  if (If->getElse() || !llvm::is_contained(F.getBody()->children(), If) ||
      !Context.getSourceManager().isBeforeInTranslationUnit(
          If->getEndLoc(), Form.Guard->getBeginLoc()))
    return false;
  const Stmt *Last = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Last))
    Last = Block->body_empty() ? nullptr : Block->body_back();
  return isa_and_nonnull<ReturnStmt>(Last) && !findFirst(If, [](const Stmt *X) {
           const auto *Call = dyn_cast<CallExpr>(X);
           return Call && mpiCallee(Call);
         });
}

/// What the function reports on \p Path: the flag it stores, or the value
/// it returns.
std::optional<int64_t> PollingProof::report(PollPath Path,
                                            bool ThroughReturn) const {
  Reported R;
  walk(F.getBody(), Path, R);
  if (R.Unknown)
    return std::nullopt;
  if (ThroughReturn)
    return R.Returned ? R.Ret : std::nullopt;
  return R.Out;
}

/// Whether every use of the buffer parameter \p P in the function is an
/// argument of an MPI call, so the caller's object stays as private as it
/// was.
bool PollingProof::givesBufferOnlyToMPI(const ParmVarDecl *P) const {
  for (const DeclRefExpr *Ref : FFacts.referencesOf(P)) {
    const Stmt *Node = Ref;
    while (true) {
      const Stmt *Parent = parentStmt(*Node, Context);
      if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent)) {
        if (!mpiCallee(Call))
          return false;
        break;
      }
      if (!Parent || !(isa<ImplicitCastExpr>(Parent) ||
                       isa<ParenExpr>(Parent) || isa<CStyleCastExpr>(Parent)))
        return false;
      Node = Parent;
    }
  }
  return true;
}

/// The nearest loop around \p Call whose body or condition holds it.
const Stmt *PollingProof::pollingLoop(const CallExpr *Call) const {
  const Stmt *Node = Call;
  while (Node) {
    const Stmt *Parent = parentStmt(*Node, Context);
    if (const auto *Loop = dyn_cast_or_null<WhileStmt>(Parent))
      return Loop;
    if (const auto *Loop = dyn_cast_or_null<DoStmt>(Parent))
      return Loop;
    if (const auto *Loop = dyn_cast_or_null<ForStmt>(Parent))
      return Node == Loop->getInit() ? nullptr : Loop;
    Node = Parent;
  }
  return nullptr;
}

/// \p E with \p Hole taken as \p Value: constants, `!`, comparisons and
/// `&&`/`||`.
std::optional<int64_t>
evaluateWith(const Expr *E, const std::function<bool(const Expr *)> &Hole,
             int64_t Value, const ASTContext &Context) {
  E = E->IgnoreParenImpCasts();
  if (Hole(E))
    return Value;
  if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
    if (Op->getOpcode() != UO_LNot)
      return std::nullopt;
    std::optional<int64_t> X =
        evaluateWith(Op->getSubExpr(), Hole, Value, Context);
    return X ? std::optional<int64_t>(!*X) : std::nullopt;
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(E)) {
    std::optional<int64_t> L = evaluateWith(Op->getLHS(), Hole, Value, Context);
    std::optional<int64_t> R = evaluateWith(Op->getRHS(), Hole, Value, Context);
    if (!L || !R)
      return std::nullopt;
    switch (Op->getOpcode()) {
    case BO_EQ:
      return *L == *R;
    case BO_NE:
      return *L != *R;
    case BO_LT:
      return *L < *R;
    case BO_LE:
      return *L <= *R;
    case BO_GT:
      return *L > *R;
    case BO_GE:
      return *L >= *R;
    case BO_LAnd:
      return *L && *R;
    case BO_LOr:
      return *L || *R;
    default:
      return std::nullopt;
    }
  }
  Expr::EvalResult Result;
  if (E->isValueDependent() || !E->EvaluateAsInt(Result, Context))
    return std::nullopt;
  return Result.Val.getInt().getSExtValue();
}

/// The loop must repeat exactly while the function reports "not yet":
/// its condition is evaluated with what the function reports on each path.
bool PollingProof::checkCondition(const CallSite &Site, const Stmt *Loop,
                                  const Expr *Cond) {
  const SourceManager &SM = Context.getSourceManager();
  std::string Name = "'" + F.getNameAsString() + "'";
  bool ThroughReturn = isWithin(Site.Call, Cond, SM);
  std::function<bool(const Expr *)> Hole;
  const VarDecl *Var = nullptr;
  if (ThroughReturn) {
    Hole = [&](const Expr *E) { return E == Site.Call; };
  } else {
    // The flag: `&v` for the flag parameter, v a local of the caller.
    const Expr *Arg =
        Flag && Flag->getFunctionScopeIndex() < Site.Call->getNumArgs()
            ? Site.Call->getArg(Flag->getFunctionScopeIndex())
                  ->IgnoreParenImpCasts()
            : nullptr;
    const auto *Addr = dyn_cast_or_null<UnaryOperator>(Arg);
    Var = Addr && Addr->getOpcode() == UO_AddrOf
              ? namedVariable(Addr->getSubExpr())
              : nullptr;
    if (!Var || !Var->hasLocalStorage()) {
      refuse(SafetyCheck::PollingLoop,
             "the loop's condition does not read what " + Name +
                 " reports (its return value, or a local variable whose "
                 "address it gets as the flag)",
             Cond->getBeginLoc());
      return false;
    }
    Hole = [Var](const Expr *E) { return namedVariable(E) == Var; };
    for (const Write &W : TU.factsOf(*Site.Caller).writesOf(Var))
      if (W.Call != Site.Call && isWithin(W.Where, Loop, SM)) {
        refuse(SafetyCheck::PollingLoop,
               "'" + Var->getNameAsString() + "' changes in the loop other " +
                   "than through " + Name,
               W.Where->getBeginLoc());
        return false;
      }
  }
  std::optional<int64_t> Waiting = report(PollPath::Waiting, ThroughReturn);
  std::optional<int64_t> Arrived = report(PollPath::Arrived, ThroughReturn);
  std::optional<int64_t> Root = report(PollPath::Root, ThroughReturn);
  if (!Waiting || !Arrived || !Root) {
    refuse(SafetyCheck::PollingLoop,
           "cannot tell what " + Name + " reports on each of its paths " +
               (ThroughReturn ? "(through its return value)"
                              : "(through its flag parameter)"),
           F.getLocation());
    return false;
  }
  auto Runs = [&](int64_t V) { return evaluateWith(Cond, Hole, V, Context); };
  std::optional<int64_t> OnWaiting = Runs(*Waiting), OnArrived = Runs(*Arrived),
                         OnRoot = Runs(*Root);
  if (!OnWaiting || !OnArrived || !OnRoot || !*OnWaiting || *OnArrived ||
      *OnRoot) {
    refuse(SafetyCheck::PollingLoop,
           "the loop condition " + quoted(Cond, Context) +
               " does not repeat exactly until " + Name +
               " reports the message there (it reports " +
               std::to_string(*Waiting) + " while waiting, " +
               std::to_string(*Arrived) + " once it has arrived and " +
               std::to_string(*Root) + " on the root)",
           Cond->getBeginLoc());
    return false;
  }
  return true;
}

/// The nonblocking broadcast writes into the receive buffer between the
/// calls: the object must outlive them and nothing else in the loop may
/// touch it.
void PollingProof::checkBuffer(const CallSite &Site, const Stmt *Loop) {
  const SourceManager &SM = Context.getSourceManager();
  const Expr *Buffer = mpiArg(Form.Recv, mpi::Role::RecvBuffer);
  const ValueDecl *Base = bufferBase(Buffer);
  const ValueDecl *CallerBase = Base;
  SmallVector<const FunctionDecl *, 1> Trusted;
  if (const auto *P = dyn_cast_or_null<ParmVarDecl>(Base)) {
    unsigned Index = P->getFunctionScopeIndex();
    CallerBase =
        P->getType()->isPointerType() && Index < Site.Call->getNumArgs()
            ? bufferBase(Site.Call->getArg(Index))
            : nullptr;
    if (givesBufferOnlyToMPI(P))
      Trusted.push_back(&F);
  } else if (const auto *V = dyn_cast_or_null<VarDecl>(Base)) {
    if (V->hasLocalStorage()) {
      refuse(SafetyCheck::MessageIntegrity,
             "the buffer '" + V->getNameAsString() + "' is a local of '" +
                 F.getNameAsString() +
                 "'; it is gone when the function returns, while the "
                 "broadcast still writes into it",
             Buffer->getBeginLoc());
      return;
    }
  }
  if (!CallerBase) {
    refuse(SafetyCheck::MessageIntegrity,
           "cannot tell which object the buffer " + quoted(Buffer, Context) +
               " is at this call",
           Site.Call->getBeginLoc());
    return;
  }
  if (const auto *V = dyn_cast<VarDecl>(CallerBase))
    if (V->hasLocalStorage() &&
        SM.isPointWithin(V->getLocation(), Loop->getBeginLoc(),
                         Loop->getEndLoc())) {
      refuse(SafetyCheck::MessageIntegrity,
             "the buffer '" + V->getNameAsString() +
                 "' is declared inside the polling loop; each round has a "
                 "new one",
             V->getLocation());
      return;
    }
  BufferAccess Access({CallerBase}, TU.factsOf(*Site.Caller), Context, Trusted);
  SmallVector<const Stmt *, 8> Between;
  const Stmt *Body = loopBody(Loop);
  if (const auto *Block = dyn_cast<CompoundStmt>(Body))
    Between.append(Block->body_begin(), Block->body_end());
  else
    Between.push_back(Body);
  if (!isWithin(Site.Call, loopCondition(Loop), SM))
    Between.push_back(loopCondition(Loop));
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    Between.push_back(For->getInc());
  for (const Stmt *S : Between) {
    if (!S)
      continue;
    if (const auto *E = dyn_cast<Expr>(S))
      if (E->IgnoreParenCasts() == Site.Call)
        continue;
    if (std::optional<std::string> Why = Access.mayTouch(S)) {
      refuse(SafetyCheck::MessageIntegrity,
             "the broadcast writes into '" + CallerBase->getNameAsString() +
                 "' while this loop polls it, and " + *Why,
             S->getBeginLoc());
      return;
    }
  }
}

/// Why \p E, an argument of the broadcast inside the polling function, may
/// have another value at the next call from the same loop.
std::optional<std::string> PollingProof::unstableInCallee(const Expr *E,
                                                          const CallSite &Site,
                                                          const Stmt *Loop,
                                                          unsigned Depth) {
  if (Depth > 4)
    return "it is computed too indirectly to follow";
  // Fields read through a parameter (`PANEL->L2`) keep their values when
  // nothing the loop runs changes them; the parameter itself is followed
  // below.
  std::optional<std::string> FieldWhy;
  const Stmt *Other = findFirst(E, [&](const Stmt *X) {
    if (!isPointerAccess(X))
      return false;
    const auto *Member = dyn_cast<MemberExpr>(X);
    const auto *Field =
        Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
    if (!Field)
      return true;
    if (!FieldWhy)
      FieldWhy = fieldChangesIn(Field, Loop, *Site.Caller, TU);
    return false;
  });
  if (Other)
    return "it reads memory through a pointer";
  if (FieldWhy)
    return *FieldWhy;
  SmallVector<const DeclRefExpr *, 8> Refs;
  findFirst(E, [&](const Stmt *X) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(X))
      Refs.push_back(Ref);
    return false;
  });
  for (const DeclRefExpr *Ref : Refs) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      continue; // Enumerators and functions do not change.
    std::string Name = "'" + V->getNameAsString() + "'";
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      if (!FFacts.writesOf(P).empty())
        return Name + " is assigned in '" + F.getNameAsString() + "'";
      unsigned Index = P->getFunctionScopeIndex();
      if (Index >= Site.Call->getNumArgs())
        return Name + " has no argument at this call";
      if (auto Why = unstableInCaller(Site.Call->getArg(Index), Site, Loop))
        return *Why;
      continue;
    }
    if (V->hasGlobalStorage()) {
      if (!isAddressOnly(Ref, V, Context))
        return Name + " is a global that may change between the calls";
      continue;
    }
    // A local of the function, computed again at each call: from the rank
    // or size queries, or from an initialiser that is itself stable.
    ArrayRef<Write> Writes = FFacts.writesOf(V);
    bool FromQuery =
        !Writes.empty() && llvm::all_of(Writes, [](const Write &W) {
          if (W.Kind != WriteKind::AddressPass)
            return false;
          const mpi::FunctionInfo *Info = mpiCallee(W.Call);
          return Info && (Info->Id == mpi::FunctionId::Comm_rank ||
                          Info->Id == mpi::FunctionId::Comm_size);
        });
    if (FromQuery)
      continue;
    // One write: the declaration's initialiser, or an assignment after a
    // declaration without one (C89 style: `int next; ... next = ...;`).
    if (Writes.size() == 1 &&
        (Writes[0].Kind == WriteKind::Init ||
         Writes[0].Kind == WriteKind::Assign) &&
        Writes[0].Value) {
      if (auto Why = unstableInCallee(Writes[0].Value, Site, Loop, Depth + 1))
        return *Why;
      continue;
    }
    return Name + " is assigned in '" + F.getNameAsString() +
           "' in a way that may differ from call to call";
  }
  return std::nullopt;
}

/// Why the caller's argument \p E may differ between two calls from
/// \p Loop.
std::optional<std::string> PollingProof::unstableInCaller(const Expr *E,
                                                          const CallSite &Site,
                                                          const Stmt *Loop) {
  const SourceManager &SM = Context.getSourceManager();
  if (accessesThroughPointer(E))
    return "the argument " + quoted(E, Context) +
           " reads memory through a pointer";
  if (findFirst(E, [](const Stmt *X) { return isa<CallExpr>(X); }))
    return "the argument " + quoted(E, Context) + " calls a function";
  std::optional<std::string> Why;
  const FunctionFacts &Facts = TU.factsOf(*Site.Caller);
  findFirst(E, [&](const Stmt *X) {
    const auto *Ref = dyn_cast<DeclRefExpr>(X);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V)
      return false;
    // An address never changes: an array, or `&v`.
    if (isAddressOnly(Ref, V, Context))
      return false;
    if (V->hasGlobalStorage()) {
      Why = "'" + V->getNameAsString() +
            "' is a global that may change between the calls";
      return true;
    }
    for (const Write &W : Facts.writesOf(V))
      if (W.Kind == WriteKind::Escape ||
          (isWithin(W.Where, Loop, SM) && W.Kind != WriteKind::Element)) {
        Why = "'" + V->getNameAsString() + "' may change inside the loop";
        return true;
      }
    return false;
  });
  return Why;
}

/// The arguments the first probe starts the broadcast with must be those
/// the original receives with at the last: the same at every call.
void PollingProof::checkArguments(const CallSite &Site, const Stmt *Loop) {
  const Expr *Args[] = {mpiArg(Form.Recv, mpi::Role::RecvBuffer),
                        mpiArg(Form.Recv, mpi::Role::Count),
                        mpiArg(Form.Recv, mpi::Role::Datatype),
                        mpiArg(Form.Recv, mpi::Role::Comm), Form.Root};
  for (const Expr *E : Args) {
    if (!E)
      continue;
    if (auto Why = unstableInCallee(E, Site, Loop, 0)) {
      refuse(SafetyCheck::PollingLoop,
             "the broadcast's argument " + quoted(E, Context) +
                 " must be the same at every call from this loop, but " + *Why,
             Site.Call->getBeginLoc());
      return;
    }
  }
}

void PollingProof::checkCaller(const CallSite &Site) {
  std::string Name = "'" + F.getNameAsString() + "'";
  const Stmt *Loop = pollingLoop(Site.Call);
  const Expr *Cond = Loop ? loopCondition(Loop) : nullptr;
  if (!Loop || !Cond) {
    refuse(SafetyCheck::PollingLoop,
           "this call of " + Name +
               " is not in a loop that calls it again until the message is "
               "there",
           Site.Call->getBeginLoc());
    return;
  }
  const SourceManager &SM = Context.getSourceManager();
  if (!isWithin(Site.Call, Cond, SM)) {
    const Stmt *Body = loopBody(Loop);
    bool Direct = false;
    if (const auto *Block = dyn_cast<CompoundStmt>(Body))
      Direct = llvm::any_of(Block->body(), [&](const Stmt *S) {
        const auto *E = dyn_cast<Expr>(S);
        return E && E->IgnoreParenCasts() == Site.Call;
      });
    else if (const auto *E = dyn_cast<Expr>(Body))
      Direct = E->IgnoreParenCasts() == Site.Call;
    if (!Direct) {
      refuse(SafetyCheck::PollingLoop,
             "this call of " + Name +
                 " is not a statement of the loop's body, so some rounds "
                 "may skip it",
             Site.Call->getBeginLoc());
      return;
    }
  }
  if (const Stmt *Exit = findFirst(loopBody(Loop), [](const Stmt *X) {
        return isa<BreakStmt>(X) || isa<ReturnStmt>(X) || isa<GotoStmt>(X) ||
               isa<IndirectGotoStmt>(X) || isa<CXXThrowExpr>(X);
      })) {
    refuse(SafetyCheck::PollingLoop,
           "the loop can be left here before the message is there",
           Exit->getBeginLoc());
    return;
  }
  if (!checkCondition(Site, Loop, Cond))
    return;
  checkBuffer(Site, Loop);
  checkArguments(Site, Loop);
}

std::vector<Refusal> PollingProof::run() {
  std::string Name = "'" + F.getNameAsString() + "'";
  Flag = findFlagParameter();
  if (F.isExternallyVisible()) {
    refuse(SafetyCheck::PollingLoop,
           Name + " can be called from other files, whose polling loops "
                  "cannot be checked here; make it static",
           F.getLocation());
    return Refusals;
  }
  if (TU.mayBeCalledUnseen(&F)) {
    refuse(SafetyCheck::PollingLoop,
           "the address of " + Name +
               " is taken, so not every call that polls it can be checked",
           F.getLocation());
    return Refusals;
  }
  ArrayRef<CallSite> Sites = TU.callersOf(&F);
  if (Sites.empty()) {
    refuse(SafetyCheck::PollingLoop,
           "nothing in this file calls " + Name +
               ", so no polling loop proves "
               "that it is called until the "
               "message is there",
           F.getLocation());
    return Refusals;
  }
  for (const CallSite &Site : Sites)
    checkCaller(Site);
  return Refusals;
}

bool isMessageStmt(const Stmt *S) {
  return isa<CallExpr>(S) && isMessageCall(cast<CallExpr>(S));
}

/// The variable `&flag` names.
const VarDecl *flagVariable(const CallExpr *Probe) {
  const auto *Addr =
      dyn_cast_or_null<UnaryOperator>(mpiArg(Probe, mpi::Role::Flag));
  return Addr && Addr->getOpcode() == UO_AddrOf
             ? namedVariable(Addr->getSubExpr())
             : nullptr;
}

/// Whether \p Cond is `flag` or `flag != 0`.
bool testsFlag(const Expr *Cond, const VarDecl *Flag, ASTContext &Context) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Op = dyn_cast<BinaryOperator>(Cond)) {
    if (Op->getOpcode() != BO_NE)
      return false;
    auto IsZero = [&](const Expr *E) {
      Expr::EvalResult R;
      return !E->isValueDependent() && E->EvaluateAsInt(R, Context) &&
             R.Val.getInt().isZero();
    };
    if (IsZero(Op->getRHS()))
      Cond = Op->getLHS()->IgnoreParenImpCasts();
    else if (IsZero(Op->getLHS()))
      Cond = Op->getRHS()->IgnoreParenImpCasts();
    else
      return false;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(Cond);
  return Ref && Ref->getDecl() == Flag;
}

/// The `if` statement \p S is, or the only statement of the block \p S
/// is.
const IfStmt *soleIf(const Stmt *S) {
  return dyn_cast_or_null<IfStmt>(soleStatement(S));
}

/// The MPI call statement \p S makes, through parentheses and casts around
/// the whole statement (`(void)MPI_Iprobe(...)`, `(ierr = MPI_Recv(...))`).
const CallExpr *bareStatementCall(const Stmt *S) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  return statementCall(E ? E->IgnoreParenCasts() : S);
}

/// The MPI_Recv that the statement \p S is (also as `ierr = MPI_Recv(...)`
/// of a variable).
const CallExpr *receiveStatement(const Expr *S, ASTContext &Context) {
  const CallExpr *Recv = bareStatementCall(S);
  if (!Recv || mpiCallee(Recv)->Id != mpi::FunctionId::Recv ||
      (isa<BinaryOperator>(S->IgnoreParenCasts()) &&
       !errorFlowOf(Recv, Context)))
    return nullptr;
  return Recv;
}

/// Listing 7's shape around \p Probe: the probe is a statement of a
/// block, directly followed by `if (flag)` (or `flag != 0`) whose block
/// starts with the receive; the block sits in one branch of a guard whose
/// other branch is the root's.
std::optional<PollingForm> pollingForm(const CallExpr *Probe,
                                       ASTContext &Context) {
  ErrorFlow Error = errorFlowOf(Probe, Context);
  const Stmt *ProbeStmt = parentStmt(*Probe, Context);
  while (ProbeStmt && (isa<ParenExpr>(ProbeStmt) || isa<CastExpr>(ProbeStmt) ||
                       (Error && isa<BinaryOperator>(ProbeStmt))))
    ProbeStmt = parentStmt(*ProbeStmt, Context);
  const auto *Block = dyn_cast_or_null<CompoundStmt>(ProbeStmt);
  if (!Block)
    return std::nullopt;
  const auto *At = llvm::find_if(Block->body(), [&](const Stmt *S) {
    return bareStatementCall(S) == Probe;
  });
  if (At == Block->body_end() || At + 1 == Block->body_end())
    return std::nullopt;
  const VarDecl *Flag = flagVariable(Probe);
  if (!Flag)
    return std::nullopt;
  // `if (ierr == MPI_SUCCESS) { if (flag) ... }`: the test of the probe's
  // error code around the test of its flag.
  const IfStmt *ErrorGuard = nullptr;
  const IfStmt *Arrived = soleIf(*(At + 1));
  if (Arrived && Error && testsSuccess(Arrived, Error.Var, Context)) {
    ErrorGuard = Arrived;
    Arrived = soleIf(ErrorGuard->getThen());
  }
  if (!Arrived || Arrived->getInit() || Arrived->getConditionVariable() ||
      !testsFlag(Arrived->getCond(), Flag, Context))
    return std::nullopt;
  const auto *Then = dyn_cast<CompoundStmt>(Arrived->getThen());
  const auto *First = Then && !Then->body_empty()
                          ? dyn_cast<Expr>(Then->body_front())
                          : nullptr;
  const CallExpr *Recv = First ? receiveStatement(First, Context) : nullptr;
  if (!Recv)
    return std::nullopt;
  PollingForm Form;
  Form.Probe = Probe;
  Form.ProbeStmt = *At;
  Form.ErrorCode = Error;
  Form.ErrorGuard = ErrorGuard;
  Form.Arrived = Arrived;
  Form.Recv = Recv;
  for (const Stmt *Inner = Block, *P = parentStmt(*Block, Context); P;
       Inner = P, P = parentStmt(*P, Context)) {
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || !If->getElse() || Inner == If->getCond())
      continue;
    Form.Guard = If;
    Form.RootBranch = Inner == If->getThen() ? If->getElse() : If->getThen();
    break;
  }
  if (!Form.Guard)
    return std::nullopt;
  return Form;
}

} // namespace

void provePolling(const CallExpr *Probe, ManualCollective &C,
                  TranslationUnitFacts &TU) {
  ASTContext &Context = TU.context();
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    C.Refusals.push_back({Check, std::move(Why), Loc});
  };
  std::optional<PollingForm> Form = pollingForm(Probe, Context);
  if (!Form) {
    Refuse(SafetyCheck::PollingLoop,
           "the region forms " + withArticle(collectiveNoun(C.Kind)) +
               " once each MPI_Iprobe finds its message, but not in Listing "
               "7's form (the probe, then `if (flag)` whose block starts "
               "with the receive, in the branch of a rank guard that is not "
               "the root's)",
           Probe->getBeginLoc());
    return;
  }
  if (C.Region && C.Region->CallCheck) {
    Refuse(SafetyCheck::SourceForm,
           "the polling broadcast's calls are checked in place (`if "
           "(MPI_Send(...) != MPI_SUCCESS)`); its rewrite keeps error codes "
           "only in a variable",
           C.Region->CallCheck->getBeginLoc());
    return;
  }
  if (C.Region && !C.Region->Returned.empty()) {
    Refuse(SafetyCheck::SourceForm,
           "the function returns this call's code; the polling broadcast's "
           "rewrite keeps error codes only in a variable",
           C.Region->Returned.front()->getBeginLoc());
    return;
  }
  if (C.Region) {
    Form->Root = C.Region->Root;
    const SourceManager &SM = Context.getSourceManager();
    for (const Stmt *S : C.Region->Removed)
      if (!Form->RootSend && isWithin(S, Form->RootBranch, SM))
        Form->RootSend = S;
    // A branch removed whole: the call goes in place of its statement that
    // sends, inside it.
    while (const auto *Block = dyn_cast_or_null<CompoundStmt>(Form->RootSend)) {
      Form->RootSend = nullptr;
      for (const Stmt *S : Block->body())
        if (!Form->RootSend && findFirst(S, isMessageStmt))
          Form->RootSend = S;
    }
    if (!Form->RootSend) {
      Refuse(SafetyCheck::PollingLoop,
             "the root's branch has no send the broadcast can take the place "
             "of",
             Form->RootBranch->getBeginLoc());
      return;
    }
    C.RootStmt = Form->RootSend;
    for (const Stmt *S : C.Region->Removed) {
      if (S == Form->RootSend)
        continue;
      const auto *Block = dyn_cast<CompoundStmt>(S);
      if (!Block || !isWithin(Form->RootSend, Block, SM)) {
        Form->Removed.push_back(S);
        continue;
      }
      for (const Stmt *Child : Block->body())
        if (Child != Form->RootSend && findFirst(Child, isMessageStmt))
          Form->Removed.push_back(Child);
    }
  }
  C.Polling = Form;
  for (mpi::Role R : {mpi::Role::Source, mpi::Role::Tag, mpi::Role::Comm}) {
    const Expr *Asked = mpiArg(Probe, R), *Received = mpiArg(Form->Recv, R);
    if (!sameExpression(Asked, Received, Context))
      Refuse(SafetyCheck::MatchingArguments,
             "the probe asks for " + quoted(Asked, Context) +
                 " where the receive takes " + quoted(Received, Context),
             Asked ? Asked->getBeginLoc() : Probe->getBeginLoc());
  }
  const VarDecl *Flag = flagVariable(Probe);
  if (!Flag->hasLocalStorage() || isa<ParmVarDecl>(Flag) ||
      TU.factsOf(*C.Function).referencesOf(Flag).size() != 2)
    Refuse(SafetyCheck::PollingLoop,
           "the probe's flag '" + Flag->getNameAsString() +
               "' is used elsewhere; MPI_Test would set it at other moments "
               "than the probe did",
           mpiArg(Probe, mpi::Role::Flag)->getBeginLoc());
  for (Refusal &R : PollingProof(*Form, *C.Function, TU).run())
    C.Refusals.push_back(std::move(R));
}

} // namespace analysis
} // namespace mpilift
