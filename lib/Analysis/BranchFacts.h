//===- BranchFacts.h - Paths that branches rule out -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Codes that read their input on one process keep an error flag, jump
/// past the rest of the reading when something is wrong, and let every
/// process leave together (HPL's HPL_pdinfo):
///
///   int error = 0;
///   if (rank == 0) {
///     if (cannot_open) { error = 1; goto label_error; }
///     *layout = ...;
///   label_error: ...
///   }
///   MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_INT, MPI_MAX, comm);
///   if (error) { MPI_Finalize(); exit(1); }
///   if (rank == 0) { ... *layout is packed here ... }
///
/// No run packs `*layout` without writing it first: a path through
/// `error = 1` cannot take the false branch of `if (error)` (the maximum
/// over the processes is at least this process's 1), and a path through
/// the earlier `if (rank == 0)`'s false branch cannot reach the later
/// one's true branch (nothing writes `rank` between them). Walking back
/// from a read, these facts say which paths a branch rules out: a branch
/// testing a local integer against a constant bounds it (`rank == 0`,
/// `error` false: 0, `error > 0` false: at most 0); a write of a constant
/// outside the bounds, or a branch that contradicts them, ends the path; a
/// reduction of MPI's that relates the result to the process's own value
/// (a maximum, a minimum, a logical or bitwise or) carries the bound to the
/// value before it; any other write forgets it.
///
/// Only a local signed integer whose address goes nowhere but to a few
/// blocking MPI calls (MPI_Allreduce, MPI_Bcast, MPI_Comm_rank,
/// MPI_Comm_size) is tracked: every write of it is then an assignment,
/// compound assignment, increment or one of those calls, each of which
/// the control-flow graph places.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_BRANCHFACTS_H
#define MPILIFT_LIB_ANALYSIS_BRANCHFACTS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace mpilift {
namespace analysis {

/// What a path knows of one local integer at a point of it: Lo <= V <= Hi.
struct ValueFact {
  static constexpr int64_t Min = std::numeric_limits<int64_t>::min();
  static constexpr int64_t Max = std::numeric_limits<int64_t>::max();
  const clang::VarDecl *Var = nullptr;
  int64_t Lo = Min, Hi = Max;

  bool operator==(const ValueFact &O) const {
    return Var == O.Var && Lo == O.Lo && Hi == O.Hi;
  }
  bool operator<(const ValueFact &O) const {
    return std::tie(Var, Lo, Hi) < std::tie(O.Var, O.Lo, O.Hi);
  }
};

/// The facts of one point of a path, ordered by variable, at most one per
/// variable.
using PathFacts = llvm::SmallVector<ValueFact, 2>;

/// The tracked local integers of one function, and what their branches and
/// writes say when a path is walked back.
class BranchFacts {
public:
  BranchFacts(const clang::FunctionDecl &F, clang::ASTContext &Context);

  /// \p Facts narrowed by the branch testing \p Condition taken the way
  /// \p Taken; nothing when the branch contradicts them (no run takes this
  /// path).
  std::optional<PathFacts>
  narrowByBranch(PathFacts Facts, const clang::Expr *Condition, bool Taken);

  /// \p Facts before \p S, walked back over it; nothing when \p S gives a
  /// variable a value its fact denies.
  std::optional<PathFacts> stepBack(PathFacts Facts, const clang::Stmt &S);

private:
  /// A bound a branch sets on a variable: within [Lo, Hi], or, with
  /// \c Except, anything but Lo.
  struct Bound {
    const clang::VarDecl *Var = nullptr;
    int64_t Lo = ValueFact::Min, Hi = ValueFact::Max;
    bool Except = false;
  };
  /// The bounds the condition \p C taken as \p Taken sets (both sides of
  /// `a || b` taken false, of `a && b` taken true).
  void boundsOf(const clang::Expr *C, bool Taken,
                llvm::SmallVectorImpl<Bound> &Out);
  std::optional<Bound> comparisonBound(const clang::BinaryOperator &Op,
                                       bool Taken);
  /// Whether \p V is tracked (see the file comment).
  bool isTracked(const clang::VarDecl *V);
  /// The fact on the value reduced, from \p Result's on the reduction's
  /// result, when \p Call is such a reduction into \p Result's variable.
  std::optional<ValueFact> beforeReduction(const ValueFact &Result,
                                           const clang::CallExpr &Call);

  const clang::FunctionDecl &F;
  clang::ASTContext &Context;
  llvm::DenseMap<const clang::VarDecl *, bool> Tracked;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_BRANCHFACTS_H
