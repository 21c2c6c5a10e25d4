//===- ReachingWritesTest.cpp - Writes that reach a read, paths ruled out -===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// ReachingWrites with the paths branches on local integers rule out
/// (BranchFacts.h): whether the value `n` had when `main` began may reach
/// the read `use(n)`, in the shape of HPL_pdinfo (process 0 reads, an error
/// flag jumps past the rest, every process agrees on the flag and leaves
/// together) and of its variants that must keep that path.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "FunctionFacts.h"
#include "ReachingWrites.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using namespace mpilift::analysis::test;

namespace {

/// Whether the value `n` had when `main` began may reach the argument of
/// the call of `use` in `main`; nothing when the graph cannot tell.
std::optional<bool> entryReachesUse(const std::string &Code) {
  Parsed P("void use(int);\nint input(void);\nvoid keep(int *);\n" + Code);
  EXPECT_TRUE(P.AST);
  const clang::FunctionDecl *Main = P.AST ? P.function("main") : nullptr;
  if (!Main)
    return std::nullopt;
  const clang::Expr *Arg = Parsed::firstArgumentOf(*Main, "use");
  const clang::VarDecl *N = Arg ? namedVariable(Arg) : nullptr;
  EXPECT_NE(N, nullptr);
  if (!N)
    return std::nullopt;
  std::optional<Reach> R = P.TU->reachingWritesOf(*Main).reaching(
      P.TU->factsOf(*Main).writesOf(N), *Arg);
  if (!R)
    return std::nullopt;
  return R->FromEntry;
}

/// HPL_pdinfo's shape, with \p Agree the reduction's operation, \p Failed
/// the flag's value on an error, \p Between what runs after the reading,
/// \p Test the exit's condition.
std::string settingsReader(const std::string &Agree = "MPI_MAX",
                           const std::string &Failed = "1",
                           const std::string &Between = "",
                           const std::string &Test = "ierr != 0 || error") {
  return R"(
int main(void) {
  int rank, n, ierr, error = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (input() < 0) {
      error = )" +
         Failed + R"(;
      goto label_error;
    }
    n = input();
  label_error:
    )" + Between +
         R"(;
  }
  ierr = MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_INT, )" +
         Agree + R"(, MPI_COMM_WORLD);
  if ()" +
         Test +
         R"()
    return 1;
  if (rank == 0)
    use(n);
  return 0;
}
)";
}

TEST(ReachingWritesTest, ErrorFlagAgreedByMaximumRulesOutItsPaths) {
  EXPECT_EQ(entryReachesUse(settingsReader()), false);
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "1", "", "error > 0")),
            false);
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "1", "", "!(error)")),
            true); // Taken when the flag is 0: the read is on the other side.
  // Without the flag, the jump's path reaches the read.
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "1", "", "ierr != 0")),
            true);
}

TEST(ReachingWritesTest, ErrorFlagThatMayEndAtZeroKeepsItsPaths) {
  // The minimum of 1 and another process's 0 is 0.
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MIN")), true);
  // The maximum of -1 and another's 0 is 0.
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "-1")), true);
  // Cleared after the jump.
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "1", "error = 0")), true);
  // Raised once more: still a flag.
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "1", "error += 1")),
            true);
  // A function that may write it through its address: no flag.
  EXPECT_EQ(entryReachesUse(settingsReader("MPI_MAX", "1", "keep(&error)")),
            true);
}

/// Process \p Reader's test writes `n`, \p Between runs, and \p User's
/// test reads it.
std::string rankTests(const std::string &Reader, const std::string &Between,
                      const std::string &User) {
  return R"(
int main(void) {
  int rank, n;
  MPI_Comm other = MPI_COMM_WORLD;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if ()" +
         Reader +
         R"()
    n = input();
  )" + Between +
         R"(;
  if ()" +
         User +
         R"()
    use(n);
  return 0;
}
)";
}

TEST(ReachingWritesTest, TwoTestsOfTheRankAgree) {
  EXPECT_EQ(entryReachesUse(rankTests("rank == 0", "", "rank == 0")), false);
  EXPECT_EQ(entryReachesUse(rankTests("!(rank > 0)", "", "0 >= rank")), false);
  EXPECT_EQ(entryReachesUse(rankTests("rank == 2", "", "rank > 1 && rank < 3")),
            false);
}

TEST(ReachingWritesTest, RankTestsThatMayDisagree) {
  // The rank is asked again, maybe on another communicator.
  EXPECT_EQ(entryReachesUse(rankTests(
                "rank == 0", "MPI_Comm_rank(other, &rank)", "rank == 0")),
            true);
  // Changed between the tests.
  EXPECT_EQ(entryReachesUse(rankTests("rank == 1", "rank--", "rank == 0")),
            true);
  // Another rank's test.
  EXPECT_EQ(entryReachesUse(rankTests("rank == 1", "", "rank < 2")), true);
  EXPECT_EQ(entryReachesUse(rankTests("rank == 1", "", "rank != 0")), true);
  // Its address goes elsewhere.
  EXPECT_EQ(entryReachesUse(rankTests("rank == 0", "keep(&rank)", "rank == 0")),
            true);
}

} // namespace
