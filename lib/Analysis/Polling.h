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

/// The refusals (polling-loop and message-integrity) for the polling
/// broadcast \p C, whose \c Polling, \c Guard, \c RootStmt, \c RootCall and
/// \c PeerCall are set; empty when every caller is proven to poll it to the
/// end.
std::vector<Refusal> checkPollingCallers(const ManualCollective &C,
                                         TranslationUnitFacts &TU);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_POLLING_H
