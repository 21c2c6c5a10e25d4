//===- CombineFunctions.h - Functions that fold arrays ----------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Hand-written reductions often fold what they receive into their
/// accumulator through a helper of the program, in the same file or in
/// another one:
///
///   void add_ints(int n, const int *in, int *inout) {
///     for (int i = 0; i < n; i++)
///       inout[i] += in[i];
///   }
///   ...
///   MPI_Recv(part, n, MPI_INT, p, tag, comm, &status);
///   add_ints(n, part, bins);
///
/// Such a function is a combine function when its body is that loop and
/// nothing else: a counter from 0 while below a parameter, by one, whose
/// only statement is a combine step (CombineForms.h) of the counter's
/// element of one pointer parameter into the same element of another, of
/// one arithmetic type. A call then combines that many elements, in order,
/// as MPI's operation would; it keeps neither pointer and touches nothing
/// else. The pointers may be local views of the parameters (`const int *a
/// = (const int *)(IN);`), and a parameter may pick among such loops by the
/// elements' type (HPL's HPL_max: `if (DTYPE == HPL_INT) { ... } else {
/// ... }`).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_COMBINEFUNCTIONS_H
#define MPILIFT_LIB_ANALYSIS_COMBINEFUNCTIONS_H

#include "mpilift/Analysis/ProjectFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

#include <optional>

namespace mpilift {
namespace analysis {

class TranslationUnitFacts;

/// Whether the definition \p F is a combine function, and of which of its
/// parameters.
std::optional<CombineFunction> combineFunction(const clang::FunctionDecl &F,
                                               const clang::ASTContext &Ctx);

/// A call of a combine function: its summary, from the callee's body in
/// this unit or from the unit that defines it (the project's summaries).
struct CombineCall {
  CombineFunction Summary;
  const clang::FunctionDecl *Callee = nullptr;
  /// The element type, in this unit's context; null when a parameter
  /// picks it and the argument is no constant, or when it picks none.
  clang::QualType Element;
};

/// The element type (CombineFunction::Element) of a call of \p C whose
/// argument for the type parameter, if it has one, is \p TypeValue; empty
/// when that is unknown or the call combines nothing.
std::string elementFor(const CombineFunction &C,
                       std::optional<int64_t> TypeValue);

/// \p Call as a call of a combine function, when it is one.
std::optional<CombineCall> combineCallOf(const clang::CallExpr *Call,
                                         TranslationUnitFacts &TU);

/// Whether \p Arg is the argument \p Call passes a combine function for
/// the array it reads or the one it combines into.
bool isCombinedArgument(const clang::CallExpr *Call, const clang::Expr *Arg,
                        TranslationUnitFacts &TU);

/// The arithmetic type spelled \p Name (CombineFunction::Element) in
/// \p Ctx; null when it is none of the language's own.
clang::QualType arithmeticTypeNamed(llvm::StringRef Name,
                                    const clang::ASTContext &Ctx);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_COMBINEFUNCTIONS_H
