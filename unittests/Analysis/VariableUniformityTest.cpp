//===- VariableUniformityTest.cpp - Variables every rank holds alike ------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// RankUniformity::variableDivergence on the way real codes read their
/// input: the root alone reads a value and broadcasts it, and what was read
/// before the broadcast no longer matters after it. The broadcast must run
/// on every rank that reaches the read, and nothing after it may give the
/// variable another value. Also the communicator a constructor's parameter
/// names when it initializes a member (queryValueOf).
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "CommQueries.h"
#include "RankUniformity.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using namespace mpilift::analysis::test;

namespace {

/// Whether `n`, read as the argument of the call of `use` in `main`, may
/// differ between ranks.
std::optional<Divergence> divergenceOfN(const std::string &Code) {
  Parsed P("void use(int);\n" + Code);
  EXPECT_TRUE(P.AST);
  const clang::FunctionDecl *Main = P.function("main");
  EXPECT_NE(Main, nullptr);
  if (!Main)
    return Divergence{"no main", {}};
  const clang::Expr *Arg = Parsed::firstArgumentOf(*Main, "use");
  EXPECT_NE(Arg, nullptr);
  const clang::VarDecl *N = Arg ? namedVariable(Arg) : nullptr;
  if (!N)
    return Divergence{"no n", {}};
  return RankUniformity(*P.TU).variableDivergence(N, *Main, Arg->getBeginLoc());
}

TEST(VariableUniformityTest, ReadOnTheRootThenBroadcast) {
  EXPECT_FALSE(divergenceOfN(R"(
int main(void) {
  int rank, n = 4;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    n = 10 + rank;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  use(n);
  return 0;
}
)"));
}

TEST(VariableUniformityTest, CheckedBroadcastRunsEverywhere) {
  EXPECT_FALSE(divergenceOfN(R"(
int main(void) {
  int rank, n = 4, ierr;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    n = 10 + rank;
  if ((ierr = MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
    return ierr;
  use(n);
  return 0;
}
)"));
}

TEST(VariableUniformityTest, BroadcastSomeRanksSkip) {
  std::optional<Divergence> Why = divergenceOfN(R"(
int main(void) {
  int rank, size, n = 4;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    n = 10 + rank;
  if (size > 2)
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  use(n);
  return 0;
}
)");
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("'n' is written where not every rank may get"),
            std::string::npos)
      << Why->Reason;
}

TEST(VariableUniformityTest, WrittenAfterTheBroadcast) {
  std::optional<Divergence> Why = divergenceOfN(R"(
int main(void) {
  int rank, n = 4;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 1)
    n = 3;
  use(n);
  return 0;
}
)");
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("the condition 'rank == 1'"), std::string::npos)
      << Why->Reason;
}

TEST(VariableUniformityTest, ReadBeforeTheBroadcast) {
  EXPECT_TRUE(divergenceOfN(R"(
int main(void) {
  int rank, n = 4;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    n = 10 + rank;
  use(n);
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return 0;
}
)"));
}

TEST(VariableUniformityTest, AGotoMayJumpPastTheBroadcast) {
  EXPECT_TRUE(divergenceOfN(R"(
int main(void) {
  int rank, n = 4;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    n = 10 + rank;
  if (rank == 3)
    goto late;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
late:
  use(n);
  return 0;
}
)"));
}

TEST(VariableUniformityTest, BroadcastInALoopCoversNothing) {
  EXPECT_TRUE(divergenceOfN(R"(
int main(void) {
  int rank, n = 4, k;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    n = 10 + rank;
  for (k = 0; k < rank; ++k)
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  use(n);
  return 0;
}
)"));
}

/// The communicator the size field `Size` of class `Team` is queried on.
std::optional<QueryValue> sizeQuery(const Parsed &P) {
  const clang::FunctionDecl *Get = P.function("size");
  if (!Get)
    return std::nullopt;
  const clang::FieldDecl *Size = nullptr;
  findFirst(Get->getBody(), [&](const clang::Stmt *S) {
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(S))
      Size = llvm::dyn_cast<clang::FieldDecl>(M->getMemberDecl());
    return Size != nullptr;
  });
  return Size ? queryValueOf(Size, *Get, *P.TU) : std::nullopt;
}

/// What the local `me` of `f` holds, by queryValueOf.
std::optional<QueryValue> localMe(const char *Code) {
  Parsed P(Code);
  const clang::FunctionDecl *F = P.function("f");
  if (!F)
    return std::nullopt;
  const clang::VarDecl *Me = nullptr;
  findFirst(F->getBody(), [&](const clang::Stmt *S) {
    if (const auto *D = llvm::dyn_cast<clang::DeclStmt>(S))
      for (const clang::Decl *Each : D->decls())
        if (const auto *V = llvm::dyn_cast<clang::VarDecl>(Each))
          if (V->getName() == "me")
            Me = V;
    return Me != nullptr;
  });
  return Me ? queryValueOf(Me, *F, *P.TU) : std::nullopt;
}

TEST(VariableUniformityTest, InitializerNoReadSeesIsNoWrite) {
  // `int me = 0;` then the query: every read sees the rank.
  std::optional<QueryValue> Q = localMe(R"(
int g(int);
int f(void) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  return g(me);
}
)");
  ASSERT_TRUE(Q);
  EXPECT_EQ(Q->Query, CommQuery::Rank);
  // A read before the query sees the 0.
  EXPECT_FALSE(localMe(R"(
int g(int);
int f(void) {
  int me = 0;
  g(me);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  return g(me);
}
)"));
  // A jump may pass the query to a label after it.
  EXPECT_FALSE(localMe(R"(
int g(int);
int f(int skip) {
  int me = 0;
  if (skip)
    goto done;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
done:
  return g(me);
}
)"));
  // The query only on some paths.
  EXPECT_FALSE(localMe(R"(
int g(int);
int f(int ask) {
  int me = 0;
  if (ask)
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
  return g(me);
}
)"));
}

TEST(VariableUniformityTest, ConstructorParameterNamesTheMember) {
  Parsed P(R"(
class Team {
public:
  explicit Team(MPI_Comm Comm) : Comm(Comm) { MPI_Comm_size(Comm, &Size); }
  int size() const { return Size; }
  MPI_Comm comm() const { return Comm; }
private:
  MPI_Comm Comm;
  int Size;
};
int main() { return Team(MPI_COMM_WORLD).size(); }
)",
           /*CXX=*/true);
  std::optional<QueryValue> Q = sizeQuery(P);
  ASSERT_TRUE(Q);
  EXPECT_EQ(Q->Query, CommQuery::Size);
  ASSERT_NE(Q->Comm.Decl, nullptr);
  EXPECT_TRUE(llvm::isa<clang::FieldDecl>(Q->Comm.Decl));
  EXPECT_EQ(Q->Comm.Decl->getName(), "Comm");
}

TEST(VariableUniformityTest, ConstructorParameterWrittenFirst) {
  // The body changes the parameter before the query: the field does not
  // hold the communicator queried.
  Parsed P(R"(
class Team {
public:
  explicit Team(MPI_Comm Comm) : Comm(Comm) {
    Comm = MPI_COMM_WORLD;
    MPI_Comm_size(Comm, &Size);
  }
  int size() const { return Size; }
private:
  MPI_Comm Comm;
  int Size;
};
int main() { return Team(MPI_COMM_WORLD).size(); }
)",
           /*CXX=*/true);
  std::optional<QueryValue> Q = sizeQuery(P);
  ASSERT_TRUE(Q);
  EXPECT_FALSE(Q->Comm.Decl && llvm::isa<clang::FieldDecl>(Q->Comm.Decl));
}

} // namespace

// Old codes reuse their scalars: only the writes that can reach the read
// count (ReachingWrites.h).
TEST(VariableUniformityTest, ReusedScalarCountsFromItsLastValue) {
  EXPECT_FALSE(divergenceOfN(R"(
int main(void) {
  int rank, n, rows[8];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (n = 0; n < rank; n++)
    rows[n] = 0;
  n = 8;
  use(n);
  return rows[0];
}
)"));
  EXPECT_FALSE(divergenceOfN(R"(
int main(void) {
  int rank, n = 2, k;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  k = 3 - (n = 8);
  use(n);
  n = rank;
  return k + n;
}
)"));
}

TEST(VariableUniformityTest, ReusedScalarWhereTheOldValueMayReach) {
  // Replaced on one branch only.
  EXPECT_TRUE(divergenceOfN(R"(
int main(int argc, char **argv) {
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  n = rank;
  if (argc > 100)
    n = 8;
  use(n);
  return 0;
}
)"));
  // Around a loop: the next iteration reads what the last one wrote.
  EXPECT_TRUE(divergenceOfN(R"(
int main(void) {
  int rank, n = 8, i;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (i = 0; i < 3; i++) {
    use(n);
    n = rank;
  }
  return 0;
}
)"));
  // Back by a goto.
  EXPECT_TRUE(divergenceOfN(R"(
int main(void) {
  int rank, n = 8, tries = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
again:
  use(n);
  n = rank;
  if (tries++ < 2)
    goto again;
  return 0;
}
)"));
  // Written through a pointer after the last assignment.
  EXPECT_TRUE(divergenceOfN(R"(
int main(void) {
  int rank, n, *p = &n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  n = 8;
  *p = rank;
  use(n);
  return 0;
}
)"));
}

/// Whether the condition of the last `if` in `main` tests an allocation
/// (RankUniformity::testsAllocation).
bool lastIfTestsAllocation(const std::string &Code) {
  Parsed P("#include <stdlib.h>\n" + Code);
  EXPECT_TRUE(P.AST);
  const clang::FunctionDecl *Main = P.function("main");
  EXPECT_NE(Main, nullptr);
  if (!Main)
    return false;
  const clang::IfStmt *Last = nullptr;
  findFirst(Main->getBody(), [&](const clang::Stmt *S) {
    if (const auto *If = llvm::dyn_cast<clang::IfStmt>(S))
      Last = If;
    return false;
  });
  EXPECT_NE(Last, nullptr);
  return Last && RankUniformity(*P.TU).testsAllocation(Last->getCond(), *Main);
}

TEST(VariableUniformityTest, AllocationTestsAreAlikeInRunsThatAllocate) {
  EXPECT_TRUE(lastIfTestsAllocation(R"(
int main(int argc, char **argv) {
  int *part = malloc((size_t)argc * sizeof *part);
  if (!part)
    return 1;
  free(part);
  return 0;
}
)"));
  // Set to null first, allocated on every path before the test.
  EXPECT_TRUE(lastIfTestsAllocation(R"(
int main(int argc, char **argv) {
  double *part = NULL;
  if (argc > 2)
    part = malloc(8 * sizeof(double));
  else
    part = calloc(4, sizeof(double));
  if (part == NULL)
    return 1;
  free(part);
  return 0;
}
)"));
}

TEST(VariableUniformityTest, NullOrOtherPointersReachingTheTestDiffer) {
  // Only the root allocates: the test tells the root from the others.
  EXPECT_FALSE(lastIfTestsAllocation(R"(
int main(int argc, char **argv) {
  int rank, *part = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    part = malloc(16);
  if (!part)
    return 0;
  free(part);
  return 0;
}
)"));
  // A pointer of another origin may reach it.
  EXPECT_FALSE(lastIfTestsAllocation(R"(
int *spare(void);
int main(int argc, char **argv) {
  int *part = spare();
  if (argc > 3)
    part = malloc(16);
  if (part != NULL)
    return 0;
  return 1;
}
)"));
  // Not a null test of the pointer.
  EXPECT_FALSE(lastIfTestsAllocation(R"(
int main(int argc, char **argv) {
  int *part = malloc(16);
  if (part[0] == 0)
    return 1;
  return 0;
}
)"));
}
