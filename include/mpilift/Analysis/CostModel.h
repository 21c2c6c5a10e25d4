//===- CostModel.h - The machine parameters of the fusion estimates -*- C++
//-*-//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cost model of seed 001, section 4: sending m words between two
/// processes takes t_s + m * t_w, and a collective on p processes takes
/// log p such steps, plus one combining operation per word and step for a
/// reduction (two for a scan). A fusion rule that pays only under a
/// condition on t_s and t_w (Table 1: "t_s > 2m") is applied when the
/// machine profile says it pays, and its finding states the prediction.
///
/// The profile is what `mpilift calibrate` measured with a ping-pong
/// between two processes (docs/cost-profile.md); without one, the default
/// profile documented there is used.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_COSTMODEL_H
#define MPILIFT_ANALYSIS_COSTMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpilift {
namespace analysis {

/// The median one-way time of a message of Bytes bytes.
struct PingPongSample {
  uint64_t Bytes = 0;
  double Seconds = 0;
};

/// A machine's t_s, t_w and the time of one combining operation.
struct MachineProfile {
  /// t_s: the time of a message of no bytes.
  double StartupSeconds = 0;
  /// t_w, per byte.
  double SecondsPerByte = 0;
  /// One combining operation on one element (a double added to another):
  /// the unit of the seed's estimates.
  double SecondsPerOperation = 0;
  /// The MPI library measured ("Open MPI v4.1.4"); empty for the default.
  std::string Library;
  /// The measurements the parameters were fitted to.
  std::vector<PingPongSample> Samples;
  /// Where the profile came from, for findings: "the default machine
  /// profile" or "the machine profile 'x.json'".
  std::string Origin;
};

/// The documented profile used when the user has measured none
/// (docs/cost-profile.md).
MachineProfile defaultMachineProfile();

/// Fits a profile to what mpilift-pingpong printed: t_s is the time of the
/// smallest message, t_w the least-squares slope of the time above t_s
/// over the messages of 4 KiB and more.
llvm::Expected<MachineProfile> fitPingPongOutput(llvm::StringRef Text);

/// The profile in its file format.
llvm::json::Value toJSON(const MachineProfile &Profile);

/// Reads a profile written by `mpilift calibrate`; errors name the file
/// and what is wrong with it.
llvm::Expected<MachineProfile> readMachineProfile(llvm::StringRef Path);

/// Writes \p Profile to \p Path whole or not at all.
llvm::Error writeMachineProfile(const MachineProfile &Profile,
                                llvm::StringRef Path);

/// The time of a sequence of collectives and of what replaces it, on two
/// processes (one step of the butterfly: log p = 1, where a fusion saves
/// the least).
struct CostEstimate {
  double BeforeSeconds = 0;
  double AfterSeconds = 0;
  /// Where the machine parameters came from.
  std::string Origin;

  bool pays() const { return AfterSeconds < BeforeSeconds; }
  /// "predicted on 2 processes: 0.61 us instead of 1.12 us (the default
  /// machine profile)".
  std::string describe() const;
};

/// \p Calls collectives of \p Elements elements of \p ElementBytes bytes
/// in all, against one collective on a packed buffer that is copied in
/// and out; \p Combines: the collectives combine values (one operation
/// per element and step), as reductions do and broadcasts do not.
CostEstimate estimatePacking(const MachineProfile &Profile, unsigned Calls,
                             uint64_t Elements, uint64_t ElementBytes,
                             bool Combines);

/// Rules SR2-Reduction and SS2-Scan (Table 1): a scan and a reduction
/// (\p SecondIsScan false) or a second scan of \p Elements elements of
/// \p ElementBytes bytes, 2 t_s + m (2 t_w + 3) or 2 t_s + m (2 t_w + 4),
/// against one collective on pairs, t_s + m (2 t_w + 3) or t_s + m (2 t_w
/// + 6), plus what Table 1 leaves out: the pairs written (two copies per
/// element) and the results read out (one). With them SR2 pays when t_s >
/// 3m and SS2 when t_s > 5m, in operations.
CostEstimate estimateScanPair(const MachineProfile &Profile, uint64_t Elements,
                              uint64_t ElementBytes, bool SecondIsScan);

/// Rules BSR-, BSR2-Local and BSS-, BSS2-Comcast (Table 1): a broadcast, a
/// scan and a reduction (\p LastIsScan false) or a second scan of
/// \p Elements elements of \p ElementBytes bytes, 3 t_s + m (3 t_w + 3) or
/// 3 t_s + m (3 t_w + 4), against the broadcast, which mpilift keeps, and
/// the local computation: t_s + m (t_w + 3) for BSR2 (the seed's 3m plus
/// the broadcast), t_s + m (t_w + 4) for BSR, t_s + m (t_w + 5) for BSS2
/// and t_s + m (t_w + 8) for BSS (\p SameOperation: the R and S forms).
CostEstimate estimateBcastScanLocal(const MachineProfile &Profile,
                                    uint64_t Elements, uint64_t ElementBytes,
                                    bool LastIsScan, bool SameOperation);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_COSTMODEL_H
