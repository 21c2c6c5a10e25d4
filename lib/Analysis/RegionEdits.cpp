//===- RegionEdits.cpp - What a rewrite removes from a region -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "RegionEdits.h"

#include "CombineForms.h"
#include "ConditionalText.h"
#include "RankUniformity.h"
#include "StatementTree.h"
#include "VectorUses.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Whether \p E is the variable \p V.
bool namesVariable(const Expr *E, const VarDecl *V) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return Ref && Ref->getDecl() == V;
}

/// Whether \p E is an integer constant zero (`MPI_SUCCESS`, `0`).
bool isZeroConstant(const Expr *E, const ASTContext &Ctx) {
  std::optional<llvm::APSInt> V =
      E->isValueDependent() ? std::nullopt : E->getIntegerConstantExpr(Ctx);
  return V && V->isZero();
}

/// The point-to-point calls and waits the collective replaces.
bool isPatternCall(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  return Info && (isMessageCall(Call) || Info->TheFamily == mpi::Family::Wait);
}

/// The statements \p S holds in statement position: a block's statements,
/// an `if`'s branches, a loop's or switch's body, a label's statement.
llvm::SmallVector<const Stmt *, 8> heldStatements(const Stmt *S) {
  llvm::SmallVector<const Stmt *, 8> Out;
  if (const auto *Block = dyn_cast<CompoundStmt>(S))
    Out.append(Block->body_begin(), Block->body_end());
  else if (const auto *If = dyn_cast<IfStmt>(S))
    Out.append({If->getThen(), If->getElse()});
  else if (isLoop(S))
    Out.push_back(loopBody(S));
  else if (const auto *Switch = dyn_cast<SwitchStmt>(S))
    Out.push_back(Switch->getBody());
  else if (const auto *Case = dyn_cast<SwitchCase>(S))
    Out.push_back(Case->getSubStmt());
  else if (const auto *Label = dyn_cast<LabelStmt>(S))
    Out.push_back(Label->getSubStmt());
  return Out;
}

const Expr *bare(const Expr *E) {
  while (true) {
    E = E->IgnoreParenCasts();
    if (const auto *Full = dyn_cast<FullExpr>(E))
      E = Full->getSubExpr();
    else
      return E;
  }
}

class Planner {
public:
  Planner(const Region &R, TranslationUnitFacts &TU,
          llvm::ArrayRef<const Expr *> Kept,
          llvm::ArrayRef<const Stmt *> Combines)
      : R(R), TU(TU), Ctx(TU.context()), SM(Ctx.getSourceManager()),
        Facts(TU.factsOf(*R.Function)), Kept(Kept),
        Combines(Combines.begin(), Combines.end()) {}

  RegionEdits plan();

private:
  bool deletable(const Stmt *S);
  bool leafDeletable(const Stmt *S);
  bool onlyWritesSupport(const Expr *E);
  bool isSupportVar(const Expr *E) const;
  void collectSupport();
  bool keptReference(const VarDecl *V, const RegionEdits &E);
  void findLeavingChecks();
  ErrorFlow assignedFlowOf(const CallExpr *Call) const;
  ErrorFlow findErrorFlow();
  bool isErrorVar(const Expr *E) const;
  bool onlyErrorCodes(const VarDecl *V) const;
  bool nameUnique(const VarDecl *V) const;
  /// The names conditional code of the function spells outside the region
  /// (ConditionalText.h).
  const llvm::StringSet<> &conditionalNames() const;
  /// The variables \p Flow's codes go to: its one variable, or each that
  /// a call of the pattern declares.
  SmallVector<const VarDecl *, 2> codeVariables(const ErrorFlow &Flow) const;
  bool declaredCodeMoves() const;
  bool isErrorCheck(const IfStmt *If) const;
  bool isErrorBranch(const Stmt *S, const VarDecl *Code) const;
  bool unchangedInRegion(const VarDecl *V) const;
  const CallExpr *checkedCallOf(const IfStmt *If, const VarDecl **Assigned,
                                const Expr **Gate) const;
  void findErrorChecks(RegionEdits &E);
  void findCallChecks(RegionEdits &E);
  void findReturnedCalls(RegionEdits &E);
  bool writtenOnlyByCalls(const VarDecl *V) const;

  const Region &R;
  TranslationUnitFacts &TU;
  ASTContext &Ctx;
  const SourceManager &SM;
  const FunctionFacts &Facts;
  llvm::ArrayRef<const Expr *> Kept;
  llvm::SmallPtrSet<const Stmt *, 8> Combines;
  llvm::SmallPtrSet<const VarDecl *, 16> Support;
  llvm::SmallPtrSet<const CallExpr *, 16> Calls;
  llvm::DenseMap<const Stmt *, bool> Memo;
  mutable std::optional<llvm::StringSet<>> ConditionalNames;
  ErrorFlow Error;
  /// The error code variables the pattern's calls declare.
  llvm::SmallPtrSet<const VarDecl *, 2> DeclaredCodes;
  llvm::SmallPtrSet<const IfStmt *, 4> ErrorChecks;
  /// `if (MPI_Send(...) != MPI_SUCCESS) ...`: the region's checks of its
  /// calls' codes, which go with the calls.
  llvm::SmallPtrSet<const IfStmt *, 4> CallChecks;
  /// `if ((ierr = MPI_Send(...)) != MPI_SUCCESS) break;`, leaving a loop of
  /// the region: by checked call, the check and where the code goes (null
  /// if nowhere).
  llvm::DenseMap<const CallExpr *, std::pair<const IfStmt *, const VarDecl *>>
      LeavingChecks;
};

/// The loop that \p Break leaves, or null if it leaves a `switch`.
const Stmt *loopLeftBy(const BreakStmt &Break, ASTContext &Ctx) {
  for (const Stmt *S = parentStmt(Break, Ctx); S; S = parentStmt(*S, Ctx)) {
    if (isLoop(S))
      return S;
    if (isa<SwitchStmt>(S))
      return nullptr;
  }
  return nullptr;
}

/// The checks of the pattern's calls whose branch is only a `break` out of
/// a loop of the region: in runs without errors the branch is never taken,
/// and after the collective call there is nothing left of the loop to
/// leave, so the check goes with the loop and the code is kept as an
/// assignment would keep it.
void Planner::findLeavingChecks() {
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      const auto *If = dyn_cast<IfStmt>(S);
      const VarDecl *Assigned = nullptr;
      const CallExpr *Call =
          If ? checkedCallOf(If, &Assigned, nullptr) : nullptr;
      if (!Call)
        return false;
      const auto *Break =
          dyn_cast_or_null<BreakStmt>(soleStatement(If->getThen()));
      const Stmt *Loop = Break ? loopLeftBy(*Break, Ctx) : nullptr;
      if (Loop && R.contains(Loop, SM) && !Break->getBeginLoc().isMacroID())
        LeavingChecks[Call] = {If, Assigned};
      return false;
    });
}

/// Where \p Call's code goes by an assignment: as a statement of its own
/// (`ierr = MPI_Send(...);`, `|=`, `+=`), or in a check that leaves a loop
/// of the region.
ErrorFlow Planner::assignedFlowOf(const CallExpr *Call) const {
  if (ErrorFlow Flow = errorFlowOf(Call, Ctx))
    return Flow;
  auto It = LeavingChecks.find(Call);
  if (It == LeavingChecks.end() || !It->second.second)
    return {};
  return ErrorFlow{It->second.second, BO_Assign};
}

/// The one local variable the pattern's calls give their error codes to,
/// if they keep them, all in the same way (`=`, `|=` or `+=`).
ErrorFlow Planner::findErrorFlow() {
  ErrorFlow Found;
  bool Declared = false;
  for (const CallExpr *Call : Calls) {
    ErrorFlow Flow = assignedFlowOf(Call);
    if (!Flow)
      Flow = declaredErrorFlowOf(Call, Ctx);
    if (!Flow)
      continue;
    // Codes declared by their calls, one name in several scopes (`int rc
    // = MPI_Send(...)` in a loop, `int rc = MPI_Recv(...)` in the other
    // branch): one variable where the collective goes.
    bool SameName = Found && Flow.Declared && Found.Declared &&
                    Found.Var->getName() == Flow.Var->getName() &&
                    Ctx.hasSameType(Found.Var->getType(), Flow.Var->getType());
    if (Found && Found != Flow && !SameName)
      return {};
    if (Flow.Declared)
      DeclaredCodes.insert(Flow.Var);
    Declared |= Flow.Declared;
    if (!Found)
      Found = Flow;
  }
  // A name declared by a call and also assigned one: no one variable.
  if (Declared && !llvm::all_of(Calls, [&](const CallExpr *Call) {
        ErrorFlow Flow = assignedFlowOf(Call);
        return !Flow || DeclaredCodes.count(Flow.Var);
      }))
    return {};
  Found.Declared = Declared;
  const VarDecl *V = Found.Var;
  // A variable the region declares (`int ierr = MPI_Send(...);`) goes
  // with its statement, and the rewrite declares it again.
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      !V->getType()->isIntegerType() ||
      (R.contains(V, SM) && !(Declared && nameUnique(V))) ||
      V->getParentFunctionOrMethod() != R.Function)
    return {};
  return llvm::all_of(codeVariables(Found),
                      [&](const VarDecl *C) { return onlyErrorCodes(C); })
             ? Found
             : ErrorFlow();
}

SmallVector<const VarDecl *, 2>
Planner::codeVariables(const ErrorFlow &Flow) const {
  if (Flow.Declared)
    return SmallVector<const VarDecl *, 2>(DeclaredCodes.begin(),
                                           DeclaredCodes.end());
  return {Flow.Var};
}

/// Whether no other variable of the function has \p V's name (but those
/// the pattern's calls declare): declared again where the collective goes,
/// it hides or clashes with none.
bool Planner::nameUnique(const VarDecl *V) const {
  return !findFirst(R.Function->getBody(), [&](const Stmt *S) {
    const auto *Decl = dyn_cast<DeclStmt>(S);
    return Decl && llvm::any_of(Decl->decls(), [&](const clang::Decl *D) {
             const auto *Other = dyn_cast<VarDecl>(D);
             return Other && !DeclaredCodes.count(Other) &&
                    Other->getName() == V->getName();
           });
  }) && llvm::none_of(R.Function->parameters(), [&](const ParmVarDecl *P) {
    return P->getName() == V->getName();
  }) && !conditionalNames().contains(V->getName());
}

const llvm::StringSet<> &Planner::conditionalNames() const {
  if (!ConditionalNames)
    ConditionalNames = conditionalIdentifiers(*R.Function, R.range());
  return *ConditionalNames;
}

/// Whether every use of the error code the region declares goes with the
/// rewrite: the calls' assignments, and the checks that follow the
/// collective call.
bool Planner::declaredCodeMoves() const {
  std::vector<const DeclRefExpr *> Refs;
  for (const VarDecl *V : DeclaredCodes)
    llvm::append_range(Refs, Facts.referencesOf(V));
  return llvm::all_of(Refs, [&](const DeclRefExpr *Ref) {
    bool InCheck = llvm::any_of(ErrorChecks, [&](const IfStmt *If) {
      return SM.isPointWithin(Ref->getBeginLoc(), If->getBeginLoc(),
                              If->getEndLoc());
    });
    const auto *Assign =
        dyn_cast_or_null<BinaryOperator>(parentPastParens(*Ref, Ctx));
    const auto *Call =
        Assign ? dyn_cast<CallExpr>(bare(Assign->getRHS())) : nullptr;
    return InCheck || (Assign && Assign->getOpcode() == Error.Op && Call &&
                       Calls.count(Call));
  });
}

bool Planner::isErrorVar(const Expr *E) const {
  return Error && llvm::any_of(codeVariables(Error), [&](const VarDecl *V) {
           return namesVariable(E, V);
         });
}

/// Whether \p V only ever holds MPI error codes: every write of it is
/// the result of an MPI call (also accumulated, `ierr |= MPI_Send(...)`),
/// of a function that returns only such codes, or MPI_SUCCESS, so on every rank
/// where the pattern made no call it already held what the collective returns,
/// or the collective's code leaves it as it was (with MPI's default error
/// handler, which aborts on errors, MPI_SUCCESS).
bool Planner::onlyErrorCodes(const VarDecl *V) const {
  for (const Write &W : Facts.writesOf(V)) {
    const auto *Op = dyn_cast_or_null<BinaryOperator>(W.Where);
    bool Accumulated =
        W.Kind == WriteKind::Compound && Op && keepsErrorCodes(Op->getOpcode());
    if (W.Kind != WriteKind::Init && W.Kind != WriteKind::Assign &&
        !Accumulated)
      return false;
    if (!W.Value)
      continue; // Declared without a value.
    const Expr *Value = bare(W.Value);
    // An MPI call's code, or a function's that returns only such codes
    // (`ierr = tree_bcast(...)`).
    if (const auto *Call = dyn_cast<CallExpr>(Value))
      if (mpiCallee(Call) ||
          (Call->getDirectCallee() &&
           RankUniformity(TU).returnsMPICode(*Call->getDirectCallee())))
        continue;
    if (Accumulated)
      return false;
    std::optional<llvm::APSInt> Constant =
        Value->isValueDependent() ? std::nullopt
                                  : Value->getIntegerConstantExpr(Ctx);
    if (!Constant || *Constant != 0)
      return false;
  }
  return true;
}

/// Whether \p S, the branch of a check of an error code, can follow the
/// collective call as written: it names no local variable but the code
/// \p Code, a parameter or a variable declared
/// before the region that the region leaves as it is, writes nothing and
/// does not leave a loop.
bool Planner::isErrorBranch(const Stmt *S, const VarDecl *Code) const {
  if (writesDeclaresOrJumps(S))
    return false;
  return !findFirst(S, [&](const Stmt *X) {
    const auto *Ref = dyn_cast<DeclRefExpr>(X);
    if (!Ref)
      return false;
    if (Code && Ref->getDecl() == Code)
      return false;
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    return V && V->hasLocalStorage() && !unchangedInRegion(V);
  });
}

/// Whether \p V is in scope everywhere in the region and keeps one value
/// there: a parameter, or a variable declared in the region's block before
/// it, that no statement of the region writes.
bool Planner::unchangedInRegion(const VarDecl *V) const {
  bool Before = isa<ParmVarDecl>(V);
  for (unsigned I = 0; I < R.First && !Before; ++I)
    if (const auto *Decl = dyn_cast<DeclStmt>(R.Block->body_begin()[I]))
      Before = llvm::is_contained(Decl->decls(), V);
  if (!Before || V->getParentFunctionOrMethod() != R.Function)
    return false;
  return llvm::none_of(Facts.writesOf(V),
                       [&](const Write &W) { return R.contains(W.Where, SM); });
}

/// `if (ierr != MPI_SUCCESS) return ierr;`: an `if` without `else` whose
/// condition tests the error variable for a failure, and whose branch can
/// follow the collective call as written. (`if (ierr == MPI_SUCCESS)
/// printf(...)` runs after every call that succeeds: it is no check.)
bool Planner::isErrorCheck(const IfStmt *If) const {
  if (!Error || If->getElse() || If->getInit() || If->getConditionVariable())
    return false;
  return llvm::any_of(codeVariables(Error), [&](const VarDecl *V) {
    return isFailureTest(If->getCond(), V, Ctx) &&
           isErrorBranch(If->getThen(), V);
  });
}

const CallExpr *Planner::checkedCallOf(const IfStmt *If,
                                       const VarDecl **Assigned,
                                       const Expr **Gate) const {
  const CallExpr *Call = callCheckedBy(If, Assigned, Ctx, Gate);
  return Call && Calls.count(Call) ? Call : nullptr;
}

/// The checks of the calls' own codes in the region (`if (MPI_Send(...) !=
/// MPI_SUCCESS) return -1;`), when they are all the same text but for the
/// call: the collective call is checked the same way.
void Planner::findCallChecks(RegionEdits &E) {
  std::string Text;
  llvm::SmallVector<std::pair<const IfStmt *, const CallExpr *>, 4> Found;
  const VarDecl *Code = nullptr;
  auto Refuse = [&](const Stmt *At, std::string Why) {
    if (!E.Problem)
      E.Problem = Refusal{SafetyCheck::SourceForm, Why, At->getBeginLoc()};
  };
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      const auto *If = dyn_cast<IfStmt>(S);
      const VarDecl *Assigned = nullptr;
      const Expr *Gate = nullptr;
      const CallExpr *Call = If ? checkedCallOf(If, &Assigned, &Gate) : nullptr;
      if (!Call || LeavingChecks.count(Call))
        return false;
      if (!isErrorBranch(If->getThen(), Assigned)) {
        Refuse(If->getThen(), "this branch, taken when the call fails, "
                              "cannot follow the collective call as written");
        return false;
      }
      // The rest of the condition runs when the call failed, as the branch.
      if (Gate && !isErrorBranch(Gate, Assigned)) {
        Refuse(Gate, "this part of the condition, evaluated when the call "
                     "fails, cannot follow the collective call as written");
        return false;
      }
      if (Assigned && !Found.empty() && Code != Assigned) {
        Refuse(If, "the checked calls keep their codes in different "
                   "variables");
        return false;
      }
      Code = Assigned;
      Found.push_back({If, Call});
      return false;
    });
  if (Found.empty() || E.Problem)
    return;
  if (Error || !ErrorChecks.empty()) {
    Refuse(Found.front().first,
           "some calls of the pattern check their codes here and others "
           "keep them in a variable; the collective call can do only one");
    return;
  }
  if (Code && (!Code->hasLocalStorage() || isa<ParmVarDecl>(Code) ||
               !Code->getType()->isIntegerType() || R.contains(Code, SM) ||
               !onlyErrorCodes(Code))) {
    Refuse(Found.front().first,
           "the call's code goes to '" + Code->getNameAsString() +
               "', which holds other values than MPI error codes");
    return;
  }
  for (auto [If, Call] : Found) {
    std::string This = checkShape(If, Call, Ctx);
    if (!Text.empty() && This != Text) {
      Refuse(If, "the calls' codes are checked in different ways; the "
                 "collective call can be checked only one way");
      return;
    }
    Text = This;
    CallChecks.insert(If);
  }
  if (Code)
    Support.erase(Code);
  E.CallCheck = Found.front().first;
  E.CheckedCall = Found.front().second;
}

/// Whether nothing in the region writes \p V but the pattern's calls'
/// codes: after the collective call it holds the collective's.
bool Planner::writtenOnlyByCalls(const VarDecl *V) const {
  return llvm::all_of(Facts.writesOf(V), [&](const Write &W) {
    if (!R.contains(W.Where, SM))
      return true;
    const auto *Op = dyn_cast_or_null<BinaryOperator>(W.Where);
    const auto *Call = Op ? dyn_cast<CallExpr>(bare(Op->getRHS())) : nullptr;
    return Call && Calls.count(Call);
  });
}

/// `return MPI_Recv(...);` (a helper that returns its last call's code):
/// the statement stays and returns the collective's code. The other
/// calls keep theirs in a variable (`ierr = MPI_Send(...)`), which then
/// holds the collective's, or keep none, and the rewrite declares one;
/// codes checked in place or accumulated are not the one call's code.
void Planner::findReturnedCalls(RegionEdits &E) {
  for (const CallExpr *Call : E.Calls)
    if (returnOf(Call, Ctx))
      E.Returned.push_back(Call);
  if (E.Returned.empty() || E.Problem)
    return;
  auto Refuse = [&](const Stmt *At, std::string Why) {
    E.Problem = Refusal{SafetyCheck::SourceForm, Why, At->getBeginLoc()};
  };
  for (const CallExpr *Call : E.Returned)
    if (Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID())
      return Refuse(Call, "this call's code is returned from a macro's "
                          "expansion; the collective's cannot take its place "
                          "as written");
  if (E.CallCheck)
    return Refuse(E.CallCheck, "some calls of the pattern check their codes "
                               "here and others return them; the collective "
                               "call can do only one");
  if (Error && (Error.accumulates() || Error.Declared))
    return Refuse(E.Returned.front(),
                  "the function returns this call's code, and the other "
                  "calls " +
                      std::string(Error.Declared ? "declare" : "accumulate") +
                      " theirs in '" + Error.Var->getNameAsString() +
                      "'; the collective call's code can go only one way");
  if (Error && !writtenOnlyByCalls(Error.Var))
    return Refuse(E.Returned.front(),
                  "the function returns this call's code, and '" +
                      Error.Var->getNameAsString() +
                      "', where the other calls keep theirs, is written in "
                      "the pattern by other statements too");
}

/// The error checks in the region, when they are all the same text.
void Planner::findErrorChecks(RegionEdits &E) {
  std::string Text;
  llvm::SmallVector<const IfStmt *, 4> Found;
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      if (const auto *If = dyn_cast<IfStmt>(S))
        if (isErrorCheck(If))
          Found.push_back(If);
      return false;
    });
  for (const IfStmt *If : Found) {
    std::string This =
        Lexer::getSourceText(SM.getExpansionRange(If->getSourceRange()), SM,
                             Ctx.getLangOpts())
            .str();
    This.erase(llvm::remove_if(This, [](char C) { return isspace(C); }),
               This.end());
    if (!Text.empty() && This != Text)
      return;
    Text = This;
  }
  ErrorChecks.insert(Found.begin(), Found.end());
  E.ErrorCheck = Found.empty() ? nullptr : Found.front();
}

bool Planner::isSupportVar(const Expr *E) const {
  E = E->IgnoreParenImpCasts();
  // An element of a support array or vector (a reduction's buffers).
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E))
    E = Sub->getBase()->IgnoreParenImpCasts();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
           Op && Op->getOperator() == OO_Subscript)
    E = Op->getArg(0)->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && Support.count(V);
}

/// Whether \p E only computes, and writes nothing but support variables.
bool Planner::onlyWritesSupport(const Expr *E) {
  return !findFirst(E, [&](const Stmt *S) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getOperator() == OO_Subscript)
      return false; // `v[i]`: an element, whatever it is then used for.
    if (isa<CXXOperatorCallExpr>(S))
      if (auto Assigned = structAssignment(S)) // C++'s `a = b` of a struct.
        return !isSupportVar(Assigned->first);
    if (const auto *Call = dyn_cast<CallExpr>(S))
      return !isPureArithmeticCall(Call) && !isContainerAccessor(Call) &&
             !Calls.count(Call);
    if (const auto *Op = dyn_cast<BinaryOperator>(S))
      return Op->isAssignmentOp() && !isSupportVar(Op->getLHS());
    if (const auto *Op = dyn_cast<UnaryOperator>(S))
      return Op->isIncrementDecrementOp() && !isSupportVar(Op->getSubExpr());
    return false;
  });
}

bool Planner::leafDeletable(const Stmt *S) {
  if (isa<NullStmt>(S) || isa<BreakStmt>(S) || isa<ContinueStmt>(S))
    return true;
  if (Combines.count(S) ||
      (isa<Expr>(S) && Combines.count(bare(cast<Expr>(S)))))
    return true;
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    for (const clang::Decl *D : Decl->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      // `int ierr = MPI_Send(...);`, declared again by the rewrite.
      if (V && Error.Declared && DeclaredCodes.count(V) && V->getInit())
        if (const auto *Call = dyn_cast<CallExpr>(bare(V->getInit())))
          if (Calls.count(Call))
            continue;
      if (!V || !Support.count(V))
        return false;
      if (V->getInit() && !onlyWritesSupport(V->getInit()))
        return false;
    }
    return true;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    const Expr *Plain = bare(E);
    if (const auto *Call = dyn_cast<CallExpr>(Plain))
      if (Calls.count(Call))
        return true;
    // `ierr = MPI_Send(...)` with an error code only the region reads, or
    // one the collective's takes the place of (`ierr |= ...` too).
    if (const auto *Op = dyn_cast<BinaryOperator>(Plain))
      if ((Op->getOpcode() == BO_Assign && isSupportVar(Op->getLHS())) ||
          (Op->getOpcode() == Error.Op && isErrorVar(Op->getLHS())))
        if (const auto *Call = dyn_cast<CallExpr>(bare(Op->getRHS())))
          if (Calls.count(Call))
            return true;
    return onlyWritesSupport(E);
  }
  return false;
}

bool Planner::deletable(const Stmt *S) {
  if (!S)
    return true;
  auto It = Memo.find(S);
  if (It != Memo.end())
    return It->second;
  bool Result = false;
  auto Clean = [&](const Expr *E) { return !E || onlyWritesSupport(E); };
  if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
    Result = llvm::all_of(Block->body(),
                          [&](const Stmt *C) { return deletable(C); });
  } else if (const auto *If = dyn_cast<IfStmt>(S);
             If && (ErrorChecks.count(If) || CallChecks.count(If))) {
    Result = true; // It follows the collective call instead.
  } else if (const auto *If = dyn_cast<IfStmt>(S);
             If && llvm::any_of(LeavingChecks, [&](const auto &Entry) {
               return Entry.second.first == If;
             })) {
    Result = true; // It leaves a loop that is no more.
  } else if (Combines.count(S)) {
    Result = true; // `if (x > max) max = x;`: the collective combines.
  } else if (const auto *If = dyn_cast<IfStmt>(S)) {
    Result = !If->getInit() && !If->getConditionVariable() &&
             Clean(If->getCond()) && deletable(If->getThen()) &&
             deletable(If->getElse());
  } else if (const auto *For = dyn_cast<ForStmt>(S)) {
    Result = deletable(For->getInit()) && Clean(For->getCond()) &&
             Clean(For->getInc()) && deletable(For->getBody());
  } else if (const auto *While = dyn_cast<WhileStmt>(S)) {
    Result = Clean(While->getCond()) && deletable(While->getBody());
  } else if (const auto *Do = dyn_cast<DoStmt>(S)) {
    Result = Clean(Do->getCond()) && deletable(Do->getBody());
  } else if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
    Result = Clean(Switch->getCond()) && deletable(Switch->getBody());
  } else if (const auto *Case = dyn_cast<SwitchCase>(S)) {
    Result = deletable(Case->getSubStmt());
  } else {
    Result = leafDeletable(S);
  }
  Memo[S] = Result;
  return Result;
}

/// Variables that exist for the communication: every use of them is in
/// the region (or in their own declaration), and nothing takes their
/// address.
void Planner::collectSupport() {
  llvm::SmallPtrSet<const VarDecl *, 32> Seen;
  llvm::SmallPtrSet<const VarDecl *, 8> Spelled;
  for (const Expr *E : Kept)
    variablesIn(E, Spelled);
  for (unsigned I = R.First; I <= R.Last; ++I)
    variablesIn(R.Block->body_begin()[I], Seen);
  for (const VarDecl *V : Seen) {
    // Code another configuration compiles may use it after the region.
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || Spelled.count(V) ||
        conditionalNames().contains(V->getName()) ||
        V->getParentFunctionOrMethod() != R.Function ||
        V->getType()->isReferenceType())
      continue;
    QualType T = V->getType();
    bool Requests = T->isArrayType() &&
                    T->getAsArrayTypeUnsafe()->getElementType().getAsString() ==
                        "MPI_Request";
    // A reduction's buffers may be arrays and vectors that only its
    // messages and combines use.
    bool Buffer = !Combines.empty() && (T->isArrayType() || isStdVector(T));
    if (!T->isScalarType() && !Requests && !Buffer)
      continue;
    bool Inside =
        llvm::all_of(Facts.referencesOf(V), [&](const DeclRefExpr *Ref) {
          return R.contains(Ref, SM) ||
                 (V->getInit() && SM.isPointWithin(Ref->getBeginLoc(),
                                                   V->getInit()->getBeginLoc(),
                                                   V->getInit()->getEndLoc()));
        });
    // A variable whose address anything gets (a message buffer `&x` of the
    // pattern's own calls included) holds data, not a helper value; the
    // requests and statuses of the pattern's calls are helpers, and so,
    // in a reduction, are the buffers of its messages that nothing else
    // uses: what the collective combines, it does not leave there.
    bool AddressTaken =
        isStdVector(T)
            ? !llvm::all_of(Facts.referencesOf(V),
                            [&](const DeclRefExpr *Ref) {
                              return vectorElementUseOnly(Ref, Ctx);
                            })
            : llvm::any_of(Facts.writesOf(V), [&](const Write &W) {
                // A combine function's arrays, its call deleted.
                if (W.Kind == WriteKind::AddressPass &&
                    llvm::any_of(Combines, [&](const Stmt *C) {
                      return isa<Expr>(C) &&
                             cast<Expr>(C)->IgnoreParenCasts() == W.Call;
                    }))
                  return false;
                if (W.Kind == WriteKind::AddressPass && Calls.count(W.Call)) {
                  if (!Combines.empty())
                    return false;
                  for (mpi::Role Role :
                       {mpi::Role::Request, mpi::Role::RequestArray,
                        mpi::Role::Status, mpi::Role::StatusArray})
                    if (const Expr *Arg = mpiArg(W.Call, Role))
                      if (Arg->IgnoreParenImpCasts() ==
                          cast<Expr>(W.Where)->IgnoreParenImpCasts())
                        return false;
                }
                return W.Kind == WriteKind::Escape ||
                       W.Kind == WriteKind::AddressPass;
              });
    if (Inside && !AddressTaken)
      Support.insert(V);
  }
}

/// Whether a use of \p V stays after the edits.
bool Planner::keptReference(const VarDecl *V, const RegionEdits &E) {
  for (const DeclRefExpr *Ref : Facts.referencesOf(V)) {
    if (!R.contains(Ref, SM))
      continue; // Its own declaration's initializer, before the region.
    if (E.removedWith(Ref, Ctx))
      continue;
    bool InCall = llvm::any_of(E.Calls, [&](const CallExpr *Call) {
      return SM.isPointWithin(Ref->getBeginLoc(), Call->getBeginLoc(),
                              Call->getEndLoc());
    });
    if (!InCall)
      return true;
  }
  return false;
}

RegionEdits Planner::plan() {
  RegionEdits E;
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CallExpr>(S))
        if (isPatternCall(Call)) {
          E.Calls.push_back(Call);
          Calls.insert(Call);
        }
      return false;
    });
  collectSupport();
  findLeavingChecks();
  Error = findErrorFlow();
  if (Error) {
    SmallVector<const VarDecl *, 2> Supported;
    for (const VarDecl *V : codeVariables(Error))
      if (Support.erase(V))
        Supported.push_back(V);
    E.ErrorCode = Error;
    findErrorChecks(E);
    if (Error.Declared && !declaredCodeMoves()) {
      // Other uses keep the declaration: the calls' codes are used.
      Support.insert(Supported.begin(), Supported.end());
      Error = {};
      E.ErrorCode = {};
      E.ErrorCheck = nullptr;
      ErrorChecks.clear();
    }
  }
  findCallChecks(E);
  findReturnedCalls(E);
  // Dropping a support variable whose value a kept statement reads would
  // change what it reads: such variables are not support, until nothing
  // changes.
  for (bool Changed = true; Changed;) {
    Changed = false;
    Memo.clear();
    E.Deleted.clear();
    std::function<void(const Stmt *)> Mark = [&](const Stmt *S) {
      if (!S)
        return;
      if (deletable(S)) {
        findFirst(S, [&](const Stmt *X) {
          E.Deleted.insert(X);
          return false;
        });
        return;
      }
      // A statement that stays keeps its conditions, and a loop its
      // initialization and step: only the statements it holds may go.
      for (const Stmt *Child : heldStatements(S))
        Mark(Child);
    };
    for (unsigned I = R.First; I <= R.Last; ++I)
      Mark(R.Block->body_begin()[I]);
    for (const VarDecl *V :
         llvm::SmallVector<const VarDecl *, 16>(Support.begin(), Support.end()))
      if (keptReference(V, E)) {
        Support.erase(V);
        Changed = true;
      }
  }
  // The declarations before the region of variables only it used go too.
  for (unsigned I = 0; I < R.First; ++I) {
    const auto *Decl = dyn_cast<DeclStmt>(R.Block->body_begin()[I]);
    if (Decl && leafDeletable(Decl))
      findFirst(Decl, [&](const Stmt *X) {
        E.Deleted.insert(X);
        return false;
      });
  }
  // Statements that only compute (an expression without effect) are not
  // worth removing on their own.
  for (const Stmt *S : E.Deleted) {
    const Stmt *Parent = enclosingStmt(*S, Ctx);
    if (Parent && E.Deleted.count(Parent))
      continue;
    bool HasCall = findFirst(S, [&](const Stmt *X) {
      const auto *Call = dyn_cast<CallExpr>(X);
      return Call && Calls.count(Call);
    });
    bool Writes = findFirst(S, [&](const Stmt *X) {
      const auto *Op = dyn_cast<BinaryOperator>(X);
      const auto *Un = dyn_cast<UnaryOperator>(X);
      return isa<DeclStmt>(X) || (Op && Op->isAssignmentOp()) ||
             (Un && Un->isIncrementDecrementOp());
    });
    if (HasCall || Writes)
      E.Removed.push_back(S);
  }
  llvm::sort(E.Removed, [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  for (const CallExpr *Call : E.Calls)
    if (!E.removedWith(Call, Ctx) && !E.Problem &&
        !llvm::is_contained(E.Returned, Call))
      E.Problem = Refusal{SafetyCheck::SourceForm,
                          "the result of this call is used; removing the "
                          "call would lose it",
                          Call->getBeginLoc()};
  // Anchors: statements of blocks or branches that hold a call and are
  // not inside a removed statement.
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      const Stmt *Parent = parentStmt(*S, Ctx);
      bool Place = isa_and_nonnull<CompoundStmt>(Parent) ||
                   (isa_and_nonnull<IfStmt>(Parent) &&
                    cast<IfStmt>(Parent)->getCond() != S);
      if (!Place)
        return false;
      bool HasCall = findFirst(S, [&](const Stmt *X) {
        const auto *Call = dyn_cast<CallExpr>(X);
        return Call && Calls.count(Call);
      });
      if (HasCall)
        E.Anchors.push_back(S);
      return false;
    });
  return E;
}

} // namespace

std::vector<const Stmt *>
RegionEdits::removalsFor(ArrayRef<const Stmt *> Places, ASTContext &Ctx) const {
  // What holds a place stays (an `if` whose branches get the calls).
  llvm::SmallPtrSet<const Stmt *, 32> Gone(Deleted.begin(), Deleted.end());
  for (const Stmt *P : Places)
    for (const Stmt *S = enclosingStmt(*P, Ctx); S; S = enclosingStmt(*S, Ctx))
      Gone.erase(S);
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<const Stmt *> Out;
  for (const Stmt *S : Gone) {
    const Stmt *Parent = enclosingStmt(*S, Ctx);
    if ((Parent && Gone.count(Parent)) || llvm::is_contained(Places, S))
      continue;
    // A part of a statement that stays (a condition) is no statement.
    if (Parent && !isa<CompoundStmt>(Parent) &&
        llvm::none_of(heldStatements(Parent),
                      [&](const Stmt *H) { return H == S; }))
      continue;
    bool Effect = findFirst(S, [&](const Stmt *X) {
      const auto *Op = dyn_cast<BinaryOperator>(X);
      const auto *Un = dyn_cast<UnaryOperator>(X);
      return isa<CallExpr>(X) || isa<DeclStmt>(X) ||
             (Op && Op->isAssignmentOp()) ||
             (Un && Un->isIncrementDecrementOp()) || isa<CompoundStmt>(X) ||
             isa<IfStmt>(X) || isLoop(X);
    });
    if (Effect)
      Out.push_back(S);
  }
  llvm::sort(Out, [&](const Stmt *A, const Stmt *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  return Out;
}

bool RegionEdits::removedWith(const Stmt *S, ASTContext &Ctx) const {
  for (const Stmt *X = S; X; X = enclosingStmt(*X, Ctx))
    if (Deleted.count(X))
      return true;
  return false;
}

RegionEdits planEdits(const Region &R, TranslationUnitFacts &TU,
                      llvm::ArrayRef<const Expr *> Kept,
                      llvm::ArrayRef<const Stmt *> Combines) {
  return Planner(R, TU, Kept, Combines).plan();
}

/// Whether \p Cond compares the error code \p Error with zero by \p Op
/// (`ierr == MPI_SUCCESS`, `0 != ierr`).
static bool comparesWithZero(const Expr *Cond, const VarDecl *Error,
                             BinaryOperatorKind Op, ASTContext &Context) {
  const auto *Compare = dyn_cast<BinaryOperator>(Cond);
  return Compare && Compare->getOpcode() == Op &&
         ((namesVariable(Compare->getLHS(), Error) &&
           isZeroConstant(Compare->getRHS(), Context)) ||
          (namesVariable(Compare->getRHS(), Error) &&
           isZeroConstant(Compare->getLHS(), Context)));
}

bool isSuccessTest(const Expr *Cond, const VarDecl *Error,
                   ASTContext &Context) {
  if (!Error)
    return false;
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond))
    return Not->getOpcode() == UO_LNot &&
           namesVariable(Not->getSubExpr(), Error);
  return comparesWithZero(Cond, Error, BO_EQ, Context);
}

bool isFailureTest(const Expr *Cond, const VarDecl *Error,
                   ASTContext &Context) {
  if (!Error)
    return false;
  Cond = Cond->IgnoreParenImpCasts();
  return namesVariable(Cond, Error) ||
         comparesWithZero(Cond, Error, BO_NE, Context);
}

const CallExpr *statementCall(const Stmt *S) {
  const Expr *E = nullptr;
  if (const auto *Decl = dyn_cast<DeclStmt>(S)) {
    const auto *V = Decl->isSingleDecl()
                        ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                        : nullptr;
    E = V ? V->getInit() : nullptr;
  } else if (const auto *Op = dyn_cast<BinaryOperator>(S)) {
    E = keepsErrorCodes(Op->getOpcode()) ? Op->getRHS() : nullptr;
  } else {
    E = dyn_cast<Expr>(S);
  }
  const auto *Call =
      E ? dyn_cast<CallExpr>(E->IgnoreImplicit()->IgnoreParenCasts()) : nullptr;
  return Call && mpiCallee(Call) ? Call : nullptr;
}

/// `MPI_Send(...) != MPI_SUCCESS`, `MPI_SUCCESS != ...`, `MPI_Send(...)`,
/// `(ierr = MPI_Send(...)) != MPI_SUCCESS` (the variable to \p Assigned):
/// the MPI call whose code \p Tested is true for when it failed.
static const CallExpr *failureTestedCall(const Expr *Tested,
                                         const VarDecl **Assigned,
                                         ASTContext &Ctx) {
  Tested = Tested->IgnoreParenImpCasts();
  if (const auto *Op = dyn_cast<BinaryOperator>(Tested);
      Op && Op->getOpcode() == BO_NE) {
    Tested = isZeroConstant(Op->getRHS(), Ctx)   ? Op->getLHS()
             : isZeroConstant(Op->getLHS(), Ctx) ? Op->getRHS()
                                                 : nullptr;
    if (!Tested)
      return nullptr;
    Tested = Tested->IgnoreParenImpCasts();
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(Tested);
      Op && Op->getOpcode() == BO_Assign) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Op->getLHS()->IgnoreParens());
    *Assigned = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!*Assigned)
      return nullptr;
    Tested = Op->getRHS()->IgnoreParenImpCasts();
  }
  const auto *Call = dyn_cast<CallExpr>(Tested);
  return Call && mpiCallee(Call) ? Call : nullptr;
}

const CallExpr *callCheckedBy(const IfStmt *If, const VarDecl **Assigned,
                              ASTContext &Ctx, const Expr **Gate) {
  *Assigned = nullptr;
  if (Gate)
    *Gate = nullptr;
  if (If->getElse() || If->getInit() || If->getConditionVariable() ||
      If->getBeginLoc().isMacroID())
    return nullptr;
  const Expr *Cond = If->getCond()->IgnoreParenImpCasts();
  // `MPI_Send(...) != MPI_SUCCESS && verbose`: the call is made first, and
  // the rest is evaluated only when it failed, like the branch.
  if (const auto *And = dyn_cast<BinaryOperator>(Cond);
      Gate && And && And->getOpcode() == BO_LAnd) {
    const CallExpr *Call = failureTestedCall(And->getLHS(), Assigned, Ctx);
    if (Call)
      *Gate = And->getRHS();
    return Call;
  }
  return failureTestedCall(Cond, Assigned, Ctx);
}

const Stmt *writesDeclaresOrJumps(const Stmt *S) {
  return findFirst(S, [](const Stmt *X) {
    const auto *Op = dyn_cast<BinaryOperator>(X);
    const auto *Un = dyn_cast<UnaryOperator>(X);
    return isa<BreakStmt>(X) || isa<ContinueStmt>(X) || isa<GotoStmt>(X) ||
           isa<LabelStmt>(X) || isa<DeclStmt>(X) ||
           (Op && Op->isAssignmentOp()) || (Un && Un->isIncrementDecrementOp());
  });
}

std::string checkShape(const IfStmt *If, const CallExpr *Call,
                       ASTContext &Ctx) {
  // A block of one statement is that statement.
  const Stmt *Branch = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Branch);
      Block && Block->size() == 1)
    Branch = Block->body_front();
  std::string Text = checkWithCall(If->getCond(), Call, "@", Ctx) + "|" +
                     checkWithCall(Branch, Call, "", Ctx);
  Text.erase(llvm::remove_if(Text, [](char C) { return isspace(C); }),
             Text.end());
  return Text;
}

bool testsSuccess(const IfStmt *If, const VarDecl *Error, ASTContext &Context) {
  return !If->getElse() && !If->getInit() && !If->getConditionVariable() &&
         isSuccessTest(If->getCond(), Error, Context);
}

} // namespace analysis
} // namespace mpilift
