//===- Polling.h - Callers of a polling broadcast ---------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The proof that Listing 7's polling broadcast may become one MPI_Ibcast
/// tested by every probe (paper 002, section VII). The function holding the
/// pattern returns before the message is there; its callers compute and
/// call again. Started by the first probe, the nonblocking broadcast writes
/// into the buffer between the calls, so the proof is about the callers:
/// each call sits in a loop that repeats it until the function reports the
/// broadcast over, nothing else in that loop touches the buffer, and the
/// broadcast's arguments are the same at every probe.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_POLLING_H
#define MPILIFT_LIB_ANALYSIS_POLLING_H

#include "FunctionFacts.h"

#include "mpilift/Analysis/ManualCollective.h"

#include <vector>

namespace mpilift {
namespace analysis {

/// Proves the region of \p C, evaluated with each MPI_Iprobe finding its
/// message (Region::ProbesArrive), a polling broadcast: \p Probe in
/// Listing 7's form, asking for what the receive takes, and every caller
/// of the function polling it to the end. Sets C.Polling when the form is
/// there; adds a refusal (polling-loop, matching-arguments or
/// message-integrity) for each part that is not proven.
void provePolling(const clang::CallExpr *Probe, ManualCollective &C,
                  TranslationUnitFacts &TU);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_POLLING_H
