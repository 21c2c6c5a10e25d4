//===- FieldWriteValues.h - What a unit's field writes give -----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A unit's summary says, for every write of a structure field, what the
/// unit's own code shows of the value: the rank or size on the same
/// object's communicator, a value the same on every rank whenever every rank
/// runs the writing function, or neither (and why). Another unit that reads
/// the field judges the rest: the callers it shows.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_FIELDWRITEVALUES_H
#define MPILIFT_LIB_ANALYSIS_FIELDWRITEVALUES_H

#include "RankUniformity.h"

namespace mpilift {
namespace analysis {

/// What the write \p Use of a field (a use that is more than a load) gives
/// it, judged with \p TU's code alone; \p Where is where a note names it.
FieldValue writtenValue(const clang::MemberExpr &Use, SourcePlace Where,
                        TranslationUnitFacts &TU, RankUniformity &Uniformity);

/// What \p Site (a call in this unit) passes and when it runs, judged
/// with \p TU's code alone; \p Where is where a note names it.
CallRecord calledWith(const CallSite &Site, SourcePlace Where,
                      TranslationUnitFacts &TU, RankUniformity &Uniformity);

/// What \p F (a function with a body in the unit) returns through each
/// parameter that points to a scalar it may write, judged with the unit's
/// code alone.
std::vector<OutValue> outValues(const clang::FunctionDecl &F,
                                RankUniformity &Uniformity);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_FIELDWRITEVALUES_H
