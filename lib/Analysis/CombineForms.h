//===- CombineForms.h - Statements that fold a value into another -*- C++ -*-//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The spellings of a reduction's combine step: a statement that makes an
/// accumulator the result of an operation on itself and another value.
///
///   acc += x;  acc *= x;  acc &= x;  acc |= x;  acc ^= x;
///   acc = acc + x;  acc = x * acc;  acc = acc && x;  acc = acc || x;
///   acc = x > acc ? x : acc;  acc = fmax(acc, x);  acc = std::min(acc, x);
///   if (x > acc) acc = x;     (and <, >=, <=, either side)
///   acc = a + b;  acc = a > b ? a : b;  acc = fmin(a, b);
///   if (in.v < acc.v) acc = in;     (value and index pairs: MPI_MINLOC,
///   if (in.v > acc.v) { acc.v = in.v; acc.i = in.i; }     MPI_MAXLOC)
///   if (in.v < acc.v || (in.v == acc.v && in.i < acc.i)) acc = in;
///
/// with acc and x any lvalues (variables, elements, fields). A statement
/// that reads the accumulator and another value but is none of these
/// (`acc = acc * 31 + x`, `acc -= x`, `acc += 2 * x`) is a combine of an
/// operation of its own: the evaluator records it too, so that a region
/// that folds received data that way is refused by name instead of passed
/// over.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_COMBINEFORMS_H
#define MPILIFT_LIB_ANALYSIS_COMBINEFORMS_H

#include "mpilift/CommGraph/CommGraph.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <optional>

namespace mpilift {
namespace analysis {

/// How a combine of (value, index) pairs settles equal values.
enum class PairTies : uint8_t {
  None,       ///< Not a combine of pairs.
  LowerIndex, ///< The smaller index, as MPI_MINLOC and MPI_MAXLOC do.
  KeepOwn,    ///< The pair it holds (`if (in.v < acc.v)`).
  TakeOther,  ///< The pair folded in (`if (in.v <= acc.v)`).
};

/// The dataflow's rule for ties of a combine settling them by \p Ties.
inline commgraph::TieRule tieRule(PairTies Ties) {
  switch (Ties) {
  case PairTies::KeepOwn:
    return commgraph::TieRule::KeepOwn;
  case PairTies::TakeOther:
    return commgraph::TieRule::TakeOther;
  default:
    return commgraph::TieRule::Indices;
  }
}

/// A combine step: Into becomes Op of itself and From; with Base, Op of
/// Base and From (`end = before + records;`). A declaration's combine
/// (`long next = before + records;`) has Declared instead of Into.
/// A combine of pairs (MPI_MINLOC, MPI_MAXLOC) has their structure as
/// PairType, and Into and From are the value fields, which start it.
struct CombineForm {
  const clang::Expr *Into = nullptr;
  const clang::VarDecl *Declared = nullptr;
  const clang::Expr *From = nullptr;
  const clang::Expr *Base = nullptr;
  commgraph::ReduceOp Op = commgraph::ReduceOp::Other;
  clang::QualType PairType;
  PairTies Ties = PairTies::None;
};

/// The combine step \p S spells (an assignment, a compound assignment, or
/// an `if` whose only statement assigns the compared value), if any.
std::optional<CombineForm> combineForm(const clang::Stmt *S,
                                       const clang::ASTContext &Context);

/// The combine \p V's initializer makes of two places into \p V
/// (`long next = before + records;`), if any; Base and From are set.
std::optional<CombineForm> declaredCombine(const clang::VarDecl &V,
                                           const clang::ASTContext &Context);

/// `a = b` of a whole structure (C's assignment, C++'s trivial
/// operator=) that \p S is: the target and the source.
std::optional<std::pair<const clang::Expr *, const clang::Expr *>>
structAssignment(const clang::Stmt *S);

/// What a combine of \p Form folds, element by element: the pair
/// structure, or Into's type.
clang::QualType combinedType(const CombineForm &Form);

/// Whether \p Op gives the same result in any order of combination on
/// values of \p Type: integer and logical operations, minimum and maximum
/// do; floating-point sums and products round differently.
bool exactInAnyOrder(commgraph::ReduceOp Op, clang::QualType Type);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_COMBINEFORMS_H
