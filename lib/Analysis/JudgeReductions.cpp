//===- JudgeReductions.cpp - Regions that combine received data -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The judge's part for reductions: a region whose statements fold
/// received values into accumulators (CombineForms.h) is evaluated like
/// any other, and the dataflow's combined data, not its plain transfers,
/// says what it is (CommGraph's detectReductions): every process's value
/// combined once, by one of MPI's operations, into the result of a reduce,
/// an allreduce, a scan or an exscan. The work buffers a reduction leaves
/// behind (the last value received, the value passed on) are dead after
/// the region or the region is no such collective: MPI's call leaves them
/// as they were.
///
//===----------------------------------------------------------------------===//

#include "CombineForms.h"
#include "CombineFunctions.h"
#include "ConditionalText.h"
#include "JudgeImpl.h"
#include "RankUniformity.h"
#include "StatementTree.h"
#include "VectorUses.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {
namespace judge {

namespace {

/// Whether \p V's address leaves the function's view: stored, or passed
/// to a call other than MPI's. A std::vector's elements leave it only
/// through a use that is none of vectorElementUseOnly's.
bool addressEscapes(const FunctionFacts &Facts, const VarDecl *V,
                    ASTContext &Ctx, TranslationUnitFacts &TU) {
  if (isStdVector(V->getType()))
    return !llvm::all_of(Facts.referencesOf(V), [&](const DeclRefExpr *Ref) {
      return vectorElementUseOnly(Ref, Ctx);
    });
  // A combine function reads and writes elements during the call only.
  return llvm::any_of(Facts.writesOf(V), [&](const Write &W) {
    return W.Kind == WriteKind::Escape ||
           (W.Kind == WriteKind::AddressPass && !mpiCallee(W.Call) &&
            !isCombinedArgument(W.Call, cast<Expr>(W.Where), TU));
  });
}

/// The object holding the elements of the std::vector \p V in \p Run:
/// the one V's own object (or what a reference V refers to) points to.
std::optional<eval::ObjectId> elementsOf(const RankRun &Run, const VarDecl *V) {
  // What an object of V's points to at offset 0, if that is V's too.
  auto Next = [&](const eval::Object &O) -> std::optional<eval::ObjectId> {
    const auto *Cell = O.Cells.find(0);
    if (Cell == O.Cells.end() || !Cell->second.V.isPointer() ||
        Cell->second.V.Obj >= Run.Objects.size() ||
        Run.Objects[Cell->second.V.Obj].Decl != V)
      return std::nullopt;
    return Cell->second.V.Obj;
  };
  // The variable (or what a reference refers to) points to its elements,
  // which point to nothing of V's.
  for (const eval::Object &O : Run.Objects)
    if (O.Decl == V)
      if (std::optional<eval::ObjectId> E = Next(O))
        if (!Next(Run.Objects[*E]))
          return E;
  return std::nullopt;
}

/// Whether some run combines after its last message.
bool combinesAfterLastMessage(const std::vector<RankRun> &Runs) {
  for (const RankRun &Run : Runs) {
    bool Combine = false;
    for (const RankOp &Op : Run.Ops) {
      if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
          !Op.SelfCopy)
        Combine = false;
      else if (Op.K == RankOp::Kind::Combine)
        Combine = true;
    }
    if (Combine)
      return true;
  }
  return false;
}

/// Whether \p Ref, in a region, is used by what the collective replaces:
/// the messages, the combines and the copies between work buffers, not by
/// what stays of the region.
bool workUse(const DeclRefExpr *Ref, ASTContext &Ctx,
             TranslationUnitFacts &TU) {
  // A place of a scalar or of a plain structure (a pair): a variable, an
  // element of an array or a vector.
  auto ScalarPlace = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    QualType T = E->getType();
    if (!T->isScalarType() &&
        !(T->isRecordType() && T.isTriviallyCopyableType(Ctx)))
      return false;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      return Op->getOperator() == OO_Subscript;
    return isa<DeclRefExpr>(E) || isa<ArraySubscriptExpr>(E);
  };
  // In the `if` of a combine, condition or body: `if (other > *best)
  // *best = other;`, and of pairs (MINLOC, MAXLOC).
  for (const Stmt *S = parentStmt(*Ref, Ctx); S; S = parentStmt(*S, Ctx))
    if (isa<IfStmt>(S)) {
      if (combineForm(S, Ctx))
        return true;
      break;
    }
  const Stmt *Child = Ref;
  for (const Stmt *S = parentStmt(*Ref, Ctx); S;
       Child = S, S = parentStmt(*S, Ctx)) {
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      // `v.data()` and `v[i]` lead to what uses them.
      if (isContainerAccessor(Call))
        continue;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
        if (Op->getOperator() == OO_Subscript)
          continue;
        // C++'s assignment of a structure.
        if (auto Assigned = structAssignment(Op))
          return ScalarPlace(Assigned->first) && ScalarPlace(Assigned->second);
      }
      // A combine function's arrays: it folds one into the other.
      return mpiCallee(Call) != nullptr ||
             (isa<Expr>(Child) &&
              isCombinedArgument(Call, cast<Expr>(Child), TU));
    }
    if (combineForm(S, Ctx))
      return true;
    if (const auto *Copy = dyn_cast<BinaryOperator>(S))
      if (Copy->getOpcode() == BO_Assign)
        return ScalarPlace(Copy->getLHS()) && ScalarPlace(Copy->getRHS());
    if (!isa<Expr>(S))
      return false;
  }
  return false;
}

/// \p Ref with the parentheses and casts around it, and what uses that.
std::pair<const Stmt *, const Stmt *> outermostOf(const DeclRefExpr *Ref,
                                                  ASTContext &Ctx) {
  const Stmt *Node = Ref;
  const Stmt *Parent = parentStmt(*Node, Ctx);
  while (Parent && (isa<ParenExpr>(Parent) || isa<CastExpr>(Parent))) {
    Node = Parent;
    Parent = parentStmt(*Node, Ctx);
  }
  return {Node, Parent};
}

/// Whether \p Ref only tests its pointer against null (`if (!p)`, `p !=
/// NULL`, `if (p)`, `p && ...`), or hands it to free or `delete[]`.
bool onlyTestedOrFreed(const DeclRefExpr *Ref, ASTContext &Ctx) {
  auto [Node, Parent] = outermostOf(Ref, Ctx);
  if (!Parent)
    return false;
  if (const auto *Not = dyn_cast<UnaryOperator>(Parent))
    return Not->getOpcode() == UO_LNot;
  if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
    if (Op->isLogicalOp())
      return true;
    const Expr *Other = Op->getLHS() == Node ? Op->getRHS() : Op->getLHS();
    return Op->isEqualityOp() &&
           Other->IgnoreParenCasts()->isNullPointerConstant(
               Ctx, Expr::NPC_ValueDependentIsNotNull);
  }
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return If->getCond() == Node;
  if (const auto *While = dyn_cast<WhileStmt>(Parent))
    return While->getCond() == Node;
  if (const auto *Delete = dyn_cast<CXXDeleteExpr>(Parent))
    return Delete->getArgument() == Node;
  const auto *Call = dyn_cast<CallExpr>(Parent);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->getIdentifier() && Callee->getName() == "free" &&
         Call->getNumArgs() == 1;
}

/// Whether \p Ref is in an operand of sizeof or alignof, which reads
/// nothing.
bool unevaluated(const DeclRefExpr *Ref, ASTContext &Ctx) {
  for (const Stmt *S = parentStmt(*Ref, Ctx); S && isa<Expr>(S);
       S = parentStmt(*S, Ctx))
    if (isa<UnaryExprOrTypeTraitExpr>(S))
      return true;
  return false;
}

/// Whether \p Ref is the pointer itself assigned to another (`q = p`),
/// which workUse takes for a copy between work buffers.
bool pointerCopied(const DeclRefExpr *Ref, ASTContext &Ctx) {
  auto [Node, Parent] = outermostOf(Ref, Ctx);
  const auto *Assign = dyn_cast_or_null<BinaryOperator>(Parent);
  return Assign && Assign->isAssignmentOp() && Assign->getRHS() == Node;
}

/// The check a failed reduction detection fails, by what \p Why says.
SafetyCheck checkOfReduction(const std::string &Why, bool OwnOperation) {
  if (OwnOperation)
    return SafetyCheck::ReductionOrder;
  if (Why.find("more than once") != std::string::npos ||
      Why.find("from one place") != std::string::npos)
    return SafetyCheck::MessageIntegrity;
  return SafetyCheck::ScaleIndependence;
}

/// The reduction \p Combined would be if the program's own operations
/// were MPI's: what a refused region looks like.
std::optional<ManualKind>
resembledReduction(std::vector<cg::Combination> Combined,
                   const std::vector<cg::Transfer> &All, int64_t P) {
  for (cg::Combination &C : Combined)
    if (C.Op == cg::ReduceOp::Other)
      C.Op = cg::ReduceOp::Sum;
  cg::ReductionDetection D =
      cg::detectReductions(Combined, All, static_cast<cg::Rank>(P));
  if (D.Found)
    return manualKind(D.Found->Kind);
  // One process holds the combined data, or all of them do.
  std::set<cg::Rank> Holders;
  for (const cg::Combination &C : Combined)
    if (C.processes() >= 2)
      Holders.insert(C.Dst);
  if (Holders.size() == 1)
    return ManualKind::Reduce;
  if (static_cast<int64_t>(Holders.size()) == P)
    return ManualKind::Allreduce;
  return Holders.empty() ? std::nullopt
                         : std::optional<ManualKind>(ManualKind::Reduce);
}

/// How the messages of a reduction run: the root receiving from everyone,
/// a ring, a chain, a tree, or every rank exchanging with several.
ManualTopology reductionTopology(const Observation &O,
                                 const std::vector<RankRun> &Runs) {
  int64_t P = static_cast<int64_t>(Runs.size());
  auto Count = [&](int64_t Rank, RankOp::Kind K) {
    unsigned N = 0;
    for (const RankOp &Op : Runs[Rank].Ops)
      N += Op.K == K && !Op.SelfCopy;
    return N;
  };
  auto Peers = [&](int64_t Rank, RankOp::Kind K) {
    std::set<int32_t> Out;
    for (const RankOp &Op : Runs[Rank].Ops)
      if (Op.K == K && !Op.SelfCopy)
        Out.insert(Op.Peer);
    return Out.size();
  };
  unsigned Want = static_cast<unsigned>(P - 1);
  for (int64_t Rank = 0; Rank < P; ++Rank)
    if (Count(Rank, RankOp::Kind::Recv) == Want &&
        Peers(Rank, RankOp::Kind::Recv) == Want)
      return ManualTopology::Star; // A root receives from everyone.
  bool OnePeerEach = true, Once = true;
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    OnePeerEach &= Peers(Rank, RankOp::Kind::Send) <= 1 &&
                   Peers(Rank, RankOp::Kind::Recv) <= 1;
    Once &= Count(Rank, RankOp::Kind::Send) <= 1;
  }
  if (OnePeerEach)
    return Once ? ManualTopology::Chain : ManualTopology::Ring;
  return O.Kind == ManualKind::Allreduce ? ManualTopology::Exchange
                                         : ManualTopology::Tree;
}

} // namespace

llvm::SmallPtrSet<const VarDecl *, 16> Judge::regionVariables() const {
  llvm::SmallPtrSet<const VarDecl *, 16> Used;
  for (unsigned I = R.First; I <= R.Last; ++I)
    variablesIn(R.Block->body_begin()[I], Used);
  return Used;
}

const llvm::StringSet<> &Judge::conditionalNames() {
  if (!ConditionalNames)
    ConditionalNames = conditionalIdentifiers(*R.Function, R.range());
  return *ConditionalNames;
}

const llvm::SmallPtrSetImpl<const VarDecl *> &Judge::deadAfterRegion() {
  if (DeadAfter)
    return *DeadAfter;
  DeadAfter.emplace();
  const FunctionFacts &Facts = TU.factsOf(*R.Function);
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation End = R.last()->getEndLoc();
  // The loops around the region run it again: what they read before it
  // may be what it left.
  llvm::SmallVector<const Stmt *, 4> Loops;
  for (const Stmt *S = parentStmt(*R.Block, Ctx); S; S = parentStmt(*S, Ctx))
    if (isLoop(S))
      Loops.push_back(S);
  llvm::SmallPtrSet<const VarDecl *, 16> Used = regionVariables();
  auto WorkUse = [&](const DeclRefExpr *Ref) { return workUse(Ref, Ctx, TU); };
  for (const VarDecl *V : Used) {
    // Code another configuration compiles may read it.
    if (conditionalNames().contains(V->getName()))
      continue;
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        V->getType()->isReferenceType() ||
        V->getParentFunctionOrMethod() != R.Function ||
        addressEscapes(Facts, V, Ctx, TU))
      continue;
    bool ReadLater =
        llvm::any_of(Facts.referencesOf(V), [&](const DeclRefExpr *Ref) {
          SourceLocation At = Ref->getBeginLoc();
          if (SM.isBeforeInTranslationUnit(End, At))
            return true;
          if (R.contains(Ref, SM))
            return !WorkUse(Ref);
          // Before the region, in a loop around it that V outlives.
          return llvm::any_of(Loops, [&](const Stmt *Loop) {
            return SM.isBeforeInTranslationUnit(V->getLocation(),
                                                Loop->getBeginLoc()) &&
                   SM.isPointWithin(At, Loop->getBeginLoc(), Loop->getEndLoc());
          });
        });
    if (!ReadLater)
      DeadAfter->insert(V);
  }
  return *DeadAfter;
}

const llvm::SmallPtrSetImpl<const VarDecl *> &Judge::scratchPointers() {
  if (ScratchPointers)
    return *ScratchPointers;
  ScratchPointers.emplace();
  const FunctionFacts &Facts = TU.factsOf(*R.Function);
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallPtrSet<const VarDecl *, 16> Used = regionVariables();
  // A loop around the region runs it again on what it left.
  auto Outlives = [&](const VarDecl *V) {
    for (const Stmt *S = parentStmt(*R.Block, Ctx); S; S = parentStmt(*S, Ctx))
      if (isLoop(S) &&
          SM.isBeforeInTranslationUnit(V->getLocation(), S->getBeginLoc()))
        return true;
    return false;
  };
  for (const VarDecl *V : Used) {
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
        !V->getType()->isPointerType() ||
        V->getParentFunctionOrMethod() != R.Function || Outlives(V) ||
        conditionalNames().contains(V->getName()))
      continue;
    llvm::SmallPtrSet<const Stmt *, 4> Assignments;
    bool Fresh = llvm::all_of(Facts.writesOf(V), [&](const Write &W) {
      if (W.Kind == WriteKind::Element)
        return true;
      if ((W.Kind != WriteKind::Init && W.Kind != WriteKind::Assign) ||
          !W.Value ||
          !(isAllocation(W.Value) ||
            W.Value->IgnoreParenCasts()->isNullPointerConstant(
                Ctx, Expr::NPC_ValueDependentIsNotNull)))
        return false;
      Assignments.insert(W.Where);
      return true;
    });
    if (!Fresh)
      continue;
    bool Work =
        llvm::all_of(Facts.referencesOf(V), [&](const DeclRefExpr *Ref) {
          if (unevaluated(Ref, Ctx))
            return true; // `malloc(n * sizeof *p)`.
          const Stmt *Parent = parentStmt(*Ref, Ctx);
          if (Parent && Assignments.count(Parent) &&
              cast<BinaryOperator>(Parent)->getLHS() == Ref)
            return true;
          if (R.contains(Ref, SM))
            return workUse(Ref, Ctx, TU) && !pointerCopied(Ref, Ctx);
          return onlyTestedOrFreed(Ref, Ctx);
        });
    if (Work)
      ScratchPointers->insert(V);
  }
  return *ScratchPointers;
}

const VarDecl *Judge::entryAliasOf(const VarDecl *X) {
  auto [It, New] = EntryAliases.try_emplace(X, nullptr);
  if (!New)
    return It->second;
  const FunctionFacts &Facts = TU.factsOf(*R.Function);
  const SourceManager &SM = Ctx.getSourceManager();
  // Scalars, or std::vectors whose elements stay here (the source of the
  // copy may be a reference to one).
  auto Plain = [&](const VarDecl *V, bool Source) {
    QualType T = V->getType();
    bool Vector = isStdVector(T);
    return V->hasLocalStorage() && (Vector || !T->isReferenceType()) &&
           (Vector ? Source || !T->isReferenceType() : T->isArithmeticType()) &&
           V->getParentFunctionOrMethod() == R.Function &&
           !addressEscapes(Facts, V, Ctx, TU);
  };
  if (!Plain(X, false))
    return nullptr;
  SourceLocation Start = R.first()->getBeginLoc();
  const Write *Last = nullptr;
  for (const Write &W : Facts.writesOf(X))
    if (SM.isBeforeInTranslationUnit(W.Where->getBeginLoc(), Start))
      Last = &W;
  if (!Last || !Last->Value ||
      (Last->Kind != WriteKind::Init && Last->Kind != WriteKind::Assign))
    return nullptr;
  // `x = y`, or a vector's copy `std::vector<T> x(y)`.
  const Expr *Copied = Last->Value->IgnoreParenImpCasts();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Copied))
    Copied = Construct->getConstructor()->isCopyConstructor() &&
                     Construct->getNumArgs() == 1
                 ? Construct->getArg(0)->IgnoreParenImpCasts()
                 : nullptr;
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Copied);
  const auto *Y = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Y || Y == X || !Plain(Y, true) ||
      !Ctx.hasSameUnqualifiedType(X->getType().getNonReferenceType(),
                                  Y->getType().getNonReferenceType()))
    return nullptr;
  // The copy runs whenever the region does: its statement is one of a
  // block that holds the region.
  const Stmt *Child = Last->Where;
  if (Last->Kind == WriteKind::Init) {
    // An initializer's parent is its variable; the statement declares it.
    DynTypedNodeList Parents = Ctx.getParents(*X);
    Child = Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
    if (!Child)
      return nullptr;
  }
  const Stmt *Holder = parentStmt(*Child, Ctx);
  while (Holder && !isa<CompoundStmt>(Holder)) {
    if (isa<IfStmt>(Holder) || isLoop(Holder) || isa<SwitchStmt>(Holder) ||
        isa<SwitchCase>(Holder))
      return nullptr;
    Holder = parentStmt(*Holder, Ctx);
  }
  bool HoldsRegion = false;
  for (const Stmt *B = R.Block; B && !HoldsRegion; B = parentStmt(*B, Ctx))
    HoldsRegion = B == Holder;
  if (!HoldsRegion)
    return nullptr;
  // Neither changes between the copy and the region, nor in a loop around
  // the region that the copy is not in.
  SourceLocation After = Last->Where->getEndLoc();
  llvm::SmallVector<const Stmt *, 4> Outside;
  for (const Stmt *S = parentStmt(*R.Block, Ctx); S; S = parentStmt(*S, Ctx))
    if (isLoop(S) && !SM.isPointWithin(After, S->getBeginLoc(), S->getEndLoc()))
      Outside.push_back(S);
  for (const VarDecl *V : {X, Y})
    for (const Write &W : Facts.writesOf(V)) {
      SourceLocation At = W.Where->getBeginLoc();
      // A copy made of it (`passing(mine)` beside `total(mine)`) only
      // reads it.
      const auto *Copy = dyn_cast<CXXConstructExpr>(W.Where);
      if (&W == Last || (Copy && Copy->getConstructor()->isCopyConstructor()))
        continue;
      if (SM.isBeforeInTranslationUnit(After, At) &&
          SM.isBeforeInTranslationUnit(At, Start))
        return nullptr;
      for (const Stmt *Loop : Outside)
        if (SM.isPointWithin(At, Loop->getBeginLoc(), Loop->getEndLoc()))
          return nullptr;
    }
  It->second = Y;
  return Y;
}

void Judge::renameEntryAliases(std::vector<cg::Combination> &Combined,
                               const std::vector<RankRun> &Runs) {
  // The address a contribution of rank R at A is read from.
  auto Renamed = [&](cg::Rank Rank, cg::Address A) {
    Where W = whereOf(A);
    const RankRun &Run = Runs[Rank];
    if (W.Obj >= Run.Objects.size())
      return A;
    const auto *X = dyn_cast_or_null<VarDecl>(Run.Objects[W.Obj].Decl);
    const VarDecl *Y = X ? entryAliasOf(X) : nullptr;
    if (!Y)
      return A;
    if (isStdVector(X->getType())) {
      // The same element of the other vector's elements.
      std::optional<eval::ObjectId> Mine = elementsOf(Run, X);
      std::optional<eval::ObjectId> Theirs = elementsOf(Run, Y);
      return Mine && Theirs && *Mine == W.Obj ? addressOf(*Theirs, W.Off) : A;
    }
    if (W.Off != 0)
      return A;
    for (eval::ObjectId Obj = 1; Obj < Run.Objects.size(); ++Obj)
      if (Run.Objects[Obj].Decl == Y && !Run.Objects[Obj].Temporary)
        return addressOf(Obj, 0);
    return A;
  };
  for (cg::Combination &C : Combined) {
    std::vector<cg::Contribution> Parts;
    for (const cg::Contribution &Part : C.Parts)
      for (cg::Rank Rank = Part.First; Rank <= Part.Last; ++Rank) {
        cg::Address A = Renamed(Rank, Part.Addr);
        if (!Parts.empty() && Parts.back().Last + 1 == Rank &&
            Parts.back().Addr == A)
          Parts.back().Last = Rank;
        else
          Parts.push_back({Rank, Rank, A});
      }
    C.Parts = std::move(Parts);
  }
}

std::optional<Observation>
Judge::observeReduction(int64_t P, const std::vector<RankRun> &Runs,
                        ArrayRef<std::pair<int64_t, const RankOp *>> Global,
                        const std::vector<cg::Transfer> &All,
                        const std::vector<cg::Combination> &Combined) {
  std::optional<cg::ReductionKind> Expected;
  if (Reference)
    Expected = reductionKind(*Reference);
  std::vector<cg::Combination> Renamed = Combined;
  renameEntryAliases(Renamed, Runs);
  cg::ReductionDetection D =
      cg::detectReductions(Renamed, All, static_cast<cg::Rank>(P), Expected);
  if (!D.Found && !TrailingDecided && !DropTrailingCombines &&
      combinesAfterLastMessage(Runs)) {
    // Read once more with what the ranks combine after their last message
    // as steps after the collective (`total /= size;` at the root).
    size_t Refused = V.Refusals.size();
    std::optional<ManualKind> Looked = V.Looks;
    DropTrailingCombines = true;
    std::optional<Observation> O = observe(P, Runs);
    if (O)
      return O;
    DropTrailingCombines = false;
    V.Refusals.resize(Refused);
    V.Looks = Looked;
  }
  auto SiteOf = [&](cg::OpId Writer) {
    if (Writer == cg::NoOp || Writer >= Global.size() ||
        !Global[Writer].second->Site)
      return regionLoc();
    return Global[Writer].second->Site->getBeginLoc();
  };
  if (!D.Found) {
    if (!V.Looks && !Looking)
      V.Looks = resembledReduction(Combined, All, P);
    const cg::Combination *Own = nullptr;
    for (const cg::Combination &C : Combined)
      if (C.Op == cg::ReduceOp::Other && !Own)
        Own = &C;
    std::string Why =
        Own ? "this statement combines the values by an operation that is "
              "none of MPI's (sum, product, minimum, maximum, bitwise or "
              "logical and, or, xor); the order in which MPI combines "
              "would change the result"
            : "at " + processes(P) + ", " + D.Why;
    refuse(checkOfReduction(D.Why, Own != nullptr), Why,
           SiteOf(Own ? Own->Writer : D.Writer));
    return std::nullopt;
  }
  TrailingDecided = true;
  const cg::Reduction &Red = *D.Found;
  Observation O;
  O.Kind = manualKind(Red.Kind);
  O.Root = Red.Root;
  O.Block = Red.Size;
  O.Op = Red.Op;
  O.Buffer.assign(P, std::nullopt);
  O.Send.assign(P, std::nullopt);
  O.Recv.assign(P, std::nullopt);
  O.InPlace.assign(P, false);
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    if (Red.Contribution[Rank])
      O.Send[Rank] = whereOf(*Red.Contribution[Rank]);
    if (Red.Result[Rank])
      O.Recv[Rank] = whereOf(*Red.Result[Rank]);
    O.InPlace[Rank] =
        O.Send[Rank] && O.Recv[Rank] && *O.Send[Rank] == *O.Recv[Rank];
  }
  // The combine statements the call replaces, and the type they combine;
  // also a copy of the rank's own value to where its result goes
  // (`total = local;` at the root, `end = records;` first in a chain), and
  // a copy of the accumulator there (`*total = acc;` after the loop): the
  // call writes the result there.
  for (auto [Rank, Op] : Global) {
    bool Copy = (Op->K == RankOp::Kind::Local && Op->CopyOf) ||
                (Op->K == RankOp::Kind::Recv && Op->SelfCopy && Op->Site &&
                 R.contains(Op->Site, Ctx.getSourceManager()));
    bool IntoResult = Copy && Red.Result[Rank] &&
                      addressOf(Op->Object, Op->Offset) == *Red.Result[Rank] &&
                      Op->Bytes == Red.Size;
    if (IntoResult && Op->Site && !llvm::is_contained(Combines, Op->Site))
      Combines.push_back(Op->Site);
    if (Op->K == RankOp::Kind::Combine) {
      const Stmt *Site = combineSite(*Op);
      if (!Site) {
        // A reduction, refused: said without a trace too.
        if (!V.Looks)
          V.Looks = O.Kind;
        return std::nullopt;
      }
      if (!llvm::is_contained(Combines, Site))
        Combines.push_back(Site);
      if (!FirstCombine)
        FirstCombine = Site;
      if (O.Element.isNull())
        O.Element = Op->Element;
      // Combines that settle ties differently: the weakest decides.
      if (Op->Ties != PairTies::None && O.Ties != PairTies::KeepOwn &&
          O.Ties != PairTies::TakeOther)
        O.Ties = Op->Ties;
    }
  }
  if (Looking) {
    V.Looks = O.Kind;
    return std::nullopt;
  }
  if (!sameAsReference(P, O.Kind, "the region forms"))
    return std::nullopt;
  // An exclusive scan of two processes only copies: larger sizes say how
  // it combines.
  bool CombinesNothing = O.Kind == ManualKind::Exscan && P == 2;
  if (CombinesNothing && ReductionOp)
    O.Op = *ReductionOp;
  if (ReductionOp && *ReductionOp != O.Op) {
    refuse(SafetyCheck::ScaleIndependence,
           "at " + processes(P) + " the region combines with " +
               cg::name(O.Op) + ", at " + processes(ReferenceSize) + " with " +
               cg::name(*ReductionOp),
           regionLoc());
    return std::nullopt;
  }
  ReductionOp = O.Op;
  if (Element.isNull())
    Element = O.Element;
  if (Ties == PairTies::None || Ties == PairTies::LowerIndex)
    Ties = O.Ties;
  if (O.Ties == PairTies::KeepOwn || O.Ties == PairTies::TakeOther)
    noteTieOrder(P, Runs, Combined);
  // A reduce's root may combine in place: it alone.
  if (O.Kind == ManualKind::Reduce) {
    bool RootInPlace = O.InPlace[O.Root];
    if (RootInPlace)
      O.Send[O.Root] = std::nullopt;
    if (ReduceInPlace && *ReduceInPlace != RootInPlace) {
      refuse(SafetyCheck::MessageIntegrity,
             "the root combines in place at some sizes and not at others",
             regionLoc());
      return std::nullopt;
    }
    ReduceInPlace = RootInPlace;
    for (int64_t Rank = 0; Rank < P; ++Rank)
      O.InPlace[Rank] = false;
  } else {
    for (int64_t Rank = 0; Rank < P; ++Rank)
      if (O.InPlace[Rank])
        O.Send[Rank] = std::nullopt;
  }
  if (P >= 3)
    V.Topology = reductionTopology(O, Runs);
  return O;
}

bool Judge::datatypeOfElements(StringRef TypeText) const {
  if (Element.isNull())
    return false;
  bool Pairs = *ReductionOp == cg::ReduceOp::MinLoc ||
               *ReductionOp == cg::ReduceOp::MaxLoc;
  if (Pairs) {
    const PairDatatype *Pair = pairDatatype(TypeText);
    const RecordDecl *Record = Element->getAsRecordDecl();
    return Pair && Record && isPairRecord(*Record, *Pair, Ctx);
  }
  const PredefinedDatatype *DT = predefinedDatatype(TypeText);
  return DT && Ctx.hasSameUnqualifiedType(Ctx.*(DT->Type), Element);
}

void Judge::noteTieOrder(int64_t P, const std::vector<RankRun> &Runs,
                         const std::vector<cg::Combination> &Combined) {
  if (TiesUnproven)
    return;
  if (llvm::any_of(Runs,
                   [](const RankRun &Run) { return Run.OwnIndexNotRank; }))
    TiesUnproven = "at " + processes(P) +
                   ", a rank's pairs do not all hold its rank as their index "
                   "(or are sent with another datatype)";
  else if (!llvm::all_of(Combined, [](const cg::Combination &C) {
             return C.RankOrdered;
           }))
    TiesUnproven = "at " + processes(P) +
                   ", the pairs are not combined in the order of their ranks";
}

bool Judge::settlesTiesAsMPI(SourceLocation At) {
  if (Ties == PairTies::None || Ties == PairTies::LowerIndex)
    return true;
  // Each index is its rank, and each combine keeps the lower ranks'.
  if (!TiesUnproven)
    return true;
  const char *Kept = Ties == PairTies::KeepOwn ? "the pair combined first"
                                               : "the pair combined last";
  refuse(SafetyCheck::ReductionOrder,
         std::string("of pairs with equal values this code keeps ") + Kept +
             ", " + cg::name(*ReductionOp) +
             " the one with the smaller index; " + *TiesUnproven +
             ", so which index wins depends on the order of combination "
             "(compare the indices when the values are equal to make it "
             "MPI's)",
         At);
  return false;
}

namespace {

/// The expression statement \p Call stands in (the call itself, or a
/// `(void)` cast of it), or null when its value is used.
const Expr *callStatement(const CallExpr *Call, ASTContext &Ctx) {
  const Expr *Whole = Call;
  const Stmt *Parent = parentStmt(*Call, Ctx);
  while (Parent && (isa<ParenExpr>(Parent) ||
                    (isa<CStyleCastExpr>(Parent) &&
                     cast<CStyleCastExpr>(Parent)->getType()->isVoidType()))) {
    Whole = cast<Expr>(Parent);
    Parent = parentStmt(*Parent, Ctx);
  }
  if (!Parent || isa<Expr>(Parent))
    return nullptr;
  return Whole;
}

} // namespace

const Stmt *Judge::combineSite(const RankOp &Op) {
  const SourceManager &SM = Ctx.getSourceManager();
  // A summary's call, or a statement of the region itself.
  const auto *Summarised = dyn_cast_or_null<CallExpr>(Op.Site);
  std::optional<CombineCall> Combine =
      Summarised ? combineCallOf(Summarised, TU) : std::nullopt;
  if (!Combine)
    Summarised = nullptr;
  if (!Op.Site || (!Summarised && R.contains(Op.Site, SM)))
    return Op.Site;
  // Combined by a call of a function: the call of the region's own code
  // that ran it (a summary's, or the one whose callee's body holds the
  // combine).
  const CallExpr *Call = Summarised;
  if (!Call && Op.Origin) {
    Call = cast_or_null<CallExpr>(findFirst(Op.Origin, [&](const Stmt *S) {
      const auto *C = dyn_cast<CallExpr>(S);
      const FunctionDecl *Callee = C ? C->getDirectCallee() : nullptr;
      const FunctionDecl *Def = nullptr;
      return Callee && Callee->hasBody(Def) &&
             SM.isPointWithin(Op.Site->getBeginLoc(), Def->getBeginLoc(),
                              Def->getEndLoc());
    }));
    Combine = Call ? combineCallOf(Call, TU) : std::nullopt;
  }
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  std::string Name =
      Callee ? "'" + Callee->getNameAsString() + "'" : "a function";
  auto Refuse = [&](std::string Why) {
    refuse(SafetyCheck::SourceForm, std::move(Why),
           Call        ? Call->getBeginLoc()
           : Op.Origin ? Op.Origin->getBeginLoc()
                       : regionLoc());
    return nullptr;
  };
  // It goes with the region only when combining is all the function does,
  // its value is not used and its arguments change nothing.
  if (!Combine)
    return Refuse("the values are combined inside a call of " + Name +
                  ", which does more than fold one array into another");
  const Expr *Statement = callStatement(Call, Ctx);
  if (!Statement)
    return Refuse("the value of the call of " + Name +
                  " that combines the values is used");
  // Effects for sure, or a call other than a container's accessor
  // (`part.data()`).
  auto HasEffects = [&](const Expr *Arg) {
    return Arg->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false) ||
           findFirst(Arg, [](const Stmt *S) {
             const auto *C = dyn_cast<CallExpr>(S);
             return C && !isContainerAccessor(C);
           });
  };
  if (llvm::any_of(Call->arguments(), HasEffects))
    return Refuse("the arguments of the call of " + Name +
                  " that combines the values have effects of their own");
  return Statement;
}

bool Judge::chooseReduction(RegionProof &Proof) {
  assert(ReductionOp && "a reduction without its operation");
  Proof.Op = cg::name(*ReductionOp);
  Proof.Combines = Combines;
  SourceLocation At = FirstCombine ? FirstCombine->getBeginLoc() : regionLoc();
  // MPI combines elements of a predefined datatype: the messages' must be
  // the one of the values the statements combine.
  std::string TypeText =
      Proof.Datatype ? mpiHandleName(Proof.Datatype, Ctx) : std::string();
  if (!datatypeOfElements(TypeText)) {
    refuse(SafetyCheck::MatchingArguments,
           "the messages' datatype '" + TypeText +
               "' is not the predefined datatype of the values the region "
               "combines ('" +
               (Element.isNull() ? std::string("?") : Element.getAsString()) +
               "'), which MPI's reduction needs",
           At);
    return false;
  }
  if (!settlesTiesAsMPI(At))
    return false;
  if (!exactInAnyOrder(*ReductionOp, Element)) {
    if (!TU.reassociationAllowed()) {
      refuse(SafetyCheck::ReductionOrder,
             std::string("a ") +
                 (*ReductionOp == cg::ReduceOp::Sum ? "sum" : "product") +
                 " of '" + Element.getAsString() +
                 "' values rounds differently when MPI combines them in "
                 "another order than this code does; --allow-reassociation "
                 "accepts results that may differ in the last bits",
             At);
      return false;
    }
    Proof.Reassociates = true;
  }
  if (Proof.Kind == ManualKind::Exscan && !Proof.FirstResult &&
      Proof.RecvBuffer) {
    refuse(SafetyCheck::MatchingArguments,
           "MPI_Exscan leaves the result of rank 0 undefined, where this "
           "region leaves it holding a value that is not one constant of "
           "one element; the rewrite can set only such a value there again",
           regionLoc());
    return false;
  }
  if (Proof.Kind == ManualKind::Exscan && !Proof.Rank) {
    refuseMissing("calling rank");
    return false;
  }
  if (Proof.Kind == ManualKind::Reduce) {
    Proof.InPlace = ReduceInPlace.value_or(false);
  } else {
    if (!AllInPlace && !NoneInPlace) {
      refuse(SafetyCheck::MessageIntegrity,
             "some ranks combine in place and others do not", regionLoc());
      return false;
    }
    Proof.InPlace = AllInPlace;
  }
  if (!Proof.RecvBuffer) {
    refuseMissing("result buffer");
    return false;
  }
  if (!Proof.SendBuffer &&
      !(Proof.InPlace && Proof.Kind != ManualKind::Reduce)) {
    refuseMissing("buffer each rank contributes");
    return false;
  }
  return true;
}

} // namespace judge
} // namespace analysis
} // namespace mpilift
