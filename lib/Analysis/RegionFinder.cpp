//===- RegionFinder.cpp - Hand-written collectives by evaluation ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "RegionFinder.h"

#include "BufferAccess.h"
#include "CollectiveJudge.h"
#include "CommQueries.h"
#include "Fallback.h"
#include "Polling.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Every block of \p Body, inner ones before the blocks holding them.
void blocksInnerFirst(const Stmt *S, std::vector<const CompoundStmt *> &Out) {
  if (!S)
    return;
  for (const Stmt *Child : S->children())
    blocksInnerFirst(Child, Out);
  if (const auto *Block = dyn_cast<CompoundStmt>(S))
    Out.push_back(Block);
}

std::string spelled(const Expr *E, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  return Lexer::getSourceText(SM.getExpansionRange(E->getSourceRange()), SM,
                              Ctx.getLangOpts())
      .str();
}

/// The first MPI_Iprobe of \p R's statements.
const CallExpr *firstProbe(const Region &R) {
  for (unsigned I = R.First; I <= R.Last; ++I)
    if (const Stmt *S = findFirst(R.Block->body_begin()[I], [](const Stmt *X) {
          const auto *Call = dyn_cast<CallExpr>(X);
          const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
          return Info && Info->Id == mpi::FunctionId::Iprobe;
        }))
      return cast<CallExpr>(S);
  llvm_unreachable("a region whose probes arrive has no probe");
}

class Finder {
public:
  Finder(TranslationUnitFacts &TU, const FunctionDecl &F)
      : TU(TU), F(F), Ctx(TU.context()), SM(Ctx.getSourceManager()) {}

  std::vector<ManualCollective> run();
  /// After run(): the calls no region judged, with why evaluation stopped.
  std::vector<UnjudgedCalls> unjudged() const;

private:
  void recordStop(const Region &R, const eval::Reason &Why);
  /// Records \p R's calls as unjudged for \p Why: a stop, or the refusal
  /// of a region that never formed a collective. Returns the calls it
  /// recorded.
  std::vector<const CallExpr *> recordUnjudged(const Region &R, Refusal Why,
                                               bool StepOfLoop);
  /// Records \p R's calls, which the judge refused for \p Why before they
  /// formed any collective, as unjudged.
  void recordUnformed(const Region &R, const Refusal &Why);
  bool holdsUnclaimed(const Stmt *S) const;
  /// Whether \p B is a loop's body or inside one, in the function.
  bool insideLoop(const CompoundStmt *B) const;
  void scan(const CompoundStmt *B);
  /// Regions of a function's body from statement \p First to each of
  /// \p Ends (in order) whose messages never close: the first that looks
  /// like a collective when its unmatched messages are paired or left
  /// out (senders and receivers that disagree on the root, a loop bound
  /// one short) is a finding, refused. Its last statement, if any.
  std::optional<unsigned> judgeUnclosed(const CompoundStmt *B, unsigned First,
                                        ArrayRef<unsigned> Ends);
  void claim(const Region &R);
  /// Forgets the refusals of smaller regions inside \p R, which is proven:
  /// its rewrite replaces their calls too (the inner loop of a recursive
  /// doubling is no collective alone; the whole exchange is).
  void dropRefusalsInside(const Region &R);
  ManualCollective finding(const Region &R, const Verdict &V);
  void checkSourceForm(const RegionEdits &Edits, ManualCollective &C);
  void checkStatus(const Region &R, const RegionEdits &Edits,
                   ManualCollective &C);
  void checkOrder(const Region &R, const RegionEdits &Edits,
                  ManualCollective &C);
  void placeWaits(const Region &R, ManualCollective &C);
  /// For a region refused only for input or scale dependence: whether it
  /// can run through libcdag (`--fallback cdag`).
  void planFallback(const Region &R, ManualCollective &C);

  TranslationUnitFacts &TU;
  const FunctionDecl &F;
  ASTContext &Ctx;
  const SourceManager &SM;
  llvm::SmallPtrSet<const CallExpr *, 16> Claimed;
  std::vector<ManualCollective> Found;
  /// What stopped the smallest region around each call whose run stopped
  /// (a larger one when the smallest was one step of a loop).
  std::vector<UnjudgedCalls> Stops;
  llvm::SmallPtrSet<const CallExpr *, 16> Stopped;
  /// The calls of Stopped whose region stopped as one step of a loop
  /// around it (eval::Reason::StepOfLoop): a larger region speaks for them.
  llvm::SmallPtrSet<const CallExpr *, 16> LoopSteps;
  /// Calls of regions refused before they formed a collective: claimed,
  /// and still unjudged.
  llvm::SmallPtrSet<const CallExpr *, 16> Unformed;
};

bool Finder::insideLoop(const CompoundStmt *B) const {
  for (const Stmt *S = parentStmt(*B, Ctx); S; S = parentStmt(*S, Ctx))
    if (isLoop(S))
      return true;
  return false;
}

bool Finder::holdsUnclaimed(const Stmt *S) const {
  return findFirst(S, [&](const Stmt *X) {
    const auto *Call = dyn_cast<CallExpr>(X);
    return Call && isMessageCall(Call) && !Claimed.count(Call);
  });
}

void Finder::claim(const Region &R) {
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *X) {
      if (const auto *Call = dyn_cast<CallExpr>(X))
        if (isMessageCall(Call))
          Claimed.insert(Call);
      return false;
    });
}

void Finder::dropRefusalsInside(const Region &R) {
  SourceRange Outer = R.range();
  llvm::erase_if(Found, [&](const ManualCollective &C) {
    return !C.Region &&
           !SM.isBeforeInTranslationUnit(C.Range.getBegin(),
                                         Outer.getBegin()) &&
           !SM.isBeforeInTranslationUnit(Outer.getEnd(), C.Range.getEnd());
  });
}

/// The statement before \p R, or one of its own statements declaring a
/// variable, that was computing a value when an evaluation stopped for
/// \p Why: the statement running then, or the declaration or assignment
/// whose value holds the reason's place (`int root = read_root();`, whose
/// unknown result stops the run only where the region reads it; `int n =
/// wanted_length();` on the root).
const Stmt *computationStopped(const eval::Reason &Why, const Region &R,
                               const SourceManager &SM) {
  SourceLocation RegionBegin = SM.getExpansionLoc(R.first()->getBeginLoc());
  SourceLocation Loc =
      Why.Loc.isValid() ? SM.getExpansionLoc(Why.Loc) : SourceLocation();
  SourceRange Body = R.Function->getBody()->getSourceRange();
  // Before the region, or a declaration in it whose initializer stopped
  // the run (itself or in a function it calls; not a loop's `int i = 1`
  // that ran before the loop's condition stopped).
  auto Before = [&](const Stmt *S) {
    if (!S)
      return false;
    if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(S->getEndLoc()),
                                     RegionBegin))
      return true;
    const Expr *Init = assignedValue(dyn_cast<DeclStmt>(S));
    if (!Init || !R.contains(S, SM))
      return false;
    if (Loc.isInvalid())
      return true;
    bool InHelper =
        !SM.isPointWithin(Loc, SM.getExpansionLoc(Body.getBegin()),
                          SM.getExpansionLoc(Body.getEnd())) &&
        findFirst(Init, [](const Stmt *X) { return isa<CallExpr>(X); });
    return InHelper ||
           SM.isPointWithin(Loc, SM.getExpansionLoc(Init->getBeginLoc()),
                            SM.getExpansionLoc(Init->getEndLoc()));
  };
  if (Before(Why.During))
    return Why.During;
  if (Loc.isInvalid())
    return nullptr;
  return findFirst(R.Function->getBody(), [&](const Stmt *S) {
    const Expr *Value = sizeQueryStatement(S, nullptr);
    if (!Value)
      Value = assignedValue(S);
    if (!Value || !Before(S))
      return false;
    return SM.isPointWithin(Loc, SM.getExpansionLoc(Value->getBeginLoc()),
                            SM.getExpansionLoc(Value->getEndLoc()));
  });
}

/// The statement before the region that computes an integer variable of
/// \p R's function (`int n = argc > 1 ? atoi(argv[1]) : 1;`, `n = ...;`)
/// and stopped an evaluation for \p Why; null if none. The variable may be
/// taken as an input (Region::Assumed).
const Stmt *assumableComputation(const eval::Reason &Why, const Region &R,
                                 ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *S = computationStopped(Why, R, SM);
  if (!S)
    return nullptr;
  // Computed anew in each iteration of a loop around the region, or of
  // one inside it, it is no value the region starts with.
  bool Inside = R.contains(S, SM);
  for (const Stmt *P = parentStmt(*S, Ctx); P; P = parentStmt(*P, Ctx))
    if (isLoop(P) &&
        (Inside ||
         SM.isPointWithin(SM.getExpansionLoc(R.first()->getBeginLoc()),
                          SM.getExpansionLoc(P->getBeginLoc()),
                          SM.getExpansionLoc(P->getEndLoc()))))
      return nullptr;
  const VarDecl *V = computedVariable(S);
  if (!V || V->getParentFunctionOrMethod() != R.Function ||
      isa<ParmVarDecl>(V) || !V->getType()->isIntegralOrEnumerationType())
    return nullptr;
  return S;
}

/// The verdict on \p R, evaluated under one of its assumptions
/// (Region::assumes): what it looks like, never a proof, refused for what
/// stopped the evaluation first (\p Why; \p At is the statement computing
/// the first of R.Assumed, if those are the assumption).
Verdict unproven(Verdict V, const Region &R, const Stmt *At,
                 const eval::Reason &Why, const ASTContext &Ctx) {
  if (V.Proof) {
    V.Looks = V.Proof->Kind;
    V.Topology = V.Proof->Topology;
    V.Proof.reset();
  }
  SourceLocation Loc = Why.Loc.isValid() ? Why.Loc : R.first()->getBeginLoc();
  std::string Reason;
  SafetyCheck Check = checkOfStop(Why);
  if (const CallExpr *Query = At ? sizeQueryStatement(At, nullptr) : nullptr) {
    // A loop bound from another communicator's size: a collective only
    // where the two sizes agree.
    const Expr *Comm = mpiArgAsWritten(Query, mpi::Role::Comm);
    Reason = "'" + computedVariable(At)->getNameAsString() +
             "' is set by MPI_Comm_size on '" + sourceText(Comm, Ctx) +
             "', not on the communicator of the region's messages; the "
             "region forms this collective only where the two have the "
             "same size";
    Check = SafetyCheck::ScaleIndependence;
    Loc = Query->getBeginLoc();
  } else if (At) {
    const VarDecl &First = *computedVariable(At);
    Reason = "'" + First.getNameAsString() + "' " +
             (R.contains(At, Ctx.getSourceManager())
                  ? "is computed from what the evaluation cannot follow, "
                    "and the region's messages depend on it"
                  : "is not proven the same on every rank") +
             " (" + Why.Text + ")";
    Loc = isa<DeclStmt>(At) ? First.getLocation() : At->getBeginLoc();
  } else if (R.AssumedRank) {
    std::string Roles = "'" + R.AssumedRank->getNameAsString() + "'";
    if (R.AssumedSize)
      Roles += " and '" + R.AssumedSize->getNameAsString() + "'";
    Reason = "the region forms this collective only if " + Roles +
             (R.AssumedSize ? " are the rank and the size" : " is the rank") +
             ", which is not proven: " + Why.Text;
  } else {
    Reason = Why.Text + "; the region forms this collective only if a "
                        "negative remainder wrapped around";
  }
  V.Refusals = {{Check, Reason, Loc}};
  return V;
}

/// \p R with the integer whose unknown value stopped its evaluation taken
/// as the rank, and a second one, if the run then stops on it, as the
/// size; none when the region does not close with them.
std::optional<Region> assumeRankOrSize(TranslationUnitFacts &TU, Region R,
                                       const eval::Reason &Why) {
  // main's argc counts the program's arguments: never the rank.
  if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(Why.Entry))
    if (const auto *Main = dyn_cast<FunctionDecl>(Param->getDeclContext());
        Main && Main->isMain())
      return std::nullopt;
  R.AssumedRank = Why.Entry;
  Closure Closes = regionCloses(TU, R);
  if (Closes.S == Closure::State::Stopped && Closes.Why.Entry &&
      Closes.Why.Entry != R.AssumedRank) {
    R.AssumedSize = Closes.Why.Entry;
    Closes = regionCloses(TU, R);
  }
  if (Closes.S != Closure::State::Closes)
    return std::nullopt;
  return R;
}

/// Whether \p V refused because a rank's own block is left alone: the
/// statement next to the region may be the copy that puts it there.
bool refusedForOwnBlock(const Verdict &V) {
  return !V.Proof && !V.Refusals.empty() &&
         V.Refusals[0].Reason.find("own block") != std::string::npos;
}

void Finder::scan(const CompoundStmt *B) {
  std::vector<unsigned> Idx;
  unsigned I = 0;
  for (const Stmt *Child : B->body()) {
    if (holdsUnclaimed(Child))
      Idx.push_back(I);
    ++I;
  }
  for (size_t Start = 0; Start < Idx.size();) {
    bool Done = false;
    // Values computed before the region that stopped its evaluation, taken
    // as inputs to say what the region looks like; the first one's reason
    // refuses it.
    llvm::SmallVector<const VarDecl *, 2> Assumed;
    // Another communicator's size, taken as the size of the region's.
    const VarDecl *OtherSize = nullptr;
    eval::Reason FirstStop;
    const Stmt *FirstAt = nullptr;
    // The ends of the regions from Start whose messages stay open with no
    // assumption, and whether a run stopped.
    std::vector<unsigned> OpenEnds;
    bool RunStopped = false;
    for (size_t End = Start; End < Idx.size() && !Done; ++End) {
      Region R{&F, B, Idx[Start], Idx[End], Assumed};
      R.AssumedSize = OtherSize;
      Closure Closes = regionCloses(TU, R);
      while (Closes.S == Closure::State::Stopped && Assumed.size() < 3) {
        const Stmt *At = assumableComputation(Closes.Why, R, Ctx);
        const VarDecl *V = At ? computedVariable(At) : nullptr;
        if (!V || llvm::is_contained(Assumed, V) || V == OtherSize)
          break;
        if (!R.assumes()) {
          FirstStop = Closes.Why;
          FirstAt = At;
        }
        if (sizeQueryStatement(At, nullptr) && !OtherSize) {
          OtherSize = V;
          R.AssumedSize = V;
        } else {
          Assumed.push_back(V);
          R.Assumed = Assumed;
        }
        Closes = regionCloses(TU, R);
      }
      // An integer the region reads at its entry and cannot follow (a
      // parameter whose callers are not visible, a global): taken as the
      // rank or the size, it may say what the region would be.
      if (Closes.S == Closure::State::Stopped && Closes.Why.Entry &&
          !R.assumes()) {
        eval::Reason Why = Closes.Why;
        if (std::optional<Region> Roles = assumeRankOrSize(TU, R, Why)) {
          R = *Roles;
          FirstStop = Why;
          FirstAt = nullptr;
          Closes = Closure{Closure::State::Closes, {}};
        }
      }
      // A message to rank -1: with remainders wrapped around, it may say
      // what the region was meant to be.
      if (Closes.S == Closure::State::Stopped && Closes.Why.MissingPeer &&
          !R.assumes()) {
        Region Wrapped = R;
        Wrapped.WrapRemainders = true;
        Closure W = regionCloses(TU, Wrapped);
        if (W.S == Closure::State::Closes) {
          FirstStop = Closes.Why;
          FirstAt = nullptr;
          R = Wrapped;
          Closes = W;
        }
      }
      // A probe: the region run to the moment each message is there may
      // be Listing 7's polling broadcast (provePolling decides).
      if (Closes.S == Closure::State::Stopped && Closes.Why.Probe &&
          !R.assumes()) {
        Region Polled = R;
        Polled.ProbesArrive = true;
        Closure P = regionCloses(TU, Polled);
        if (P.S != Closure::State::Stopped) {
          R = Polled;
          Closes = P;
        }
      }
      if (Closes.S == Closure::State::Stopped) {
        recordStop(R, R.assumes() ? FirstStop : Closes.Why);
        RunStopped = true;
        break; // A run stops: a larger region may say more.
      }
      if (Closes.S == Closure::State::Open) {
        if (!R.assumes())
          OpenEnds.push_back(Idx[End]);
        continue;
      }
      Verdict V = judgeRegion(TU, R);
      // A copy of the rank's own block right before or after the region
      // belongs to it.
      if (refusedForOwnBlock(V)) {
        for (auto [First, Last] :
             {std::pair(R.First > 0 ? R.First - 1 : R.First, R.Last),
              std::pair(R.First,
                        std::min<unsigned>(R.Last + 1, B->size() - 1))}) {
          if (First == R.First && Last == R.Last)
            continue;
          Region Grown = R;
          Grown.First = First;
          Grown.Last = Last;
          Verdict W = judgeRegion(TU, Grown);
          if (W.Proof) {
            R = Grown;
            V = std::move(W);
            break;
          }
        }
      }
      // A region that forms nothing inside a loop may be one step of a
      // collective the loop forms (a ring that adds up what it passes
      // on): its calls stay open to the loop's region.
      if (!V.Proof && !V.Looks && !R.assumes() && insideLoop(B))
        break;
      if (R.assumes()) {
        // Under assumptions, only a region that looks like a collective
        // speaks; any other stays open to a larger one.
        if (!V.Proof && !V.Looks) {
          recordStop(R, FirstStop);
          break;
        }
        V = unproven(std::move(V), R, FirstAt, FirstStop, Ctx);
      }
      if (V.Proof)
        dropRefusalsInside(R);
      if (V.Proof || V.Looks)
        Found.push_back(finding(R, V));
      // A region refused before it formed anything is no finding; a trace
      // that shows its calls as a collective still gets the reason.
      else if (!V.Refusals.empty())
        recordUnformed(R, V.Refusals.front());
      claim(R);
      Start = End + 1;
      Done = true;
    }
    if (!Done && !RunStopped && B == F.getBody())
      if (std::optional<unsigned> Last =
              judgeUnclosed(B, Idx[Start], OpenEnds)) {
        while (Start < Idx.size() && Idx[Start] <= *Last)
          ++Start;
        Done = true;
      }
    if (!Done)
      ++Start;
  }
}

std::optional<unsigned> Finder::judgeUnclosed(const CompoundStmt *B,
                                              unsigned First,
                                              ArrayRef<unsigned> Ends) {
  for (unsigned Last : Ends) {
    Region R{&F, B, First, Last, {}};
    Verdict V = judgeRegion(TU, R);
    if (V.Proof || !V.Looks)
      continue;
    Found.push_back(finding(R, V));
    claim(R);
    return Last;
  }
  return std::nullopt;
}

std::vector<ManualCollective> Finder::run() {
  if (!F.doesThisDeclarationHaveABody() || F.isDependentContext())
    return {};
  std::vector<const CompoundStmt *> Blocks;
  blocksInnerFirst(F.getBody(), Blocks);
  for (const CompoundStmt *B : Blocks)
    scan(B);
  llvm::stable_sort(Found, [&](const ManualCollective &A,
                               const ManualCollective &B) {
    return SM.isBeforeInTranslationUnit(A.Range.getBegin(), B.Range.getBegin());
  });
  return std::move(Found);
}

ManualCollective Finder::finding(const Region &R, const Verdict &V) {
  RegionEdits Edits = planEdits(
      R, TU, V.Proof ? V.Proof->arguments() : std::vector<const Expr *>(),
      V.Proof ? V.Proof->Combines : std::vector<const Stmt *>());
  // Listing 7's probe, when the region was run with probes arriving.
  const CallExpr *Probe = R.ProbesArrive ? firstProbe(R) : nullptr;
  ManualCollective C;
  C.Kind = V.Proof ? V.Proof->Kind : *V.Looks;
  C.Topology = V.Proof ? V.Proof->Topology : V.Topology;
  C.Function = &F;
  C.Calls = Edits.Calls;
  C.RootCall = C.Calls.empty() ? nullptr : C.Calls.front();
  // The finding points at the statement (a loop, an `if`) holding the
  // calls, as a reader looks for it: the innermost loop in the region
  // around the first call, else the statement of a block that holds it. A
  // star's finding is about the root's loop ("loop of point-to-point
  // sends"): the first call in a loop, even when the others' receive
  // comes first.
  const Stmt *At = C.RootCall;
  for (const CallExpr *Call : C.Calls) {
    if (C.Topology != ManualTopology::Star && Call != C.RootCall)
      break;
    const Stmt *Loop = nullptr;
    for (const Stmt *S = enclosingStmt(*Call, Ctx); S && R.contains(S, SM);
         S = enclosingStmt(*S, Ctx))
      if (isLoop(S)) {
        Loop = S;
        break;
      }
    if (Loop) {
      At = Loop;
      break;
    }
  }
  while (At && !isLoop(At)) {
    const Stmt *Parent = parentStmt(*At, Ctx);
    if (!Parent)
      break;
    // Out of loop bodies: the loop is what the reader looks for.
    bool LoopBody = isa<CompoundStmt>(Parent) && parentStmt(*Parent, Ctx) &&
                    isLoop(parentStmt(*Parent, Ctx));
    if (isa<CompoundStmt>(Parent) && !LoopBody)
      break;
    At = Parent;
  }
  C.RootStmt = At ? At : R.first();
  C.PatternStmt = R.first();
  C.Range = R.range();
  C.Refusals = V.Refusals;
  if (!V.Proof) {
    // A polling form says what else stands in the way.
    if (Probe && V.Looks)
      provePolling(Probe, C, TU);
    planFallback(R, C);
    return C;
  }
  const RegionProof &P = *V.Proof;
  ProvenRegion PR;
  PR.Block = R.Block;
  PR.First = R.First;
  PR.Last = R.Last;
  std::vector<const Stmt *> Places;
  for (const Placement &Pl : P.Placements) {
    CollectivePlacement CP{Pl.Anchor, Pl.Root, Pl.Others,
                           Edits.deleted(Pl.Anchor)};
    // A removed block keeps its braces and comments: the call takes the
    // place of its first statement that communicates, the others go.
    while (CP.Replace && isa<CompoundStmt>(CP.Anchor)) {
      const auto *Block = cast<CompoundStmt>(CP.Anchor);
      const Stmt *Taken = nullptr;
      for (const Stmt *Child : Block->body())
        if (!Taken && llvm::any_of(Edits.Calls, [&](const CallExpr *Call) {
              return SM.isPointWithin(Call->getBeginLoc(), Child->getBeginLoc(),
                                      Child->getEndLoc());
            }))
          Taken = Child;
      if (!Taken)
        break;
      CP.Anchor = Taken;
    }
    Places.push_back(CP.Anchor);
    PR.Placements.push_back(CP);
  }
  PR.Removed = Edits.removalsFor(Places, Ctx);
  PR.Root = P.Root;
  PR.RootConstant = P.RootConstant;
  PR.Count = P.Count;
  PR.CountConstant = P.CountConstant;
  PR.Datatype = P.Datatype;
  PR.Comm = P.Comm;
  PR.Buffer = P.Buffer;
  PR.SendBuffer = P.SendBuffer;
  PR.RecvBuffer = P.RecvBuffer;
  PR.InPlace = P.InPlace;
  PR.Counts = P.Counts;
  PR.Displs = P.Displs;
  PR.SendSpelling = P.SendSpelling;
  PR.RecvSpelling = P.RecvSpelling;
  PR.Op = P.Op;
  PR.Reassociates = P.Reassociates;
  PR.Rank = P.Rank;
  PR.FirstResult = P.FirstResult;
  PR.ErrorCode = Edits.ErrorCode;
  if (Edits.ErrorCheck && Edits.deleted(Edits.ErrorCheck))
    PR.ErrorCheck = Edits.ErrorCheck;
  PR.CallCheck = Edits.CallCheck;
  PR.CheckedCall = Edits.CheckedCall;
  PR.Returned = Edits.Returned;
  PR.Sizes = P.Sizes;
  PR.Skipped = P.Skipped;
  C.Region = std::move(PR);
  // The probe's status is the receive's: both go.
  if (Probe) {
    Edits.Calls.push_back(Probe);
    C.Calls.push_back(Probe);
  }
  checkSourceForm(Edits, C);
  checkStatus(R, Edits, C);
  checkOrder(R, Edits, C);
  placeWaits(R, C);
  if (Probe)
    provePolling(Probe, C, TU);
  return C;
}

void Finder::planFallback(const Region &R, ManualCollective &C) {
  // The graph takes the place of one statement holding one send and one
  // receive (a root's loop and the others' receive).
  const CallExpr *Send = nullptr, *Recv = nullptr;
  if (C.Calls.size() == 2 && R.First == R.Last)
    for (const CallExpr *Call : C.Calls) {
      const mpi::FunctionInfo *Info = mpiCallee(Call);
      if (Info && Info->TheFamily == mpi::Family::BlockingSend)
        Send = Call;
      else if (Info && Info->TheFamily == mpi::Family::BlockingRecv)
        Recv = Call;
    }
  if (!Send || !Recv) {
    if (refusedOnlyForDependence(C))
      C.Fallback = CDagFallback{
          "the fallback takes one statement holding one blocking send and "
          "one blocking receive",
          {}};
    return;
  }
  C.RootCall = Send;
  C.PeerCall = Recv;
  C.PatternStmt = R.first();
  findFallback(C, TU);
}

/// source-form: a call spelled in a macro is not ours to rewrite.
void Finder::checkSourceForm(const RegionEdits &Edits, ManualCollective &C) {
  for (const CallExpr *Call : Edits.Calls)
    if (Call->getBeginLoc().isMacroID()) {
      C.Refusals.push_back(
          {SafetyCheck::SourceForm,
           "the call is spelled inside a macro; rewriting it would change "
           "every use of the macro",
           SM.getExpansionLoc(Call->getBeginLoc())});
      return;
    }
}

/// status-use: the status a removed receive filled is not read later.
void Finder::checkStatus(const Region &R, const RegionEdits &Edits,
                         ManualCollective &C) {
  for (const CallExpr *Call : Edits.Calls) {
    for (mpi::Role Role : {mpi::Role::Status, mpi::Role::StatusArray}) {
      const Expr *Status = mpiArg(Call, Role);
      if (!Status)
        continue;
      std::string Text = spelled(Status, Ctx);
      if (Text == "MPI_STATUS_IGNORE" || Text == "MPI_STATUSES_IGNORE")
        continue;
      const auto *V = dyn_cast_or_null<VarDecl>(bufferBase(Status));
      if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V)) {
        C.Refusals.push_back({SafetyCheck::StatusUse,
                              "the status " + spelled(Status, Ctx) +
                                  " may be read outside this function",
                              Status->getBeginLoc()});
        return;
      }
      for (const DeclRefExpr *Ref : TU.factsOf(F).referencesOf(V)) {
        if (SM.isPointWithin(Ref->getBeginLoc(), Call->getBeginLoc(),
                             Call->getEndLoc()))
          continue;
        // Handed to another MPI call of the pattern as its status.
        bool OtherPatternCall =
            llvm::any_of(Edits.Calls, [&](const CallExpr *O) {
              return SM.isPointWithin(Ref->getBeginLoc(), O->getBeginLoc(),
                                      O->getEndLoc());
            });
        if (OtherPatternCall)
          continue;
        if (!R.contains(Ref, SM) ||
            SM.isBeforeInTranslationUnit(Call->getEndLoc(),
                                         Ref->getBeginLoc())) {
          C.Refusals.push_back({SafetyCheck::StatusUse,
                                "the status '" + V->getNameAsString() +
                                    "' of a receive is read here",
                                Ref->getBeginLoc()});
          return;
        }
      }
    }
  }
}

/// message-order: no other message of the function on the same
/// communicator with a tag the pattern's could be, which the rewrite
/// could reorder against the pattern's.
void Finder::checkOrder(const Region &R, const RegionEdits &Edits,
                        ManualCollective &C) {
  if (Edits.Calls.empty())
    return;
  CommKey Comm = followedCommKey(
      mpiArgAsWritten(Edits.Calls.front(), mpi::Role::Comm), F, TU);
  llvm::SmallVector<const Expr *, 8> Tags;
  for (const CallExpr *Call : Edits.Calls)
    for (mpi::Role Role :
         {mpi::Role::Tag, mpi::Role::SendTag, mpi::Role::RecvTag})
      if (const Expr *T = mpiArg(Call, Role))
        Tags.push_back(T);
  auto MayBeSame = [&](const Expr *A) {
    std::optional<llvm::APSInt> X =
        A->isValueDependent() ? std::nullopt : A->getIntegerConstantExpr(Ctx);
    for (const Expr *B : Tags) {
      std::optional<llvm::APSInt> Y =
          B->isValueDependent() ? std::nullopt : B->getIntegerConstantExpr(Ctx);
      if (!X || !Y || X->getExtValue() == Y->getExtValue() ||
          X->getExtValue() < 0)
        return true;
    }
    return false;
  };
  const Stmt *Other = findFirst(F.getBody(), [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || !isMessageCall(Call) || R.contains(Call, SM))
      return false;
    CommKey Key =
        followedCommKey(mpiArgAsWritten(Call, mpi::Role::Comm), F, TU);
    if (Key.valid() && Comm.valid() && Key != Comm)
      return false;
    for (mpi::Role Role :
         {mpi::Role::Tag, mpi::Role::SendTag, mpi::Role::RecvTag})
      if (const Expr *T = mpiArg(Call, Role))
        if (MayBeSame(T))
          return true;
    return false;
  });
  if (Other)
    C.Refusals.push_back({SafetyCheck::MessageOrder,
                          "another message on the same communicator and a "
                          "tag the pattern's may be; the rewrite could change "
                          "which receive it matches",
                          Other->getBeginLoc()});
}

/// Whether what stays of \p S once the \p Removed statements are gone may
/// touch the buffers.
static bool keptMayTouch(const BufferAccess &Access, const Stmt *S,
                         const llvm::SmallPtrSetImpl<const Stmt *> &Removed,
                         ASTContext &Ctx) {
  if (Removed.count(S))
    return false;
  bool HoldsRemoved = llvm::any_of(Removed, [&](const Stmt *R) {
    for (const Stmt *P = parentStmt(*R, Ctx); P; P = parentStmt(*P, Ctx))
      if (P == S)
        return true;
    return false;
  });
  if (!HoldsRemoved)
    return Access.mayTouch(S).has_value();
  for (const Stmt *Child : S->children())
    if (Child && keptMayTouch(Access, Child, Removed, Ctx))
      return true;
  return false;
}

/// Where the nonblocking form completes: as late after the region as no
/// statement touches the buffers; at once where a kept statement of the
/// region after the call may touch them.
void Finder::placeWaits(const Region &R, ManualCollective &C) {
  // A v form's arrays of counts and displacements, like its buffers, must
  // stay as they are until the nonblocking call completes.
  SmallVector<const ValueDecl *, 5> Buffers;
  for (const Expr *E :
       {C.Region->Buffer, C.Region->SendBuffer, C.Region->RecvBuffer,
        C.Region->Counts, C.Region->Displs})
    if (E)
      Buffers.push_back(bufferBase(E));
  if (Buffers.empty() || llvm::is_contained(Buffers, nullptr))
    return;
  BufferAccess Access(Buffers, TU.factsOf(F), Ctx);
  C.Wait = Access.sinkAfter(R.last());
  const llvm::SmallPtrSet<const Stmt *, 32> Removed(C.Region->Removed.begin(),
                                                    C.Region->Removed.end());
  for (CollectivePlacement &Pl : C.Region->Placements) {
    // The statements after the call up to the region's end: the anchor
    // itself when it stays (the call goes before it, or into its block).
    const Stmt *Child = Pl.Anchor;
    bool AtOnce = !Pl.Replace && keptMayTouch(Access, Pl.Anchor, Removed, Ctx);
    while (Child && !AtOnce) {
      const Stmt *Parent = parentStmt(*Child, Ctx);
      if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Parent)) {
        bool After = false;
        unsigned Index = 0;
        for (const Stmt *S : Block->body()) {
          bool InRegion =
              Block != R.Block || (Index >= R.First && Index <= R.Last);
          ++Index;
          if (S == Child) {
            After = true;
            continue;
          }
          if (!After || !InRegion || Removed.count(S))
            continue;
          if (keptMayTouch(Access, S, Removed, Ctx))
            AtOnce = true;
        }
      }
      if (Parent == R.Block || !Parent)
        break;
      Child = Parent;
    }
    Pl.WaitAtOnce = AtOnce;
  }
}

} // namespace

void Finder::recordStop(const Region &R, const eval::Reason &Why) {
  recordUnjudged(R,
                 {checkOfStop(Why), Why.Text,
                  Why.Loc.isValid() ? Why.Loc : R.first()->getBeginLoc()},
                 Why.StepOfLoop);
}

std::vector<const CallExpr *>
Finder::recordUnjudged(const Region &R, Refusal Why, bool StepOfLoop) {
  UnjudgedCalls U;
  llvm::SmallPtrSet<const CallExpr *, 8> Moved;
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *X) {
      const auto *Call = dyn_cast<CallExpr>(X);
      if (!Call || !isMessageCall(Call) || Claimed.count(Call))
        return false;
      if (Stopped.insert(Call).second)
        U.Calls.push_back(Call);
      else if (!StepOfLoop && LoopSteps.erase(Call)) {
        Moved.insert(Call);
        U.Calls.push_back(Call);
      }
      return false;
    });
  if (!Moved.empty())
    for (UnjudgedCalls &Old : Stops)
      llvm::erase_if(Old.Calls,
                     [&](const CallExpr *Call) { return Moved.count(Call); });
  if (StepOfLoop)
    LoopSteps.insert(U.Calls.begin(), U.Calls.end());
  if (U.Calls.empty())
    return {};
  std::vector<const CallExpr *> Recorded = U.Calls;
  U.Why = std::move(Why);
  // One reason, one entry: the runs of neighbouring regions stop at the
  // same statement.
  for (UnjudgedCalls &Old : Stops)
    if (Old.Why.Reason == U.Why.Reason && Old.Why.Loc == U.Why.Loc) {
      llvm::append_range(Old.Calls, U.Calls);
      return Recorded;
    }
  Stops.push_back(std::move(U));
  return Recorded;
}

void Finder::recordUnformed(const Region &R, const Refusal &Why) {
  for (const CallExpr *Call : recordUnjudged(R, Why, /*StepOfLoop=*/false))
    Unformed.insert(Call);
}

std::vector<UnjudgedCalls> Finder::unjudged() const {
  std::vector<UnjudgedCalls> Out;
  for (const UnjudgedCalls &U : Stops) {
    UnjudgedCalls Left{{}, U.Why};
    for (const CallExpr *Call : U.Calls)
      if (!Claimed.count(Call) || Unformed.count(Call))
        Left.Calls.push_back(Call);
    if (!Left.Calls.empty())
      Out.push_back(std::move(Left));
  }
  return Out;
}

std::vector<ManualCollective>
findEvaluatedCollectives(TranslationUnitFacts &TU, const FunctionDecl &F,
                         std::vector<UnjudgedCalls> *Unjudged) {
  if (F.isDependentContext())
    return findEvaluatedInTemplate(TU, F, Unjudged);
  Finder Find(TU, F);
  std::vector<ManualCollective> Found = Find.run();
  if (Unjudged)
    *Unjudged = Find.unjudged();
  return Found;
}

} // namespace analysis
} // namespace mpilift
