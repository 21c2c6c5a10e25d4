//===- EvalEntry.cpp - What a region reads from outside -------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Before any run, the evaluator works out what the region needs from the
/// rest of its function: the statements that lead to it, the variables it
/// reads and every write of them before it (the slice a run executes
/// before the region), and its inputs: values proven the same on every
/// rank whose value a run cannot compute (a parameter, the counter of a
/// loop around the region, a broadcast count, the size of a container).
/// At the region's entry a parameter, field or global is the rank or the
/// size (when only MPI_Comm_rank or MPI_Comm_size writes it, on the
/// communicator of the region's messages), an input, the object a pointer
/// points to, or a value that cannot be followed, with the reason.
///
//===----------------------------------------------------------------------===//

#include "RankEvaluatorImpl.h"

#include "CollectiveFunctions.h"
#include "RankUniformity.h"
#include "StatementTree.h"
#include "VectorUses.h"

#include "mpilift/Analysis/ManualCollective.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

bool integerElementRead(const Expr *Base, ASTContext &Ctx);

/// Every variable whose value \p S reads (not only its address: `&x`, an
/// array that decays to a pointer).
void valuesReadIn(const Stmt *S, ASTContext &Ctx,
                  llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
  findFirst(S, [&](const Stmt *X) {
    const auto *Ref = dyn_cast<DeclRefExpr>(X);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V)
      return false;
    const Stmt *Parent = parentStmt(*Ref, Ctx);
    while (Parent && isa<ParenExpr>(Parent))
      Parent = parentStmt(*Parent, Ctx);
    if (const auto *Op = dyn_cast_or_null<UnaryOperator>(Parent))
      if (Op->getOpcode() == UO_AddrOf)
        return false;
    if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent))
      if (Cast->getCastKind() == CK_ArrayToPointerDecay &&
          !integerElementRead(Cast, Ctx))
        return false;
    Out.insert(V);
    return false;
  });
}

/// Whether \p Base, a pointer (or a decayed array), is indexed or
/// dereferenced and the element read as an integer value (`counts[p]` as
/// a count, `*offset` passed on): the values stored in it then matter,
/// not only where it points.
bool integerElementRead(const Expr *Base, ASTContext &Ctx) {
  const Stmt *Parent = parentStmt(*Base, Ctx);
  const auto *Sub = dyn_cast_or_null<ArraySubscriptExpr>(Parent);
  const auto *Deref = dyn_cast_or_null<UnaryOperator>(Parent);
  // `p[i]`, or `*p` (the first element).
  const Expr *Element = nullptr;
  if (Sub && Sub->getBase() == Base)
    Element = Sub;
  else if (Deref && Deref->getOpcode() == UO_Deref)
    Element = Deref;
  if (!Element || !Element->getType()->isIntegralOrEnumerationType())
    return false;
  const auto *Read =
      dyn_cast_or_null<ImplicitCastExpr>(parentStmt(*Element, Ctx));
  return Read && Read->getCastKind() == CK_LValueToRValue;
}

const VarDecl *pointerBase(const Expr *E);

/// Every pointer variable whose elements \p S reads as integers, in
/// \p Out: indexed or dereferenced by the program, or given to an MPI
/// call as its counts or displacements (MPI_Gatherv's `recvcounts`).
void elementsReadIn(const Stmt *S, ASTContext &Ctx,
                    llvm::SmallPtrSetImpl<const VarDecl *> &Out) {
  findFirst(S, [&](const Stmt *X) {
    if (const auto *Call = dyn_cast<CallExpr>(X); Call && mpiCallee(Call))
      for (mpi::Role R : {mpi::Role::SendCounts, mpi::Role::SendDispls,
                          mpi::Role::RecvCounts, mpi::Role::RecvDispls})
        if (const Expr *Arg = mpiArg(Call, R))
          if (const VarDecl *V = pointerBase(Arg);
              V && V->getType()->isPointerType())
            Out.insert(V);
    const auto *Ref = dyn_cast<DeclRefExpr>(X);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || !V->getType()->isPointerType())
      return false;
    const auto *Load =
        dyn_cast_or_null<ImplicitCastExpr>(parentStmt(*Ref, Ctx));
    if (Load && integerElementRead(Load, Ctx))
      Out.insert(V);
    return false;
  });
}

/// The variable a pointer expression is based on (`counts`, `counts + 1`),
/// if it names one.
const VarDecl *pointerBase(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *Op = dyn_cast<BinaryOperator>(E)) {
    if (!Op->isAdditiveOp())
      return nullptr;
    E = (Op->getLHS()->getType()->isPointerType() ? Op->getLHS() : Op->getRHS())
            ->IgnoreParenImpCasts();
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The stores into what the pointer \p V points to (`counts[p] = n;`,
/// `*(counts + p) += 1;`) and the calls it is passed to (which may fill
/// it), in \p Body: when the region reads its elements as integers, the
/// run must make them.
std::vector<Write> elementStoresThrough(const VarDecl &V, const Stmt *Body) {
  std::vector<Write> Out;
  auto Through = [&](const Expr *Target) {
    Target = Target->IgnoreParenImpCasts();
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Target))
      return pointerBase(Sub->getBase()) == &V;
    if (const auto *Deref = dyn_cast<UnaryOperator>(Target))
      return Deref->getOpcode() == UO_Deref &&
             pointerBase(Deref->getSubExpr()) == &V;
    return false;
  };
  findFirst(Body, [&](const Stmt *S) {
    if (const auto *Op = dyn_cast<BinaryOperator>(S)) {
      if (Op->isAssignmentOp() && Through(Op->getLHS()))
        Out.push_back({Op->getOpcode() == BO_Assign ? WriteKind::Assign
                                                    : WriteKind::Compound,
                       Op, Op->getRHS()});
    } else if (const auto *Un = dyn_cast<UnaryOperator>(S)) {
      if (Un->isIncrementDecrementOp() && Through(Un->getSubExpr()))
        Out.push_back({WriteKind::IncDec, Un});
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      for (const Expr *Arg : Call->arguments())
        if (Arg->getType()->isPointerType() && pointerBase(Arg) == &V)
          Out.push_back({WriteKind::AddressPass, Arg, nullptr, Call});
    }
    return false;
  });
  return Out;
}

/// Every field \p S names: of the object a member function runs on, and
/// scalar fields of any object.
void fieldsIn(const Stmt *S, llvm::SmallPtrSetImpl<const ValueDecl *> &Out) {
  findFirst(S, [&](const Stmt *X) {
    if (const auto *Member = dyn_cast<MemberExpr>(X))
      if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) ||
          (isa<FieldDecl>(Member->getMemberDecl()) &&
           Member->getType()->isIntegralOrEnumerationType()))
        Out.insert(Member->getMemberDecl());
    return false;
  });
}

unsigned offsetOf(SourceLocation Loc, const SourceManager &SM) {
  return SM.getFileOffset(SM.getExpansionLoc(Loc));
}

} // namespace

void RankEvaluator::Impl::findPath() {
  const Stmt *S = R.Block;
  while (S) {
    Path.insert(S);
    if (isLoop(S))
      EnclosingLoops.push_back(S);
    if (S == R.Function->getBody())
      break;
    S = parentStmt(*S, Ctx);
  }
}

void RankEvaluator::Impl::findRegionComm() {
  for (unsigned I = R.First; I <= R.Last; ++I) {
    const Stmt *S = R.Block->body_begin()[I];
    const Stmt *Call = findFirst(S, [](const Stmt *X) {
      const auto *C = dyn_cast<CallExpr>(X);
      const mpi::FunctionInfo *Info = C ? mpiCallee(C) : nullptr;
      return Info && mpiArg(C, mpi::Role::Comm) &&
             Info->TheFamily != mpi::Family::CommQuery;
    });
    if (Call) {
      RegionComm = followedCommKey(
          mpiArgAsWritten(cast<CallExpr>(Call), mpi::Role::Comm), *R.Function,
          TU);
      return;
    }
  }
}

std::optional<std::pair<const CallExpr *, RankEvaluator::Impl::Uniforming>>
RankEvaluator::Impl::uniformingCallOf(const VarDecl *V,
                                      RankUniformity &Uniformity,
                                      unsigned RegionBegin) const {
  if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) ||
      !V->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  const CallExpr *Last = nullptr;
  for (const Write &W : TU.factsOf(*R.Function).writesOf(V)) {
    if (W.Kind != WriteKind::AddressPass || !W.Call ||
        offsetOf(W.Call->getBeginLoc(), SM) >= RegionBegin ||
        (Last && offsetOf(W.Call->getBeginLoc(), SM) <
                     offsetOf(Last->getBeginLoc(), SM)))
      continue;
    // A broadcast (or all-reduction) of it, whether or not it leaves it
    // the same everywhere: the proof below says.
    const auto *Address = dyn_cast<Expr>(W.Where);
    std::optional<BroadcastCall> Own =
        mpiCallee(W.Call) ? std::nullopt : broadcastCallOf(W.Call, TU);
    if (uniformingCoverage(W.Call, Address, Ctx) != Coverage::None ||
        (Own && Address &&
         Own->Buffer->IgnoreParenCasts() == Address->IgnoreParenCasts()))
      Last = W.Call;
  }
  if (!Last)
    return std::nullopt;
  Uniforming U{V, std::nullopt};
  if (std::optional<Divergence> Why = Uniformity.variableDivergence(
          V, *R.Function, R.first()->getBeginLoc()))
    U.NotSame = Why->Reason;
  return std::pair(Last, U);
}

void RankEvaluator::Impl::computeNeeded() {
  const FunctionFacts &Facts = TU.factsOf(*R.Function);
  RankUniformity Uniformity(TU);
  Uniformity.setCommunicator(RegionComm);
  unsigned RegionBegin = offsetOf(R.first()->getBeginLoc(), SM);
  llvm::SmallPtrSet<const VarDecl *, 32> Seeds;
  llvm::SmallPtrSet<const VarDecl *, 8> ElementsRead;
  for (unsigned I = R.First; I <= R.Last; ++I) {
    valuesReadIn(R.Block->body_begin()[I], Ctx, Seeds);
    elementsReadIn(R.Block->body_begin()[I], Ctx, ElementsRead);
  }
  // The conditions that lead to the region.
  for (const Stmt *S : Path) {
    if (const auto *If = dyn_cast<IfStmt>(S))
      variablesIn(If->getCond(), Seeds);
    else if (isLoop(S)) {
      variablesIn(loopCondition(S), Seeds);
      if (const auto *For = dyn_cast<ForStmt>(S)) {
        variablesIn(For->getInit(), Seeds);
        variablesIn(For->getInc(), Seeds);
      }
    } else if (const auto *Switch = dyn_cast<SwitchStmt>(S))
      variablesIn(Switch->getCond(), Seeds);
  }
  // What decides whether a statement before the region leaves the
  // function or loop first (`if (size <= 1) return;`).
  for (const Stmt *S : Path) {
    const auto *Block = dyn_cast<CompoundStmt>(S);
    if (!Block)
      continue;
    for (const Stmt *Child : Block->body()) {
      if (onPath(Child) || (Block == R.Block && Child == R.first()))
        break;
      if (leavingJump(Child))
        variablesIn(Child, Seeds);
    }
  }
  SmallVector<const VarDecl *, 32> Work;
  llvm::SmallPtrSet<const VarDecl *, 8> ElementsFollowed;
  for (const VarDecl *V : Seeds)
    if (V->getParentFunctionOrMethod() == R.Function && !R.contains(V, SM))
      Work.push_back(V);
  bool Escapes = false;
  while (!Work.empty()) {
    const VarDecl *V = Work.pop_back_val();
    // An assumed input is given its value at the region's entry; how the
    // program computes it does not run.
    if (llvm::is_contained(R.Assumed, V))
      continue;
    bool First = Needed.insert(V).second;
    // A pointer whose elements the slice reads as integers (counts and
    // displacements): what is stored through it before the region too.
    bool Elements = ElementsRead.count(V) && ElementsFollowed.insert(V).second;
    if (!First && !Elements)
      continue;
    std::vector<Write> Writes;
    if (First)
      Writes.assign(Facts.writesOf(V).begin(), Facts.writesOf(V).end());
    // What some ranks alone gave it before a broadcast of it does not run
    // (`if (rank == 0 && argc > 1) n = atoi(argv[1]);`): the broadcast
    // gives it the setting's value.
    if (auto By = First ? uniformingCallOf(V, Uniformity, RegionBegin)
                        : std::nullopt) {
      unsigned From = offsetOf(By->first->getBeginLoc(), SM);
      // Where it is not proven so, the run still computes what it was
      // before (what a region that only looks like a collective shows).
      if (!By->second.NotSame)
        llvm::erase_if(Writes, [&](const Write &W) {
          return offsetOf(W.Where->getBeginLoc(), SM) < From;
        });
      UniformedBy[By->first] = By->second;
    }
    if (Elements)
      llvm::append_range(Writes,
                         elementStoresThrough(*V, R.Function->getBody()));
    for (const Write &W : Writes) {
      unsigned At = offsetOf(W.Where->getBeginLoc(), SM);
      if (At >= RegionBegin)
        continue; // In or after the region: the run does it, or never.
      Escapes |= W.Kind == WriteKind::Escape;
      NeededWrites.push_back(At);
      llvm::SmallPtrSet<const VarDecl *, 8> Read;
      variablesIn(W.Call ? static_cast<const Stmt *>(W.Call) : W.Where, Read);
      if (W.Value)
        variablesIn(W.Value, Read);
      // And what decides whether the write happens.
      for (const Stmt *S = parentStmt(*W.Where, Ctx);
           S && S != R.Function->getBody(); S = parentStmt(*S, Ctx)) {
        if (const auto *If = dyn_cast<IfStmt>(S))
          variablesIn(If->getCond(), Read);
        else if (isLoop(S))
          variablesIn(loopCondition(S), Read);
        else if (const auto *Switch = dyn_cast<SwitchStmt>(S))
          variablesIn(Switch->getCond(), Read);
      }
      elementsReadIn(W.Call ? static_cast<const Stmt *>(W.Call) : W.Where, Ctx,
                     ElementsRead);
      for (const VarDecl *X : Read)
        if (X->getParentFunctionOrMethod() == R.Function)
          Work.push_back(X);
    }
  }
  // A needed variable whose address went somewhere may be written through
  // any pointer: every store through one before the region runs.
  if (Escapes)
    findFirst(R.Function->getBody(), [&](const Stmt *S) {
      const auto *Op = dyn_cast<BinaryOperator>(S);
      const auto *Un = dyn_cast<UnaryOperator>(S);
      const Expr *Target = Op && Op->isAssignmentOp() ? Op->getLHS()
                           : Un && Un->isIncrementDecrementOp()
                               ? Un->getSubExpr()
                               : nullptr;
      if (Target && accessesThroughPointer(Target) &&
          offsetOf(S->getBeginLoc(), SM) < RegionBegin)
        NeededWrites.push_back(offsetOf(S->getBeginLoc(), SM));
      return false;
    });
  llvm::sort(NeededWrites);
}

bool RankEvaluator::Impl::writesNeeded(const Stmt *S) const {
  unsigned Begin = offsetOf(S->getBeginLoc(), SM);
  unsigned End = offsetOf(S->getEndLoc(), SM);
  auto It = llvm::lower_bound(NeededWrites, Begin);
  return It != NeededWrites.end() && *It <= End;
}

bool RankEvaluator::Impl::isLoopCarried(const VarDecl *V) const {
  // Whether V's value may change from one iteration of a loop around the
  // region to the next: a write inside such a loop (outside the region)
  // that steps it, or gives it a value computed from such a variable.
  auto It = LoopVariant.find(V);
  if (It != LoopVariant.end())
    return It->second;
  LoopVariant[V] = false; // A cycle through V itself decides nothing.
  const FunctionFacts &Facts = TU.factsOf(*R.Function);
  bool Variant = false;
  for (const Write &W : Facts.writesOf(V)) {
    if (R.contains(W.Where, SM))
      continue;
    bool InLoop = llvm::any_of(EnclosingLoops, [&](const Stmt *Loop) {
      return SM.isPointWithin(SM.getExpansionLoc(W.Where->getBeginLoc()),
                              SM.getExpansionLoc(Loop->getBeginLoc()),
                              SM.getExpansionLoc(Loop->getEndLoc()));
    });
    if (!InLoop || W.Kind == WriteKind::Element)
      continue;
    if (W.Kind != WriteKind::Init && W.Kind != WriteKind::Assign) {
      const mpi::FunctionInfo *Info = W.Call ? mpiCallee(W.Call) : nullptr;
      if (!(W.Kind == WriteKind::AddressPass && Info &&
            Info->TheFamily == mpi::Family::CommQuery)) {
        Variant = true;
        break;
      }
      continue;
    }
    llvm::SmallPtrSet<const VarDecl *, 8> Read;
    variablesIn(W.Value, Read);
    for (const VarDecl *X : Read)
      if (X->getParentFunctionOrMethod() == R.Function && isLoopCarried(X))
        Variant = true;
    if (Variant)
      break;
  }
  LoopVariant[V] = Variant;
  return Variant;
}

bool RankEvaluator::Impl::exitIsUniform(const Stmt *S) {
  auto It = UniformExits.find(S);
  if (It != UniformExits.end())
    return It->second;
  SmallVector<const Stmt *, 4> Jumps;
  findFirst(S, [&](const Stmt *X) {
    if (isa<ReturnStmt>(X) || isa<GotoStmt>(X) || isa<CXXThrowExpr>(X) ||
        isa<BreakStmt>(X) || isa<ContinueStmt>(X))
      Jumps.push_back(X);
    return false;
  });
  RankUniformity Uniformity(TU);
  Uniformity.setCommunicator(RegionComm);
  bool Uniform = true;
  for (const Stmt *Jump : Jumps)
    for (const Stmt *Child = Jump; Uniform && Child != S;) {
      const Stmt *Parent = parentStmt(*Child, Ctx);
      if (!Parent)
        break;
      const Expr *Cond = nullptr;
      if (const auto *If = dyn_cast<IfStmt>(Parent))
        Cond = If->getCond();
      else if (isLoop(Parent))
        Cond = loopCondition(Parent);
      else if (const auto *Switch = dyn_cast<SwitchStmt>(Parent))
        Cond = Switch->getCond();
      if (Cond && Cond != Child && Uniformity.divergence(Cond, *R.Function))
        Uniform = false;
      Child = Parent;
    }
  UniformExits[S] = Uniform;
  return Uniform;
}

void RankEvaluator::Impl::findInputs() {
  RankUniformity Uniformity(TU);
  Uniformity.setCommunicator(RegionComm);
  llvm::SmallPtrSet<const VarDecl *, 32> Read;
  llvm::SmallPtrSet<const ValueDecl *, 8> Fields;
  for (unsigned I = R.First; I <= R.Last; ++I) {
    variablesIn(R.Block->body_begin()[I], Read);
    fieldsIn(R.Block->body_begin()[I], Fields);
  }
  for (const VarDecl *V : Needed) {
    Read.insert(V);
    // What the run computes them from before the region.
    if (V->getParentFunctionOrMethod() == R.Function)
      for (const Write &W : TU.factsOf(*R.Function).writesOf(V))
        if (W.Value && !R.contains(W.Where, SM))
          fieldsIn(W.Value, Fields);
  }
  Read.insert(R.Assumed.begin(), R.Assumed.end());
  std::vector<const ValueDecl *> Candidates;
  for (const VarDecl *V : Read) {
    if (R.contains(V, SM) && !llvm::is_contained(R.Assumed, V))
      continue;
    bool Local = V->getParentFunctionOrMethod() == R.Function;
    if (isStdVector(V->getType().getNonReferenceType())) {
      bool Followed = !isa<ParmVarDecl>(V) || V->getType()->isReferenceType();
      if (Local && Followed && !Uniformity.containerDivergence(V, *R.Function))
        Candidates.push_back(V);
      continue;
    }
    if (V->getType()->isReferenceType())
      continue;
    if (!V->getType()->isIntegralOrEnumerationType())
      continue;
    if (queryValueOf(V, *R.Function, TU))
      continue; // The rank or the size.
    if (llvm::is_contained(R.Assumed, V)) {
      Candidates.push_back(V);
      continue;
    }
    bool Param = isa<ParmVarDecl>(V) && Local;
    bool Carried = Local && !Param && isLoopCarried(V);
    bool Broadcast = false;
    if (Local && !Param)
      for (const Write &W : TU.factsOf(*R.Function).writesOf(V))
        if (W.Kind == WriteKind::AddressPass &&
            ((mpiCallee(W.Call) && mpiCallee(W.Call)->TheFamily ==
                                       mpi::Family::BlockingCollective) ||
             UniformedBy.lookup(W.Call).Var == V))
          Broadcast = true;
    if (!Param && !Carried && !Broadcast)
      continue;
    // Read where the region starts: a broadcast before it overwrites what
    // some ranks alone gave the variable (`if (rank == 0) n = atoi(...);`).
    if (!Uniformity.variableDivergence(V, *R.Function,
                                       R.first()->getBeginLoc()))
      Candidates.push_back(V);
  }
  for (const ValueDecl *Field : Fields) {
    if (isStdVector(Field->getType())) {
      if (!Uniformity.containerDivergence(Field, *R.Function))
        Candidates.push_back(Field);
      continue;
    }
    // A scalar field every rank holds alike (`PANEL->pcol`, `hdr.count`):
    // the region is proven for each value it may hold.
    const auto *Scalar = dyn_cast<FieldDecl>(Field);
    if (Scalar && Scalar->getType()->isIntegralOrEnumerationType() &&
        !queryValueOf(Scalar, *R.Function, TU) &&
        !Uniformity.fieldDivergence(Scalar))
      Candidates.push_back(Field);
  }
  llvm::sort(Candidates, [&](const ValueDecl *A, const ValueDecl *B) {
    return SM.isBeforeInTranslationUnit(A->getLocation(), B->getLocation());
  });
  for (const ValueDecl *D : Candidates) {
    if (Inputs.size() >= 30)
      break;
    InputBit[D] = static_cast<unsigned>(Inputs.size());
    std::string Name = isStdVector(D->getType().getNonReferenceType())
                           ? "the size of '" + D->getNameAsString() + "'"
                           : eval::quoted(*D);
    Inputs.push_back({Name, D, D->getLocation()});
  }
}

/// When \p D is an MPI_Datatype parameter of \p F: the size of the
/// predefined datatype every caller passes for it (`share(v, n,
/// MPI_DOUBLE)`), if they all pass one, with the same spelling, and every
/// caller is visible.
static std::optional<uint64_t> datatypeFromCallers(const ValueDecl *D,
                                                   const FunctionDecl &F,
                                                   TranslationUnitFacts &TU) {
  const auto *P = dyn_cast<ParmVarDecl>(D);
  if (!P || P->getType().getAsString() != "MPI_Datatype")
    return std::nullopt;
  ArrayRef<CallSite> Callers = TU.callersOf(&F);
  if (Callers.empty() || TU.mayBeCalledUnseen(&F))
    return std::nullopt;
  unsigned Index = P->getFunctionScopeIndex();
  std::optional<std::string> Spelling;
  for (const CallSite &Site : Callers) {
    // A member's operator call counts the object as its first argument.
    if (isa<CXXOperatorCallExpr>(Site.Call) || Index >= Site.Call->getNumArgs())
      return std::nullopt;
    std::string Text =
        squeezed(sourceText(Site.Call->getArg(Index), TU.context()));
    if (Spelling && *Spelling != Text)
      return std::nullopt;
    Spelling = Text;
  }
  return predefinedTypeSize(*Spelling, TU.context());
}

/// The value of \p D when it is a `const` integer variable of static
/// storage with a constant initializer (`static const int first_peer = 1;`,
/// `const int ROOT = 0;` at file scope): no conforming program writes it.
static std::optional<int64_t> constantValue(const ValueDecl *D) {
  const auto *V = dyn_cast<VarDecl>(D);
  if (!V || !V->hasGlobalStorage() || V->isWeak() ||
      !V->getType().isConstQualified() || V->getType().isVolatileQualified() ||
      !V->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  const VarDecl *Defining = nullptr;
  if (!V->getAnyInitializer(Defining) || !Defining)
    return std::nullopt;
  const APValue *Value = Defining->evaluateValue();
  if (!Value || !Value->isInt() || !Value->getInt().isRepresentableByInt64())
    return std::nullopt;
  return Value->getInt().getExtValue();
}

RankEvaluator::Impl::EntryValue
RankEvaluator::Impl::classify(const ValueDecl *D) {
  auto It = Entries.find(D);
  if (It != Entries.end())
    return It->second;
  EntryValue E;
  QualType T = D->getType();
  if (D == R.AssumedRank || D == R.AssumedSize) {
    E.K = D == R.AssumedRank ? EntryValue::Kind::Rank : EntryValue::Kind::Size;
  } else if (auto Query = queryValueOf(D, *R.Function, TU)) {
    if (!RegionComm.valid() || Query->Comm == RegionComm) {
      E.K = Query->Query == CommQuery::Rank ? EntryValue::Kind::Rank
                                            : EntryValue::Kind::Size;
    } else {
      E.K = EntryValue::Kind::Unknown;
      E.Why = {"'" + D->getNameAsString() + "' is the " +
                   (Query->Query == CommQuery::Rank ? "rank" : "size") +
                   " in another communicator than the region's messages use",
               D->getLocation()};
    }
  } else if (InputBit.count(D)) {
    E.K = EntryValue::Kind::Input;
    E.Input = InputBit[D];
  } else if (std::optional<uint64_t> Bytes =
                 datatypeFromCallers(D, *R.Function, TU)) {
    E.K = EntryValue::Kind::Datatype;
    E.Bytes = *Bytes;
  } else if (std::optional<int64_t> Value = constantValue(D)) {
    E.K = EntryValue::Kind::Constant;
    E.Constant = *Value;
  } else if (T->isPointerType() || T->isArrayType()) {
    E.K = EntryValue::Kind::Object;
  } else if (const auto *V = dyn_cast<VarDecl>(D);
             V && V->getParentFunctionOrMethod() == R.Function &&
             !isa<ParmVarDecl>(V)) {
    E.K = EntryValue::Kind::Run;
  } else {
    E.K = EntryValue::Kind::Unknown;
    std::optional<Divergence> Why;
    RankUniformity Uniformity(TU);
    Uniformity.setCommunicator(RegionComm);
    if (isStdVector(T))
      Why = Uniformity.containerDivergence(D, *R.Function);
    else if (const auto *V = dyn_cast<VarDecl>(D))
      Why = Uniformity.variableDivergence(V, *R.Function, D->getLocation());
    else if (const auto *Field = dyn_cast<FieldDecl>(D);
             Field && Field->getType()->isIntegralOrEnumerationType())
      Why = Uniformity.fieldDivergence(Field);
    if (Why)
      E.Why = {Why->Reason, Why->Loc};
    else
      E.Why = {"'" + D->getNameAsString() +
                   "' is read at the region's entry and cannot be followed",
               D->getLocation()};
  }
  Entries[D] = E;
  return E;
}

Value RankEvaluator::Impl::entryValue(const ValueDecl *D, QualType T,
                                      SourceLocation Use) {
  EntryValue E = classify(D);
  unsigned Bits = T->isIntegralOrEnumerationType() ? Ctx.getIntWidth(T) : 64;
  bool Signed = T->isSignedIntegerOrEnumerationType();
  switch (E.K) {
  case EntryValue::Kind::Rank:
    return Value::integer(Rank, Bits, Signed);
  case EntryValue::Kind::Size:
    return Value::integer(Size, Bits, Signed);
  case EntryValue::Kind::Input: {
    Value V = Value::integer(Setting[E.Input], Bits, Signed);
    V.Taint = 1u << E.Input;
    Out.ReadInputs |= V.Taint;
    return V;
  }
  case EntryValue::Kind::Object: {
    ObjectId Obj =
        newObject("what " + eval::quoted(*D) + " points to", D, false);
    Objects[Obj].AtEntry = true;
    return Value::pointer(Obj, 0);
  }
  case EntryValue::Kind::Datatype:
    return Value::datatype(E.Bytes, E.Bytes);
  case EntryValue::Kind::Constant:
    return Value::integer(E.Constant, Bits, Signed);
  case EntryValue::Kind::Unknown:
    return unknown(E.Why.Text, E.Why.Loc.isValid() ? E.Why.Loc : Use,
                   T->isIntegralOrEnumerationType() ? D : nullptr);
  case EntryValue::Kind::Run:
    break;
  }
  return unknown(
      "'" + D->getNameAsString() + "' is read before it is given a value", Use);
}

void RankEvaluator::Impl::evaluateProbes() {
  Out.Reached = true;
  probeValues(Probes, Out.Probes);
}

void RankEvaluator::Impl::probeValues(ArrayRef<Probe> Exprs,
                                      std::vector<Value> &Values) {
  Values.clear();
  Values.reserve(Exprs.size());
  Mode Saved = M;
  M = Mode::Prefix; // Probes record no operations.
  for (size_t I = 0; I < Exprs.size(); ++I) {
    const Expr *E = Exprs[I].getPointer();
    if (I < LiveProbes.size() && !LiveProbes[I]) {
      Values.push_back(Value::unknown(0));
      continue;
    }
    Probing = true;
    ProbeFailed = false;
    // A variable named as an lvalue gives its value (an array its
    // address, as it decays).
    Value V;
    if (Exprs[I].getInt() == BufferSpelling::AddressOf) {
      std::optional<Place> P = E->isGLValue() ? place(E) : std::nullopt;
      V = P ? Value::pointer(P->Obj, P->Off) : Value::unknown(0);
    } else if (Exprs[I].getInt() == BufferSpelling::VectorData) {
      std::optional<Place> P = E->isGLValue() ? place(E) : std::nullopt;
      V = P ? vectorElements(*P, E) : Value::unknown(0);
    } else if (E->isGLValue() && !E->getType()->isArrayType()) {
      std::optional<Place> P = place(E);
      V = P ? load(*P, E->getType(), E) : Value::unknown(0);
    } else {
      V = eval(E);
    }
    if (ProbeFailed)
      V = Value::unknown(0);
    Probing = false;
    ProbeFailed = false;
    Values.push_back(V);
  }
  M = Saved;
}

void RankEvaluator::Impl::assignInput(const VarDecl *V) {
  ObjectId Obj = objectOfVar(V, V->getLocation());
  Value Val =
      Value::integer(Setting[InputBit[V]], Ctx.getIntWidth(V->getType()),
                     V->getType()->isSignedIntegerOrEnumerationType());
  Val.Taint = 1u << InputBit[V];
  Out.ReadInputs |= Val.Taint;
  eval::Object &O = Objects[Obj];
  O.Cells.clear();
  O.Cells[0] = {Val, static_cast<uint32_t>(sizeOf(V->getType()))};
}

void RankEvaluator::Impl::enterRegion() {
  M = Mode::Region;
  Outer = nullptr; // No statement before the region runs any more.
  // Inputs the run computed before the region (an enclosing loop's
  // counter, a broadcast count) take the setting's value instead: the
  // region is proven for every value they may have.
  for (const RegionInput &In : Inputs) {
    const auto *V = dyn_cast<VarDecl>(In.Decl);
    if (!V || V->getParentFunctionOrMethod() != R.Function ||
        isa<ParmVarDecl>(V) || isStdVector(V->getType()))
      continue;
    if (!R.contains(V, SM))
      assignInput(V);
  }
  // What the run computed before the region for the first iteration of a
  // loop around it does not hold in the next ones.
  for (const VarDecl *V : Needed) {
    // An array's address, the only thing of it a region needs, stays.
    if (InputBit.count(V) || !V->getType()->isScalarType() || !isLoopCarried(V))
      continue;
    if (!R.contains(V, SM) && Objects.size() > 0) {
      bool ReadInRegion = false;
      for (unsigned I = R.First; I <= R.Last && !ReadInRegion; ++I) {
        llvm::SmallPtrSet<const VarDecl *, 16> Read;
        valuesReadIn(R.Block->body_begin()[I], Ctx, Read);
        ReadInRegion = Read.count(V);
      }
      if (ReadInRegion) {
        bool Before = Out.Stopped.has_value();
        stop("'" + V->getNameAsString() +
                 "' changes from one iteration of the loop around the region "
                 "to the next and differs between ranks; the pattern would "
                 "have to include that loop",
             V->getLocation());
        if (!Before && Out.Stopped)
          Out.Stopped->StepOfLoop = true;
        return;
      }
    }
  }
  evaluateProbes();
}

} // namespace analysis
} // namespace mpilift
