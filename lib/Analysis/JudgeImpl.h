//===- JudgeImpl.h - The judge of a region, shared by its parts -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The judge behind judgeRegion (CollectiveJudge.h) in three parts: the
/// evaluation at every size and the detection (CollectiveJudge.cpp), the
/// rewrite's arguments found among the region's expressions
/// (JudgeCandidates.cpp), and where the collective call goes
/// (JudgePlacement.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_JUDGEIMPL_H
#define MPILIFT_LIB_ANALYSIS_JUDGEIMPL_H

#include "CollectiveJudge.h"

#include "mpilift/CommGraph/CommGraph.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <set>

namespace mpilift {
namespace analysis {
namespace judge {

namespace cg = mpilift::commgraph;
using clang::ASTContext;
using clang::CallExpr;
using clang::Expr;
using clang::SourceLocation;
using llvm::ArrayRef;

/// Addresses for CommGraph: the object in the high bits.
constexpr unsigned ObjectShift = 40;
constexpr uint64_t OffsetMask = (uint64_t(1) << ObjectShift) - 1;

inline cg::Address addressOf(eval::ObjectId Obj, int64_t Off) {
  return (uint64_t(Obj) << ObjectShift) + static_cast<uint64_t>(Off);
}

/// A place as an (object, offset) pair.
struct Where {
  eval::ObjectId Obj = eval::NullObject;
  int64_t Off = 0;
  bool operator==(const Where &O) const { return Obj == O.Obj && Off == O.Off; }
};

inline Where whereOf(cg::Address A) {
  return {static_cast<eval::ObjectId>(A >> ObjectShift),
          static_cast<int64_t>(A & OffsetMask)};
}

/// `Where` moved back by \p Bytes; nothing if that leaves the object.
inline std::optional<Where> before(Where W, uint64_t Bytes) {
  if (static_cast<uint64_t>(W.Off) < Bytes)
    return std::nullopt;
  return Where{W.Obj, W.Off - static_cast<int64_t>(Bytes)};
}

inline std::optional<ManualKind> manualKind(cg::CollectiveKind K) {
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

/// The collective \p K is or generalises (a scatterv is a scatter whose
/// blocks differ in size): what a refusal says the region looks like.
inline std::optional<ManualKind> resembledKind(cg::CollectiveKind K) {
  switch (K) {
  case cg::CollectiveKind::Allgatherv:
    return ManualKind::Allgather;
  case cg::CollectiveKind::Alltoallv:
    return ManualKind::Alltoall;
  case cg::CollectiveKind::Gatherv:
    return ManualKind::Gather;
  case cg::CollectiveKind::Scatterv:
    return ManualKind::Scatter;
  default:
    return manualKind(K);
  }
}

inline bool isRooted(ManualKind K) {
  return K == ManualKind::Bcast || K == ManualKind::Scatter ||
         K == ManualKind::Gather || K == ManualKind::Reduce;
}

inline ManualKind manualKind(cg::ReductionKind K) {
  switch (K) {
  case cg::ReductionKind::Reduce:
    return ManualKind::Reduce;
  case cg::ReductionKind::Allreduce:
    return ManualKind::Allreduce;
  case cg::ReductionKind::Scan:
    return ManualKind::Scan;
  case cg::ReductionKind::Exscan:
    return ManualKind::Exscan;
  }
  return ManualKind::Reduce;
}

inline std::optional<cg::ReductionKind> reductionKind(ManualKind K) {
  switch (K) {
  case ManualKind::Reduce:
    return cg::ReductionKind::Reduce;
  case ManualKind::Allreduce:
    return cg::ReductionKind::Allreduce;
  case ManualKind::Scan:
    return cg::ReductionKind::Scan;
  case ManualKind::Exscan:
    return cg::ReductionKind::Exscan;
  default:
    return std::nullopt;
  }
}

inline std::string processes(int64_t P) {
  return std::to_string(P) + (P == 1 ? " process" : " processes");
}

/// An expression a rewrite may use, and the roles it may play.
struct Candidate {
  const Expr *E;
  bool Int, Pointer;
  /// A pointer to (or array of) int: the counts or displacements of a
  /// v form.
  bool IntArray = false;
  /// The candidate is E spelled otherwise: the address of an lvalue
  /// (`&total` for a reduction's accumulator), a std::vector's elements
  /// (`v.data()`); evaluated as that pointer.
  BufferSpelling Spelling = BufferSpelling::AsWritten;
};

/// Whether \p E names a variable declared inside the region (which does
/// not exist where the collective goes) or has side effects.
bool usable(const Expr *E, const Region &R, const ASTContext &Ctx);

/// The expressions of the region a rewrite could use: the arguments of
/// its MPI calls and their parts, the operands of its conditions, the
/// variables of the function in scope at its start and its named integer
/// constants.
std::vector<Candidate> candidatesOf(const Region &R, ASTContext &Ctx);

/// The collective one size and setting formed, as the rewrite needs it.
struct Observation {
  ManualKind Kind;
  int64_t Root = -1;
  uint64_t Block = 0;
  /// Per rank: where its part of the collective is (see RegionProof).
  std::vector<std::optional<Where>> Buffer, Send, Recv;
  std::vector<bool> InPlace;
  /// Scatter and gather: per rank other than the root, where its block
  /// lies at the root and its size in bytes. Vector: the blocks differ in
  /// size or are not in rank order from one base (MPI_Scatterv and
  /// MPI_Gatherv; Send at the root of a scatter and Recv at the root of a
  /// gather stay empty then, the displacements say where the blocks are).
  std::vector<std::optional<Where>> Blocks;
  std::vector<uint64_t> Bytes;
  bool Vector = false;
  /// Reductions: how the data is combined, and the type of its elements.
  cg::ReduceOp Op = cg::ReduceOp::Other;
  clang::QualType Element;
  /// Pairs (MPI_MINLOC, MPI_MAXLOC): how the combines settle equal values.
  PairTies Ties = PairTies::None;
  /// The size of the datatype every call of this setting used (a
  /// datatype may depend on an input: HPL's `HPL_2_MPI_TYPE(DTYPE)`).
  std::optional<uint64_t> TypeSize;
};

/// A scatter or gather detected over some processes only, when each of
/// the others exchanges one empty message with the root (a block
/// distribution of fewer rows than processes): the v form over all of
/// them, with empty blocks.
void completeWithEmptyBlocks(int64_t P, const std::vector<RankRun> &Runs,
                             cg::Detection &D);

/// The values of candidate \p I in \p Run at the region's start and at each
/// place the rank passes before its first message: one must be right.
llvm::SmallVector<const eval::Value *, 4>
valuesBeforeMessages(const RankRun &Run, size_t I);

/// Whether \p Array points, in \p Run's memory at its end, to ints that
/// hold \p Expected at each index that has a value, and the run wrote
/// none of the ints up to the last such index: they held the same at the
/// region's start.
bool holdsInts(const RankRun &Run, const eval::Value &Array,
               ArrayRef<std::optional<int64_t>> Expected);

/// The element counts of the v form \p O (per rank but the root), or
/// nothing when a block is not a whole number of \p TypeSize elements.
std::optional<std::vector<std::optional<int64_t>>>
vectorCounts(const Observation &O, uint64_t TypeSize);

/// The displacements of the v form \p O from \p Base (a pointer at the
/// root), in elements of \p TypeSize bytes; nothing when a block lies in
/// another object, before the base or between elements.
std::optional<std::vector<std::optional<int64_t>>>
vectorDispls(const Observation &O, const eval::Value &Base, uint64_t TypeSize);

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
  /// Refuses by matching-arguments: no expression names \p What.
  void refuseMissing(const char *What) {
    refuse(SafetyCheck::MatchingArguments,
           std::string("no expression in scope at the pattern's start has "
                       "the value of the ") +
               What + " on every rank at every size",
           regionLoc());
  }

  /// Runs every rank at \p P with \p Setting; false when it refused (or
  /// the setting is one for which the original program is erroneous:
  /// \p Skip is set then).
  bool evaluate(int64_t P, ArrayRef<int64_t> Setting,
                std::vector<RankRun> &Runs, bool &Skip);
  /// Whether every rank's messages use one communicator (refused if not).
  bool sameCommunicator(int64_t P, const std::vector<RankRun> &Runs);
  std::optional<Observation> observe(int64_t P,
                                     const std::vector<RankRun> &Runs);
  /// The first collective observed is the reference every size must form
  /// (refused if \p Kind is not; \p Forms says what forms it).
  bool sameAsReference(int64_t P, ManualKind Kind, llvm::StringRef Forms);
  /// The part of observe() for regions that combine data (reductions):
  /// \p All and \p Combined are the dataflow's results at \p P.
  std::optional<Observation>
  observeReduction(int64_t P, const std::vector<RankRun> &Runs,
                   ArrayRef<std::pair<int64_t, const RankOp *>> Global,
                   const std::vector<cg::Transfer> &All,
                   const std::vector<cg::Combination> &Combined);
  /// The variables the region's statements name.
  llvm::SmallPtrSet<const clang::VarDecl *, 16> regionVariables() const;
  /// The names conditional code of the function spells outside the region
  /// (ConditionalText.h): variables it may read after the region.
  const llvm::StringSet<> &conditionalNames();
  /// Variables of the region's function whose value after the region is
  /// never read: a reduction's work buffers, which the collective call
  /// leaves as they were.
  const llvm::SmallPtrSetImpl<const clang::VarDecl *> &deadAfterRegion();
  /// Pointers of the region's function to work memory: set only to null or
  /// to a fresh allocation, used in the region only by the messages and
  /// combines, and elsewhere only tested against null or freed. What they
  /// point to after the region is never read.
  const llvm::SmallPtrSetImpl<const clang::VarDecl *> &scratchPointers();
  /// The variable whose value \p X holds at the region's entry, copied by
  /// a statement that runs on the way to it with neither written after;
  /// null if none.
  const clang::VarDecl *entryAliasOf(const clang::VarDecl *X);
  /// Contributions read from a variable that holds another one's value at
  /// the region's entry are that variable's (a ring's total and the value
  /// it passes first, both copies of the rank's own).
  void renameEntryAliases(std::vector<cg::Combination> &Combined,
                          const std::vector<RankRun> &Runs);
  /// A reduction's arguments beyond the common ones (in place, the
  /// operation, the datatype, the exactness of the order); false when
  /// refused.
  bool chooseReduction(RegionProof &Proof);
  /// The statement of the region that combines for \p Op: its own, or
  /// the call of a combine function (CombineFunctions.h) that does, as a
  /// statement; null, refused, for a call of another function, or one
  /// whose value is used or whose arguments have effects.
  const clang::Stmt *combineSite(const RankOp &Op);
  /// Whether the messages' datatype \p TypeText is the one MPI combines
  /// the region's elements as (a pair datatype for MINLOC and MAXLOC).
  bool datatypeOfElements(llvm::StringRef TypeText) const;
  /// Whether combines of pairs keep the smaller index of equal values, as
  /// MPI_MINLOC and MPI_MAXLOC do; refuses by reduction-order if not.
  bool settlesTiesAsMPI(SourceLocation At);
  /// Notes in TiesUnproven when the pairs' indices at \p P are not their
  /// ranks or \p Combined was not combined in rank order.
  void noteTieOrder(int64_t P, const std::vector<RankRun> &Runs,
                    const std::vector<cg::Combination> &Combined);
  /// After the messages at \p P failed to match only because a send and
  /// its receive differ in size (\p PeerOf from the matching, \p Global
  /// the graph's operations): what they form when every receive takes as
  /// many bytes as its send gives, to say what the region looks like.
  void lookPastSizes(int64_t P, const std::vector<RankRun> &Runs,
                     ArrayRef<std::pair<int64_t, const RankOp *>> Global,
                     ArrayRef<cg::OpId> PeerOf);
  /// After the messages at \p P left \p Unmatched without a partner:
  /// what they form when each such receive takes the one unmatched send
  /// addressed to its rank with its tag and size (the receive names the
  /// wrong source) and every other unmatched message is left out, to say
  /// what the region looks like. Returns the first receive so re-paired,
  /// described for a note, if any.
  std::optional<std::string>
  lookPastPeers(int64_t P, const std::vector<RankRun> &Runs,
                ArrayRef<std::pair<int64_t, const RankOp *>> Global,
                ArrayRef<cg::OpId> Unmatched);
  /// Observes \p Runs, which the program may never make (receives
  /// resized, communicators taken as one), only to say what the region
  /// looks like: no refusal, reference or closure comes from them.
  void lookAt(int64_t P, const std::vector<RankRun> &Runs);
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
  /// A v form's blocks at the root lie in one buffer and do not overlap
  /// (MPI_Scatterv reads, MPI_Gatherv writes, no location twice);
  /// refused if not.
  bool disjointBlocks(int64_t P, const Observation &O);
  bool shape(int64_t P, const cg::Collective &C,
             const std::vector<cg::Transfer> &Self, Observation &O);
  void filterCandidates(const Observation &O, const std::vector<RankRun> &Runs);
  /// For a v form: which int arrays hold the counts, which pairs of a
  /// base and an int array the displacements at the root, and which
  /// integers each other rank's own count.
  void filterVectorCandidates(const Observation &O,
                              const std::vector<RankRun> &Runs);
  /// The v form's arguments from the candidates left; false (refused)
  /// when the counts or displacements are in no array in scope.
  bool chooseVector(RegionProof &Proof);
  /// After a refusal at \p Failed processes, before any size showed a
  /// collective: whether some other size shows one (a pattern correct
  /// only for powers of two), so the finding can say what it looks like.
  void lookElsewhere(int64_t Failed);
  std::vector<std::vector<int64_t>> settingsAt(int64_t P);
  void choose(RegionProof &Proof);
  /// Exclusive scans: records in FirstResult what rank 0 holds, after
  /// \p Run, where candidate \p I points (its values \p Vals), for one
  /// element of \p Block bytes.
  void noteFirstResult(size_t I, const RankRun &Run,
                       llvm::ArrayRef<const eval::Value *> Vals,
                       uint64_t Block);
  bool place(RegionProof &Proof);
  /// Refuses the region unless every rank runs it as often as every other:
  /// no condition or loop around it, in its function or around any call
  /// of that function, may differ between ranks (input-independence). A
  /// collective called a different number of times on two ranks matches
  /// what the hand-written messages did not.
  void checkRunsAlike();

  TranslationUnitFacts &TU;
  ASTContext &Ctx;
  Region R;
  RankEvaluator Eval;
  Verdict V;
  std::vector<Candidate> Candidates;
  /// Per candidate: still right as root, count, buffer, send, receive.
  std::vector<bool> AsRoot, AsCount, AsBuffer, AsSend, AsRecv;
  /// Per candidate: still the calling rank's value on every rank.
  std::vector<bool> AsRank;
  /// Exclusive scans, per candidate: the constant rank 0's result holds
  /// there after the region in every run so far (nullopt once it is not
  /// one); FirstSeen says whether a run has said anything yet.
  std::vector<std::optional<int64_t>> FirstResult;
  std::vector<bool> FirstSeen;
  /// The bytes of the exclusive scan's result (one element).
  uint64_t FirstBlock = 0;
  /// V forms: per candidate, still right as the counts array, as each
  /// other rank's own count; the (base, displacements) pairs still right.
  std::vector<bool> AsCounts, AsOwnCount;
  std::vector<std::pair<size_t, size_t>> BaseDispls;
  /// Some size's scatter or gather was a v form.
  bool AnyVector = false;
  std::optional<ManualKind> Reference;
  int64_t ReferenceSize = 0;
  uint32_t Deciding = 0;
  /// Inputs that gave a message's count (and nothing in Deciding).
  uint32_t Sizing = 0;
  const CallExpr *FirstCall = nullptr;
  std::set<int64_t> RootValues, CountValues;
  bool AllInPlace = true, NoneInPlace = true;
  uint64_t Runs = 0;
  /// Operations and steps of all ranks, and transfers of the dataflow, at a
  /// size (the largest over its settings).
  std::map<int64_t, uint64_t> OpsAt, StepsAt, TransfersAt;
  /// The runs being observed model buffered sends; the last observation
  /// asks for that.
  bool Buffered = false, RetryBuffered = false;
  /// Inside lookAt: an observation only sets Looks.
  bool Looking = false;
  /// Reductions: the operation and element type of the first size, and
  /// the statements that combine (sites of the combine operations).
  std::optional<cg::ReduceOp> ReductionOp;
  clang::QualType Element;
  /// Pairs: how the combines settle equal values, the weakest of all sizes.
  PairTies Ties = PairTies::None;
  /// Pairs whose combines keep the first (or last) of equal values: why
  /// that is not proven to be the smallest index at some size.
  std::optional<std::string> TiesUnproven;
  std::vector<const clang::Stmt *> Combines;
  const clang::Stmt *FirstCombine = nullptr;
  std::optional<llvm::SmallPtrSet<const clang::VarDecl *, 8>> DeadAfter;
  std::optional<llvm::SmallPtrSet<const clang::VarDecl *, 4>> ScratchPointers;
  std::optional<llvm::StringSet<>> ConditionalNames;
  /// Combines after a rank's last message are steps after the collective
  /// (kept by the rewrite), not part of it; decided at the first size that
  /// forms a reduction.
  bool DropTrailingCombines = false;
  bool TrailingDecided = false;
  /// A reduce's root combines in place (its own value is in the result).
  std::optional<bool> ReduceInPlace;
  /// Per scalar variable, the variable whose value it holds at the
  /// region's entry (`double total = mine;` just before), if any.
  llvm::DenseMap<const clang::VarDecl *, const clang::VarDecl *> EntryAliases;
  uint64_t TotalSteps = 0;

public:
  /// Sizes beyond 64 whose runs would take more operations than this are
  /// not evaluated.
  static constexpr uint64_t OperationBudget = 400'000;
  /// Nor those whose dataflow would hold more transfers: an allgather's
  /// grow with the square of the processes (16.8 M at 4099, half a
  /// minute to propagate and match).
  static constexpr uint64_t TransferBudget = 2'000'000;
  /// The same for the evaluation's steps, per size and in all.
  static constexpr uint64_t SizeStepBudget = 8'000'000;
  static constexpr uint64_t StepBudget = 60'000'000;
  std::vector<int64_t> Skipped;
};

} // namespace judge
} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_JUDGEIMPL_H
