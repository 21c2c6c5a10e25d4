//===- JudgeRun.cpp - The sizes and settings a region is judged at ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The judge's driver: which communicator sizes and input settings a
/// region is run at (every size to 64 and larger ones, within a budget of
/// operations), the verdict it draws from what each size formed, and the
/// entry points the rule and the polling form call.
///
//===----------------------------------------------------------------------===//

#include "JudgeImpl.h"
#include "RankUniformity.h"
#include "RegionEdits.h"

#include "clang/Basic/SourceManager.h"

#include <cmath>

using namespace clang;
namespace cg = mpilift::commgraph;

namespace mpilift {
namespace analysis {
namespace judge {

/// Whether the runs at \p P would exceed the budget, predicted from how
/// the operations grew from 32 to 64 processes, and from the parabola
/// through 16, 32 and 64 (work of every rank over all ranks, such as
/// counts computed on each, hides behind one rank's fixed work in the
/// growth from 32 to 64 alone).
bool Judge::tooLarge(int64_t P) {
  auto Predict = [&](std::map<int64_t, uint64_t> &At) {
    if (!At.count(32) || !At.count(64) || !At[32] || !At[64])
      return 0.0;
    double Growth = std::log(double(At[64]) / double(At[32])) / std::log(2.0);
    double Power = double(At[64]) * std::pow(double(P) / 64.0, Growth);
    if (!At.count(16))
      return Power;
    // Lagrange's form of the parabola through the three points.
    double X = double(P), Y16 = double(At[16]), Y32 = double(At[32]),
           Y64 = double(At[64]);
    double Parabola = Y16 * (X - 32) * (X - 64) / ((16.0 - 32) * (16.0 - 64)) +
                      Y32 * (X - 16) * (X - 64) / ((32.0 - 16) * (32.0 - 64)) +
                      Y64 * (X - 16) * (X - 32) / ((64.0 - 16) * (64.0 - 32));
    return std::max(Power, Parabola);
  };
  if (P <= 64 || (Predict(OpsAt) <= double(OperationBudget) &&
                  Predict(StepsAt) <= double(SizeStepBudget) &&
                  Predict(TransfersAt) <= double(TransferBudget)))
    return false;
  Skipped.push_back(P);
  return true;
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

/// The values of the enumeration \p D is declared with, and one that is
/// none of them; nothing when its type is no enumeration, or one of too
/// many values to try each.
static std::vector<int64_t> enumerationValues(const ValueDecl *D) {
  constexpr size_t MaxEnumerators = 16;
  std::vector<int64_t> Out;
  const auto *Enum = D ? D->getType()->getAs<EnumType>() : nullptr;
  const EnumDecl *Decl = Enum ? Enum->getDecl()->getDefinition() : nullptr;
  if (!Decl)
    return Out;
  for (const EnumConstantDecl *C : Decl->enumerators()) {
    if (Out.size() == MaxEnumerators)
      return {};
    int64_t Value = C->getInitVal().getExtValue();
    if (!llvm::is_contained(Out, Value))
      Out.push_back(Value);
  }
  int64_t Other = 0;
  while (llvm::is_contained(Out, Other))
    ++Other;
  if (!Out.empty())
    Out.push_back(Other);
  return Out;
}

std::vector<std::vector<int64_t>> Judge::settingsAt(int64_t P) {
  return inputSettings(Eval.inputs().size(), [&](unsigned Bit) {
    // Every value at small sizes; the edges and the middle beyond. A
    // count only needs a second value, so that no expression that merely
    // equals the first passes for it; an input that never decided control
    // flow, a peer or a tag changes the sizes of the same messages only,
    // so a few sizes tell the count's expression apart.
    std::vector<int64_t> Values;
    bool Decides = Deciding & (1u << Bit), Sizes = Sizing & (1u << Bit);
    if (!Decides && (!Sizes || (P > 16 && P != 64)))
      return Values; // The default alone.
    // An enumeration's own values (HPL's HPL_INT is 100: the ranks'
    // numbers would never reach it), whatever the size.
    if (Decides)
      if (std::vector<int64_t> Enumerated =
              enumerationValues(Eval.inputs()[Bit].Decl);
          !Enumerated.empty())
        return Enumerated;
    if (!Decides)
      Values = {RankEvaluator::DefaultInput, RankEvaluator::DefaultInput + 4};
    else if (P <= 16)
      for (int64_t X = 0; X < P; ++X)
        Values.push_back(X);
    else
      Values = {0, 1, P / 2, P - 1};
    return Values;
  });
}

Verdict Judge::run() {
  const SourceManager &SM = Ctx.getSourceManager();
  Candidates = candidatesOf(R, Ctx);
  std::vector<Probe> Probes;
  for (const Candidate &C : Candidates)
    Probes.push_back(Probe(C.E, C.Spelling));
  Eval.setProbes(Probes);
  // The candidates are also evaluated where the call may go: a buffer the
  // region allocates before its messages has its value only there.
  Eval.setAnchors(planEdits(R, TU).Anchors, Probes,
                  /*UntilFirstMessage=*/true);
  size_t N = Candidates.size();
  AsRoot.assign(N, false);
  AsCount.assign(N, false);
  AsBuffer.assign(N, false);
  AsSend.assign(N, false);
  AsRecv.assign(N, false);
  AsCounts.assign(N, false);
  AsOwnCount.assign(N, false);
  AsRank.assign(N, false);
  FirstResult.assign(N, std::nullopt);
  FirstSeen.assign(N, false);
  for (size_t I = 0; I < N; ++I) {
    AsRoot[I] = AsCount[I] = AsOwnCount[I] = AsRank[I] = Candidates[I].Int;
    AsBuffer[I] = AsSend[I] = AsRecv[I] = Candidates[I].Pointer;
    AsCounts[I] = Candidates[I].IntArray;
    for (size_t J = 0; J < N; ++J)
      if (Candidates[I].Pointer && Candidates[J].IntArray && I != J &&
          Candidates[I].Spelling == BufferSpelling::AsWritten)
        BaseDispls.push_back({I, J});
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
    else
      lookElsewhere(4);
    return std::move(V);
  }
  if (llvm::popcount(Deciding) > 2) {
    std::string Names;
    for (unsigned Bit = 0; Bit < Eval.inputs().size(); ++Bit)
      if (Deciding & (1u << Bit))
        Names += (Names.empty() ? "" : ", ") + Eval.inputs()[Bit].Name;
    refuse(SafetyCheck::InputIndependence,
           "the region's control flow depends on " +
               std::to_string(llvm::popcount(Deciding)) + " inputs (" + Names +
               "); at most two are evaluated",
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
  for (size_t At = 0; At < Order.size(); ++At) {
    int64_t P = Order[At];
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
      // Each larger size still to try takes at least this one's steps (a
      // rank's work shrinks with the processes at most as fast as they
      // grow): what is bound to exceed the budget stops now, not half a
      // minute on.
      uint64_t Ahead =
          Steps * llvm::count_if(ArrayRef(Order).drop_front(At + 1),
                                 [P](int64_t Q) { return Q > P && Q <= 64; });
      if (TotalSteps + Ahead > StepBudget) {
        refuse(SafetyCheck::ScaleIndependence,
               "evaluating the region at every size takes too long (" +
                   std::to_string(TotalSteps / 1000000) + " million steps by " +
                   processes(P) + ", " +
                   std::to_string((TotalSteps + Ahead) / 1000000) +
                   " million at least for all); it does more than communicate",
               regionLoc());
        return std::move(V);
      }
      std::optional<Observation> O =
          observeBuffering(P, Setting, RankRuns, Skip);
      if (!V.Refusals.empty()) {
        lookElsewhere(P);
        return std::move(V);
      }
      // One process moves nothing, but the rewrite still sets rank 0's
      // result after MPI_Exscan: it must be what this size left there too.
      if (!O && P == 1 && Reference == ManualKind::Exscan)
        for (size_t I = 0; I < Candidates.size(); ++I)
          if (AsRecv[I] && FirstSeen[I])
            noteFirstResult(I, RankRuns[0],
                            valuesBeforeMessages(RankRuns[0], I), FirstBlock);
      if (!O)
        continue;
      filterCandidates(*O, RankRuns);
      // A candidate wrong in every role need not be evaluated again.
      std::vector<bool> Live(Candidates.size());
      for (size_t I = 0; I < Candidates.size(); ++I)
        Live[I] = AsRoot[I] || AsCount[I] || AsBuffer[I] || AsSend[I] ||
                  AsRecv[I] || AsCounts[I] || AsOwnCount[I] || AsRank[I];
      for (auto [Base, Displs] : BaseDispls)
        Live[Base] = Live[Displs] = true;
      Eval.setLiveProbes(std::move(Live));
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
  if (AnyVector && !chooseVector(Proof))
    return std::move(V);
  if (FirstCall) {
    Proof.Comm = mpiArgAsWritten(FirstCall, mpi::Role::Comm);
    Proof.Datatype = mpiArgAsWritten(FirstCall, mpi::Role::Datatype);
    if (!Proof.Datatype)
      Proof.Datatype = mpiArgAsWritten(FirstCall, mpi::Role::SendType);
  }
  if (isRooted(Proof.Kind) && !Proof.Root) {
    if (RootValues.size() == 1)
      Proof.RootConstant = *RootValues.begin();
    else
      refuseMissing("root");
  }
  if (!Proof.Count) {
    if (CountValues.size() == 1)
      Proof.CountConstant = *CountValues.begin();
    else
      refuseMissing("count");
  }
  if (!Proof.Comm || !usable(Proof.Comm, R, Ctx) || !Proof.Datatype ||
      !usable(Proof.Datatype, R, Ctx))
    refuseMissing("communicator and datatype");
  switch (Proof.Kind) {
  case ManualKind::Bcast:
    if (!Proof.Buffer)
      refuseMissing("buffer");
    break;
  case ManualKind::Scatter:
  case ManualKind::Gather:
    if (!Proof.SendBuffer || !Proof.RecvBuffer)
      refuseMissing("buffers");
    break;
  case ManualKind::Allgather:
  case ManualKind::Alltoall:
    if (!AllInPlace && !NoneInPlace)
      refuse(SafetyCheck::MessageIntegrity,
             "some ranks exchange in place and others do not", regionLoc());
    Proof.InPlace = AllInPlace;
    if (!Proof.RecvBuffer || (!Proof.InPlace && !Proof.SendBuffer))
      refuseMissing("buffers");
    break;
  case ManualKind::Reduce:
  case ManualKind::Allreduce:
  case ManualKind::Scan:
  case ManualKind::Exscan:
    chooseReduction(Proof);
    break;
  }
  (void)SM;
  if (V.Refusals.empty())
    checkRunsAlike();
  if (V.Refusals.empty() && place(Proof))
    V.Proof = Proof;
  return std::move(V);
}

void Judge::checkRunsAlike() {
  // A polling region is called until its message is there, as often as
  // each process needs; the polling proof speaks for its callers.
  if (R.ProbesArrive)
    return;
  RankUniformity Uniformity(TU);
  Uniformity.setCommunicator(Eval.regionComm());
  if (auto Why = Uniformity.controlDivergence(R.first(), *R.Function)) {
    refuse(SafetyCheck::InputIndependence,
           "some ranks may run the region and others not, or not as "
           "often: " +
               Why->Reason,
           Why->Loc);
    return;
  }
  if (auto Why = Uniformity.visibleCallersDivergence(*R.Function))
    refuse(SafetyCheck::InputIndependence,
           "some ranks may call '" + R.Function->getNameAsString() +
               "' and others not, or not as often: " + Why->Reason,
           Why->Loc);
}

} // namespace judge

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

SafetyCheck checkOfStop(const eval::Reason &Why) {
  return Why.MissingPeer ? SafetyCheck::ScaleIndependence
                         : SafetyCheck::InputIndependence;
}

Verdict judgeRegion(TranslationUnitFacts &TU, const Region &R) {
  judge::Judge J(TU, R);
  return J.run();
}

Closure regionCloses(TranslationUnitFacts &TU, const Region &R) {
  RankEvaluator Eval(TU, R);
  Closure Result;
  // One size's runs into a graph: nothing when a run stops, false when
  // the operations make no valid graph. DecidingRead: some run read an
  // input that decides control flow.
  bool DecidingRead = false;
  // Some run reached the region.
  bool Reached = false;
  auto Build = [&](int64_t P, ArrayRef<int64_t> Setting, cg::Graph &G,
                   RankRun &Stopped) -> std::optional<bool> {
    Reached = false;
    for (int64_t Rank = 0; Rank < P; ++Rank) {
      RankRun Run = Eval.run(Rank, P, Setting);
      DecidingRead |= (Run.DecidingInputs & Run.ReadInputs) != 0;
      Reached |= Run.Reached;
      if (Run.Stopped) {
        Stopped = std::move(Run);
        return std::nullopt;
      }
      cg::LocalGraph L(static_cast<cg::Rank>(Rank));
      std::vector<uint32_t> LocalId(Run.Ops.size(), UINT32_MAX);
      for (size_t I = 0; I < Run.Ops.size(); ++I) {
        const RankOp &Op = Run.Ops[I];
        cg::Address A =
            judge::addressOf(Op.Object, std::max<int64_t>(Op.Offset, 0));
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
  enum class Outcome { Stops, Invalid, Open, Closes };
  // One size with one setting: whether its messages match among themselves.
  auto Try = [&](int64_t P, ArrayRef<int64_t> Setting, RankRun &Stopped) {
    cg::Graph G(static_cast<cg::Rank>(P));
    std::optional<bool> Ran = Build(P, Setting, G, Stopped);
    if (!Ran)
      return Outcome::Stops;
    if (!*Ran)
      return Outcome::Invalid;
    cg::Matching M;
    cg::Status S = cg::match(G, M);
    return S.ok() || (M.Unmatched.empty() && M.NeverReady.empty())
               ? Outcome::Closes
               : Outcome::Open;
  };
  // A peer past the last rank at 3 and 4 processes (a root of 4): the
  // region may close at 8, and the judge tells which sizes it is wrong for.
  bool MissingAtSmall = false;
  eval::Reason FirstMissing;
  for (int64_t P : {3, 4, 8}) {
    if (P == 8 && !MissingAtSmall)
      break;
    RankRun Stopped;
    DecidingRead = false;
    Outcome O = Try(P, {}, Stopped);
    // The default value of an input that decides control flow may be no
    // value the program gives it (a root of 3 at 3 processes): a run stops
    // at a peer past the last rank, or every rank of a ring receives. The
    // first rank instead.
    bool NoRank = O == Outcome::Stops
                      ? Stopped.Stopped->MissingPeer &&
                            (Stopped.DecidingInputs & Stopped.ReadInputs)
                      : O == Outcome::Open && DecidingRead;
    // Unless no rank reaches the region then (a count of 0 returns before
    // a broadcast function's tree): nothing is left open where nothing
    // runs, which says nothing of the region.
    if (NoRank) {
      RankRun FirstRank;
      Outcome AtFirst =
          Try(P, std::vector<int64_t>(Eval.inputs().size(), 0), FirstRank);
      if (Reached || AtFirst == Outcome::Stops) {
        O = AtFirst;
        Stopped = std::move(FirstRank);
      }
    }
    // A peer past the last rank at 3 processes only (recursive doubling):
    // the judge tells which sizes the pattern is wrong for.
    if (O == Outcome::Stops && P == 3 && Stopped.Stopped->MissingPeer)
      continue;
    if (O == Outcome::Stops && P == 4 && Stopped.Stopped->MissingPeer) {
      MissingAtSmall = true;
      FirstMissing = *Stopped.Stopped;
      continue;
    }
    // Still missing at 8: what stopped the smaller run says why.
    if (O == Outcome::Stops && P == 8 && Stopped.Stopped->MissingPeer) {
      Result.S = Closure::State::Stopped;
      Result.Why = FirstMissing;
      return Result;
    }
    if (O == Outcome::Stops) {
      Result.S = Closure::State::Stopped;
      Result.Why = *Stopped.Stopped;
      return Result;
    }
    if (O != Outcome::Closes)
      return Result;
  }
  Result.S = Closure::State::Closes;
  return Result;
}

} // namespace analysis
} // namespace mpilift
