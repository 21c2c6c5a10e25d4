//===- CollectiveJudge.cpp - Which collective a region implements ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CollectiveJudge.h"
#include "RankUniformity.h"

#include "RegionEdits.h"
#include "StatementTree.h"

#include "mpilift/CommGraph/CommGraph.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

using namespace clang;
namespace cg = mpilift::commgraph;

namespace mpilift {
namespace analysis {

namespace {

/// Addresses for CommGraph: the object in the high bits.
constexpr unsigned ObjectShift = 40;
constexpr uint64_t OffsetMask = (uint64_t(1) << ObjectShift) - 1;

cg::Address addressOf(eval::ObjectId Obj, int64_t Off) {
  return (uint64_t(Obj) << ObjectShift) + static_cast<uint64_t>(Off);
}

/// A place as an (object, offset) pair.
struct Where {
  eval::ObjectId Obj = eval::NullObject;
  int64_t Off = 0;
  bool operator==(const Where &O) const { return Obj == O.Obj && Off == O.Off; }
};

Where whereOf(cg::Address A) {
  return {static_cast<eval::ObjectId>(A >> ObjectShift),
          static_cast<int64_t>(A & OffsetMask)};
}

/// `Where` moved back by \p Bytes; nothing if that leaves the object.
std::optional<Where> before(Where W, uint64_t Bytes) {
  if (static_cast<uint64_t>(W.Off) < Bytes)
    return std::nullopt;
  return Where{W.Obj, W.Off - static_cast<int64_t>(Bytes)};
}

std::optional<ManualKind> manualKind(cg::CollectiveKind K) {
  switch (K) {
  case cg::CollectiveKind::Bcast:
    return ManualKind::Bcast;
  case cg::CollectiveKind::Scatter:
    return ManualKind::Scatter;
  case cg::CollectiveKind::Gather:
    return ManualKind::Gather;
  case cg::CollectiveKind::Allgather:
    return ManualKind::Allgather;
  case cg::CollectiveKind::Alltoall:
    return ManualKind::Alltoall;
  default:
    return std::nullopt;
  }
}

bool isRooted(ManualKind K) {
  return K == ManualKind::Bcast || K == ManualKind::Scatter ||
         K == ManualKind::Gather;
}

std::string processes(int64_t P) {
  return std::to_string(P) + (P == 1 ? " process" : " processes");
}

/// An expression a rewrite may use, and the roles it may play.
struct Candidate {
  const Expr *E;
  bool Int, Pointer;
};

/// Whether \p E names a variable declared inside the region (which does
/// not exist where the collective goes) or has side effects.
bool usable(const Expr *E, const Region &R, const ASTContext &Ctx) {
  // Calls count apart: a container's accessors are the only ones allowed.
  if (E->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false) ||
      E->isValueDependent() || E->isTypeDependent())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  return !findFirst(E, [&](const Stmt *S) {
    if (isa<CallExpr>(S) || isa<CXXThisExpr>(S))
      return isa<CallExpr>(S) && !isContainerAccessor(cast<Expr>(S));
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return V && R.contains(V, SM);
  });
}

/// Whether \p V is a local declared before the region by a statement of
/// a block that holds the region (not in a `for` header or a nested
/// block, which end before the region starts).
bool declaredInBlockAround(const VarDecl &V, const Region &R, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (V.getParentFunctionOrMethod() != R.Function ||
      !SM.isBeforeInTranslationUnit(V.getLocation(), R.first()->getBeginLoc()))
    return false;
  DynTypedNodeList Parents = Ctx.getParents(V);
  const auto *Decl = Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
  const Stmt *Holder = Decl ? parentStmt(*Decl, Ctx) : nullptr;
  if (!Holder || !isa<CompoundStmt>(Holder))
    return false;
  for (const Stmt *B = R.Block; B; B = parentStmt(*B, Ctx)) {
    if (B == Holder)
      return true;
    if (B == R.Function->getBody())
      break;
  }
  return false;
}

/// The expressions of the region a rewrite could use: the arguments of
/// its MPI calls and their parts, the operands of its conditions, and the
/// variables of the function that are in scope at its start.
std::vector<Candidate> candidatesOf(const Region &R, ASTContext &Ctx,
                                    TranslationUnitFacts &TU) {
  std::vector<Candidate> Out;
  llvm::SmallPtrSet<const Expr *, 32> Seen;
  llvm::SmallPtrSet<const VarDecl *, 16> SeenVars;
  auto Add = [&](const Expr *E) {
    if (!E)
      return;
    const Expr *Plain = E->IgnoreParenImpCasts();
    QualType T = Plain->getType();
    bool Int = T->isIntegralOrEnumerationType();
    bool Pointer = T->isPointerType() || T->isArrayType();
    if (!Int && !Pointer)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Plain))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        if (!SeenVars.insert(V).second)
          return;
    if (!usable(E, R, Ctx) || !writtenAsItself(E, Ctx) ||
        !Seen.insert(Plain).second)
      return;
    Out.push_back({E, Int, Pointer});
  };
  std::function<void(const Expr *)> AddParts = [&](const Expr *E) {
    if (!E)
      return;
    Add(E);
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child)) {
        if (!isa<CallExpr>(CE))
          AddParts(CE);
        else if (isContainerAccessor(CE))
          Add(CE); // `v.data()` in `v.data() + k * n`.
      }
  };
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CallExpr>(S)) {
        if (const mpi::FunctionInfo *Info = mpiCallee(Call))
          if (Info->TheFamily != mpi::Family::CommQuery)
            for (const Expr *Arg : Call->arguments())
              AddParts(Arg);
      } else if (const auto *If = dyn_cast<IfStmt>(S)) {
        AddParts(If->getCond());
      } else if (isLoop(S)) {
        AddParts(loopCondition(S));
      }
      return false;
    });
  // Variables in scope at the region's start (a root kept in a variable
  // the region does not name, the size for `size - 1`), named wherever the
  // function names them.
  const SourceManager &SM = Ctx.getSourceManager();
  std::set<std::string> Constants;
  findFirst(R.Function->getBody(), [&](const Stmt *S) {
    // A named constant (`TOTAL` of `#define TOTAL 24`) means the same
    // wherever it is written.
    if (const auto *E = dyn_cast<Expr>(S);
        E && E->getBeginLoc().isMacroID() && !E->isValueDependent() &&
        E->getType()->isIntegralOrEnumerationType() &&
        E->isIntegerConstantExpr(Ctx) && writtenAsItself(E, Ctx) &&
        Constants.insert(sourceText(E, Ctx)).second) {
      Add(E);
      return false;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || R.contains(V, SM) || SeenVars.count(V))
      return false;
    if (isa<ParmVarDecl>(V) || V->hasGlobalStorage() ||
        declaredInBlockAround(*V, R, Ctx))
      Add(Ref);
    return false;
  });
  (void)TU;
  return Out;
}

/// The collective one size and setting formed, as the rewrite needs it.
struct Observation {
  ManualKind Kind;
  int64_t Root = -1;
  uint64_t Block = 0;
  /// Per rank: where its part of the collective is (see RegionProof).
  std::vector<std::optional<Where>> Buffer, Send, Recv;
  std::vector<bool> InPlace;
};

class Judge {
public:
  Judge(TranslationUnitFacts &TU, const Region &R)
      : TU(TU), Ctx(TU.context()), R(R), Eval(TU, R) {}

  Verdict run();

private:
  void refuse(SafetyCheck Check, std::string Reason, SourceLocation Loc) {
    if (V.Refusals.empty())
      V.Refusals.push_back({Check, std::move(Reason), Loc});
  }
  SourceLocation regionLoc() const { return R.first()->getBeginLoc(); }

  /// Runs every rank at \p P with \p Setting; false when it refused (or
  /// the setting is one for which the original program is erroneous:
  /// \p Skip is set then).
  bool evaluate(int64_t P, ArrayRef<int64_t> Setting,
                std::vector<RankRun> &Runs, bool &Skip);
  std::optional<Observation> observe(int64_t P,
                                     const std::vector<RankRun> &Runs);
  bool tooLarge(int64_t P);
  bool changesMessage(int64_t P, const std::vector<RankRun> &Runs);
  /// observe(), and if the messages match only when MPI buffers the
  /// blocking sends, the runs again with buffered sends (in \p Runs).
  std::optional<Observation> observeBuffering(int64_t P,
                                              ArrayRef<int64_t> Setting,
                                              std::vector<RankRun> &Runs,
                                              bool &Skip) {
    RetryBuffered = false;
    std::optional<Observation> O = observe(P, Runs);
    if (!RetryBuffered)
      return O;
    Buffered = true;
    Eval.setBufferedSends(true);
    if (evaluate(P, Setting, Runs, Skip))
      O = observe(P, Runs);
    Eval.setBufferedSends(false);
    Buffered = false;
    return O;
  }
  ManualTopology topologyOf(const Observation &O,
                            const std::vector<RankRun> &Runs);
  bool shape(int64_t P, const cg::Collective &C,
             const std::vector<cg::Transfer> &Self, Observation &O);
  void filterCandidates(const Observation &O, const std::vector<RankRun> &Runs);
  /// After a refusal at \p Failed processes, before any size showed a
  /// collective: whether some other size shows one (a pattern correct
  /// only for powers of two), so the finding can say what it looks like.
  void lookElsewhere(int64_t Failed);
  std::vector<std::vector<int64_t>> settingsAt(int64_t P);
  void choose(RegionProof &Proof);
  bool place(RegionProof &Proof);

  TranslationUnitFacts &TU;
  ASTContext &Ctx;
  Region R;
  RankEvaluator Eval;
  Verdict V;
  std::vector<Candidate> Candidates;
  /// Per candidate: still right as root, count, buffer, send, receive.
  std::vector<bool> AsRoot, AsCount, AsBuffer, AsSend, AsRecv;
  std::optional<ManualKind> Reference;
  int64_t ReferenceSize = 0;
  uint32_t Deciding = 0;
  std::optional<uint64_t> TypeSize;
  const CallExpr *FirstCall = nullptr;
  std::set<int64_t> RootValues, CountValues;
  bool AllInPlace = true, NoneInPlace = true;
  uint64_t Runs = 0;
  /// Operations and steps of all ranks at a size (the largest over its
  /// settings), and steps so far.
  std::map<int64_t, uint64_t> OpsAt, StepsAt;
  /// The runs being observed model buffered sends; the last observation
  /// asks for that.
  bool Buffered = false, RetryBuffered = false;
  uint64_t TotalSteps = 0;

public:
  /// Sizes beyond 64 whose runs would take more operations than this are
  /// not evaluated (an allgather of 4099 processes is 16.8 M messages).
  static constexpr uint64_t OperationBudget = 400'000;
  /// The same for the evaluation's steps, per size and in all.
  static constexpr uint64_t SizeStepBudget = 8'000'000;
  static constexpr uint64_t StepBudget = 60'000'000;
  std::vector<int64_t> Skipped;
};

/// Whether the runs at \p P would exceed the budget, predicted from how
/// the operations grew from 32 to 64 processes.
bool Judge::tooLarge(int64_t P) {
  auto Predict = [&](std::map<int64_t, uint64_t> &At) {
    if (!At.count(32) || !At.count(64) || !At[32] || !At[64])
      return 0.0;
    double Growth = std::log(double(At[64]) / double(At[32])) / std::log(2.0);
    return double(At[64]) * std::pow(double(P) / 64.0, Growth);
  };
  if (P <= 64 || (Predict(OpsAt) <= double(OperationBudget) &&
                  Predict(StepsAt) <= double(SizeStepBudget)))
    return false;
  Skipped.push_back(P);
  return true;
}

bool Judge::evaluate(int64_t P, ArrayRef<int64_t> Setting,
                     std::vector<RankRun> &Out, bool &Skip) {
  Skip = false;
  Out.clear();
  Out.reserve(P);
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    Out.push_back(Eval.run(Rank, P, Setting));
    ++Runs;
    const RankRun &Run = Out.back();
    Deciding |= Run.DecidingInputs;
    if (!Run.Stopped)
      continue;
    const std::string &Why = Run.Stopped->Text;
    bool OutOfRange = Why.find("which does not exist") != std::string::npos;
    // An input taking a value the program never gives it (a root past the
    // last rank) is no counter-example.
    if (OutOfRange && (Run.DecidingInputs & Run.ReadInputs)) {
      Skip = true;
      return false;
    }
    if (OutOfRange)
      refuse(SafetyCheck::ScaleIndependence, "at " + processes(P) + ", " + Why,
             Run.Stopped->Loc);
    else
      refuse(SafetyCheck::InputIndependence, Why, Run.Stopped->Loc);
    return false;
  }
  return true;
}

std::optional<Observation> Judge::observe(int64_t P,
                                          const std::vector<RankRun> &Runs) {
  cg::Graph G(static_cast<cg::Rank>(P));
  bool Any = false;
  // The op behind each operation of the graph, in the graph's order.
  std::vector<std::pair<int64_t, const RankOp *>> Global;
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    const RankRun &Run = Runs[Rank];
    cg::LocalGraph L(static_cast<cg::Rank>(Rank));
    std::vector<uint32_t> LocalId(Run.Ops.size(), UINT32_MAX);
    // What the rank writes after its last message runs after the
    // collective as well: it is no part of what the collective moves.
    size_t LastMessage = 0;
    for (size_t Index = 0; Index < Run.Ops.size(); ++Index)
      if ((Run.Ops[Index].K == RankOp::Kind::Send ||
           Run.Ops[Index].K == RankOp::Kind::Recv) &&
          !Run.Ops[Index].SelfCopy)
        LastMessage = Index;
    for (size_t Index = 0; Index < Run.Ops.size(); ++Index) {
      const RankOp &Op = Run.Ops[Index];
      if (Op.K == RankOp::Kind::Marker ||
          (Op.K == RankOp::Kind::Local && Index > LastMessage))
        continue;
      Global.push_back({Rank, &Op});
      if (Op.Offset < 0 || static_cast<uint64_t>(Op.Offset) > OffsetMask) {
        refuse(SafetyCheck::MessageIntegrity,
               "a buffer lies before the start of " +
                   Run.Objects[Op.Object].Name,
               Op.Site->getBeginLoc());
        return std::nullopt;
      }
      cg::Address A = addressOf(Op.Object, Op.Offset);
      uint32_t Id = UINT32_MAX;
      switch (Op.K) {
      case RankOp::Kind::Send:
        Id = L.addSend(A, Op.Bytes, Op.Peer, Op.Tag);
        break;
      case RankOp::Kind::Recv:
        Id = L.addRecv(A, Op.Bytes, Op.Peer, Op.Tag);
        break;
      case RankOp::Kind::Local:
      case RankOp::Kind::Marker:
        Id = L.addLocal(A, Op.Bytes);
        break;
      }
      LocalId[Index] = Id;
      for (uint32_t Before : Op.After)
        if (LocalId[Before] != UINT32_MAX)
          L.addDependency(LocalId[Before], Id);
      if (Op.Call && !FirstCall)
        FirstCall = Op.Call;
      if (Op.Call && Op.TypeSize) {
        if (TypeSize && *TypeSize != Op.TypeSize) {
          refuse(SafetyCheck::MatchingArguments,
                 "the calls use datatypes of different sizes",
                 Op.Call->getBeginLoc());
          return std::nullopt;
        }
        TypeSize = Op.TypeSize;
      }
      Any |= !Op.SelfCopy && Op.K != RankOp::Kind::Local;
    }
    for (eval::ObjectId Obj = 1; Obj < Run.Objects.size(); ++Obj)
      if (Run.Objects[Obj].Temporary)
        L.addScratch(addressOf(Obj, 0), OffsetMask);
    if (cg::Status S = G.add(L); !S.ok()) {
      refuse(SafetyCheck::ScaleIndependence,
             "at " + processes(P) + ", " + S.Message, regionLoc());
      return std::nullopt;
    }
  }
  if (!Any)
    return std::nullopt; // Nothing moves (one process, or nothing sent).
  if (changesMessage(P, Runs))
    return std::nullopt;
  cg::Matching M;
  if (cg::Status S = cg::match(G, M); !S.ok()) {
    bool Sizes = S.Message.find("differ in size") != std::string::npos;
    // A program may rely on MPI buffering its blocking sends (a rank that
    // sends to itself, all sends before the receives): try that once.
    if (!Sizes && !Buffered) {
      RetryBuffered = true;
      return std::nullopt;
    }
    auto Call = [&](const RankOp *Op) {
      return Op->Site ? Op->Site->getBeginLoc() : regionLoc();
    };
    auto Describe = [&](cg::OpId Id) {
      auto [Rank, Op] = Global[Id];
      std::string Tag = " (tag " + std::to_string(Op->Tag) + ", " +
                        std::to_string(Op->Bytes) + " bytes)";
      return Op->K == RankOp::Kind::Send
                 ? "rank " + std::to_string(Rank) + " sends to rank " +
                       std::to_string(Op->Peer) + Tag +
                       ", and no receive takes the message"
                 : "rank " + std::to_string(Rank) +
                       " waits for a message from rank " +
                       std::to_string(Op->Peer) + Tag + " that never comes";
    };
    if (Sizes) {
      for (cg::OpId Id = 0; Id < M.PeerOf.size(); ++Id) {
        cg::OpId Peer = M.PeerOf[Id];
        auto [Rank, Op] = Global[Id];
        if (Peer == cg::NoOp || Op->K != RankOp::Kind::Send ||
            Global[Peer].second->Bytes == Op->Bytes)
          continue;
        refuse(SafetyCheck::MatchingArguments,
               "at " + processes(P) + ", rank " + std::to_string(Rank) +
                   " sends " + std::to_string(Op->Bytes) + " bytes to rank " +
                   std::to_string(Op->Peer) + ", which receives " +
                   std::to_string(Global[Peer].second->Bytes),
               Call(Op));
        return std::nullopt;
      }
    }
    if (!M.Unmatched.empty()) {
      refuse(SafetyCheck::ScaleIndependence,
             "at " + processes(P) + ", " + Describe(M.Unmatched.front()),
             Call(Global[M.Unmatched.front()].second));
      return std::nullopt;
    }
    refuse(Sizes ? SafetyCheck::MatchingArguments
                 : SafetyCheck::ScaleIndependence,
           "at " + processes(P) +
               " the messages wait for each other in a cycle: " + S.Message,
           regionLoc());
    return std::nullopt;
  }
  V.Closed = true;
  std::vector<cg::Transfer> All, Transfers, Self;
  if (cg::Status S = cg::propagate(G, M, All); !S.ok()) {
    refuse(SafetyCheck::ScaleIndependence,
           "at " + processes(P) + ": " + S.Message, regionLoc());
    return std::nullopt;
  }
  for (const cg::Transfer &T : All)
    (T.Src == T.Dst ? Self : Transfers).push_back(T);
  if (Transfers.empty()) {
    // Messages moved, but nothing received survives: a rank writes over
    // what it got (a value incremented at every hop).
    for (const RankRun &Run : Runs)
      for (size_t I = 0; I < Run.Ops.size(); ++I)
        if (Run.Ops[I].K == RankOp::Kind::Local)
          for (size_t J = 0; J < I; ++J)
            if (Run.Ops[J].K == RankOp::Kind::Recv &&
                Run.Ops[J].Object == Run.Ops[I].Object) {
              refuse(SafetyCheck::MessageIntegrity,
                     "the region writes over the data it receives, so no "
                     "data moves from one process to another unchanged",
                     Run.Ops[I].Site->getBeginLoc());
              return std::nullopt;
            }
    return std::nullopt;
  }
  cg::DetectionOptions Options;
  Options.MinSubset = 2; // To say which processes a subset pattern misses.
  cg::Detection D = cg::detect(Transfers, static_cast<cg::Rank>(P), Options);
  std::string What;
  if (D.Collectives.size() != 1 || !D.Residual.empty())
    What = D.Collectives.empty()
               ? "no collective"
               : "no single collective (" +
                     std::to_string(D.Collectives.size()) +
                     " collectives and " + std::to_string(D.Residual.size()) +
                     " other transfers)";
  else if (!D.Collectives[0].onAllProcesses(static_cast<cg::Rank>(P)))
    What = std::string("a ") + cg::name(D.Collectives[0].Kind) + " over " +
           std::to_string(D.Collectives[0].Group.size()) + " of them";
  else if (D.Collectives[0].Parts != 1)
    What = std::string("a ") + cg::name(D.Collectives[0].Kind) + " of " +
           std::to_string(D.Collectives[0].Parts) + " separate blocks";
  else if (!manualKind(D.Collectives[0].Kind))
    What = std::string("a ") + cg::name(D.Collectives[0].Kind) +
           " (blocks of different sizes), which is not rewritten yet";
  if (!What.empty()) {
    refuse(SafetyCheck::ScaleIndependence,
           "at " + processes(P) + " the messages form " + What, regionLoc());
    return std::nullopt;
  }
  const cg::Collective &C = D.Collectives[0];
  Observation O;
  O.Kind = *manualKind(C.Kind);
  if (P == 2 && Reference) {
    // Two processes cannot tell a broadcast from a scatter or a gather,
    // nor an allgather from an alltoall: the larger sizes decide.
    bool Rooted = isRooted(O.Kind) && isRooted(*Reference);
    bool Exchange = !isRooted(O.Kind) && !isRooted(*Reference);
    if (Rooted || Exchange)
      O.Kind = *Reference;
  }
  if (!Reference) {
    Reference = O.Kind;
    ReferenceSize = P;
    V.Looks = O.Kind;
  } else if (O.Kind != *Reference) {
    refuse(SafetyCheck::ScaleIndependence,
           "at " + processes(P) + " the messages form a " +
               collectiveNoun(O.Kind).str() + ", at " +
               processes(ReferenceSize) + " a " +
               collectiveNoun(*Reference).str(),
           regionLoc());
    return std::nullopt;
  }
  if (!shape(P, C, Self, O))
    return std::nullopt;
  if (P >= 3)
    V.Topology = topologyOf(O, Runs);
  return O;
}

/// Message integrity: a rank that writes bytes after it received or sent
/// them, and then sends them (again), sends other data than it got or
/// than it sent before: no collective sends that.
bool Judge::changesMessage(int64_t P, const std::vector<RankRun> &Runs) {
  auto Overlap = [](const RankOp &A, const RankOp &B) {
    return A.Object == B.Object &&
           A.Offset < B.Offset + static_cast<int64_t>(B.Bytes) &&
           B.Offset < A.Offset + static_cast<int64_t>(A.Bytes);
  };
  auto Message = [](const RankOp &Op) {
    return (Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
           !Op.SelfCopy;
  };
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    const std::vector<RankOp> &Ops = Runs[Rank].Ops;
    for (size_t W = 0; W < Ops.size(); ++W) {
      const RankOp &Write = Ops[W];
      bool Writes = Write.K == RankOp::Kind::Local ||
                    (Write.SelfCopy && Write.K == RankOp::Kind::Recv);
      if (!Writes)
        continue;
      const RankOp *Before = nullptr;
      for (size_t E = 0; E < W && !Before; ++E)
        if (Message(Ops[E]) && Overlap(Ops[E], Write))
          Before = &Ops[E];
      if (!Before)
        continue;
      for (size_t S = W + 1; S < Ops.size(); ++S)
        if (Message(Ops[S]) && Ops[S].K == RankOp::Kind::Send &&
            Overlap(Ops[S], Write)) {
          const Stmt *Site = Write.Origin ? Write.Origin : Write.Site;
          refuse(SafetyCheck::MessageIntegrity,
                 std::string("this statement changes ") +
                     Runs[Rank].Objects[Write.Object].Name + " after " +
                     (Before->K == RankOp::Kind::Recv ? "it was received"
                                                      : "it was sent") +
                     " and before it is sent again, so the messages do not "
                     "all carry the same data",
                 Site ? Site->getBeginLoc() : regionLoc());
          if (!V.Looks)
            V.Looks = ManualKind::Bcast;
          return true;
        }
    }
  }
  return false;
}

ManualTopology Judge::topologyOf(const Observation &O,
                                 const std::vector<RankRun> &Runs) {
  if (!isRooted(O.Kind))
    return ManualTopology::Exchange;
  auto Messages = [&](int64_t Rank, RankOp::Kind K) {
    unsigned N = 0;
    for (const RankOp &Op : Runs[Rank].Ops)
      N += Op.K == K && !Op.SelfCopy;
    return N;
  };
  int64_t P = static_cast<int64_t>(Runs.size());
  bool FromRoot = O.Kind != ManualKind::Gather;
  RankOp::Kind Out = FromRoot ? RankOp::Kind::Send : RankOp::Kind::Recv;
  RankOp::Kind In = FromRoot ? RankOp::Kind::Recv : RankOp::Kind::Send;
  if (Messages(O.Root, Out) == static_cast<unsigned>(P - 1))
    return ManualTopology::Star;
  if (Messages(O.Root, Out) != 1)
    return ManualTopology::Tree;
  for (int64_t Rank = 0; Rank < P; ++Rank)
    if (Rank != O.Root && (Messages(Rank, In) != 1 || Messages(Rank, Out) > 1))
      return ManualTopology::Tree;
  return Messages(O.Root, In) == 1 ? ManualTopology::Ring
                                   : ManualTopology::Chain;
}

bool Judge::shape(int64_t P, const cg::Collective &C,
                  const std::vector<cg::Transfer> &Self, Observation &O) {
  O.Block = C.BlockSize;
  O.Buffer.assign(P, std::nullopt);
  O.Send.assign(P, std::nullopt);
  O.Recv.assign(P, std::nullopt);
  O.InPlace.assign(P, false);
  uint64_t B = C.BlockSize;
  auto Fail = [&](std::string Why) {
    refuse(SafetyCheck::MessageIntegrity, "at " + processes(P) + ", " + Why,
           regionLoc());
    return false;
  };
  // Every transfer of one rank's blocks agrees on one base.
  auto Agree = [&](std::optional<Where> &Slot, std::optional<Where> W) {
    if (!W)
      return false;
    if (Slot && !(*Slot == *W))
      return false;
    Slot = W;
    return true;
  };
  switch (O.Kind) {
  case ManualKind::Bcast:
  case ManualKind::Scatter:
  case ManualKind::Gather: {
    bool FromRoot = O.Kind != ManualKind::Gather;
    O.Root = FromRoot ? C.Blocks[0].Src : C.Blocks[0].Dst;
    for (const cg::Transfer &T : C.Blocks) {
      Where Src = whereOf(T.SrcAddr), Dst = whereOf(T.DstAddr);
      int64_t Peer = FromRoot ? T.Dst : T.Src;
      if ((FromRoot ? T.Src : T.Dst) != O.Root)
        return Fail("the collective has more than one root");
      if (O.Kind == ManualKind::Bcast) {
        if (!Agree(O.Buffer[O.Root], Src))
          return Fail("the root sends from more than one buffer");
        O.Buffer[T.Dst] = Dst;
      } else if (O.Kind == ManualKind::Scatter) {
        if (!Agree(O.Send[O.Root], before(Src, Peer * B)))
          return Fail("the root's blocks are not in rank order");
        O.Recv[T.Dst] = Dst;
      } else {
        if (!Agree(O.Recv[O.Root], before(Dst, Peer * B)))
          return Fail("the root's blocks are not in rank order");
        O.Send[T.Src] = Src;
      }
    }
    return true;
  }
  case ManualKind::Allgather:
  case ManualKind::Alltoall: {
    bool ToAll = O.Kind == ManualKind::Alltoall;
    for (const cg::Transfer &T : C.Blocks) {
      Where Src = whereOf(T.SrcAddr), Dst = whereOf(T.DstAddr);
      if (!Agree(O.Recv[T.Dst], before(Dst, T.Src * B)) ||
          !Agree(O.Send[T.Src],
                 ToAll ? before(Src, T.Dst * B) : std::optional<Where>(Src)))
        return Fail("a rank's blocks are not in rank order");
    }
    for (int64_t I = 0; I < P; ++I) {
      if (!O.Send[I] || !O.Recv[I])
        return Fail("rank " + std::to_string(I) + " takes no part");
      Where Own = ToAll ? Where{O.Send[I]->Obj,
                                O.Send[I]->Off + static_cast<int64_t>(I * B)}
                        : *O.Send[I];
      Where Slot{O.Recv[I]->Obj, O.Recv[I]->Off + static_cast<int64_t>(I * B)};
      O.InPlace[I] = Own == Slot;
      if (O.InPlace[I])
        continue;
      // MPI writes the rank's own block; the program must have put the
      // same data there itself.
      bool Copied = llvm::any_of(Self, [&](const cg::Transfer &T) {
        return T.Dst == I && whereOf(T.DstAddr) == Slot &&
               whereOf(T.SrcAddr) == Own && T.Size >= B;
      });
      if (!Copied)
        return Fail("rank " + std::to_string(I) +
                    " leaves its own block alone and copies nothing there; "
                    "the collective would write it");
    }
    return true;
  }
  }
  return false;
}

void Judge::filterCandidates(const Observation &O,
                             const std::vector<RankRun> &Runs) {
  int64_t P = static_cast<int64_t>(Runs.size());
  for (size_t I = 0; I < Candidates.size(); ++I) {
    for (int64_t Rank = 0; Rank < P; ++Rank) {
      const RankRun &Run = Runs[Rank];
      if (I >= Run.Probes.size()) {
        AsRoot[I] = AsCount[I] = AsBuffer[I] = AsSend[I] = AsRecv[I] = false;
        break;
      }
      // The candidate's values at the region's start and at each place
      // the rank passes before its first message: one of them must be
      // right (the placement then proves it right where the call goes).
      SmallVector<const eval::Value *, 4> Vals = {&Run.Probes[I]};
      for (const RankOp &Op : Run.Ops) {
        if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
            !Op.SelfCopy)
          break;
        if (Op.K == RankOp::Kind::Marker && I < Op.Values.size())
          Vals.push_back(&Op.Values[I]);
      }
      auto Any = [&](auto Right) {
        return llvm::any_of(Vals,
                            [&](const eval::Value *V) { return Right(*V); });
      };
      auto Is = [&](const std::optional<Where> &W) {
        return Any([&](const eval::Value &Val) {
          return W && Val.isPointer() && Val.Obj == W->Obj && Val.I == W->Off;
        });
      };
      bool Rooted = isRooted(O.Kind);
      if (AsRoot[I] && Rooted && !Any([&](const eval::Value &Val) {
            return Val.isInt() && Val.I == O.Root;
          }))
        AsRoot[I] = false;
      if (AsCount[I] && !Any([&](const eval::Value &Val) {
            return Val.isInt() && TypeSize &&
                   static_cast<uint64_t>(Val.I) * *TypeSize == O.Block;
          }))
        AsCount[I] = false;
      if (AsBuffer[I] && O.Buffer[Rank] && !Is(O.Buffer[Rank]))
        AsBuffer[I] = false;
      if (AsSend[I] && O.Send[Rank] && !Is(O.Send[Rank]))
        AsSend[I] = false;
      if (AsRecv[I] && O.Recv[Rank] && !Is(O.Recv[Rank]))
        AsRecv[I] = false;
    }
  }
  if (isRooted(O.Kind))
    RootValues.insert(O.Root);
  if (TypeSize && *TypeSize)
    CountValues.insert(O.Block / *TypeSize);
  for (bool In : O.InPlace) {
    AllInPlace &= In;
    NoneInPlace &= !In;
  }
}

void Judge::lookElsewhere(int64_t Failed) {
  if (V.Looks || V.Refusals.empty() ||
      V.Refusals.front().Check != SafetyCheck::ScaleIndependence)
    return;
  std::vector<Refusal> Saved = std::move(V.Refusals);
  for (int64_t P : {4, 8, 16}) {
    if (P == Failed)
      continue;
    V.Refusals.clear();
    std::vector<RankRun> Runs;
    bool Skip = false;
    if (!evaluate(P, {}, Runs, Skip))
      continue;
    observeBuffering(P, {}, Runs, Skip);
    if (V.Looks)
      break;
  }
  V.Refusals = std::move(Saved);
}

std::vector<std::vector<int64_t>> Judge::settingsAt(int64_t P) {
  std::vector<int64_t> Base(Eval.inputs().size(), RankEvaluator::DefaultInput);
  std::vector<std::vector<int64_t>> Out = {Base};
  for (unsigned Bit = 0; Bit < Eval.inputs().size(); ++Bit) {
    if (!(Deciding & (1u << Bit)))
      continue;
    // Every value at small sizes; the edges and the middle beyond.
    std::vector<int64_t> Values;
    if (P <= 16)
      for (int64_t X = 0; X < P; ++X)
        Values.push_back(X);
    else
      Values = {0, 1, P / 2, P - 1};
    std::vector<std::vector<int64_t>> Next;
    for (const std::vector<int64_t> &S : Out)
      for (int64_t X : Values) {
        Next.push_back(S);
        Next.back()[Bit] = X;
      }
    Out = std::move(Next);
  }
  return Out;
}

void Judge::choose(RegionProof &Proof) {
  auto First = [&](const std::vector<bool> &Alive,
                   auto Prefer) -> const Expr * {
    const Expr *Best = nullptr;
    for (size_t I = 0; I < Candidates.size(); ++I)
      if (Alive[I] && (!Best || Prefer(Candidates[I].E, Best)))
        Best = Candidates[I].E;
    return Best;
  };
  // Prefer what the calls spell over variables found elsewhere, and
  // simpler expressions over compound ones.
  auto Simpler = [](const Expr *A, const Expr *B) {
    bool RefA = isa<DeclRefExpr>(A->IgnoreParenImpCasts()) ||
                isa<IntegerLiteral>(A->IgnoreParenImpCasts());
    bool RefB = isa<DeclRefExpr>(B->IgnoreParenImpCasts()) ||
                isa<IntegerLiteral>(B->IgnoreParenImpCasts());
    return RefA && !RefB;
  };
  Proof.Count = First(AsCount, Simpler);
  switch (Proof.Kind) {
  case ManualKind::Bcast:
    Proof.Root = First(AsRoot, Simpler);
    Proof.Buffer = First(AsBuffer, Simpler);
    break;
  case ManualKind::Scatter:
  case ManualKind::Gather:
    Proof.Root = First(AsRoot, Simpler);
    Proof.SendBuffer = First(AsSend, Simpler);
    Proof.RecvBuffer = First(AsRecv, Simpler);
    break;
  case ManualKind::Allgather:
  case ManualKind::Alltoall:
    Proof.SendBuffer = First(AsSend, Simpler);
    Proof.RecvBuffer = First(AsRecv, Simpler);
    break;
  }
}

Verdict Judge::run() {
  const SourceManager &SM = Ctx.getSourceManager();
  Candidates = candidatesOf(R, Ctx, TU);
  std::vector<const Expr *> Probes;
  for (const Candidate &C : Candidates)
    Probes.push_back(C.E);
  Eval.setProbes(Probes);
  // The candidates are also evaluated where the call may go: a buffer the
  // region allocates before its messages has its value only there.
  Eval.setAnchors(planEdits(R, TU).Anchors, Probes);
  size_t N = Candidates.size();
  AsRoot.assign(N, false);
  AsCount.assign(N, false);
  AsBuffer.assign(N, false);
  AsSend.assign(N, false);
  AsRecv.assign(N, false);
  for (size_t I = 0; I < N; ++I) {
    AsRoot[I] = AsCount[I] = Candidates[I].Int;
    AsBuffer[I] = AsSend[I] = AsRecv[I] = Candidates[I].Pointer;
  }
  // A first look at four processes finds the inputs that decide anything.
  std::vector<RankRun> RankRuns;
  bool Skip = false;
  if (!evaluate(4, {}, RankRuns, Skip)) {
    if (Skip)
      refuse(SafetyCheck::InputIndependence,
             "the region's inputs take values for which it sends to ranks "
             "that do not exist",
             regionLoc());
    return std::move(V);
  }
  if (llvm::popcount(Deciding) > 2) {
    refuse(SafetyCheck::InputIndependence,
           "the region's control flow depends on " +
               std::to_string(llvm::popcount(Deciding)) +
               " inputs; at most two are evaluated",
           regionLoc());
    return std::move(V);
  }
  // Sizes from 3 up, then 2 (which cannot tell some collectives apart)
  // and 1 (nothing moves, but nothing may go wrong either).
  std::vector<int64_t> Order;
  for (int64_t P : proofSizes())
    if (P >= 3)
      Order.push_back(P);
  Order.push_back(2);
  Order.push_back(1);
  unsigned Sizes = 0;
  for (int64_t P : Order) {
    if (tooLarge(P))
      continue;
    ++Sizes;
    for (const std::vector<int64_t> &Setting : settingsAt(P)) {
      if (!evaluate(P, Setting, RankRuns, Skip)) {
        if (Skip)
          continue;
        lookElsewhere(P);
        return std::move(V);
      }
      uint64_t Ops = 0, Steps = 0;
      for (const RankRun &Run : RankRuns) {
        Ops += Run.Ops.size();
        Steps += Run.Steps;
      }
      OpsAt[P] = std::max(OpsAt[P], Ops);
      StepsAt[P] = std::max(StepsAt[P], Steps);
      TotalSteps += Steps;
      if (TotalSteps > StepBudget) {
        refuse(SafetyCheck::ScaleIndependence,
               "evaluating the region at every size takes too long (" +
                   std::to_string(TotalSteps / 1000000) + " million steps by " +
                   processes(P) + "); it does more than communicate",
               regionLoc());
        return std::move(V);
      }
      std::optional<Observation> O =
          observeBuffering(P, Setting, RankRuns, Skip);
      if (!V.Refusals.empty()) {
        lookElsewhere(P);
        return std::move(V);
      }
      if (!O)
        continue;
      filterCandidates(*O, RankRuns);
    }
  }
  if (!Reference) {
    refuse(SafetyCheck::ScaleIndependence,
           "the region moves no data between processes at any size tried",
           regionLoc());
    return std::move(V);
  }
  RegionProof Proof;
  Proof.Kind = *Reference;
  Proof.Topology = V.Topology;
  Proof.Sizes = Sizes;
  Proof.Runs = Runs;
  Proof.Skipped = Skipped;
  choose(Proof);
  if (FirstCall) {
    Proof.Comm = mpiArgAsWritten(FirstCall, mpi::Role::Comm);
    Proof.Datatype = mpiArgAsWritten(FirstCall, mpi::Role::Datatype);
    if (!Proof.Datatype)
      Proof.Datatype = mpiArgAsWritten(FirstCall, mpi::Role::SendType);
  }
  auto Missing = [&](const char *What) {
    refuse(SafetyCheck::MatchingArguments,
           std::string("no expression in scope at the pattern's start has "
                       "the value of the ") +
               What + " on every rank at every size",
           regionLoc());
  };
  if (isRooted(Proof.Kind) && !Proof.Root) {
    if (RootValues.size() == 1)
      Proof.RootConstant = *RootValues.begin();
    else
      Missing("root");
  }
  if (!Proof.Count) {
    if (CountValues.size() == 1)
      Proof.CountConstant = *CountValues.begin();
    else
      Missing("count");
  }
  if (!Proof.Comm || !usable(Proof.Comm, R, Ctx) || !Proof.Datatype ||
      !usable(Proof.Datatype, R, Ctx))
    Missing("communicator and datatype");
  switch (Proof.Kind) {
  case ManualKind::Bcast:
    if (!Proof.Buffer)
      Missing("buffer");
    break;
  case ManualKind::Scatter:
  case ManualKind::Gather:
    if (!Proof.SendBuffer || !Proof.RecvBuffer)
      Missing("buffers");
    break;
  case ManualKind::Allgather:
  case ManualKind::Alltoall:
    if (!AllInPlace && !NoneInPlace)
      refuse(SafetyCheck::MessageIntegrity,
             "some ranks exchange in place and others do not", regionLoc());
    Proof.InPlace = AllInPlace;
    if (!Proof.RecvBuffer || (!Proof.InPlace && !Proof.SendBuffer))
      Missing("buffers");
    break;
  }
  (void)SM;
  if (V.Refusals.empty() && place(Proof))
    V.Proof = Proof;
  return std::move(V);
}

namespace {

/// One rank's run as the placement proof sees it, on a scale where an
/// operation at index I sits at 2I + 1 and a read before it at 2I.
struct PlacedRun {
  std::vector<std::pair<const Stmt *, uint32_t>> Marks; ///< Anchor, place.
  std::vector<bool> ArgsRight; ///< Per mark: the arguments are right there.
  std::vector<bool> RootHere;  ///< Per mark: the rank is the root there.
  int64_t First = -1, Last = -1;
  /// What kept statements do to the rank's message buffers, and where.
  struct Effect {
    uint32_t At;
    const Stmt *Site;
    bool Write;
    std::string Object;
  };
  std::vector<Effect> Effects;
  bool IsRoot = false;
};

} // namespace

bool Judge::place(RegionProof &Proof) {
  RegionEdits Edits = planEdits(R, TU);
  if (Edits.Problem) {
    refuse(Edits.Problem->Check, Edits.Problem->Reason, Edits.Problem->Loc);
    return false;
  }
  // The arguments, evaluated where the call goes.
  enum Slot { RootSlot, CountSlot, BufferSlot, SendSlot, RecvSlot };
  std::vector<const Expr *> Args;
  std::vector<Slot> Slots;
  auto Arg = [&](const Expr *E, Slot S) {
    if (E) {
      Args.push_back(E);
      Slots.push_back(S);
    }
  };
  Arg(Proof.Root, RootSlot);
  Arg(Proof.Count, CountSlot);
  Arg(Proof.Buffer, BufferSlot);
  Arg(Proof.SendBuffer, SendSlot);
  Arg(Proof.RecvBuffer, RecvSlot);
  Eval.setProbes({});
  Eval.setAnchors(Edits.Anchors, Args);
  std::vector<PlacedRun> Placed;
  std::vector<RankRun> Runs2;
  bool Skip = false;
  for (int64_t P : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17}) {
    for (const std::vector<int64_t> &Setting : settingsAt(P)) {
      if (!evaluate(P, Setting, Runs2, Skip)) {
        if (Skip)
          continue;
        return false;
      }
      std::optional<Observation> O = observeBuffering(P, Setting, Runs2, Skip);
      if (!V.Refusals.empty())
        return false;
      for (int64_t Rank = 0; Rank < P; ++Rank) {
        const RankRun &Run = Runs2[Rank];
        PlacedRun PR;
        PR.IsRoot = O && isRooted(O->Kind) && Rank == O->Root;
        llvm::DenseSet<eval::ObjectId> Messages;
        for (size_t I = 0; I < Run.Ops.size(); ++I) {
          const RankOp &Op = Run.Ops[I];
          if (Op.K == RankOp::Kind::Marker) {
            PR.Marks.push_back({Op.Site, uint32_t(2 * I + 1)});
            // A later pass of the same place has no values: a place a
            // rank passes twice is no place for its call anyway.
            bool Right = Op.Values.size() == Slots.size();
            for (size_t K = 0; K < Slots.size() && O && Right; ++K) {
              const eval::Value &Val = Op.Values[K];
              auto Is = [&](const std::optional<Where> &W) {
                return !W || (Val.isPointer() && Val.Obj == W->Obj &&
                              Val.I == W->Off);
              };
              switch (Slots[K]) {
              case RootSlot:
                Right &= Val.isInt() && Val.I == O->Root;
                break;
              case CountSlot:
                Right &= Val.isInt() && TypeSize &&
                         uint64_t(Val.I) * *TypeSize == O->Block;
                break;
              case BufferSlot:
                Right &= Is(O->Buffer[Rank]);
                break;
              case SendSlot:
                Right &= Is(O->Send[Rank]);
                break;
              case RecvSlot:
                Right &= Is(O->Recv[Rank]);
                break;
              }
            }
            PR.ArgsRight.push_back(Right);
            // Who is the root where nothing moves (one process): the root
            // expression says.
            bool Root = PR.IsRoot;
            if (!O)
              for (size_t K = 0; K < Op.Values.size(); ++K)
                if (Slots[K] == RootSlot)
                  Root = Op.Values[K].isInt() && Op.Values[K].I == Rank;
            if (!O && Proof.RootConstant)
              Root = *Proof.RootConstant == Rank;
            PR.RootHere.push_back(Root);
            continue;
          }
          if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
              !Op.SelfCopy) {
            Messages.insert(Op.Object);
            if (PR.First < 0)
              PR.First = 2 * I + 1;
            PR.Last = 2 * I + 1;
          }
        }
        auto Kept = [&](const Stmt *Site) {
          return Site && !Edits.removedWith(Site, Ctx);
        };
        for (size_t I = 0; I < Run.Ops.size(); ++I) {
          const RankOp &Op = Run.Ops[I];
          bool Effect = Op.K == RankOp::Kind::Local || Op.SelfCopy;
          // A copy reads its source and writes its target.
          bool Writes = Op.K != RankOp::Kind::Send;
          const Stmt *Site = Op.Origin ? Op.Origin : Op.Site;
          if (Effect && Messages.count(Op.Object) && Kept(Site))
            PR.Effects.push_back({uint32_t(2 * I + 1), Site, Writes,
                                  Run.Objects[Op.Object].Name});
        }
        for (const RankRead &Read : Run.Reads) {
          const Stmt *Site = Read.Origin ? Read.Origin : Read.Site;
          if (Messages.count(Read.Object) && Kept(Site))
            PR.Effects.push_back(
                {2 * Read.At, Site, false, Run.Objects[Read.Object].Name});
        }
        Placed.push_back(std::move(PR));
      }
    }
  }
  // A plan is valid when every run reaches exactly one of its anchors,
  // with the right arguments there, and nothing kept touches the messages
  // between that place and the run's messages.
  std::string Why;
  SourceLocation WhyLoc;
  auto ValidFor = [&](const PlacedRun &PR,
                      const llvm::SmallPtrSetImpl<const Stmt *> &Plan) {
    {
      int Passes = 0;
      uint32_t At = 0;
      bool Right = true;
      for (size_t K = 0; K < PR.Marks.size(); ++K)
        if (Plan.count(PR.Marks[K].first)) {
          ++Passes;
          At = PR.Marks[K].second;
          Right = PR.ArgsRight[K];
        }
      if (Passes != 1) {
        Why = "the collective call has no place that every rank reaches "
              "exactly once (a rank reaches " +
              std::to_string(Passes) + ")";
        WhyLoc = regionLoc();
        return false;
      }
      if (!Right) {
        Why = "where the collective call would go, the arguments it needs "
              "do not have the values the pattern uses";
        WhyLoc = regionLoc();
        return false;
      }
      if (PR.First < 0)
        return true;
      uint32_t Lo = std::min<uint32_t>(At, PR.First);
      uint32_t Hi = std::max<uint32_t>(At, PR.Last);
      for (const PlacedRun::Effect &E : PR.Effects)
        if (E.At > Lo && E.At < Hi) {
          Why = E.Write
                    ? "this statement writes the message buffer " + E.Object +
                          " between the pattern's messages, which would "
                          "then not all carry the same data as one "
                          "collective's"
                    : "this statement reads the message buffer " + E.Object +
                          " between the pattern's messages; with one "
                          "collective call it would read other data";
          WhyLoc = E.Site->getBeginLoc();
          return false;
        }
    }
    return true;
  };
  auto Valid = [&](const llvm::SmallPtrSetImpl<const Stmt *> &Plan) {
    return llvm::all_of(
        Placed, [&](const PlacedRun &PR) { return ValidFor(PR, Plan); });
  };
  llvm::SmallPtrSet<const Stmt *, 8> PlanA, PlanB;
  for (const Stmt *A : Edits.Anchors)
    if (parentStmt(*A, Ctx) == R.Block) {
      PlanA.insert(A);
      break;
    }
  // Places some rank reaches more than once (inside a loop) are none.
  llvm::SmallPtrSet<const Stmt *, 8> Repeated;
  for (const PlacedRun &PR : Placed)
    for (auto [Anchor, Pos] : PR.Marks)
      if (llvm::count_if(PR.Marks, [&, A = Anchor](const auto &M) {
            return M.first == A;
          }) > 1)
        Repeated.insert(Anchor);
  for (const PlacedRun &PR : Placed) {
    // The innermost place the rank reaches before its first message (a
    // rank without messages, alone or skipped, chooses none).
    if (PR.First < 0)
      continue;
    const Stmt *Innermost = nullptr;
    for (auto [Anchor, Pos] : PR.Marks) {
      if (PR.First >= 0 && static_cast<int64_t>(Pos) >= PR.First)
        break;
      if (!Repeated.count(Anchor))
        Innermost = Anchor;
    }
    if (Innermost)
      PlanB.insert(Innermost);
  }
  // A scatter's or gather's call differs on the root (MPI_IN_PLACE): no
  // place may be reached by the root and the others alike.
  auto Separates = [&](const llvm::SmallPtrSetImpl<const Stmt *> &Plan) {
    if (Proof.Kind != ManualKind::Scatter && Proof.Kind != ManualKind::Gather)
      return true;
    for (const Stmt *A : Plan) {
      bool Root = false, Others = false;
      for (const PlacedRun &PR : Placed)
        for (size_t K = 0; K < PR.Marks.size(); ++K)
          if (PR.Marks[K].first == A)
            (PR.RootHere[K] ? Root : Others) = true;
      if (Root && Others) {
        Why = "the root and the other ranks reach the same place, where "
              "their calls of the " +
              collectiveNoun(Proof.Kind).str() + " would have to differ";
        WhyLoc = A->getBeginLoc();
        return false;
      }
    }
    return true;
  };
  // The outermost place each run may have: a place is forbidden when a
  // run that reaches it reaches it more than once, or would let a kept
  // statement touch its messages between it and them, or (scatter,
  // gather) is reached by the root and the others alike.
  llvm::SmallPtrSet<const Stmt *, 8> Forbidden, PlanOuter;
  for (const Stmt *A : Edits.Anchors) {
    llvm::SmallPtrSet<const Stmt *, 1> Alone;
    Alone.insert(A);
    std::string SavedWhy = Why;
    SourceLocation SavedLoc = WhyLoc;
    bool Root = false, Others = false;
    for (const PlacedRun &PR : Placed) {
      bool Passes = false;
      for (size_t K = 0; K < PR.Marks.size(); ++K)
        if (PR.Marks[K].first == A) {
          Passes = true;
          (PR.RootHere[K] ? Root : Others) = true;
        }
      if (Passes && !ValidFor(PR, Alone))
        Forbidden.insert(A);
    }
    if (Root && Others &&
        (Proof.Kind == ManualKind::Scatter || Proof.Kind == ManualKind::Gather))
      Forbidden.insert(A);
    Why = SavedWhy;
    WhyLoc = SavedLoc;
  }
  for (const PlacedRun &PR : Placed)
    for (auto [Anchor, Pos] : PR.Marks)
      if (!Forbidden.count(Anchor)) {
        PlanOuter.insert(Anchor);
        break;
      }
  // The plans in order of preference; when none holds, the first reason
  // that concerns the messages themselves is the one to report (it holds
  // wherever the call goes), else the first plan's.
  const llvm::SmallPtrSetImpl<const Stmt *> *Chosen = nullptr;
  std::string FirstWhy, MessageWhy;
  SourceLocation FirstLoc, MessageLoc;
  for (const llvm::SmallPtrSetImpl<const Stmt *> *Plan :
       {&PlanA, &PlanB, &PlanOuter}) {
    if (Plan->empty())
      continue;
    Why.clear();
    WhyLoc = SourceLocation();
    if (Valid(*Plan) && Separates(*Plan)) {
      Chosen = Plan;
      break;
    }
    if (FirstWhy.empty()) {
      FirstWhy = Why;
      FirstLoc = WhyLoc;
    }
    if (MessageWhy.empty() &&
        Why.find("the message buffer") != std::string::npos) {
      MessageWhy = Why;
      MessageLoc = WhyLoc;
    }
  }
  if (!Chosen) {
    bool AboutMessages = !MessageWhy.empty();
    std::string Reason = AboutMessages ? MessageWhy : FirstWhy;
    SourceLocation Loc = AboutMessages ? MessageLoc : FirstLoc;
    refuse(AboutMessages ? SafetyCheck::MessageIntegrity
                         : SafetyCheck::SourceForm,
           Reason.empty() ? "no place for the collective call" : Reason,
           Loc.isValid() ? Loc : regionLoc());
    return false;
  }
  for (const Stmt *A : Edits.Anchors) {
    if (!Chosen->count(A))
      continue;
    Placement Pl;
    Pl.Anchor = A;
    for (const PlacedRun &PR : Placed)
      for (size_t K = 0; K < PR.Marks.size(); ++K)
        if (PR.Marks[K].first == A)
          (PR.RootHere[K] ? Pl.Root : Pl.Others) = true;
    Proof.Placements.push_back(Pl);
  }
  return true;
}

} // namespace

llvm::ArrayRef<int64_t> proofSizes() {
  static const std::vector<int64_t> Sizes = [] {
    std::vector<int64_t> S;
    for (int64_t P = 1; P <= 64; ++P)
      S.push_back(P);
    for (int64_t P : {97, 128, 1000, 1024, 4099})
      S.push_back(P);
    return S;
  }();
  return Sizes;
}

Verdict judgeRegion(TranslationUnitFacts &TU, const Region &R) {
  Judge J(TU, R);
  return J.run();
}

Closure regionCloses(TranslationUnitFacts &TU, const Region &R) {
  RankEvaluator Eval(TU, R);
  Closure Result;
  // One size's runs into a graph: nothing when a run stops, false when
  // the operations make no valid graph.
  auto Build = [&](int64_t P, ArrayRef<int64_t> Setting, cg::Graph &G,
                   RankRun &Stopped) -> std::optional<bool> {
    for (int64_t Rank = 0; Rank < P; ++Rank) {
      RankRun Run = Eval.run(Rank, P, Setting);
      if (Run.Stopped) {
        Stopped = std::move(Run);
        return std::nullopt;
      }
      cg::LocalGraph L(static_cast<cg::Rank>(Rank));
      std::vector<uint32_t> LocalId(Run.Ops.size(), UINT32_MAX);
      for (size_t I = 0; I < Run.Ops.size(); ++I) {
        const RankOp &Op = Run.Ops[I];
        cg::Address A = addressOf(Op.Object, std::max<int64_t>(Op.Offset, 0));
        if (Op.K == RankOp::Kind::Send)
          LocalId[I] = L.addSend(A, Op.Bytes, Op.Peer, Op.Tag);
        else if (Op.K == RankOp::Kind::Recv)
          LocalId[I] = L.addRecv(A, Op.Bytes, Op.Peer, Op.Tag);
        else
          continue;
        for (uint32_t Before : Op.After)
          if (LocalId[Before] != UINT32_MAX)
            L.addDependency(LocalId[Before], LocalId[I]);
      }
      if (!G.add(L).ok())
        return false;
    }
    return true;
  };
  for (int64_t P : {3, 4}) {
    cg::Graph G(static_cast<cg::Rank>(P));
    RankRun Stopped;
    std::optional<bool> Ran = Build(P, {}, G, Stopped);
    // An input past the last rank (the default root at 3 processes) is
    // no value the program gives it: the first rank instead.
    if (!Ran &&
        Stopped.Stopped->Text.find("which does not exist") !=
            std::string::npos &&
        (Stopped.DecidingInputs & Stopped.ReadInputs)) {
      G = cg::Graph(static_cast<cg::Rank>(P));
      Ran = Build(P, std::vector<int64_t>(Eval.inputs().size(), 0), G, Stopped);
    }
    // A peer past the last rank at 3 processes only (recursive doubling):
    // the judge tells which sizes the pattern is wrong for.
    if (!Ran && P == 3 &&
        Stopped.Stopped->Text.find("which does not exist") != std::string::npos)
      continue;
    if (!Ran) {
      Result.S = Closure::State::Stopped;
      Result.Why = *Stopped.Stopped;
      return Result;
    }
    if (!*Ran)
      return Result;
    cg::Matching M;
    cg::Status S = cg::match(G, M);
    if (!S.ok() && (!M.Unmatched.empty() || !M.NeverReady.empty()))
      return Result;
  }
  Result.S = Closure::State::Closes;
  return Result;
}

} // namespace analysis
} // namespace mpilift
