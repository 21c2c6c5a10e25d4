//===- LoopStability.h - Fields a loop leaves alone -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Whether a structure field keeps its value through every iteration of a
/// loop: a polled broadcast reads its buffer, count and root from the
/// caller's structure (`PANEL->L2`, `PANEL->len`) at every call, and one
/// MPI_Ibcast stands for all of them only if none changes in between.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_LOOPSTABILITY_H
#define MPILIFT_LIB_ANALYSIS_LOOPSTABILITY_H

#include "FunctionFacts.h"

#include <optional>
#include <string>

namespace mpilift {
namespace analysis {

/// Why \p Field may change while \p Loop (a statement of \p Caller) runs:
/// a write of it inside the loop or in a function the loop calls (directly
/// or through others defined in the unit), an assignment of a whole object
/// of its structure there, or an object's address given to code the unit
/// cannot see. Nothing when it keeps its value.
std::optional<std::string> fieldChangesIn(const clang::FieldDecl *Field,
                                          const clang::Stmt *Loop,
                                          const clang::FunctionDecl &Caller,
                                          TranslationUnitFacts &TU);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_LOOPSTABILITY_H
