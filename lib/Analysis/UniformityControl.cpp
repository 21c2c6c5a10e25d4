//===- UniformityControl.cpp - Callers, conditions and loops --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// RankUniformity's part for control: whether every rank reaches a
/// statement alike (the conditions around it, the function's callers),
/// and whether a loop gives a value another value on each trip.
///
//===----------------------------------------------------------------------===//

#include "RankUniformity.h"

#include "StatementTree.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Whether \p Inner lies inside \p Outer in the source.
bool within(const Stmt *Inner, const Stmt *Outer, const SourceManager &SM) {
  SourceLocation Loc = SM.getExpansionLoc(Inner->getBeginLoc());
  return SM.isPointWithin(Loc, SM.getExpansionLoc(Outer->getBeginLoc()),
                          SM.getExpansionLoc(Outer->getEndLoc()));
}

} // namespace

std::optional<Divergence> RankUniformity::callersOf(const FunctionDecl &F,
                                                    unsigned Depth) {
  return callerWalk(F, Depth, /*VisibleOnly=*/false);
}

std::optional<Divergence> RankUniformity::callerWalk(const FunctionDecl &F,
                                                     unsigned Depth,
                                                     bool VisibleOnly) {
  if (F.isMain())
    return std::nullopt;
  if (Depth >= MaxDepth)
    return Divergence{"gave up following the callers of " + named(&F),
                      F.getLocation()};
  ArrayRef<CallSite> Callers = TU.callersOf(&F);
  std::optional<std::vector<CallRecord>> Elsewhere;
  if (!VisibleOnly) {
    Elsewhere = TU.callsElsewhere(&F);
    if (!Elsewhere || (Callers.empty() && Elsewhere->empty()))
      return Divergence{named(&F) +
                            " may be called from code the unit does "
                            "not show" +
                            unseenCallersNote(F),
                        F.getLocation()};
  }
  // The two walks never cut each other's recursion short.
  std::string FunctionKey = functionKey(F);
  std::string Key = (VisibleOnly ? "alike:" : "") + FunctionKey;
  bool Guarded = !FunctionKey.empty();
  if (Guarded && !KeysInProgress.insert(Key).second)
    return std::nullopt; // Recursion: the outer calls decide.
  auto Done = llvm::make_scope_exit([&] {
    if (Guarded)
      KeysInProgress.erase(Key);
  });
  for (const CallSite &Site : Callers) {
    if (!Site.Caller && VisibleOnly)
      continue;
    if (!Site.Caller)
      return Divergence{"a call of " + named(&F) + " cannot be followed",
                        Site.Call->getBeginLoc()};
    if (Site.Caller == &F)
      continue; // Recursion: the outer calls decide.
    if (auto Why = controlOf(Site.Call, *Site.Caller, Depth + 1))
      return Why;
    if (auto Why = callerWalk(*Site.Caller, Depth + 1, VisibleOnly))
      return Why;
  }
  // The visible walk does not follow the calls other units record yet:
  // their conditions were judged without the facts of the units they call
  // (a code returned by a function of a third unit), and would refuse
  // ordinary error checks.
  if (VisibleOnly)
    return std::nullopt;
  for (const CallRecord &R : *Elsewhere)
    if (auto Why = recordedCallRuns(F.getNameAsString(), R, F.getLocation(),
                                    Depth + 1))
      return Why;
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::conditionParts(
    const Expr *Cond, const FunctionDecl &Where,
    llvm::function_ref<std::optional<Divergence>(const Expr *)> Judge) {
  // `r < reps && ierr == MPI_SUCCESS`: each operand on its own.
  if (const auto *Op = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts()))
    if (Op->isLogicalOp()) {
      if (auto Why = conditionParts(Op->getLHS(), Where, Judge))
        return Why;
      return conditionParts(Op->getRHS(), Where, Judge);
    }
  if (testsMPISuccess(Cond, Where) || testsAllocation(Cond, Where))
    return std::nullopt;
  return Judge(Cond);
}

std::optional<Divergence> RankUniformity::controlOf(const Stmt *S,
                                                    const FunctionDecl &Where,
                                                    unsigned Depth) {
  ASTContext &Context = TU.context();
  auto Condition = [&](const Expr *Cond) -> std::optional<Divergence> {
    if (auto Why = valueOf(Cond, Where, Depth))
      return Divergence{"the condition " + quotedSource(Cond, Context) +
                            " may differ between ranks (" + Why->Reason + ")",
                        Cond->getBeginLoc()};
    return std::nullopt;
  };
  const Stmt *Child = S;
  while (const Stmt *Parent = parentStmt(*Child, Context)) {
    if (Parent == Where.getBody() && !isa<CompoundStmt>(Parent))
      break;
    const Expr *Cond = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(Parent)) {
      if (Child != If->getCond())
        Cond = If->getCond();
    } else if (isLoop(Parent)) {
      const Expr *LoopCond = loopCondition(Parent);
      if (Child != LoopCond)
        Cond = LoopCond;
    } else if (const auto *Switch = dyn_cast<SwitchStmt>(Parent)) {
      if (Child != Switch->getCond())
        Cond = Switch->getCond();
    } else if (const auto *Op = dyn_cast<AbstractConditionalOperator>(Parent)) {
      if (Child != Op->getCond())
        Cond = Op->getCond();
    } else if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
      if (Op->isLogicalOp() && Child == Op->getRHS())
        Cond = Op->getLHS();
    } else if (const auto *Block = dyn_cast<CompoundStmt>(Parent)) {
      // A statement before this one that may leave on some ranks only.
      for (const Stmt *Before : Block->body()) {
        if (Before == Child)
          break;
        if (const Stmt *Jump = leavingJump(Before))
          if (auto Why = controlOf(Jump, Where, Depth))
            return Divergence{"an earlier statement may leave on some ranks "
                              "only: " +
                                  Why->Reason,
                              Jump->getBeginLoc()};
      }
    }
    if (Cond)
      if (auto Why = conditionParts(Cond, Where, Condition))
        return Why;
    if (Parent == Where.getBody())
      break;
    Child = Parent;
  }
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::loopVariance(const Expr *E, const Stmt *Loop,
                             const FunctionDecl &Where) {
  ASTContext &Context = TU.context();
  const SourceManager &SM = Context.getSourceManager();
  const FunctionFacts &Facts = TU.factsOf(Where);
  std::optional<Divergence> Found;
  findFirst(E, [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (isPureArithmeticCall(Call))
        return false;
      // Accessors of a container that the loop leaves alone.
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
        const CXXMethodDecl *Method = Member->getMethodDecl();
        if (Method && Method->getIdentifier() && Call->getNumArgs() == 0 &&
            llvm::StringSwitch<bool>(Method->getName())
                .Cases("data", "size", "c_str", "begin", "front", true)
                .Default(false))
          return false;
      }
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
        if (Op->getOperator() == OO_Subscript)
          return false;
      Found =
          Divergence{"the call of " + quotedSource(Call->getCallee(), Context) +
                         " runs again for every peer",
                     Call->getBeginLoc()};
      return true;
    }
    // Only a variable's value can change: an array's address, or `&x`,
    // stays what it is whatever the loop writes into it.
    const auto *Read = dyn_cast<ImplicitCastExpr>(S);
    if (!Read || Read->getCastKind() != CK_LValueToRValue)
      return false;
    const auto *Ref = dyn_cast<DeclRefExpr>(Read->getSubExpr()->IgnoreParens());
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V)
      return false;
    for (const Write &W : Facts.writesOf(V)) {
      if (W.Kind == WriteKind::Element || !within(W.Where, Loop, SM) ||
          isReadOnlyPass(W))
        continue;
      Found = Divergence{named(V) + " is written inside the loop, so " +
                             quotedSource(E, Context) +
                             " may differ from one peer to the next",
                         W.Where->getBeginLoc()};
      return true;
    }
    return false;
  });
  return Found;
}

} // namespace analysis
} // namespace mpilift
