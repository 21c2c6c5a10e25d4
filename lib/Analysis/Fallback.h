//===- Fallback.h - Hand-written collectives run through libcdag -*- C++
//-*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Whether a pattern the safety checks refused only for input or scale
/// dependence can run through libcdag (`--fallback cdag`), and what the
/// cached graph of it is keyed by.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_FALLBACK_H
#define MPILIFT_LIB_ANALYSIS_FALLBACK_H

#include "mpilift/Analysis/ManualCollective.h"

namespace mpilift {
namespace analysis {

class TranslationUnitFacts;

/// Whether \p C is refused, and only by input- or scale-independence: the
/// refusals libcdag may take the place of.
bool refusedOnlyForDependence(const ManualCollective &C);

/// Decides whether \p C, refused only for input or scale dependence, can
/// be re-expressed with libcdag: sets C.Fallback, with the key of its
/// cached graph or what blocks it. Needs C.PatternStmt (the one statement
/// holding every call of the pattern), C.RootCall and C.PeerCall.
void findFallback(ManualCollective &C, TranslationUnitFacts &TU);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_FALLBACK_H
