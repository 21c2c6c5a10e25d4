//===- RegionFinder.h - Hand-written collectives by evaluation --*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Region selection: in each block of a function, innermost first, the
/// smallest run of statements holding point-to-point calls whose messages
/// close among themselves, grown by a neighbouring statement that copies a
/// rank's own block when the collective needs it. Each such region is
/// judged (CollectiveJudge.h); a proven one carries its rewrite plan, a
/// refused one the check that refused it. Regions that close but form no
/// collective (a halo exchange) are no finding.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_REGIONFINDER_H
#define MPILIFT_LIB_ANALYSIS_REGIONFINDER_H

#include "FunctionFacts.h"

#include "mpilift/Analysis/ManualCollective.h"

#include <vector>

namespace mpilift {
namespace analysis {

/// The hand-written collectives of \p F that the rank-space evaluation
/// finds, in source order.
/// When \p Unjudged is given, it receives the point-to-point calls that
/// no finding covers and whose evaluation stopped, with the reason.
std::vector<ManualCollective>
findEvaluatedCollectives(TranslationUnitFacts &TU, const clang::FunctionDecl &F,
                         std::vector<UnjudgedCalls> *Unjudged = nullptr);

/// The same for a function template \p F (TemplateInstances.cpp): its
/// instantiations in this unit, each evaluated; a finding proven in every
/// one of them alike is proven for the template's text, any other is
/// refused. Nothing for templates defined outside the main file, or never
/// instantiated.
std::vector<ManualCollective>
findEvaluatedInTemplate(TranslationUnitFacts &TU, const clang::FunctionDecl &F,
                        std::vector<UnjudgedCalls> *Unjudged = nullptr);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_REGIONFINDER_H
