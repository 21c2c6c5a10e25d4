//===- Overlap.h - Where waits can sink ------------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The analyses of the overlap passes (paper 004, sections 2 and 3): which
/// blocking sends and receives can be split into a nonblocking call and a
/// wait, which existing waits can move, and where each wait must land.
///
/// A blocking call is a nonblocking call followed at once by its wait, so
/// all three rules ask one question: how far after its current place may a
/// wait go? Wait matching finds the nonblocking calls a wait completes
/// through its request variable (or request array); their buffers, the
/// request and the status form the wait's dependences. The wait then sinks
/// through the statements that follow it, out of the branches of `if`s (the
/// conditional-wait flag of Algorithm 1) and plain blocks, and stops before
/// the first statement that may touch a dependence, at the end of a loop
/// body (waits never leave their loop, as in Algorithm 1), at the end of the
/// scope of a buffer, or at the end of the function. In structured code the
/// point found this way is the one Algorithm 1 computes with the dominator
/// and post-dominator trees: it dominates every later access and is reached
/// from the original wait on every path that does not leave the region.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_OVERLAP_H
#define MPILIFT_ANALYSIS_OVERLAP_H

#include "mpilift/Analysis/ErrorFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace mpilift {
namespace analysis {

/// The three overlap rules.
enum class OverlapRule {
  SplitSend, ///< MPI_Send (Ssend, Rsend, Bsend) into MPI_I* + MPI_Wait.
  SplitRecv, ///< MPI_Recv into MPI_Irecv + MPI_Wait.
  SinkWait,  ///< An existing MPI_Wait or MPI_Waitall moved later.
};

/// "mpilift-split-send", "mpilift-split-recv", "mpilift-sink-wait".
llvm::StringRef overlapRuleId(OverlapRule Rule);

/// One blocking call or wait, and where its wait may go.
struct OverlapSite {
  OverlapRule Rule = OverlapRule::SplitSend;
  const clang::FunctionDecl *Function = nullptr;
  /// The blocking call (split rules) or the wait (sink-wait), and the
  /// statement it is.
  const clang::CallExpr *Call = nullptr;
  const clang::Stmt *CallStmt = nullptr;
  /// Where the call's error code goes (`ierr = MPI_Send(...);`, `ierr |=
  /// ...`), if anywhere. The split call's wait, or the moved wait, gives
  /// its own code the same place.
  ErrorFlow ErrorCode;
  /// `if (MPI_Send(...) != MPI_SUCCESS) return -1;`: the check of the
  /// call's code in place, which is the call's statement. The split call
  /// is checked there, and the wait, split or moved, the same way where it
  /// lands. Null otherwise.
  const clang::IfStmt *CallCheck = nullptr;
  /// Sink-wait: the nonblocking calls the wait completes.
  std::vector<const clang::CallExpr *> Starts;
  /// The wait goes before \c Before in \c Block, or at the end of \c Block
  /// when \c Before is null.
  const clang::CompoundStmt *Block = nullptr;
  const clang::Stmt *Before = nullptr;
  /// The statement of \c Block that holds the call (the call's own
  /// statement when they share the block): the request and flag of the
  /// rewrite are declared just before it.
  const clang::Stmt *Holder = nullptr;
  /// The wait leaves the branch of an `if`: it must run only where the
  /// original one did.
  bool LeavesConditional = false;
  /// How many statements now run between the call and its wait (other
  /// waits and tests are passed but not counted: they overlap nothing).
  unsigned Crossed = 0;
  /// The bodies of the innermost loops among the statements crossed, where
  /// progress polling can test the request (a block, or one statement).
  std::vector<const clang::Stmt *> PollBodies;
  /// The wait's status argument needs the real status (not ignored).
  bool StatusNeeded = false;
  /// Why the wait stops where it does, and the statement (or closing
  /// brace) that stops it.
  std::string Stop;
  clang::SourceLocation StopLoc;
  /// Algorithm 2 (OverlapFinder's aggressive mode): where the wait stops at
  /// the end of a loop body, it leaves the loop instead. Requests go into a
  /// ring of \c AggressiveLoop's own; before each \c DependencePoints
  /// statement of the loop body every outstanding one is completed, and
  /// after the loop the rest. Null when not applied.
  const clang::Stmt *AggressiveLoop = nullptr;
  std::vector<const clang::Stmt *> DependencePoints;
  /// Why Algorithm 2 was not applied where it was asked for.
  std::string AggressiveRefused;

  /// Why the site cannot be transformed at all, when it cannot; empty
  /// otherwise. A site whose wait would not move (nothing crossed) says so
  /// here too.
  std::string Refused;
  clang::SourceLocation RefusedLoc;

  bool canTransform() const { return Refused.empty(); }
};

class TranslationUnitFacts;
class ProjectFacts;

/// Finds the overlap sites of the functions of one translation unit.
class OverlapFinder {
public:
  /// \p Aggressive: Algorithm 2, waits that would stop at the end of a
  /// loop body leave the loop (docs/overlap.md). \p Project: the facts of
  /// the program's other units (null: none).
  explicit OverlapFinder(clang::ASTContext &Context, bool Aggressive = false,
                         const ProjectFacts *Project = nullptr);
  ~OverlapFinder();

  /// Every blocking send and receive and every MPI_Wait/MPI_Waitall in the
  /// body of \p Function, in source order.
  std::vector<OverlapSite> find(const clang::FunctionDecl &Function);

private:
  std::unique_ptr<TranslationUnitFacts> Facts;
  bool Aggressive;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_OVERLAP_H
