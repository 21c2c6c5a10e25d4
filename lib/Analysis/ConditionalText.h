//===- ConditionalText.h - Names in preprocessor conditionals ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The AST holds the code of one configuration. A variable the rewrite
/// stops writing (the root's loop counter, a reduction's last received
/// value) may still be read by code another configuration compiles:
///
///   for (p = 1; p < size; p++) MPI_Send(...);
///   #ifdef VERBOSE
///   printf("sent to %d peers\n", p - 1);
///   #endif
///
/// The names spelled inside the conditional blocks of a function, active
/// or not, found by lexing its text, tell which variables such code may
/// read: a rewrite keeps what they hold.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_CONDITIONALTEXT_H
#define MPILIFT_LIB_ANALYSIS_CONDITIONALTEXT_H

#include "clang/AST/Decl.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringSet.h"

namespace mpilift {
namespace analysis {

/// The identifiers spelled between `#if`/`#ifdef`/`#ifndef` and the
/// matching `#endif` in the body of \p F, outside \p Except; empty when
/// the body holds no conditional or cannot be read as written. The other
/// arms of a conditional whose arm holds \p Except are left out: no build
/// compiles them with it.
llvm::StringSet<> conditionalIdentifiers(const clang::FunctionDecl &F,
                                         clang::SourceRange Except);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_CONDITIONALTEXT_H
