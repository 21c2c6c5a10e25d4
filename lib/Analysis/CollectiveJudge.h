//===- CollectiveJudge.h - Which collective a region implements -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The proof of a hand-written collective (seed 002's checks, seed 000's
/// detection): the region is evaluated for every rank of communicators of
/// 1 to 64 processes and of 97, 128, 1000, 1024 and 4099, for each setting
/// of the inputs that decide its control flow (every root a parameter may
/// name, at least at small sizes); each size's operations go to CommGraph,
/// which matches them, follows the data into SST form and detects the
/// collective. The region is that collective when every size and setting
/// gives the same one over all processes, with nothing left over.
///
/// The rewrite's arguments come from the same runs: among the expressions
/// the region spells (its calls' arguments and their parts, the
/// conditions' operands) and the variables in scope, the judge keeps those
/// whose value at the region's entry is, on every rank of every run, the
/// detected root, the message's element count, the buffer (object and
/// offset) the collective reads or writes on that rank.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_COLLECTIVEJUDGE_H
#define MPILIFT_LIB_ANALYSIS_COLLECTIVEJUDGE_H

#include "RankEvaluator.h"

#include "mpilift/Analysis/ManualCollective.h"

#include <optional>
#include <vector>

namespace mpilift {
namespace analysis {

/// A place where the collective call goes: before (or instead of) the
/// anchor statement, and which ranks reach it.
struct Placement {
  const clang::Stmt *Anchor = nullptr;
  bool Root = false;   ///< The root reaches it (rooted collectives).
  bool Others = false; ///< Ranks other than the root reach it.
};

/// What the runs proved, and the expressions the rewrite uses.
struct RegionProof {
  ManualKind Kind = ManualKind::Bcast;
  ManualTopology Topology = ManualTopology::Star;
  /// The root: an expression whose value it is on every rank, or (when
  /// no expression spells it) a constant.
  const clang::Expr *Root = nullptr;
  std::optional<int64_t> RootConstant;
  /// The element count per block, or a constant.
  const clang::Expr *Count = nullptr;
  std::optional<int64_t> CountConstant;
  const clang::Expr *Datatype = nullptr;
  const clang::Expr *Comm = nullptr;
  /// Broadcast: the buffer of every rank. Scatter: SendBuffer at the root
  /// (the base of the blocks), RecvBuffer elsewhere. Gather: RecvBuffer at
  /// the root, SendBuffer elsewhere. Allgather, alltoall: SendBuffer and
  /// RecvBuffer everywhere, SendBuffer null when in place.
  const clang::Expr *Buffer = nullptr;
  const clang::Expr *SendBuffer = nullptr;
  const clang::Expr *RecvBuffer = nullptr;
  bool InPlace = false;
  /// V forms (MPI_Scatterv, MPI_Gatherv): int arrays that hold, at the
  /// root, each rank's element count and its block's displacement from
  /// the root's buffer; Count is then each other rank's own count. Null
  /// for the other forms.
  const clang::Expr *Counts = nullptr;
  const clang::Expr *Displs = nullptr;
  /// Reductions: how SendBuffer and RecvBuffer are spelled (`&total`,
  /// `v.data()`); the MPI operation; the statements that combine, which
  /// the call replaces; whether the collective may combine in another
  /// order and round differently (--allow-reassociation).
  BufferSpelling SendSpelling = BufferSpelling::AsWritten,
                 RecvSpelling = BufferSpelling::AsWritten;
  std::string Op;
  std::vector<const clang::Stmt *> Combines;
  bool Reassociates = false;
  /// Exclusive scans: an expression whose value is the calling rank, and
  /// the value rank 0's result holds after the region (MPI_Exscan leaves
  /// it undefined; the rewrite sets it there again).
  const clang::Expr *Rank = nullptr;
  std::optional<int64_t> FirstResult;
  /// Where the calls go: every rank reaches exactly one of them.
  std::vector<Placement> Placements;
  /// How many sizes the proof ran at, how many runs, and the large sizes
  /// it skipped because their runs would exceed the operation budget.
  unsigned Sizes = 0;
  uint64_t Runs = 0;
  std::vector<int64_t> Skipped;

  /// The expressions the collective call spells: the variables they read
  /// must outlive the edits.
  std::vector<const clang::Expr *> arguments() const {
    std::vector<const clang::Expr *> Out;
    for (const clang::Expr *E : {Root, Count, Datatype, Comm, Buffer,
                                 SendBuffer, RecvBuffer, Counts, Displs, Rank})
      if (E)
        Out.push_back(E);
    return Out;
  }
};

/// The judgement on one region.
struct Verdict {
  /// The collective it looked like (from the first size that formed one),
  /// for a refusal's message; empty when it never formed one.
  std::optional<ManualKind> Looks;
  ManualTopology Topology = ManualTopology::Star;
  std::optional<RegionProof> Proof;
  std::vector<Refusal> Refusals;
  /// Whether the region's messages close among themselves at a small
  /// size (every send matched); a region that does not is no pattern.
  bool Closed = false;
};

/// Evaluates \p R at every size of the proof and judges it.
Verdict judgeRegion(TranslationUnitFacts &TU, const Region &R);

/// Whether the messages of a region match among themselves.
struct Closure {
  enum class State {
    Closes,  ///< Every message has its partner in the region.
    Open,    ///< Some message's partner lies outside it.
    Stopped, ///< A run stopped before it could tell; Why says what stopped.
  };
  State S = State::Open;
  eval::Reason Why;
};

/// Whether the messages of \p R match among themselves at a few small
/// sizes (nothing sent that the region does not receive, and back); a
/// range that does not close is part of a larger pattern, or none.
Closure regionCloses(TranslationUnitFacts &TU, const Region &R);

/// The check a run that stopped for \p Why fails: scale-independence for
/// a message to a rank that does not exist at that size, else
/// input-independence (a value the evaluation cannot follow).
SafetyCheck checkOfStop(const eval::Reason &Why);

/// The process counts the proof runs at.
llvm::ArrayRef<int64_t> proofSizes();

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_COLLECTIVEJUDGE_H
