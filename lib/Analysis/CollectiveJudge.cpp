//===- CollectiveJudge.cpp - Which collective a region implements ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CollectiveJudge.h"

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
  if (E->HasSideEffects(Ctx) || E->isValueDependent() || E->isTypeDependent())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  return !findFirst(E, [&](const Stmt *S) {
    if (isa<CallExpr>(S) || isa<CXXThisExpr>(S))
      return isa<CallExpr>(S) &&
             !(isa<CXXMemberCallExpr>(S) &&
               cast<CXXMemberCallExpr>(S)->getMethodDecl() &&
               cast<CXXMemberCallExpr>(S)->getMethodDecl()->getIdentifier() &&
               cast<CXXMemberCallExpr>(S)->getMethodDecl()->getName() ==
                   "data");
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return V && R.contains(V, SM);
  });
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
    if (!usable(E, R, Ctx) || !Seen.insert(Plain).second)
      return;
    Out.push_back({E, Int, Pointer});
  };
  std::function<void(const Expr *)> AddParts = [&](const Expr *E) {
    if (!E)
      return;
    Add(E);
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child))
        if (!isa<CallExpr>(CE))
          AddParts(CE);
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
  findFirst(R.Function->getBody(), [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || R.contains(V, SM) || SeenVars.count(V))
      return false;
    bool InScope = isa<ParmVarDecl>(V) || V->hasGlobalStorage();
    if (!InScope && V->getParentFunctionOrMethod() == R.Function &&
        SM.isBeforeInTranslationUnit(V->getLocation(),
                                     R.first()->getBeginLoc())) {
      // Declared in a block that holds the region.
      for (const Stmt *B = R.Block; B; B = parentStmt(*B, Ctx)) {
        if (const auto *Block = dyn_cast<CompoundStmt>(B))
          if (SM.isPointWithin(V->getLocation(), Block->getBeginLoc(),
                               Block->getEndLoc()))
            InScope = true;
        if (B == R.Function->getBody())
          break;
      }
    }
    if (InScope)
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
  bool shape(int64_t P, const cg::Collective &C,
             const std::vector<cg::Transfer> &Self, Observation &O);
  void filterCandidates(const Observation &O, const std::vector<RankRun> &Runs);
  std::vector<std::vector<int64_t>> settingsAt(int64_t P);
  void choose(RegionProof &Proof);

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
  /// Operations of all ranks at a size (the largest over its settings).
  std::map<int64_t, uint64_t> OpsAt;

public:
  /// Sizes beyond 64 whose runs would take more operations than this are
  /// not evaluated (an allgather of 4099 processes is 16.8 M messages).
  static constexpr uint64_t OperationBudget = 400'000;
  std::vector<int64_t> Skipped;
};

/// Whether the runs at \p P would exceed the budget, predicted from how
/// the operations grew from 32 to 64 processes.
bool Judge::tooLarge(int64_t P) {
  if (P <= 64 || !OpsAt.count(32) || !OpsAt.count(64) || !OpsAt[32])
    return false;
  double Growth =
      std::log(double(OpsAt[64]) / double(OpsAt[32])) / std::log(2.0);
  double Predicted = double(OpsAt[64]) * std::pow(double(P) / 64.0, Growth);
  if (Predicted <= double(OperationBudget))
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
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    const RankRun &Run = Runs[Rank];
    cg::LocalGraph L(static_cast<cg::Rank>(Rank));
    for (const RankOp &Op : Run.Ops) {
      if (Op.Offset < 0 || static_cast<uint64_t>(Op.Offset) > OffsetMask) {
        refuse(SafetyCheck::MessageIntegrity,
               "a buffer lies before the start of " +
                   Run.Objects[Op.Object].Name,
               Op.Site->getBeginLoc());
        return std::nullopt;
      }
      cg::Address A = addressOf(Op.Object, Op.Offset);
      uint32_t Id;
      switch (Op.K) {
      case RankOp::Kind::Send:
        Id = L.addSend(A, Op.Bytes, Op.Peer, Op.Tag);
        break;
      case RankOp::Kind::Recv:
        Id = L.addRecv(A, Op.Bytes, Op.Peer, Op.Tag);
        break;
      case RankOp::Kind::Local:
        Id = L.addLocal(A, Op.Bytes);
        break;
      }
      for (uint32_t Before : Op.After)
        L.addDependency(Before, Id);
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
  cg::Matching M;
  if (cg::Status S = cg::match(G, M); !S.ok()) {
    bool Sizes = S.Message.find("differ in size") != std::string::npos;
    refuse(Sizes ? SafetyCheck::MatchingArguments
                 : SafetyCheck::ScaleIndependence,
           "at " + processes(P) + " the messages do not match: " + S.Message,
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
  return O;
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
      const eval::Value &Val = Run.Probes[I];
      auto Is = [&](const std::optional<Where> &W) {
        return W && Val.isPointer() && Val.Obj == W->Obj && Val.I == W->Off;
      };
      bool Rooted = isRooted(O.Kind);
      if (AsRoot[I] && Rooted && !(Val.isInt() && Val.I == O.Root))
        AsRoot[I] = false;
      if (AsCount[I] && !(Val.isInt() && TypeSize &&
                          static_cast<uint64_t>(Val.I) * *TypeSize == O.Block))
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
  auto Keep = [](const Expr *, const Expr *) { return false; };
  Proof.Count = First(AsCount, Keep);
  switch (Proof.Kind) {
  case ManualKind::Bcast:
    Proof.Root = First(AsRoot, Simpler);
    Proof.Buffer = First(AsBuffer, Keep);
    break;
  case ManualKind::Scatter:
  case ManualKind::Gather:
    Proof.Root = First(AsRoot, Simpler);
    Proof.SendBuffer = First(AsSend, Keep);
    Proof.RecvBuffer = First(AsRecv, Keep);
    break;
  case ManualKind::Allgather:
  case ManualKind::Alltoall:
    Proof.SendBuffer = First(AsSend, Keep);
    Proof.RecvBuffer = First(AsRecv, Keep);
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
        return std::move(V);
      }
      uint64_t Ops = 0;
      for (const RankRun &Run : RankRuns)
        Ops += Run.Ops.size();
      OpsAt[P] = std::max(OpsAt[P], Ops);
      std::optional<Observation> O = observe(P, RankRuns);
      if (!V.Refusals.empty())
        return std::move(V);
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
  if (V.Refusals.empty())
    V.Proof = Proof;
  return std::move(V);
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

} // namespace analysis
} // namespace mpilift
