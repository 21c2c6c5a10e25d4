//===- ManualCollective.h - Hand-written collectives in the AST -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Hand-written collectives and the safety checks of their rewrite (paper
/// 002, sections III, V and VI).
///
/// A manual collective is a region of statements whose point-to-point
/// messages, evaluated for every rank at every size of the proof, form one
/// collective over all processes (lib/Analysis/RegionFinder.h,
/// CollectiveJudge.h). Every region that looks like a collective is
/// reported; the safety checks (input independence, scale independence,
/// message integrity, and the argument, ordering and status rules) decide
/// whether it may be rewritten, and each refusal names its check and
/// points at the statement that made it fail.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_MANUALCOLLECTIVE_H
#define MPILIFT_ANALYSIS_MANUALCOLLECTIVE_H

#include "mpilift/Analysis/ErrorFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpilift {
namespace analysis {

/// The collective a hand-written pattern implements.
enum class ManualKind {
  Bcast,
  Scatter,
  Gather,
  Allgather,
  Alltoall,
  Reduce,
  Allreduce,
  Scan,
  Exscan,
};

/// Whether \p Kind combines the processes' data (reduce, allreduce, scan,
/// exscan) rather than moving it.
inline bool isReduction(ManualKind Kind) {
  return Kind == ManualKind::Reduce || Kind == ManualKind::Allreduce ||
         Kind == ManualKind::Scan || Kind == ManualKind::Exscan;
}

/// How the hand-written pattern moves the message.
enum class ManualTopology {
  Star,     ///< The root loops over the peers.
  Ring,     ///< Each rank forwards to (rank + 1) % size.
  Chain,    ///< Each rank forwards to rank + 1, the last one stops.
  Tree,     ///< Ranks forward to several others (binomial, binary, ...).
  Exchange, ///< Every rank sends to and receives from every other one.
};

/// "star", "ring", "chain".
llvm::StringRef topologyName(ManualTopology Topology);

/// \p Noun with its indefinite article: "a bcast", "an allgather".
std::string withArticle(llvm::StringRef Noun);

/// The safety checks; their names appear in diagnostics and in
/// docs/checks/.
enum class SafetyCheck {
  InputIndependence, ///< Algorithm 1.
  ScaleIndependence, ///< Algorithm 2.
  MessageIntegrity,  ///< Algorithm 3.
  MatchingArguments, ///< Same communicator, tag, datatype, count both sides.
  MessageOrder,      ///< No other message the rewrite would reorder.
  StatusUse,         ///< The receive status is not read afterwards.
  SourceForm,        ///< Macros and other spellings we cannot rewrite.
  PollingLoop,    ///< Listing 7: every caller polls until the message is there.
  ReductionOrder, ///< A combination that rounds differently in another order.
};

/// "input-independence", "scale-independence", ...
llvm::StringRef checkName(SafetyCheck Check);

/// "mpilift-manual-bcast", "mpilift-manual-scatter", ...
llvm::StringRef ruleId(ManualKind Kind);

/// "broadcast", "scatter", "gather".
llvm::StringRef collectiveNoun(ManualKind Kind);

/// How a buffer argument is spelled from the expression the proof found:
/// as written, as its address (`&total` for an accumulator the region
/// names as `total`), or as the elements of a std::vector (`v.data()`).
enum class BufferSpelling : unsigned { AsWritten, AddressOf, VectorData };

/// \p Text (an expression's source) spelled as \p Spelling says.
std::string spellBuffer(llvm::StringRef Text, BufferSpelling Spelling);

/// Why a candidate may not be rewritten, and where.
struct Refusal {
  SafetyCheck Check;
  std::string Reason;        ///< Lower case, no final period.
  clang::SourceLocation Loc; ///< The statement that made the check fail.
};

/// Point-to-point calls that no finding covers because evaluating the
/// code around them stopped: what stopped it. A trace that shows a
/// collective on these calls' lines needs this, or mpilift would be
/// silent about a pattern the user can see.
struct UnjudgedCalls {
  std::vector<const clang::CallExpr *> Calls;
  Refusal Why;
};

/// Where the nonblocking form of a collective must complete: before
/// \c Before in \c Block, or at the end of \c Block when \c Before is
/// null. \c Reason says what stops the wait from moving further.
struct WaitPoint {
  const clang::CompoundStmt *Block = nullptr;
  const clang::Stmt *Before = nullptr;
  std::string Reason;
};

/// A variable the cached libcdag graph of a fallback depends on: by value
/// (loop bounds, roots, counts) or by address (buffers).
struct FallbackKey {
  const clang::VarDecl *Var = nullptr;
  bool ByAddress = false;
};

/// Whether a refused pattern can run through libcdag (`--fallback cdag`):
/// it failed only input or scale independence, so it is a collective in
/// some runs, and the region can be re-expressed as a graph that the
/// runtime detects collectives in.
struct CDagFallback {
  std::string Blocker; ///< Why it cannot; empty when it can.
  /// What the cached graph is keyed on, in source order.
  std::vector<FallbackKey> Key;
};

/// Listing 7's polling form of a ring or chain broadcast: the receiving
/// branch probes with MPI_Iprobe and receives (and forwards) only when the
/// message is there; otherwise it returns, and its caller computes and
/// calls again. The rewrite keeps the polling: one MPI_Ibcast per
/// broadcast, started by the first probe and tested by each.
struct PollingForm {
  const clang::CallExpr *Probe = nullptr; ///< The MPI_Iprobe call.
  const clang::Stmt *ProbeStmt = nullptr; ///< Its statement.
  /// Where the probe's error code goes (`ierr = MPI_Iprobe(...)`, `ierr |=
  /// ...`), and the test of it around `if (flag)`, when there are.
  ErrorFlow ErrorCode;
  const clang::IfStmt *ErrorGuard = nullptr;
  /// `if (flag)`: the then-branch receives, the else-branch (if any) is
  /// the not-yet path.
  const clang::IfStmt *Arrived = nullptr;
  /// The receive the then-branch starts with.
  const clang::CallExpr *Recv = nullptr;
  /// The rank guard: one branch is the root's (RootBranch), which sends
  /// and does not probe; the other probes.
  const clang::IfStmt *Guard = nullptr;
  const clang::Stmt *RootBranch = nullptr;
  /// The statement of the root's branch that sends: the root's call takes
  /// its place.
  const clang::Stmt *RootSend = nullptr;
  /// What the rewrite deletes: the proof's removals, less the root's send
  /// and the blocks around it.
  std::vector<const clang::Stmt *> Removed;
  /// The broadcast's root as the region spells it; null for a constant.
  const clang::Expr *Root = nullptr;
};

/// Where a proven region's collective call goes: before \c Anchor, or
/// instead of it when the rewrite removes it (\c Replace); which ranks
/// reach it decides the call's form (the root's MPI_IN_PLACE).
struct CollectivePlacement {
  const clang::Stmt *Anchor = nullptr;
  bool Root = false, Others = false, Replace = false;
  /// The nonblocking form waits right after the call: a statement the
  /// rewrite keeps may touch the buffers before the region ends.
  bool WaitAtOnce = false;
};

/// A pattern proven by evaluating its region at every rank and size
/// (lib/Analysis/CollectiveJudge.h): where the region is, where the calls
/// go, what the rewrite removes, and the expressions of the arguments.
struct ProvenRegion {
  const clang::CompoundStmt *Block = nullptr;
  unsigned First = 0, Last = 0; ///< Statements of Block, inclusive.
  std::vector<CollectivePlacement> Placements;
  /// Statements the rewrite deletes (their parents stay).
  std::vector<const clang::Stmt *> Removed;
  const clang::Expr *Root = nullptr; ///< Null: RootConstant.
  std::optional<int64_t> RootConstant;
  const clang::Expr *Count = nullptr; ///< Null: CountConstant.
  std::optional<int64_t> CountConstant;
  const clang::Expr *Datatype = nullptr, *Comm = nullptr;
  /// See RegionProof: Buffer (broadcast), Send and Recv (the others).
  const clang::Expr *Buffer = nullptr, *SendBuffer = nullptr,
                    *RecvBuffer = nullptr;
  bool InPlace = false;
  /// V forms (MPI_Scatterv, MPI_Gatherv): the int arrays of counts and
  /// displacements at the root; Count is each other rank's own. Null for
  /// the other forms.
  const clang::Expr *Counts = nullptr, *Displs = nullptr;
  /// Reductions: how the send and receive buffers are spelled from the
  /// expressions (`&total`, `v.data()`); the MPI operation ("MPI_SUM").
  BufferSpelling SendSpelling = BufferSpelling::AsWritten,
                 RecvSpelling = BufferSpelling::AsWritten;
  std::string Op;
  /// The collective combines in another order than the region and may
  /// round differently (allowed by --allow-reassociation).
  bool Reassociates = false;
  /// Exclusive scans: the calling rank's expression and the value rank 0's
  /// result holds after the region, which the rewrite sets again after
  /// MPI_Exscan (that leaves it undefined).
  const clang::Expr *Rank = nullptr;
  std::optional<int64_t> FirstResult;
  /// Whether the call is a v form.
  bool isVector() const { return Counts != nullptr; }
  /// Where the removed calls' error codes went (`ierr = MPI_Send(...)`,
  /// `ierr |= ...`): the collective's goes there too, the same way.
  ErrorFlow ErrorCode;
  /// The check of that code that followed each removed call (`if (ierr
  /// != MPI_SUCCESS) return ierr;`), as written; it follows the
  /// collective call instead. Null if none.
  const clang::Stmt *ErrorCheck = nullptr;
  /// `if (MPI_Send(...) != MPI_SUCCESS) return -1;`: one of the checks of
  /// the removed calls' own codes, all alike but for the call, and its
  /// call; the collective call is checked the same way. Null if none.
  const clang::IfStmt *CallCheck = nullptr;
  const clang::CallExpr *CheckedCall = nullptr;
  /// `return MPI_Recv(...);`: removed calls whose code the function
  /// returns. Their statements stay and return the collective's code, kept
  /// in ErrorCode's variable, or in one the rewrite declares when ErrorCode
  /// has none.
  std::vector<const clang::CallExpr *> Returned;
  /// How many process counts the proof ran, and the large ones it left
  /// out because they would take too many operations.
  unsigned Sizes = 0;
  std::vector<int64_t> Skipped;
};

/// One hand-written collective found in a function body.
struct ManualCollective {
  ManualKind Kind = ManualKind::Bcast;
  ManualTopology Topology = ManualTopology::Star;
  const clang::FunctionDecl *Function = nullptr;
  /// The statement the finding is reported at, as a reader looks for it:
  /// the loop around the first call (a star's root loop), else the
  /// statement of the region's block that holds it.
  const clang::Stmt *RootStmt = nullptr;
  /// The region's first message call; for the libcdag fallback, the one
  /// blocking send (RootCall) and the one blocking receive (PeerCall) the
  /// graph re-expresses.
  const clang::CallExpr *RootCall = nullptr;
  const clang::CallExpr *PeerCall = nullptr;
  /// The latest safe completion point of a nonblocking form, after the
  /// region; none when the region's buffers are used at once.
  std::optional<WaitPoint> Wait;
  /// The region's first statement: a nonblocking form or a fallback graph
  /// declares what it needs before it.
  const clang::Stmt *PatternStmt = nullptr;
  /// Set for Listing 7's polling ring or chain.
  std::optional<PollingForm> Polling;
  /// Set for patterns refused by nothing but input or scale independence.
  std::optional<CDagFallback> Fallback;
  /// Every reason not to rewrite, in source order; empty when safe.
  std::vector<Refusal> Refusals;
  /// Set when the rank-space evaluation found the pattern.
  std::optional<ProvenRegion> Region;
  /// The pattern's MPI calls (for the trace's evidence).
  std::vector<const clang::CallExpr *> Calls;
  /// The source the pattern spans.
  clang::SourceRange Range;

  bool isSafe() const { return Refusals.empty(); }
};

class TranslationUnitFacts;
class ProjectFacts;

/// Finds manual collectives in the functions of one translation unit. The
/// checks follow values through callers, so the finder indexes the unit's
/// calls once and keeps per-function facts between queries.
class ManualCollectiveFinder {
public:
  /// With \p AllowReassociation, floating-point sums and products may be
  /// rewritten to a collective that combines them in another order
  /// (--allow-reassociation; the reduction-order check). \p Project: the
  /// facts of the program's other units (null: this unit is all).
  explicit ManualCollectiveFinder(clang::ASTContext &Context,
                                  bool AllowReassociation = false,
                                  const ProjectFacts *Project = nullptr);
  ~ManualCollectiveFinder();

  /// Every manual collective in the body of \p Function, with the safety
  /// checks run on each; in source order.
  std::vector<ManualCollective> find(const clang::FunctionDecl &Function);

  /// After find(\p Function): its point-to-point calls that no finding
  /// covers and that the evaluation could not judge, with the reason.
  std::vector<UnjudgedCalls>
  unjudged(const clang::FunctionDecl &Function) const;

private:
  std::unique_ptr<TranslationUnitFacts> Facts;
  std::map<const clang::FunctionDecl *, std::vector<UnjudgedCalls>> Unjudged;
};

/// The source text of \p E as written (macro uses stay unexpanded).
std::string sourceText(const clang::Expr *E, const clang::ASTContext &Context);

/// \p Text without white space, so `i*n` and `i * n` compare equal.
std::string squeezed(llvm::StringRef Text);

/// Whether the source text of \p E is \p E and nothing else: false for a
/// part of a macro's body (`TOTAL` inside `#define NSEG (TOTAL / SEG)`),
/// whose text as written is the whole use of the macro.
bool writtenAsItself(const clang::Expr *E, const clang::ASTContext &Context);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_MANUALCOLLECTIVE_H
