//===- Overlap.cpp - Where waits can sink ---------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Overlap.h"

#include "BufferAccess.h"
#include "FunctionFacts.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "mpilift/Analysis/MPICalls.h"
#include "mpilift/Analysis/ManualCollective.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace mpilift {
namespace analysis {

StringRef overlapRuleId(OverlapRule Rule) {
  switch (Rule) {
  case OverlapRule::SplitSend:
    return "mpilift-split-send";
  case OverlapRule::SplitRecv:
    return "mpilift-split-recv";
  case OverlapRule::SinkWait:
    return "mpilift-sink-wait";
  }
  llvm_unreachable("unknown overlap rule");
}

namespace {

/// The bodies of the loops under \p S that hold no other loop.
void innermostLoopBodies(const Stmt *S, std::vector<const Stmt *> &Out) {
  if (!S)
    return;
  if (isLoop(S)) {
    const Stmt *Body = loopBody(S);
    bool Nested = findFirst(Body, [](const Stmt *X) { return isLoop(X); });
    if (!Nested) {
      if (Body && !isa<NullStmt>(Body))
        Out.push_back(Body);
      return;
    }
  }
  for (const Stmt *Child : S->children())
    innermostLoopBodies(Child, Out);
}

/// `&s.f` for a local structure `s` (no pointer, no nesting): `s` and `f`.
std::optional<std::pair<const VarDecl *, const FieldDecl *>>
requestField(const Expr *E) {
  const auto *Addr = dyn_cast<UnaryOperator>(E->IgnoreParenImpCasts());
  if (!Addr || Addr->getOpcode() != UO_AddrOf)
    return std::nullopt;
  const auto *Member =
      dyn_cast<MemberExpr>(Addr->getSubExpr()->IgnoreParenImpCasts());
  if (!Member || Member->isArrow())
    return std::nullopt;
  const VarDecl *Var = namedVariable(Member->getBase());
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Var || !Field)
    return std::nullopt;
  return std::make_pair(Var, Field);
}

/// Whether \p S is nothing but an MPI wait or test call.
bool isCompletionOnly(const Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  const auto *Call = E ? dyn_cast<CallExpr>(E->IgnoreParenCasts()) : nullptr;
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  return Info && (Info->TheFamily == mpi::Family::Wait ||
                  Info->TheFamily == mpi::Family::Test);
}

bool isIgnoredStatus(const Expr *E, const ASTContext &Context) {
  std::string Text = sourceText(E, Context);
  return Text == "MPI_STATUS_IGNORE" || Text == "MPI_STATUSES_IGNORE";
}

/// Builds one site: its dependences, then the walk of Algorithm 1.
class SiteBuilder {
public:
  SiteBuilder(TranslationUnitFacts &TU, const FunctionDecl &F,
              const CallExpr *Call, OverlapRule Rule, bool Aggressive)
      : TU(TU), Context(TU.context()), Facts(TU.factsOf(F)),
        Aggressive(Aggressive) {
    Site.Rule = Rule;
    Site.Function = &F;
    Site.Call = Call;
  }

  OverlapSite build();

private:
  void refuse(std::string Why, SourceLocation Loc) {
    if (Site.Refused.empty()) {
      Site.Refused = std::move(Why);
      Site.RefusedLoc = Loc;
    }
  }
  bool addBuffer(const Expr *Buffer, bool WritesOnly);
  bool addStatus(const Expr *Status);
  bool matchWait();
  std::optional<std::string> touches(const Stmt *S) const;
  std::optional<std::string> scopeEnds(const CompoundStmt *Block) const;
  void buildAccess();
  bool checkInPlace(const Stmt *&Statement, const Stmt *&Parent);
  void sink();
  void leaveLoop(const Stmt *Loop, const CompoundStmt *Body);
  bool touchesAroundCall(const Stmt *Holder) const;

  TranslationUnitFacts &TU;
  ASTContext &Context;
  const FunctionFacts &Facts;
  bool Aggressive;
  OverlapSite Site;
  /// Buffers of pending sends (only writes matter), of pending receives
  /// (any use matters), and the request and status variables themselves.
  SmallVector<const ValueDecl *, 4> Written, Used, Handles;
  /// Statements the wait moves past, waits and tests included.
  unsigned Passed = 0;
  /// What may touch Used, Written and Handles (buildAccess).
  std::vector<BufferAccess> Access;
};

bool SiteBuilder::addBuffer(const Expr *Buffer, bool WritesOnly) {
  const ValueDecl *Base = Buffer ? bufferBase(Buffer) : nullptr;
  if (!Base) {
    refuse("cannot tell which object the buffer " +
               (Buffer ? "'" + sourceText(Buffer, Context) + "'"
                       : std::string("argument")) +
               " is",
           Buffer ? Buffer->getBeginLoc() : Site.Call->getBeginLoc());
    return false;
  }
  (WritesOnly ? Written : Used).push_back(Base);
  return true;
}

bool SiteBuilder::addStatus(const Expr *Status) {
  if (!Status || isIgnoredStatus(Status, Context))
    return true;
  Site.StatusNeeded = true;
  const auto *Var = dyn_cast_or_null<VarDecl>(bufferBase(Status));
  if (!Var) {
    refuse("cannot tell which variable the status '" +
               sourceText(Status, Context) + "' is",
           Status->getBeginLoc());
    return false;
  }
  Handles.push_back(Var);
  return true;
}

/// Wait matching: the nonblocking calls of this function that set the
/// request (or an element of the request array) the wait completes.
bool SiteBuilder::matchWait() {
  const CallExpr *Wait = Site.Call;
  bool IsArray = mpiCallee(Wait)->Id == mpi::FunctionId::Waitall;
  const Expr *Arg =
      mpiArg(Wait, IsArray ? mpi::Role::RequestArray : mpi::Role::Request);
  if (!Arg)
    return false;
  // `&s.req`: a request field of a local structure; the structure is the
  // variable, and only calls naming the same field start or complete it.
  const FieldDecl *Field = nullptr;
  const VarDecl *Request = nullptr;
  if (std::optional<std::pair<const VarDecl *, const FieldDecl *>> F =
          requestField(Arg)) {
    std::tie(Request, Field) = *F;
  } else if (findFirst(Arg, [](const Stmt *X) { return isa<MemberExpr>(X); })) {
    refuse("the request is reached through a pointer or a nested field, "
           "which the matching does not follow",
           Arg->getBeginLoc());
    return false;
  } else {
    Request = dyn_cast_or_null<VarDecl>(bufferBase(Arg));
    bool Plain =
        IsArray ? Request && Request->getType()->isArrayType()
                : isa<UnaryOperator>(Arg) &&
                      namedVariable(cast<UnaryOperator>(Arg)->getSubExpr()) ==
                          Request;
    if (!Plain)
      Request = nullptr;
  }
  if (!Request || !Request->hasLocalStorage() || isa<ParmVarDecl>(Request) ||
      (IsArray && Field)) {
    refuse("the request " + ("'" + sourceText(Arg, Context) + "'") +
               " is not a local variable, array or structure field of this "
               "function, so the calls that set it cannot all be seen",
           Arg->getBeginLoc());
    return false;
  }
  auto Names = [&](const Expr *E) {
    if (!E)
      return false;
    if (Field) {
      auto F = requestField(E);
      return F && F->first == Request && F->second == Field;
    }
    return bufferBase(E) == Request && !requestField(E);
  };
  SmallVector<const CallExpr *, 16> Calls;
  findFirst(Site.Function->getBody(), [&](const Stmt *X) {
    if (const auto *Call = dyn_cast<CallExpr>(X))
      Calls.push_back(Call);
    return false;
  });
  for (const CallExpr *Call : Calls) {
    const mpi::FunctionInfo *Info = mpiCallee(Call);
    if (!Info || !mentions(Call, Request))
      continue;
    bool Completes = Info->TheFamily == mpi::Family::Wait ||
                     Info->TheFamily == mpi::Family::Test;
    if (Completes)
      continue;
    const Expr *Set = mpiArg(Call, mpi::Role::Request);
    bool IsStart = Info->TheFamily == mpi::Family::NonblockingSend ||
                   Info->TheFamily == mpi::Family::NonblockingRecv ||
                   Info->TheFamily == mpi::Family::NonblockingCollective;
    if (!Names(Set) || !IsStart) {
      // Another field of the same structure is another request, or data.
      if (Field && !Names(Set))
        continue;
      refuse("'" + Request->getNameAsString() + "' is given to " +
                 Call->getDirectCallee()->getNameAsString() +
                 ", which the matching does not follow",
             Call->getBeginLoc());
      return false;
    }
    Site.Starts.push_back(Call);
    for (mpi::Role R :
         {mpi::Role::SendBuffer, mpi::Role::RecvBuffer, mpi::Role::InOutBuffer})
      if (const Expr *Buffer = mpiArg(Call, R))
        if (!addBuffer(Buffer, R == mpi::Role::SendBuffer))
          return false;
  }
  for (const Write &W : Facts.writesOf(Request)) {
    bool Harmless = W.Kind == WriteKind::Init || W.Kind == WriteKind::Element ||
                    (W.Kind == WriteKind::AddressPass && mpiCallee(W.Call)) ||
                    (W.Kind == WriteKind::Assign && W.Value &&
                     sourceText(W.Value, Context) == "MPI_REQUEST_NULL");
    if (!Harmless) {
      refuse("'" + Request->getNameAsString() +
                 "' is changed or escapes here, which the matching does not "
                 "follow",
             W.Where->getBeginLoc());
      return false;
    }
  }
  if (Site.Starts.empty()) {
    refuse("no nonblocking call in this function sets '" +
               Request->getNameAsString() + "'",
           Arg->getBeginLoc());
    return false;
  }
  Handles.push_back(Request);
  return addStatus(
      mpiArg(Wait, IsArray ? mpi::Role::StatusArray : mpi::Role::Status));
}

/// The access views of the dependences, once they are all known: each
/// BufferAccess works out where its buffers escape when it is built.
void SiteBuilder::buildAccess() {
  AccessRules AnyUse;
  AnyUse.CrossMPICalls = true;
  AccessRules WritesOnly = AnyUse;
  WritesOnly.WritesOnly = true;
  AccessRules Variables = AnyUse;
  Variables.VariablesThemselves = true;
  for (auto [Decls, Rules] :
       {std::make_pair(&Used, AnyUse), std::make_pair(&Written, WritesOnly),
        std::make_pair(&Handles, Variables)})
    if (!Decls->empty())
      Access.emplace_back(*Decls, Facts, Context,
                          ArrayRef<const FunctionDecl *>(), Rules);
}

/// Why \p S may touch a dependence of the wait.
std::optional<std::string> SiteBuilder::touches(const Stmt *S) const {
  for (const BufferAccess &A : Access)
    if (std::optional<std::string> Why = A.mayTouch(S))
      return Why;
  return std::nullopt;
}

/// Whether \p Block declares one of the dependences: the wait cannot leave
/// their scope.
std::optional<std::string>
SiteBuilder::scopeEnds(const CompoundStmt *Block) const {
  for (const Stmt *S : Block->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (llvm::is_contained(Used, D) || llvm::is_contained(Written, D) ||
            llvm::is_contained(Handles, D))
          return "the end of the scope of '" +
                 cast<NamedDecl>(D)->getNameAsString() + "'";
  return std::nullopt;
}

/// Algorithm 1 on the statement tree: forward through the block, up out
/// of `if` branches and plain blocks, never out of a loop body or the
/// function.
void SiteBuilder::sink() {
  const Stmt *Current = Site.CallStmt;
  const auto *Block = cast<CompoundStmt>(parentStmt(*Current, Context));
  while (true) {
    Site.Holder = Current;
    Site.Block = Block;
    bool After = false;
    for (const Stmt *S : Block->body()) {
      if (S == Current) {
        After = true;
        continue;
      }
      if (!After)
        continue;
      if (std::optional<std::string> Why = touches(S)) {
        Site.Before = S;
        Site.Stop = *Why;
        Site.StopLoc = S->getBeginLoc();
        return;
      }
      // Another wait or test overlaps nothing: crossing only those is no
      // gain (and a second run would otherwise move what the first placed).
      if (!isCompletionOnly(S))
        ++Site.Crossed;
      ++Passed;
      innermostLoopBodies(S, Site.PollBodies);
    }
    Site.Before = nullptr;
    Site.StopLoc = Block->getRBracLoc();
    if (std::optional<std::string> Why = scopeEnds(Block)) {
      Site.Stop = *Why;
      return;
    }
    const Stmt *Parent = parentStmt(*Block, Context);
    const Stmt *Outer = Parent;
    if (const auto *If = dyn_cast_or_null<IfStmt>(Parent)) {
      Site.LeavesConditional = true;
      Outer = parentStmt(*If, Context);
      Current = If;
    } else {
      Current = Block;
    }
    const auto *OuterBlock = dyn_cast_or_null<CompoundStmt>(Outer);
    if (!OuterBlock) {
      if (Parent && isLoop(Parent)) {
        Site.Stop = "the end of the loop body (a wait stays in its loop)";
        if (Aggressive)
          leaveLoop(Parent, Block);
      } else if (Parent == nullptr || Block == Site.Function->getBody())
        Site.Stop = "the end of the function";
      else
        Site.Stop = "the end of the block";
      return;
    }
    Block = OuterBlock;
  }
}

/// Whether the part of \p Holder that runs in the same iteration as the
/// call, but is not the call or what follows it in its branches (which the
/// sink walk crossed), may touch a dependence: statements before it in its
/// blocks, the conditions of the `if`s around it, and their other branches.
bool SiteBuilder::touchesAroundCall(const Stmt *Holder) const {
  const Stmt *Child = Site.CallStmt;
  while (Child != Holder) {
    const Stmt *Parent = parentStmt(*Child, Context);
    if (!Parent)
      return true;
    if (const auto *Block = dyn_cast<CompoundStmt>(Parent)) {
      for (const Stmt *S : Block->body()) {
        if (S == Child)
          break;
        if (touches(S))
          return true;
      }
    } else if (const auto *If = dyn_cast<IfStmt>(Parent)) {
      const Stmt *Other =
          If->getThen() == Child ? If->getElse() : If->getThen();
      if (touches(If->getCond()) || (Other && touches(Other)))
        return true;
    } else {
      return true; // Anything else between them: do not guess.
    }
    Child = Parent;
  }
  return false;
}

/// Algorithm 2: the wait of a call in \p Loop, which the sink walk took to
/// the end of the loop body, leaves the loop. Every statement of the body
/// that may touch a dependence becomes a point where the outstanding
/// requests are completed; the loop's exit completes the rest.
void SiteBuilder::leaveLoop(const Stmt *Loop, const CompoundStmt *Body) {
  auto Refuse = [&](std::string Why) { Site.AggressiveRefused = Why; };
  if (Site.Rule == OverlapRule::SinkWait) {
    Refuse("existing waits stay in their loop");
    return;
  }
  if (Site.StatusNeeded) {
    Refuse("the status is needed, and a ring of requests has none to give");
    return;
  }
  if (Site.ErrorCode) {
    Refuse("the call's error code goes to '" +
           Site.ErrorCode.Var->getNameAsString() +
           "', and a ring of requests has no one wait to give it");
    return;
  }
  if (Site.CallCheck) {
    Refuse("the call's error code is checked in place, and a ring of "
           "requests has no one wait to check");
    return;
  }
  if (!isa_and_nonnull<CompoundStmt>(parentStmt(*Loop, Context))) {
    Refuse("the loop is not a statement of a block");
    return;
  }
  if (findFirst(Body, [](const Stmt *X) {
        return isa<ReturnStmt>(X) || isa<GotoStmt>(X) ||
               isa<IndirectGotoStmt>(X) || isa<CXXThrowExpr>(X);
      })) {
    Refuse("the loop can be left other than through its end");
    return;
  }
  // The loop's own header runs between iterations.
  const Stmt *Header[3] = {nullptr, nullptr, nullptr};
  if (const auto *For = dyn_cast<ForStmt>(Loop)) {
    Header[0] = For->getCond();
    Header[1] = For->getInc();
  } else if (const auto *While = dyn_cast<WhileStmt>(Loop)) {
    Header[0] = While->getCond();
  } else if (const auto *Do = dyn_cast<DoStmt>(Loop)) {
    Header[0] = Do->getCond();
  } else {
    Refuse("range-based loops are not handled");
    return;
  }
  for (const Stmt *H : Header)
    if (H && touches(H)) {
      Refuse("the loop's header may touch the buffer");
      return;
    }
  // A receive's next post writes its buffer: it is a dependence point too.
  bool HolderDepends = !Used.empty() || touchesAroundCall(Site.Holder);
  std::vector<const Stmt *> Points;
  for (const Stmt *S : Body->body()) {
    if (S == Site.Holder) {
      if (HolderDepends)
        Points.push_back(S);
      continue;
    }
    if (touches(S))
      Points.push_back(S);
  }
  Site.AggressiveLoop = Loop;
  Site.DependencePoints = std::move(Points);
  Site.Stop = "after the loop (its requests are completed where the loop "
              "touches the buffer again)";
  Site.StopLoc = Loop->getEndLoc();
}

/// `if (MPI_Send(...) != MPI_SUCCESS) return -1;` (also with the code
/// assigned in the condition, or `&& ...` after the test): the `if` becomes
/// the call's statement (\p Statement, \p Parent move up to it), and its
/// copy will check the wait where that lands, so the variables the check
/// reads may not be written on the way (nor, for a moved wait, used).
/// False when the site is refused.
bool SiteBuilder::checkInPlace(const Stmt *&Statement, const Stmt *&Parent) {
  const Stmt *Up = Parent;
  while (Up && isa<Expr>(Up))
    Up = parentStmt(*Up, Context);
  const auto *If = dyn_cast_or_null<IfStmt>(Up);
  const VarDecl *Assigned = nullptr;
  const Expr *Gate = nullptr;
  if (!If || callCheckedBy(If, &Assigned, Context, &Gate) != Site.Call)
    return true;
  const Stmt *Moves = nullptr;
  SmallVector<const ValueDecl *, 4> Reads;
  for (const Stmt *Part : {static_cast<const Stmt *>(Gate), If->getThen()}) {
    if (!Part || Moves)
      continue;
    Moves = writesDeclaresOrJumps(Part);
    findFirst(Part, [&](const Stmt *X) {
      if (const auto *Ref = dyn_cast<DeclRefExpr>(X))
        if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
            V && V->hasLocalStorage())
          Reads.push_back(V);
      return false;
    });
  }
  if (Moves) {
    Site.CallStmt = If;
    refuse("the check of the call's code cannot follow the wait as written "
           "(it writes, declares or jumps)",
           Moves->getBeginLoc());
    return false;
  }
  for (const ValueDecl *V : Reads)
    if (!llvm::is_contained(Written, V))
      Written.push_back(V);
  // The code assigned in the condition is handled like `ierr = ...`.
  if (Assigned)
    (Site.Rule == OverlapRule::SinkWait ? Handles : Written)
        .push_back(Assigned);
  Site.CallCheck = If;
  Statement = If;
  Parent = parentStmt(*If, Context);
  return true;
}

OverlapSite SiteBuilder::build() {
  const CallExpr *Call = Site.Call;
  const Stmt *Parent = parentStmt(*Call, Context);
  const Stmt *Statement = Call;
  while (Parent && (isa<ParenExpr>(Parent) || isa<CStyleCastExpr>(Parent) ||
                    isa<ImplicitCastExpr>(Parent))) {
    Statement = Parent;
    Parent = parentStmt(*Parent, Context);
  }
  // `ierr = MPI_Send(...);`: the statement is the assignment.
  ErrorFlow Error = errorFlowOf(Call, Context);
  if (Error && Error.Var->hasLocalStorage() &&
      Error.Var->getType()->isIntegralOrEnumerationType()) {
    Site.ErrorCode = Error;
    Statement = Parent;
    Parent = parentStmt(*Parent, Context);
  }
  if (!Site.ErrorCode && !checkInPlace(Statement, Parent))
    return Site;
  Site.CallStmt = Statement;
  if (Call->getBeginLoc().isMacroID()) {
    refuse("the call is spelled inside a macro", Call->getBeginLoc());
    return Site;
  }
  if (isa_and_nonnull<CompoundStmt>(Parent) &&
      isa_and_nonnull<SwitchStmt>(parentStmt(*Parent, Context))) {
    refuse("the call is in the body of a switch, where a new request could "
           "be jumped over",
           Call->getBeginLoc());
    return Site;
  }
  if (!isa_and_nonnull<CompoundStmt>(Parent)) {
    refuse("the call is not a statement of its own in a block (its result "
           "is used, or it is the body of a control statement)",
           Call->getBeginLoc());
    return Site;
  }
  // The wait's code goes to the variable where it then stands: no write
  // of it may be passed (the wait would overwrite a newer code), and a
  // moved wait passes no read either (it would see an older one).
  if (Site.ErrorCode)
    (Site.Rule == OverlapRule::SinkWait ? Handles : Written)
        .push_back(Site.ErrorCode.Var);
  bool Ok = true;
  switch (Site.Rule) {
  case OverlapRule::SplitSend:
    Ok = addBuffer(mpiArg(Call, mpi::Role::SendBuffer), /*WritesOnly=*/true);
    break;
  case OverlapRule::SplitRecv:
    Ok = addBuffer(mpiArg(Call, mpi::Role::RecvBuffer), false) &&
         addStatus(mpiArg(Call, mpi::Role::Status));
    break;
  case OverlapRule::SinkWait:
    Ok = matchWait();
    break;
  }
  if (!Ok)
    return Site;
  buildAccess();
  sink();
  if (Site.Crossed == 0 && !Site.AggressiveLoop)
    refuse(Passed == 0 ? "the wait cannot move: " + Site.Stop
                       : "only other waits come before " + Site.Stop,
           Site.StopLoc);
  return Site;
}

} // namespace

OverlapFinder::OverlapFinder(ASTContext &Context, bool Aggressive,
                             const ProjectFacts *Project)
    : Facts(std::make_unique<TranslationUnitFacts>(Context)),
      Aggressive(Aggressive) {
  Facts->setProject(Project);
}

OverlapFinder::~OverlapFinder() = default;

std::vector<OverlapSite> OverlapFinder::find(const FunctionDecl &Function) {
  std::vector<OverlapSite> Sites;
  if (!Function.getBody() || Function.isDependentContext())
    return Sites;
  SmallVector<const CallExpr *, 16> Calls;
  findFirst(Function.getBody(), [&](const Stmt *X) {
    if (const auto *Call = dyn_cast<CallExpr>(X))
      Calls.push_back(Call);
    return false;
  });
  for (const CallExpr *Call : Calls) {
    const mpi::FunctionInfo *Info = mpiCallee(Call);
    if (!Info)
      continue;
    std::optional<OverlapRule> Rule;
    if (Info->TheFamily == mpi::Family::BlockingSend)
      Rule = OverlapRule::SplitSend;
    else if (Info->Id == mpi::FunctionId::Recv)
      Rule = OverlapRule::SplitRecv;
    else if (Info->Id == mpi::FunctionId::Wait ||
             Info->Id == mpi::FunctionId::Waitall)
      Rule = OverlapRule::SinkWait;
    if (!Rule)
      continue;
    Sites.push_back(
        SiteBuilder(*Facts, Function, Call, *Rule, Aggressive).build());
  }
  return Sites;
}

} // namespace analysis
} // namespace mpilift
