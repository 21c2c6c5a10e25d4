//===- FusionGathervBlocks.cpp - MPI_Gatherv, then MPI_Bcast --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// MPI_Gatherv to a root followed by MPI_Bcast of the gathered buffer from
/// that root leaves on every rank what the root gathered. MPI_Allgatherv
/// does that in one call under two conditions the calls' spelling does not
/// show. It reads the counts and displacements on every rank, where
/// MPI_Gatherv reads them at the root only: every rank must hold the
/// root's values. And it writes the gathered blocks only, where the
/// broadcast writes its whole count of elements: the blocks must be
/// exactly those elements, each once.
///
/// Both are facts about values, which the rank-space evaluator proves: the
/// two calls' statements are a region, and every rank's run reads at its
/// entry the two arrays, the count the rank sends and the broadcast's
/// count, at every communicator size to 16 and at 31, 64 and 97, with the
/// region's inputs that the runs read (values proven the same on every
/// rank, such as a problem size) set to small, size-related and large
/// values. What the runs cannot follow (counts filled by another
/// collective, or on the root only) refuses the fusion with the reason.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Fusion.h"

#include "mpilift/Analysis/MPICalls.h"

#include "FusionForms.h"
#include "RankEvaluator.h"
#include "StatementTree.h"

#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// What one rank's run read at the MPI_Gatherv.
struct RankView {
  std::vector<int64_t> Counts, Displs;
  /// -1 when it cannot be evaluated.
  int64_t Sent = -1;
  int64_t Total = 0;
};

/// The probes, in this order.
enum ProbeIndex : unsigned { CountsProbe, DisplsProbe, SentProbe, TotalProbe };

/// The communicator sizes the blocks are judged at.
ArrayRef<int64_t> blockSizes() {
  static const std::vector<int64_t> Sizes = [] {
    std::vector<int64_t> S;
    for (int64_t P = 1; P <= 16; ++P)
      S.push_back(P);
    for (int64_t P : {31, 64, 97})
      S.push_back(P);
    return S;
  }();
  return Sizes;
}

/// The values an input the counts read takes at size \p P: the small ones,
/// those around the size (where a remainder changes), and large ones.
std::vector<int64_t> inputValues(int64_t P) {
  std::vector<int64_t> V = {0,  1,   2,    3,     5, 7,     8,
                            13, 100, 1001, P - 1, P, P + 1, 2 * P + 1};
  llvm::erase_if(V, [](int64_t X) { return X < 0; });
  llvm::sort(V);
  V.erase(std::unique(V.begin(), V.end()), V.end());
  return V;
}

/// Runs at most this many ranks in all: the sizes above 16 are left out,
/// largest first, when two inputs multiply the settings.
constexpr uint64_t RunBudget = 40000;

constexpr int64_t IntBytes = 4;

class BlocksProof {
public:
  BlocksProof(TranslationUnitFacts &TU, const FusionSite &Site,
              unsigned GathervIndex, unsigned BcastIndex, ASTContext &Context)
      : Context(Context), Gatherv(Site.Calls[0]), Bcast(Site.Calls[1]),
        Eval(TU, regionOf(Site, GathervIndex, BcastIndex)) {
    Eval.setProbes(
        {Probe(mpiArg(Gatherv, mpi::Role::RecvCounts),
               BufferSpelling::AsWritten),
         Probe(mpiArg(Gatherv, mpi::Role::RecvDispls),
               BufferSpelling::AsWritten),
         Probe(mpiArg(Gatherv, mpi::Role::SendCount),
               BufferSpelling::AsWritten),
         Probe(mpiArg(Bcast, mpi::Role::Count), BufferSpelling::AsWritten)});
    SameTypes = sameExpression(mpiArg(Gatherv, mpi::Role::SendType),
                               mpiArg(Gatherv, mpi::Role::RecvType), Context);
  }

  /// Nothing when the blocks hold at every size and setting tried;
  /// otherwise why not.
  std::optional<Refusal> run();

private:
  /// The two calls' statements and those between: what the broadcast's
  /// count reads is computed before them. The runs stop at MPI_Gatherv,
  /// having read the probes at the region's entry.
  static Region regionOf(const FusionSite &Site, unsigned First,
                         unsigned Last) {
    Region R;
    R.Function = Site.Function;
    R.Block = Site.Block;
    R.First = First;
    R.Last = Last;
    return R;
  }
  /// The settings at \p P: every combination of inputValues for the
  /// inputs in \p Read (bits), the default for the others.
  std::vector<std::vector<int64_t>> settingsAt(int64_t P, uint32_t Read) const;
  /// Runs every rank of \p P with \p Setting into Views.
  std::optional<Refusal> runRanks(int64_t P, ArrayRef<int64_t> Setting);
  /// Reads \p P ints of the array \p Probe points to in \p Run into \p Out.
  std::optional<Refusal> readArray(const RankRun &Run, ProbeIndex Probe,
                                   int64_t P, std::vector<int64_t> &Out);
  std::optional<Refusal> readInt(const RankRun &Run, ProbeIndex Probe,
                                 int64_t &Out);
  /// The views of one size agree, and their blocks are the broadcast's
  /// elements.
  std::optional<Refusal> compare(int64_t P);
  std::optional<Refusal> tile(const RankView &V, int64_t P);

  /// "the counts 'counts'", for the probe \p Probe.
  std::string named(ProbeIndex Probe) const;
  /// " on rank 1 of 3 (with 'n' = 7)": where the current run is (the
  /// inputs the runs read so far).
  std::string where(int64_t Rank) const;
  /// " at 3 processes (with 'n' = 7)".
  std::string at() const;
  std::string settingText() const;
  Refusal refuse(SafetyCheck Check, std::string Why,
                 const CallExpr *Call) const {
    return {Check, std::move(Why), Call->getBeginLoc()};
  }

  ASTContext &Context;
  const CallExpr *Gatherv, *Bcast;
  RankEvaluator Eval;
  bool SameTypes = false;
  int64_t Size = 0;
  /// The inputs some run read (bits).
  uint32_t ReadInputs = 0;
  std::vector<int64_t> Setting;
  std::vector<RankView> Views;
  RankRun Run;
};

std::string BlocksProof::named(ProbeIndex Probe) const {
  auto Text = [&](mpi::Role R, const CallExpr *Call) {
    return "'" + fusion::spelled(mpiArgAsWritten(Call, R), Context) + "'";
  };
  switch (Probe) {
  case CountsProbe:
    return "the counts " + Text(mpi::Role::RecvCounts, Gatherv);
  case DisplsProbe:
    return "the displacements " + Text(mpi::Role::RecvDispls, Gatherv);
  case SentProbe:
    return "the send count " + Text(mpi::Role::SendCount, Gatherv);
  case TotalProbe:
    return "the broadcast's count " + Text(mpi::Role::Count, Bcast);
  }
  llvm_unreachable("unknown probe");
}

std::string BlocksProof::settingText() const {
  std::string Out;
  ArrayRef<RegionInput> Inputs = Eval.inputs();
  for (unsigned Bit = 0; Bit < Inputs.size() && Bit < Setting.size(); ++Bit)
    if (ReadInputs & (1u << Bit))
      Out += (Out.empty() ? " (with " : ", ") + Inputs[Bit].Name + " = " +
             std::to_string(Setting[Bit]);
  return Out.empty() ? Out : Out + ")";
}

std::string BlocksProof::where(int64_t Rank) const {
  return " on rank " + std::to_string(Rank) + " of " + std::to_string(Size) +
         settingText();
}

std::string BlocksProof::at() const {
  return " at " + std::to_string(Size) +
         (Size == 1 ? " process" : " processes") + settingText();
}

std::vector<std::vector<int64_t>> BlocksProof::settingsAt(int64_t P,
                                                          uint32_t Read) const {
  return inputSettings(Eval.inputs().size(), [&](unsigned Bit) {
    return Read & (1u << Bit) ? inputValues(P) : std::vector<int64_t>();
  });
}

std::optional<Refusal> BlocksProof::readInt(const RankRun &Run,
                                            ProbeIndex Probe, int64_t &Out) {
  const eval::Value &V = Run.Probes[Probe];
  if (V.isInt()) {
    Out = V.I;
    return std::nullopt;
  }
  std::string Why = Eval.reasonOf(V.isKnown() ? 0 : V.Why).Text;
  return refuse(SafetyCheck::InputIndependence,
                named(Probe) + " cannot be evaluated" +
                    where(static_cast<int64_t>(Views.size())) +
                    (Why.empty() ? "" : ": " + Why),
                Probe == TotalProbe ? Bcast : Gatherv);
}

std::optional<Refusal> BlocksProof::readArray(const RankRun &Run,
                                              ProbeIndex Probe, int64_t P,
                                              std::vector<int64_t> &Out) {
  int64_t Rank = static_cast<int64_t>(Views.size());
  const eval::Value &Array = Run.Probes[Probe];
  // "MPI_Allgatherv reads the counts 'counts' on every rank, and on rank
  // 1 of 4 element 0 is not known: why".
  auto Unknown = [&](std::string What, uint32_t Why) {
    std::string Text = Eval.reasonOf(Why).Text;
    return refuse(SafetyCheck::InputIndependence,
                  "MPI_Allgatherv reads " + named(Probe) +
                      " on every rank, and" + where(Rank) + " " + What +
                      (Text.empty() ? "" : ": " + Text),
                  Gatherv);
  };
  if (!Array.isPointer() || Array.Obj == eval::NullObject ||
      Array.Obj >= Run.Objects.size())
    return Unknown("the array cannot be evaluated",
                   Array.isKnown() ? 0 : Array.Why);
  const eval::Object &Memory = Run.Objects[Array.Obj];
  Out.clear();
  for (int64_t Index = 0; Index < P; ++Index) {
    const auto *Cell = Memory.Cells.find(Array.I + IntBytes * Index);
    std::string Element = "element " + std::to_string(Index);
    if (Cell == Memory.Cells.end() && !Memory.ContentWhy)
      return Unknown(Element + " is given no value before the call", 0);
    if (Cell == Memory.Cells.end() || Cell->second.Bytes != IntBytes)
      return Unknown(Element + " is not known",
                     Cell == Memory.Cells.end() ? Memory.ContentWhy : 0);
    if (!Cell->second.V.isInt())
      return Unknown(Element + " is not known", Cell->second.V.Why);
    Out.push_back(Cell->second.V.I);
  }
  return std::nullopt;
}

std::optional<Refusal> BlocksProof::runRanks(int64_t P,
                                             ArrayRef<int64_t> TheSetting) {
  Size = P;
  Setting.assign(TheSetting.begin(), TheSetting.end());
  Views.clear();
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    Eval.run(Rank, P, Setting, Run);
    ReadInputs |= Run.ReadInputs;
    if (!Run.Reached) {
      eval::Reason Why = Run.Stopped
                             ? *Run.Stopped
                             : eval::Reason{"the run does not reach the call",
                                            Gatherv->getBeginLoc()};
      return Refusal{SafetyCheck::InputIndependence,
                     "the counts and displacements cannot be evaluated" +
                         where(Rank) + ": " + Why.Text,
                     Why.Loc.isValid() ? Why.Loc : Gatherv->getBeginLoc()};
    }
    RankView V;
    if (std::optional<Refusal> Why = readArray(Run, CountsProbe, P, V.Counts))
      return Why;
    if (std::optional<Refusal> Why = readArray(Run, DisplsProbe, P, V.Displs))
      return Why;
    // A correct MPI_Gatherv already receives from each rank what it sends;
    // the send count is compared where it can be evaluated, as a check of
    // the evaluation, and need not be.
    V.Sent = Run.Probes[SentProbe].isInt() ? Run.Probes[SentProbe].I : -1;
    if (std::optional<Refusal> Why = readInt(Run, TotalProbe, V.Total))
      return Why;
    Views.push_back(std::move(V));
  }
  return compare(P);
}

/// "2 3 2".
static std::string listed(ArrayRef<int64_t> Values) {
  std::string Out;
  for (int64_t X : Values)
    Out += (Out.empty() ? "" : " ") + std::to_string(X);
  return Out;
}

std::optional<Refusal> BlocksProof::compare(int64_t P) {
  const RankView &Root = Views.front();
  for (int64_t Rank = 1; Rank < P; ++Rank) {
    const RankView &V = Views[Rank];
    for (auto [Probe, Mine, Theirs] :
         {std::tuple(CountsProbe, &V.Counts, &Root.Counts),
          std::tuple(DisplsProbe, &V.Displs, &Root.Displs)})
      if (*Mine != *Theirs)
        return refuse(SafetyCheck::MatchingArguments,
                      named(Probe) + " differ between ranks" + at() +
                          ": rank 0 holds " + listed(*Theirs) + ", rank " +
                          std::to_string(Rank) + " " + listed(*Mine) +
                          "; MPI_Allgatherv needs the same on every rank",
                      Gatherv);
    if (V.Total != Root.Total)
      return refuse(SafetyCheck::MatchingArguments,
                    named(TotalProbe) + " differs between ranks" + at(), Bcast);
  }
  if (SameTypes)
    for (int64_t Rank = 0; Rank < P; ++Rank)
      if (Views[Rank].Sent >= 0 && Views[Rank].Sent != Root.Counts[Rank])
        return refuse(SafetyCheck::MatchingArguments,
                      "rank " + std::to_string(Rank) + " sends " +
                          std::to_string(Views[Rank].Sent) +
                          " elements and the counts give its block " +
                          std::to_string(Root.Counts[Rank]) + at(),
                      Gatherv);
  return tile(Root, P);
}

std::optional<Refusal> BlocksProof::tile(const RankView &V, int64_t P) {
  auto Refuse = [&](std::string Why) {
    return refuse(SafetyCheck::MatchingArguments,
                  "the gathered blocks are not exactly the " +
                      std::to_string(V.Total) +
                      " elements the broadcast sends" + at() + ": " + Why +
                      "; MPI_Allgatherv writes the blocks only",
                  Bcast);
  };
  std::vector<int64_t> Order;
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    if (V.Counts[Rank] < 0 || V.Displs[Rank] < 0)
      return Refuse("rank " + std::to_string(Rank) + "'s block has count " +
                    std::to_string(V.Counts[Rank]) + " at displacement " +
                    std::to_string(V.Displs[Rank]));
    if (V.Counts[Rank] > 0)
      Order.push_back(Rank);
  }
  llvm::stable_sort(
      Order, [&](int64_t A, int64_t B) { return V.Displs[A] < V.Displs[B]; });
  int64_t End = 0;
  for (int64_t Rank : Order) {
    std::string Block = "rank " + std::to_string(Rank) + "'s block [" +
                        std::to_string(V.Displs[Rank]) + ", " +
                        std::to_string(V.Displs[Rank] + V.Counts[Rank]) + ")";
    if (V.Displs[Rank] > End)
      return Refuse("elements [" + std::to_string(End) + ", " +
                    std::to_string(V.Displs[Rank]) + ") are in no block");
    if (V.Displs[Rank] < End)
      return Refuse(Block + " overlaps the block before it");
    End = V.Displs[Rank] + V.Counts[Rank];
    if (End > V.Total)
      return Refuse(Block + " ends past them");
  }
  if (End < V.Total)
    return Refuse("elements [" + std::to_string(End) + ", " +
                  std::to_string(V.Total) + ") are in no block");
  return std::nullopt;
}

std::optional<Refusal> BlocksProof::run() {
  // A first look at four processes finds the inputs the values read.
  if (std::optional<Refusal> Why =
          runRanks(4, std::vector<int64_t>(Eval.inputs().size(),
                                           RankEvaluator::DefaultInput)))
    return Why;
  uint32_t Read = ReadInputs;
  if (llvm::popcount(Read) > 2)
    return refuse(SafetyCheck::InputIndependence,
                  "the counts and displacements read " +
                      std::to_string(llvm::popcount(Read)) +
                      " inputs; at most two are evaluated",
                  Gatherv);
  uint64_t Runs = 0;
  for (int64_t P : blockSizes()) {
    std::vector<std::vector<int64_t>> Settings = settingsAt(P, Read);
    Runs += uint64_t(P) * Settings.size();
    if (Runs > RunBudget && P > 16)
      break;
    for (const std::vector<int64_t> &S : Settings)
      if (std::optional<Refusal> Why = runRanks(P, S))
        return Why;
  }
  return std::nullopt;
}

} // namespace

void FusionFinder::judgeGathervBcast(FusionSite &Site, unsigned GathervIndex,
                                     unsigned BcastIndex) {
  judgeGatheredBuffer(Site);
  BlocksProof Proof(*TU, Site, GathervIndex, BcastIndex, Context);
  if (std::optional<Refusal> Why = Proof.run())
    Site.Refusals.push_back(std::move(*Why));
}

} // namespace analysis
} // namespace mpilift
