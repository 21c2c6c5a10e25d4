//===- Fallback.cpp - Hand-written collectives run through libcdag --------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Fallback.h"

#include "FunctionFacts.h"
#include "StatementTree.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

#include <functional>

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

std::string quoted(const Expr *E, const ASTContext &Context) {
  return "'" + sourceText(E, Context) + "'";
}

/// Whether \p Cond reads a variable derived from MPI_Comm_rank: the region
/// under it may not run on every rank.
bool dependsOnRank(const Stmt *Cond, TranslationUnitFacts &TU,
                   const FunctionDecl &F, unsigned Depth = 0) {
  if (!Cond || Depth > 4)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Cond)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      return false;
    if (!V->hasLocalStorage())
      return true; // A global may hold anything.
    for (const Write &W : TU.factsOf(F).writesOf(V)) {
      const mpi::FunctionInfo *Info = W.Call ? mpiCallee(W.Call) : nullptr;
      if (W.Kind == WriteKind::AddressPass && Info &&
          Info->Id == mpi::FunctionId::Comm_rank)
        return true;
      if (W.Kind == WriteKind::Escape ||
          (W.Kind == WriteKind::AddressPass && !Info))
        return true;
      if (W.Value && dependsOnRank(W.Value, TU, F, Depth + 1))
        return true;
    }
    if (isa<ParmVarDecl>(V))
      return true; // Callers could pass the rank.
    return false;
  }
  for (const Stmt *Child : Cond->children())
    if (dependsOnRank(Child, TU, F, Depth))
      return true;
  return false;
}

/// Why the statements enclosing \p S in \p F may keep some rank from
/// reaching it; nothing when every rank that calls \p F reaches it.
std::optional<std::string> rankDependentAncestor(const Stmt *S,
                                                 const FunctionDecl &F,
                                                 TranslationUnitFacts &TU) {
  ASTContext &Context = TU.context();
  const Stmt *Child = S;
  while (true) {
    DynTypedNodeList Parents = Context.getParents(*Child);
    const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!Parent || Parent == F.getBody())
      return std::nullopt;
    const Stmt *Cond = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      Cond = If->getCond();
    else if (const auto *Loop = dyn_cast<ForStmt>(Parent))
      Cond = Loop->getCond();
    else if (const auto *Loop = dyn_cast<WhileStmt>(Parent))
      Cond = Loop->getCond();
    else if (const auto *Loop = dyn_cast<DoStmt>(Parent))
      Cond = Loop->getCond();
    else if (const auto *Switch = dyn_cast<SwitchStmt>(Parent))
      Cond = Switch->getCond();
    if (Cond && dependsOnRank(Cond, TU, F))
      return std::string("the region is inside a condition on the rank, so "
                         "not every rank may reach the collective calls of "
                         "libcdag");
    Child = Parent;
  }
}

} // namespace

bool refusedOnlyForDependence(const ManualCollective &C) {
  return !C.isSafe() && llvm::all_of(C.Refusals, [](const Refusal &R) {
    return R.Check == SafetyCheck::InputIndependence ||
           R.Check == SafetyCheck::ScaleIndependence;
  });
}

void findFallback(ManualCollective &C, TranslationUnitFacts &TU) {
  if (!refusedOnlyForDependence(C))
    return;
  CDagFallback &Fallback = C.Fallback.emplace();
  ASTContext &Context = TU.context();
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *Region = C.PatternStmt;
  if (C.Topology != ManualTopology::Star) {
    Fallback.Blocker = "rings and chains forward what they receive, which "
                       "the fallback does not express yet";
    return;
  }
  // Only the pattern's own calls, no other call at all: the graph is built
  // once and reused, so nothing else in the region may need to run again.
  SmallVector<const CallExpr *, 8> Calls;
  findFirst(Region, [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      Calls.push_back(Call);
    return false;
  });
  for (const CallExpr *Call : Calls)
    if (Call != C.RootCall && Call != C.PeerCall) {
      Fallback.Blocker = "the region calls " +
                         quoted(Call->getCallee(), Context) +
                         ", which a cached graph would not call again";
      return;
    }
  for (const CallExpr *Call : {C.RootCall, C.PeerCall})
    for (mpi::Role R : {mpi::Role::Datatype, mpi::Role::SendType})
      if (const Expr *Type = mpiArg(Call, R))
        if (!predefinedTypeSize(squeezed(sourceText(Type, Context)), Context)) {
          Fallback.Blocker = "the datatype " + quoted(Type, Context) +
                             " is not a predefined one";
          return;
        }
  // Buffers are keyed by address, and everything else the region reads from
  // outside must be an integer variable (local or global), keyed by value.
  // The region calls nothing, so nothing changes them while it runs.
  enum class Use { Plain, Buffer, Skip };
  llvm::DenseMap<const Expr *, Use> Args;
  for (const CallExpr *Call : {C.RootCall, C.PeerCall}) {
    for (mpi::Role R : {mpi::Role::SendBuffer, mpi::Role::RecvBuffer})
      if (const Expr *E = mpiArg(Call, R))
        Args[E] = Use::Buffer;
    // The communicator keys the graph by its own value (the rewrite adds
    // it); predefined datatypes are constants.
    for (mpi::Role R :
         {mpi::Role::Comm, mpi::Role::Datatype, mpi::Role::SendType,
          mpi::Role::RecvType, mpi::Role::Status})
      if (const Expr *E = mpiArg(Call, R))
        Args[E] = Use::Skip;
  }
  std::vector<std::pair<const DeclRefExpr *, Use>> Refs;
  std::function<void(const Stmt *, Use)> Walk = [&](const Stmt *S, Use U) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      auto It = Args.find(E->IgnoreParenImpCasts());
      if (It != Args.end())
        U = It->second;
    }
    if (U == Use::Skip)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      Refs.push_back({Ref, U});
    for (const Stmt *Child : S->children())
      Walk(Child, U);
  };
  Walk(Region, Use::Plain);
  for (auto [Ref, U] : Refs) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      continue;
    if (SM.isPointWithin(V->getLocation(), Region->getBeginLoc(),
                         Region->getEndLoc()))
      continue; // Declared in the region: the loop variable.
    QualType T = V->getType();
    bool Integer = T->isIntegralOrEnumerationType();
    bool ByAddress = U == Use::Buffer && !Integer;
    if (!Integer && !ByAddress) {
      Fallback.Blocker = "the region reads '" + V->getNameAsString() +
                         "' outside a buffer argument; only integer "
                         "variables can key the cached graph";
      return;
    }
    if (llvm::none_of(Fallback.Key, [&](const FallbackKey &K) {
          return K.Var == V && K.ByAddress == ByAddress;
        }))
      Fallback.Key.push_back({V, ByAddress});
  }
  // libcdag compiles collectively: every rank must reach the region.
  if (auto Why = rankDependentAncestor(Region, *C.Function, TU)) {
    Fallback.Blocker = *Why;
    return;
  }
  if (!C.Function->isMain()) {
    ArrayRef<CallSite> Callers = TU.callersOf(C.Function);
    if (Callers.empty() || TU.mayBeCalledUnseen(C.Function)) {
      Fallback.Blocker = "not every caller of '" +
                         C.Function->getNameAsString() +
                         "' is visible, so not every rank may reach it";
      return;
    }
    for (const CallSite &Site : Callers)
      if (!Site.Caller || rankDependentAncestor(Site.Call, *Site.Caller, TU)) {
        Fallback.Blocker = "a call of '" + C.Function->getNameAsString() +
                           "' is inside a condition on the rank";
        return;
      }
  }
}

} // namespace analysis
} // namespace mpilift
