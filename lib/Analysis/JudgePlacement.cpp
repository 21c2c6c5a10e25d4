//===- JudgePlacement.cpp - Where the collective call goes ----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "JudgeImpl.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {
namespace judge {

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

/// A kept statement's read of what a reduction folded values into.
struct StaleRead {
  const Stmt *Site;
  std::string Name;
};

/// The first read, by a statement the rewrite keeps (\p Kept), of an
/// accumulator or a received value that the hand-written reduction's
/// combines wrote or read, once they have started, other than where the
/// collective leaves its result or the rank's own contribution: without
/// the combines it holds something else (`acc = mine;`, the combines, then
/// `*out = acc;` kept while MPI_Reduce writes `*out`).
template <typename KeptFn>
std::optional<StaleRead> staleAccumulatorRead(const RankRun &Run,
                                              const Observation &O,
                                              int64_t Rank, KeptFn Kept) {
  eval::ObjectId Result = O.Recv[Rank] ? O.Recv[Rank]->Obj : eval::NullObject;
  eval::ObjectId Mine = O.Send[Rank] ? O.Send[Rank]->Obj : eval::NullObject;
  llvm::DenseSet<eval::ObjectId> Stale;
  uint32_t Start = 0;
  for (size_t I = 0; I < Run.Ops.size(); ++I) {
    const RankOp &Op = Run.Ops[I];
    if (Op.K != RankOp::Kind::Combine)
      continue;
    if (Stale.empty())
      Start = uint32_t(I);
    if (Op.Object != Result)
      Stale.insert(Op.Object);
    if (Op.FromObject != Result && Op.FromObject != Mine)
      Stale.insert(Op.FromObject);
  }
  Stale.erase(eval::NullObject);
  if (Stale.empty())
    return std::nullopt;
  for (size_t I = Start; I < Run.Ops.size(); ++I) {
    const RankOp &Op = Run.Ops[I];
    const Stmt *Site = Op.Origin ? Op.Origin : Op.Site;
    if (Op.K == RankOp::Kind::Local && Op.CopyOf &&
        Stale.count(Op.FromObject) && Kept(Site))
      return StaleRead{Site, Run.Objects[Op.FromObject].Name};
  }
  for (const RankRead &Read : Run.Reads) {
    const Stmt *Site = Read.Origin ? Read.Origin : Read.Site;
    if (Read.At > Start && Stale.count(Read.Object) && Kept(Site))
      return StaleRead{Site, Run.Objects[Read.Object].Name};
  }
  return std::nullopt;
}

} // namespace

bool Judge::place(RegionProof &Proof) {
  RegionEdits Edits = planEdits(R, TU, Proof.arguments(), Proof.Combines);
  if (Edits.Problem) {
    refuse(Edits.Problem->Check, Edits.Problem->Reason, Edits.Problem->Loc);
    return false;
  }
  // The arguments, evaluated where the call goes.
  enum Slot {
    RootSlot,
    CountSlot,
    BufferSlot,
    SendSlot,
    RecvSlot,
    CountsSlot,
    DisplsSlot
  };
  std::vector<Probe> Args;
  std::vector<Slot> Slots;
  auto Arg = [&](const Expr *E, Slot S,
                 BufferSpelling Spelling = BufferSpelling::AsWritten) {
    if (E) {
      Args.push_back(Probe(E, Spelling));
      Slots.push_back(S);
    }
  };
  Arg(Proof.Root, RootSlot);
  Arg(Proof.Count, CountSlot);
  Arg(Proof.Buffer, BufferSlot);
  Arg(Proof.SendBuffer, SendSlot, Proof.SendSpelling);
  Arg(Proof.RecvBuffer, RecvSlot, Proof.RecvSpelling);
  Arg(Proof.Counts, CountsSlot);
  Arg(Proof.Displs, DisplsSlot);
  bool Vector = Proof.Counts != nullptr;
  // The v form's base at the root: its send buffer (scatter), its receive
  // buffer (gather).
  Slot BaseSlot = Proof.Kind == ManualKind::Scatter ? SendSlot : RecvSlot;
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
      // Where every rank leaves before the region (`if (size <= 1)
      // return;`), none reaches the call either.
      if (llvm::none_of(llvm::ArrayRef(Runs2).take_front(P),
                        [](const RankRun &Run) { return Run.Reached; }))
        continue;
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
            auto ValueOf = [&](Slot S) -> const eval::Value * {
              for (size_t K = 0; K < Slots.size(); ++K)
                if (Slots[K] == S)
                  return &Op.Values[K];
              return nullptr;
            };
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
                // A v form's root passes no count of its own.
                if (Vector)
                  Right &= Rank == O->Root ||
                           (Val.isInt() && O->TypeSize &&
                            uint64_t(Val.I) * *O->TypeSize == O->Bytes[Rank]);
                else
                  Right &= Val.isInt() && O->TypeSize &&
                           uint64_t(Val.I) * *O->TypeSize == O->Block;
                break;
              case CountsSlot:
              case DisplsSlot:
                // Only the root's matter; checked below.
                break;
              case BufferSlot:
                Right &= Is(O->Buffer[Rank]);
                break;
              case SendSlot:
              case RecvSlot:
                // A v form's base at the root: the displacements from it
                // are checked below.
                if (!(Vector && PR.IsRoot && Slots[K] == BaseSlot))
                  Right &=
                      Is(Slots[K] == SendSlot ? O->Send[Rank] : O->Recv[Rank]);
                break;
              }
            }
            if (Vector && O && Right && PR.IsRoot && O->TypeSize) {
              std::optional<std::vector<std::optional<int64_t>>> Counts =
                  vectorCounts(*O, *O->TypeSize);
              std::optional<std::vector<std::optional<int64_t>>> Displs =
                  vectorDispls(*O, *ValueOf(BaseSlot), *O->TypeSize);
              Right = Counts && Displs &&
                      holdsInts(Run, *ValueOf(CountsSlot), *Counts) &&
                      holdsInts(Run, *ValueOf(DisplsSlot), *Displs);
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
          // A reduction's accumulators and what it folds into them are
          // its messages too.
          if (Op.K == RankOp::Kind::Combine) {
            Messages.insert(Op.Object);
            Messages.insert(Op.FromObject);
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
        if (O && isReduction(Proof.Kind))
          if (std::optional<StaleRead> Stale =
                  staleAccumulatorRead(Run, *O, Rank, Kept)) {
            refuse(SafetyCheck::MessageIntegrity,
                   "this statement stays and reads " + Stale->Name +
                       ", which holds the combined value only in the "
                       "hand-written code: the collective call leaves the "
                       "result elsewhere, and " +
                       Stale->Name + " would keep what it held before",
                   Stale->Site->getBeginLoc());
            return false;
          }
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
          // Reads of scalar variables count for reductions only (a
          // partial sum printed between the receives).
          if (Read.Scalar && !isReduction(Proof.Kind))
            continue;
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
  bool RootDiffers = Proof.Kind == ManualKind::Scatter ||
                     Proof.Kind == ManualKind::Gather ||
                     (Proof.Kind == ManualKind::Reduce && Proof.InPlace);
  auto Separates = [&](const llvm::SmallPtrSetImpl<const Stmt *> &Plan) {
    if (!RootDiffers)
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
    if (Root && Others && RootDiffers)
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

} // namespace judge
} // namespace analysis
} // namespace mpilift
