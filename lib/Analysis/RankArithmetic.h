//===- RankArithmetic.h - Evaluate rank expressions -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Ring and chain patterns name their neighbours with arithmetic on the rank
/// and the size: `(rank + 1) % size`, `(rank - 1 + size) % size`,
/// `rank + 1 < size`. Instead of matching spellings, the checks evaluate
/// these expressions with C semantics for every rank at many sizes and
/// simulate the messages they describe. Only integer arithmetic and
/// comparisons over the rank, the size, the root and variables defined once
/// from them can be evaluated; anything else is refused.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_RANKARITHMETIC_H
#define MPILIFT_LIB_ANALYSIS_RANKARITHMETIC_H

#include "FunctionFacts.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace mpilift {
namespace analysis {

/// Values of the variables an evaluation may read.
using RankEnvironment = llvm::DenseMap<const clang::VarDecl *, int64_t>;

/// Evaluates rank arithmetic over one function's variables.
class RankArithmetic {
public:
  RankArithmetic(const FunctionFacts &Facts, const clang::ASTContext &Context)
      : Facts(Facts), Context(Context) {}

  /// The value of \p E under \p Env, with C's truncating division; nothing
  /// when \p E reads anything else or divides by zero.
  std::optional<int64_t> evaluate(const clang::Expr *E,
                                  const RankEnvironment &Env) const;

  /// The variables \p E reads that are neither in \p Known nor defined once
  /// from an initializer; the checks must bind them (the size) or refuse.
  void freeVariables(const clang::Expr *E,
                     llvm::SmallVectorImpl<const clang::VarDecl *> &Known,
                     llvm::SmallVectorImpl<const clang::VarDecl *> &Out) const;

  /// The largest integer literal in \p E (through single definitions), so
  /// the simulation runs past every constant the pattern compares with.
  int64_t largestLiteral(const clang::Expr *E, unsigned Depth = 0) const;

private:
  std::optional<int64_t> evaluate(const clang::Expr *E,
                                  const RankEnvironment &Env,
                                  unsigned Depth) const;
  /// The initializer of a local variable that is never written again.
  const clang::Expr *singleDefinition(const clang::VarDecl *V) const;

  const FunctionFacts &Facts;
  const clang::ASTContext &Context;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_RANKARITHMETIC_H
