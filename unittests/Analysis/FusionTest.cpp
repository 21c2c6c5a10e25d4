//===- FusionTest.cpp - Sequences of collectives one collective replaces --===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "mpilift/Analysis/Fusion.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using mpilift::analysis::test::Parsed;

namespace {

/// "fuse from MPI_IN_PLACE" for a safe site ("pack long 2 5", "local int"),
/// "check: reason" for the first refusal; "none" without a site.
std::string fusion(const char *Code, bool AllowReassociation = false,
                   const MachineProfile *Profile = nullptr) {
  Parsed P(Code);
  FusionFinder Finder(P.AST->getASTContext(), AllowReassociation, nullptr,
                      Profile);
  std::vector<FusionSite> Sites = Finder.find(*P.function("f"));
  if (Sites.empty())
    return "none";
  const FusionSite &S = Sites.front();
  if (!S.isSafe())
    return checkName(S.Refusals[0].Check).str() + ": " + S.Refusals[0].Reason;
  if (S.Kind == FusionKind::GatherBcast)
    return "allgather";
  if (isScanPair(S.Kind))
    return "pairs " + S.ElementType + " " + std::to_string(S.Counts[0]) +
           (S.UnusedDecl ? ", declaration goes" : "");
  if (isLocalFusion(S.Kind)) {
    std::string Out = "local " + S.ElementType;
    for (const Refusal &R : S.Declined)
      Out +=
          "; not with the third: " + checkName(R.Check).str() + ": " + R.Reason;
    return Out;
  }
  if (isBcastScanTriple(S.Kind))
    return "triple " + S.Operations[0] + " " + S.Operations[1] +
           (S.UnusedDecl ? ", declaration goes" : "");
  if (S.Kind == FusionKind::Packed) {
    std::string Out = "pack " + S.ElementType;
    for (int64_t N : S.Counts)
      Out += " " + std::to_string(N);
    return Out;
  }
  return "fuse from " + S.SendBuffer;
}

TEST(FusionTest, ReduceThenBroadcastOfTheResultIsAnAllreduce) {
  EXPECT_EQ(fusion(R"(
void f(long *mine, long *all, int n) {
  int ierr = MPI_Reduce(mine, all, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  ierr = MPI_Bcast(all, n, MPI_LONG, 0, MPI_COMM_WORLD);
}
)"),
            "fuse from mine");
}

TEST(FusionTest, RootInPlaceStaysInPlace) {
  EXPECT_EQ(fusion(R"(
void f(int rank, int *all) {
  MPI_Reduce(rank == 2 ? MPI_IN_PLACE : all, all, 4, MPI_INT, MPI_MAX, 2,
             MPI_COMM_WORLD);
  MPI_Bcast(all, 4, MPI_INT, 2, MPI_COMM_WORLD);
}
)"),
            "fuse from MPI_IN_PLACE");
}

TEST(FusionTest, BroadcastFromAnotherRootIsNoPair) {
  EXPECT_EQ(fusion(R"(
void f(int *mine, int *all) {
  MPI_Reduce(mine, all, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Bcast(all, 4, MPI_INT, 1, MPI_COMM_WORLD);
}
)"),
            "none");
}

TEST(FusionTest, ARootOnlyCorrectionBetweenIsRefused) {
  EXPECT_EQ(fusion(R"(
void f(int rank) {
  int mine = rank, total;
  MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    total /= 2;
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
)"),
            "message-integrity: this statement uses 'total' between "
            "MPI_Reduce and MPI_Bcast, where only the root holds the reduced "
            "value; after MPI_Allreduce every rank would");
}

TEST(FusionTest, FloatingPointSumNeedsReassociation) {
  const char *Code = R"(
void f(double *mine, double *all) {
  MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Bcast(all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
)";
  EXPECT_EQ(fusion(Code).substr(0, 42),
            "reduction-order: a sum of 'MPI_DOUBLE' may");
  EXPECT_EQ(fusion(Code, /*AllowReassociation=*/true), "fuse from mine");
}

TEST(FusionTest, PrivateResultLetsCallsBetweenStay) {
  EXPECT_EQ(fusion(R"(
void f(int rank) {
  int mine = rank, total;
  MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  compute();
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
  printf("%d", total);
}
)"),
            "fuse from &mine");
}

TEST(FusionTest, LeavingBetweenIsRefused) {
  EXPECT_EQ(fusion(R"(
int f(int rank) {
  int mine = rank, total;
  int ierr = MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (ierr || rank > 3)
    return ierr;
  MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return 0;
}
)"),
            "source-form: this statement can leave the code between "
            "MPI_Reduce and MPI_Bcast, where the ranks that leave would have "
            "taken part in the broadcast already once the two are one "
            "MPI_Allreduce");
}

// A check of the reduction's own code leaves only when the reduction
// failed; it stays after the fused call, testing its code.
TEST(FusionTest, ACheckOfTheFirstCodeBetweenIsNoExit) {
  const char *Checks[] = {
      "if (ierr)\n    return ierr;",
      "if (ierr != MPI_SUCCESS)\n    return ierr;",
      "if (0 != ierr)\n    MPI_Abort(MPI_COMM_WORLD, ierr);"};
  for (const char *Check : Checks)
    EXPECT_EQ(fusion((std::string(R"(
int f(int rank) {
  int mine = rank, total;
  int ierr = MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  )") + Check + R"(
  ierr = MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ierr;
}
)")
                         .c_str()),
              "fuse from &mine")
        << Check;
  // A test of another variable is no such check.
  EXPECT_EQ(fusion(R"(
int f(int rank, int other) {
  int mine = rank, total;
  int ierr = MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (other)
    return other;
  ierr = MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ierr;
}
)"),
            "source-form: this statement can leave the code between "
            "MPI_Reduce and MPI_Bcast, where the ranks that leave would have "
            "taken part in the broadcast already once the two are one "
            "MPI_Allreduce");
}

TEST(FusionTest, GatherThenBroadcastOfEveryBlockIsAnAllgather) {
  EXPECT_EQ(fusion(R"(
void f(int *mine, int *all) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(all, size * 3, MPI_INT, 0, MPI_COMM_WORLD);
}
)"),
            "allgather");
}

TEST(FusionTest, GatherThenBroadcastOfPartIsNoAllgather) {
  EXPECT_EQ(fusion(R"(
void f(int *mine, int *all) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(all, 3, MPI_INT, 0, MPI_COMM_WORLD);
}
)"),
            "matching-arguments: the broadcast's count '3' is not seen to be "
            "the communicator's size times the gather's count '3'");
}

TEST(FusionTest, IndependentAllreducesBackToBackArePacked) {
  EXPECT_EQ(fusion(R"(
void f(long *restrict a, long *restrict b, long *restrict ga,
       long *restrict gb) {
  int ierr;
  ierr = MPI_Allreduce(a, ga, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  ierr = MPI_Allreduce(b, gb, 5, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "pack long 2 5");
}

TEST(FusionTest, AllreduceFromAPointerThatMayHoldAnEarlierResultIsNotPacked) {
  // The caller may pass b == ga: the second call then reduces what the
  // first one wrote.
  EXPECT_EQ(fusion(R"(
void f(long *a, long *b, long *ga, long *gb) {
  MPI_Allreduce(a, ga, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(b, gb, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "message-integrity: this call may reduce 'ga', which an earlier "
            "call of the sequence writes; the calls depend on each other");
}

TEST(FusionTest, AllreduceOfAnEarlierResultIsNotPacked) {
  EXPECT_EQ(fusion(R"(
void f(void) {
  long a = 1, b, c;
  MPI_Allreduce(&a, &b, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&b, &c, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "message-integrity: this call reduces 'b', which an earlier call "
            "of the sequence writes; the calls depend on each other");
}

TEST(FusionTest, PackingFloatingPointSumsNeedsReassociation) {
  const char *Code = R"(
void f(double *restrict a, double *restrict b, double *restrict ga,
       double *restrict gb) {
  MPI_Allreduce(a, ga, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(b, gb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
)";
  EXPECT_EQ(fusion(Code).substr(0, 42),
            "reduction-order: a sum of 'MPI_DOUBLE' may");
  EXPECT_EQ(fusion(Code, /*AllowReassociation=*/true), "pack double 1 1");
}

TEST(FusionTest, AllreduceAtAnIndexAnEarlierCallComputesIsNotPacked) {
  EXPECT_EQ(fusion(R"(
void f(int lo, int *vals, int *best) {
  int idx;
  MPI_Allreduce(&lo, &idx, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&vals[idx], best, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
}
)"),
            "message-integrity: this call reads 'idx', which an earlier call "
            "of the sequence writes; the calls depend on each other");
}

TEST(FusionTest, BroadcastsOfFieldsArePackedAndOfOneArrayAreNot) {
  EXPECT_EQ(fusion(R"(
struct params { int nx, ny; };
void f(struct params *p) {
  MPI_Bcast(&p->nx, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&p->ny, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
)"),
            "pack int 1 1");
  EXPECT_EQ(fusion(R"(
void f(int *v) {
  MPI_Bcast(&v[1], 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_WORLD);
}
)"),
            "message-integrity: two calls of the sequence write 'v'");
}

TEST(FusionTest, BroadcastsPackedOnlyWhenSmall) {
  // 2 x 64 doubles: one broadcast of 1 KiB was measured slower than two.
  EXPECT_EQ(fusion(R"(
void f(double *restrict a, double *restrict b) {
  MPI_Bcast(a, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(b, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
)"),
            "none");
}

TEST(FusionTest, ReductionsToOneRootArePackedAndToTwoAreNot) {
  EXPECT_EQ(fusion(R"(
void f(long a, long b, long *s) {
  MPI_Reduce(&a, &s[0], 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&b, &s[1], 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}
)"),
            "pack long 1 1");
  EXPECT_EQ(fusion(R"(
void f(long a, long b, long *s, long *t) {
  MPI_Reduce(&a, s, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&b, t, 1, MPI_LONG, MPI_SUM, 1, MPI_COMM_WORLD);
}
)"),
            "none");
}

TEST(FusionTest, ReductionOfTheBroadcastBufferIsLocal) {
  EXPECT_EQ(fusion(R"(
void f(int *out) {
  int n = 4, width;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  width = 2 * n;
  MPI_Allreduce(&n, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
)"),
            "local int");
}

TEST(FusionTest, BroadcastBufferChangedBeforeTheScanIsRefused) {
  EXPECT_EQ(fusion(R"(
void f(int rank, long *out) {
  long v[2] = {rank, 1};
  MPI_Bcast(v, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  v[rank % 2] += 1;
  MPI_Scan(v, out, 2, MPI_LONG, MPI_PROD, MPI_COMM_WORLD);
}
)"),
            "message-integrity: this statement changes 'v' between MPI_Bcast "
            "and MPI_Scan, so that the ranks may no longer hold the broadcast "
            "value");
}

TEST(FusionTest, BroadcastScanAndReductionOfPowersAreLocal) {
  auto With = [&](const char *Times, const char *Plus, const char *Use) {
    std::string Code = std::string(R"(
void f(long b, long *total) {
  long power;
  int ierr = MPI_Bcast(&b, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  ierr = MPI_Scan(&b, &power, 1, MPI_LONG, )") +
                       Times + R"(, MPI_COMM_WORLD);
  ierr = MPI_Reduce(&power, total, 1, MPI_LONG, )" +
                       Plus + ", 0, MPI_COMM_WORLD);\n" + Use + "\n}\n";
    return fusion(Code.c_str());
  };
  EXPECT_EQ(With("MPI_PROD", "MPI_SUM", ""),
            "triple MPI_PROD MPI_SUM, declaration goes");
  // A sum under a maximum: every value computed is one the calls compute.
  EXPECT_EQ(With("MPI_SUM", "MPI_MAX", ""),
            "triple MPI_SUM MPI_MAX, declaration goes");
  // The scan's result read afterwards, or a maximum under a sum: the
  // broadcast and the scan only, saying why not the third call.
  EXPECT_EQ(With("MPI_PROD", "MPI_SUM", "total[1] = power;"),
            "local long; not with the third: message-integrity: 'power', "
            "the scan's result, is used here: the fused call does not "
            "compute it");
  EXPECT_EQ(With("MPI_MAX", "MPI_SUM", ""),
            "local long; not with the third: reduction-order: 'MPI_MAX' "
            "does not distribute over 'MPI_SUM' (a MPI_MAX (b MPI_SUM c) is "
            "not (a MPI_MAX b) MPI_SUM (a MPI_MAX c)), which computing the "
            "result from the broadcast value needs");
}

TEST(FusionTest, ReductionOfAnotherBufferIsNoLocalFusion) {
  EXPECT_EQ(fusion(R"(
void f(int a, int b, int *out) {
  MPI_Bcast(&a, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&b, out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "none");
}

TEST(FusionTest, ScanOfProductsThenReducedSumIsOneReductionOnPairs) {
  EXPECT_EQ(fusion(R"(
void f(long growth, long *total) {
  long reached;
  int ierr = MPI_Scan(&growth, &reached, 1, MPI_LONG, MPI_PROD, MPI_COMM_WORLD);
  if (ierr == 0)
    ierr = MPI_Reduce(&reached, total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
}
)"),
            "pairs long 1, declaration goes");
}

TEST(FusionTest, ScanResultReadElsewhereIsRefused) {
  EXPECT_EQ(fusion(R"(
void f(long growth, long *total) {
  long reached;
  MPI_Scan(&growth, &reached, 1, MPI_LONG, MPI_PROD, MPI_COMM_WORLD);
  MPI_Reduce(&reached, total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  printf("%ld\n", reached);
}
)"),
            "message-integrity: 'reached', the scan's result, is used here: "
            "the fused call does not compute it");
}

TEST(FusionTest, OneOperationTwiceDoesNotDistribute) {
  EXPECT_EQ(fusion(R"(
void f(int x, int *total) {
  int prefix;
  MPI_Scan(&x, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&prefix, total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
)"),
            "reduction-order: 'MPI_SUM' does not distribute over 'MPI_SUM' "
            "(a MPI_SUM (b MPI_SUM c) is not (a MPI_SUM b) MPI_SUM (a MPI_SUM "
            "c)), which one collective on pairs needs; for one operation "
            "twice the seed fuses only in a reduction tree MPI does not offer");
}

TEST(FusionTest, IntegerSumsUnderAMaximumMayOverflow) {
  EXPECT_EQ(fusion(R"(
void f(int x, int *best) {
  int prefix;
  MPI_Scan(&x, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&prefix, best, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "reduction-order: 'MPI_SUM' distributes over 'MPI_MAX', but the "
            "operation on pairs adds values of ranks that the scan never "
            "adds, which may overflow 'MPI_INT' where the program's sums do "
            "not");
  // Doubles do not overflow; they round, as the user may allow.
  EXPECT_EQ(fusion(R"(
void f(double x, double *best) {
  double prefix;
  MPI_Scan(&x, &prefix, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&prefix, best, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}
)",
                   /*AllowReassociation=*/true),
            "pairs double 1, declaration goes");
}

TEST(FusionTest, TwoScansArePairedOnlyWhereTheStartupOutweighsTheWork) {
  const char *Code = R"(
#define N 4096
void f(int rank, long *x, long *result) {
  long prefix[N];
  MPI_Scan(x, prefix, N, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Scan(prefix, result, N, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}
)";
  // t_s = 0.18 us is 506 operations: 4096 elements are too many (t_s > 2m
  // fails), and the pair is not reported.
  EXPECT_EQ(fusion(Code), "none");
  // A reduction after the scan: the copies of the pairs outweigh the
  // saved start-up too.
  EXPECT_EQ(fusion(R"(
#define N 4096
void f(long *x, long *result) {
  long prefix[N];
  MPI_Scan(x, prefix, N, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(prefix, result, N, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "none");
  MachineProfile Slow = defaultMachineProfile();
  Slow.StartupSeconds = 1e-4;
  EXPECT_EQ(fusion(Code, false, &Slow), "pairs long 4096, declaration goes");
}

TEST(FusionTest, ARootChangedThroughAPointerBetweenIsRefused) {
  // The broadcast's root is a field behind a pointer, written between the
  // calls: the pair is no allreduce.
  EXPECT_EQ(fusion(R"(
struct team { int root; };
void f(struct team *t, int *mine, int *all) {
  MPI_Reduce(mine, all, 4, MPI_INT, MPI_SUM, t->root, MPI_COMM_WORLD);
  t->root = 1;
  MPI_Bcast(all, 4, MPI_INT, t->root, MPI_COMM_WORLD);
}
)"),
            "matching-arguments: this statement changes 't', which the "
            "broadcast reads, between MPI_Reduce and MPI_Bcast");
  // A call between may change it too, though the result is private.
  EXPECT_EQ(fusion(R"(
struct team { int root; };
void adjust(void);
void f(struct team *t, int *mine) {
  int all[4];
  MPI_Reduce(mine, all, 4, MPI_INT, MPI_SUM, t->root, MPI_COMM_WORLD);
  adjust();
  MPI_Bcast(all, 4, MPI_INT, t->root, MPI_COMM_WORLD);
  printf("%d", all[0]);
}
)"),
            "matching-arguments: this statement calls 'adjust', which may "
            "change 't->root', which the broadcast reads, between MPI_Reduce "
            "and MPI_Bcast");
}

} // namespace
