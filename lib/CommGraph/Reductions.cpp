//===- Reductions.cpp - Reductions in the combined data -------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The reductions of MPI by what each process holds at the end, in the
/// style of Algorithm 5's signatures, with the combinations of the dataflow
/// in place of SST transfers (o_i: where process i's data is):
///
///   reduce     (r, op, {(i, o_i) | all i})          at the root r only
///   allreduce  (j, op, {(i, o_i) | all i})          for all j
///   scan       (j, op, {(i, o_i) | i <= j})         for all j > 0
///   exscan     (j, op, {(i, o_i) | i < j})          for all j > 1, and a
///                                                   transfer (0, o_0) to 1
///
/// Every process's data must come from one place, whatever result it is
/// part of; no process may be combined twice, no operation may be one of
/// the program's own, and no other data may move between processes.
///
//===----------------------------------------------------------------------===//

#include "mpilift/CommGraph/CommGraph.h"

#include <map>

namespace mpilift {
namespace commgraph {

const char *name(ReductionKind K) {
  switch (K) {
  case ReductionKind::Reduce:
    return "reduce";
  case ReductionKind::Allreduce:
    return "allreduce";
  case ReductionKind::Scan:
    return "scan";
  case ReductionKind::Exscan:
    return "exscan";
  }
  return "?";
}

namespace {

/// Why a region is no exclusive scan when process 1 lacks its result.
constexpr const char *NoFirstExscanResult =
    "process 1 does not receive process 0's data, as the first result of "
    "an exclusive scan would";

std::string process(Rank R) { return "process " + std::to_string(R); }

/// Whether \p C combines exactly the processes First..Last.
bool combinesRange(const Combination &C, Rank First, Rank Last) {
  if (C.Repeated || C.Parts.empty())
    return false;
  return C.Parts.front().First == First && C.Parts.back().Last == Last &&
         C.processes() == Last - First + 1;
}

class ReductionFinder {
public:
  ReductionFinder(const std::vector<Combination> &Combined,
                  const std::vector<Transfer> &Transfers, Rank P,
                  std::optional<ReductionKind> Expected)
      : Combined(Combined), Transfers(Transfers), P(P), Expected(Expected) {}

  ReductionDetection run();

private:
  bool fail(std::string Why, OpId Writer = NoOp) {
    D.Why = std::move(Why);
    D.Writer = Writer;
    return false;
  }
  /// One combination per process, of one operation and size, every
  /// process combined once and read from one place.
  bool consistent();
  bool classify(Reduction &R);
  bool noOtherTransfers(Reduction &R);
  bool firstScanResult(Reduction &R);
  bool twoProcessExscan(Reduction &R);

  const std::vector<Combination> &Combined;
  const std::vector<Transfer> &Transfers;
  Rank P;
  std::optional<ReductionKind> Expected;
  ReductionDetection D;
  std::map<Rank, const Combination *> ByProcess;
  std::vector<std::optional<Address>> Contribution;
};

bool ReductionFinder::consistent() {
  const Combination &First = Combined.front();
  for (const Combination &C : Combined) {
    if (!ByProcess.emplace(C.Dst, &C).second)
      return fail(process(C.Dst) +
                      " holds more than one region of combined data (or "
                      "regions combined by different operations)",
                  C.Writer);
    if (C.Op == ReduceOp::Other)
      return fail(process(C.Dst) +
                      " combines the data of several processes by an "
                      "operation that is none of MPI's",
                  C.Writer);
    if (C.Repeated)
      return fail(process(C.Dst) +
                      " combines some process's data more than once",
                  C.Writer);
    if (C.Op != First.Op || C.Element != First.Element ||
        C.Size != First.Size)
      return fail(process(C.Dst) + " combines with " + name(C.Op) + " on " +
                      std::to_string(C.Size) + " bytes, " +
                      process(First.Dst) + " with " + name(First.Op) + " on " +
                      std::to_string(First.Size),
                  C.Writer);
  }
  Contribution.assign(P, std::nullopt);
  for (const Combination &C : Combined)
    for (const struct Contribution &Part : C.Parts)
      for (Rank R = Part.First; R <= Part.Last; ++R) {
        if (R < 0 || R >= P)
          return fail("a combination names " + process(R) +
                      ", which does not exist");
        if (Contribution[R] && *Contribution[R] != Part.Addr)
          return fail(process(R) +
                          "'s data is read from one place for one result "
                          "and from another for another",
                      C.Writer);
        Contribution[R] = Part.Addr;
      }
  return true;
}

bool ReductionFinder::classify(Reduction &R) {
  bool AllHaveAll = static_cast<Rank>(ByProcess.size()) == P;
  for (const auto &[Dst, C] : ByProcess)
    AllHaveAll &= combinesRange(*C, 0, P - 1);
  if (AllHaveAll) {
    R.Kind = ReductionKind::Allreduce;
    return true;
  }
  // A scan: process j combines 0..j; an exscan: 0..j-1 (its first result
  // is a plain copy of process 0's data). Two processes cannot tell a scan
  // from a reduce to process 1: the expected kind decides.
  bool Scan = P >= 2 && !ByProcess.count(0);
  for (Rank J = 1; Scan && J < P; ++J)
    Scan = ByProcess.count(J) && combinesRange(*ByProcess[J], 0, J);
  bool Reduce = ByProcess.size() == 1 &&
                combinesRange(*ByProcess.begin()->second, 0, P - 1);
  if (Reduce && !(Scan && Expected == ReductionKind::Scan)) {
    R.Kind = ReductionKind::Reduce;
    R.Root = ByProcess.begin()->first;
    return true;
  }
  if (Scan) {
    R.Kind = ReductionKind::Scan;
    return true;
  }
  bool Exscan = P >= 3 && !ByProcess.count(0) && !ByProcess.count(1);
  for (Rank J = 2; Exscan && J < P; ++J)
    Exscan = ByProcess.count(J) && combinesRange(*ByProcess[J], 0, J - 1);
  if (Exscan) {
    R.Kind = ReductionKind::Exscan;
    return true;
  }
  // Name the first process whose result misses someone.
  for (const auto &[Dst, C] : ByProcess)
    for (Rank Q = 0; Q < P; ++Q)
      if (!C->partOf(Q))
        return fail(process(Dst) + "'s result combines " +
                        std::to_string(C->processes()) + " of " +
                        std::to_string(P) + " processes; " + process(Q) +
                        "'s data is not part of it",
                    C->Writer);
  return fail("the combined data is no reduction, allreduce or scan over "
              "all processes");
}

bool ReductionFinder::noOtherTransfers(Reduction &R) {
  for (const Transfer &T : Transfers) {
    if (T.Src == T.Dst)
      continue;
    bool ExscanFirst = R.Kind == ReductionKind::Exscan && T.Src == 0 &&
                       T.Dst == 1 && Contribution[0] &&
                       T.SrcAddr == *Contribution[0] && T.Size == R.Size;
    if (ExscanFirst) {
      R.Result[1] = T.DstAddr;
      continue;
    }
    return fail(process(T.Dst) + " also receives " + std::to_string(T.Size) +
                " bytes of " + process(T.Src) +
                "'s data unchanged, which no reduction moves");
  }
  if (R.Kind == ReductionKind::Exscan && !R.Result[1])
    return fail(NoFirstExscanResult);
  return true;
}

/// A scan's first process combines nothing: its result is its own data,
/// in place or copied where the others' results are.
bool ReductionFinder::firstScanResult(Reduction &R) {
  const Combination &Second = *ByProcess[1];
  bool InPlace = Contribution[1] && Second.DstAddr == *Contribution[1];
  if (InPlace) {
    R.Result[0] = Contribution[0];
    return true;
  }
  for (const Transfer &T : Transfers)
    if (T.Src == 0 && T.Dst == 0 && Contribution[0] &&
        T.SrcAddr <= *Contribution[0] &&
        *Contribution[0] + R.Size <= T.SrcAddr + T.Size) {
      R.Result[0] = T.DstAddr + (*Contribution[0] - T.SrcAddr);
      return true;
    }
  return fail("process 0 does not put its own data where the scan's result "
              "goes, as MPI_Scan would");
}

/// An exclusive scan over two processes combines nothing: process 1
/// receives process 0's data as it is. Only what larger sizes showed
/// tells it from a broadcast.
bool ReductionFinder::twoProcessExscan(Reduction &R) {
  const Transfer *Only = nullptr;
  for (const Transfer &T : Transfers) {
    if (T.Src == T.Dst)
      continue;
    if (Only || T.Src != 0 || T.Dst != 1)
      return fail(process(T.Dst) + " receives " + std::to_string(T.Size) +
                  " bytes of " + process(T.Src) +
                  "'s data, where an exclusive scan of two processes moves "
                  "process 0's data to process 1 only");
    Only = &T;
  }
  if (!Only)
    return fail(NoFirstExscanResult);
  R.Kind = ReductionKind::Exscan;
  R.Size = Only->Size;
  R.Contribution.assign(P, std::nullopt);
  R.Result.assign(P, std::nullopt);
  R.Contribution[0] = Only->SrcAddr;
  R.Result[1] = Only->DstAddr;
  return true;
}

ReductionDetection ReductionFinder::run() {
  if (Combined.empty()) {
    Reduction R;
    if (Expected == ReductionKind::Exscan && P == 2) {
      if (twoProcessExscan(R))
        D.Found = std::move(R);
      return D;
    }
    fail("no data of several processes is combined");
    return D;
  }
  if (!consistent())
    return D;
  Reduction R;
  R.Op = Combined.front().Op;
  R.Element = Combined.front().Element;
  R.Size = Combined.front().Size;
  if (!classify(R))
    return D;
  // The last process's data is part of no exclusive prefix.
  Rank Combined = R.Kind == ReductionKind::Exscan ? P - 1 : P;
  for (Rank Q = 0; Q < Combined; ++Q)
    if (!Contribution[Q]) {
      fail(process(Q) + "'s data is combined into no result");
      return D;
    }
  R.Contribution = Contribution;
  R.Result.assign(P, std::nullopt);
  for (const auto &[Dst, C] : ByProcess)
    R.Result[Dst] = C->DstAddr;
  if (!noOtherTransfers(R))
    return D;
  if (R.Kind == ReductionKind::Scan && !firstScanResult(R))
    return D;
  D.Found = std::move(R);
  return D;
}

} // namespace

ReductionDetection detectReductions(const std::vector<Combination> &Combined,
                                    const std::vector<Transfer> &Transfers,
                                    Rank NumProcs,
                                    std::optional<ReductionKind> Expected) {
  return ReductionFinder(Combined, Transfers, NumProcs, Expected).run();
}

} // namespace commgraph
} // namespace mpilift
