//===- FusionBcastScan.cpp - A broadcast, a scan, a combination of it -----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Seed 001's rules BSR-Local, BSR2-Local, BSS-Comcast and BSS2-Comcast:
/// after MPI_Bcast every rank holds b, so MPI_Scan with (x) gives rank k
/// the power b^(k+1) (k + 1 copies of b combined by (x)), and a reduction
/// or scan with (+) of those powers gives
///
///   S_n = b (+) b^2 (+) ... (+) b^n
///
/// for n = p (MPI_Reduce at the root, MPI_Allreduce everywhere) or n =
/// rank + 1 (MPI_Scan). Each rank that needs S_n computes it from b where
/// the last call stood, without a message: when (x) and (+) are the same
/// operation, S_n is b combined n (n + 1) / 2 times; otherwise the binary
/// method on pairs, S_2m = S_m (+) (b^m (x) S_m), which needs (x) to
/// distribute over (+). The broadcast stays (the ranks may read b later);
/// the scan goes, so its result must be a local that only the two calls
/// mention, as for SR2-Reduction.
///
/// Table 1 with the broadcast kept: BSR2-Local always pays; BSR-Local,
/// BSS-Comcast and BSS2-Comcast when the machine's t_s and t_w say so
/// (CostModel.h).
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Fusion.h"

#include "mpilift/Analysis/MPICalls.h"

#include "FusionForms.h"

using namespace clang;

namespace mpilift {
namespace analysis {

using namespace fusion;

bool isBcastScanTriple(FusionKind Kind) {
  return Kind == FusionKind::BcastScanReduce ||
         Kind == FusionKind::BcastScanAllreduce ||
         Kind == FusionKind::BcastScanScan;
}

void FusionFinder::judgeBcastScanTriple(FusionSite &Site, unsigned First,
                                        unsigned ScanIndex, unsigned Last) {
  const CallExpr *Bcast = Site.Calls[0], *Scan = Site.Calls[1],
                 *Final = Site.Calls[2];
  // The last call against the broadcast, everything between them but the
  // scan: the buffer keeps b, the last call's arguments keep their values,
  // no rank leaves; the last operation a C operator on a C type.
  FusionSite Outer = Site;
  Outer.Calls = {Bcast, Final};
  Outer.Refusals.clear();
  judgeLocal(Outer, First, Last, ScanIndex);
  // The scan against the broadcast: the same elements, a C operator.
  FusionSite Inner = Site;
  Inner.Calls = {Bcast, Scan};
  Inner.Refusals.clear();
  checkSameElements(Inner, "the broadcast", Context);
  std::string Type =
      spelled(mpiArgAsWritten(Scan, mpi::Role::Datatype), Context);
  const PredefinedDatatype *DT = predefinedDatatype(Type);
  const Expr *TimesArg = mpiArgAsWritten(Scan, mpi::Role::Op);
  const Expr *PlusArg = mpiArgAsWritten(Final, mpi::Role::Op);
  checkCOperation(Inner, TimesArg, DT, Type, "the local combination", Context);
  // The scan's result: nothing else reads it, since nothing computes it
  // any more.
  FusionSite Result = Site;
  Result.Calls = {Scan, Final};
  Result.Refusals.clear();
  judgeScanResult(Result);
  Site.UnusedDecl = Result.UnusedDecl;
  Site.ElementType = Outer.ElementType;
  for (const FusionSite *Part : {&Outer, &Inner, &Result})
    llvm::append_range(Site.Refusals, Part->Refusals);

  std::string Times = spelled(TimesArg, Context),
              Plus = spelled(PlusArg, Context);
  Site.Operations = {Times, Plus};
  // One operation twice: b combined n (n + 1) / 2 times, whose order
  // judgeLocal judged. Two: they must distribute. Every value the binary
  // method computes is one of the b^j (+) ... the program computes (j <=
  // n): no sum it never adds, so no new overflow.
  bool Floating = DT && (Context.*(DT->Type))->isRealFloatingType();
  if (Times != Plus) {
    switch (distributes(Times, Plus, Floating)) {
    case Algebra::Exact:
    case Algebra::Overflows:
      break;
    case Algebra::Rounds:
      if (!AllowReassociation)
        Site.Refusals.push_back(
            {SafetyCheck::ReductionOrder,
             "'" + Times + "' distributes over '" + Plus +
                 "' on real numbers, but computing the result from the "
                 "broadcast value combines '" +
                 Type + "' values in another order than the scan and the " +
                 nameOf(Final) +
                 " do, which may round differently (allow it with "
                 "--allow-reassociation)",
             PlusArg->getBeginLoc()});
      break;
    case Algebra::None:
      Site.Refusals.push_back(
          {SafetyCheck::ReductionOrder,
           notDistributive(Times, Plus,
                           "computing the result from the broadcast value"),
           PlusArg->getBeginLoc()});
      break;
    }
  }
  std::optional<uint64_t> Size = predefinedTypeSize(Type, Context);
  // A count that is no constant is predicted for 64 Ki elements, where
  // t_w decides.
  const Expr *CountArg = mpiArg(Final, mpi::Role::Count);
  std::optional<llvm::APSInt> Count =
      CountArg && !CountArg->isValueDependent()
          ? CountArg->getIntegerConstantExpr(Context)
          : std::nullopt;
  bool Conditional = Times == Plus || Site.Kind == FusionKind::BcastScanScan;
  if (Conditional && Size)
    Site.Cost = estimateBcastScanLocal(
        Profile, Count && !Count->isNegative() ? Count->getExtValue() : 65536,
        *Size, Site.Kind == FusionKind::BcastScanScan, Times == Plus);
}

} // namespace analysis
} // namespace mpilift
