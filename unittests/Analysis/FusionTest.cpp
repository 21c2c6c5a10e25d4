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

/// "fuse from MPI_IN_PLACE" for a safe site, "check: reason" for the
/// first refusal; "none" without a site.
std::string fusion(const char *Code, bool AllowReassociation = false) {
  Parsed P(Code);
  FusionFinder Finder(P.AST->getASTContext(), AllowReassociation);
  std::vector<FusionSite> Sites = Finder.find(*P.function("f"));
  if (Sites.empty())
    return "none";
  const FusionSite &S = Sites.front();
  if (!S.isSafe())
    return checkName(S.Refusals[0].Check).str() + ": " + S.Refusals[0].Reason;
  if (S.Kind == FusionKind::GatherBcast)
    return "allgather";
  if (S.Kind == FusionKind::PackedAllreduce) {
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
  if (ierr)
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
void f(long *a, long *b, long *ga, long *gb) {
  int ierr;
  ierr = MPI_Allreduce(a, ga, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  ierr = MPI_Allreduce(b, gb, 5, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
}
)"),
            "pack long 2 5");
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
void f(double *a, double *b, double *ga, double *gb) {
  MPI_Allreduce(a, ga, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(b, gb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
)";
  EXPECT_EQ(fusion(Code).substr(0, 42),
            "reduction-order: a sum of 'MPI_DOUBLE' may");
  EXPECT_EQ(fusion(Code, /*AllowReassociation=*/true), "pack double 1 1");
}

} // namespace
