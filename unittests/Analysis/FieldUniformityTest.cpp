//===- FieldUniformityTest.cpp - Fields every rank holds alike -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// RankUniformity::fieldDivergence on the ways real codes fill a structure
/// (HPL's panel: a root and a tag set by assignments or an initializer
/// list), the writes that make a field differ between ranks, and the
/// local communicator copies followedCommKey sees through.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "CommQueries.h"
#include "LoopStability.h"
#include "RankUniformity.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using namespace mpilift::analysis::test;

namespace {

const clang::FieldDecl *fieldNamed(const Parsed &P, llvm::StringRef Record,
                                   llvm::StringRef Name) {
  for (const clang::Decl *D :
       P.AST->getASTContext().getTranslationUnitDecl()->decls())
    if (const auto *R = llvm::dyn_cast<clang::RecordDecl>(D))
      if (R->getName() == Record)
        for (const clang::FieldDecl *F : R->fields())
          if (F->getName() == Name)
            return F;
  return nullptr;
}

std::optional<Divergence> divergenceOf(const std::string &Code,
                                       llvm::StringRef Field) {
  Parsed P(Code);
  EXPECT_TRUE(P.AST);
  const clang::FieldDecl *F = fieldNamed(P, "panel", Field);
  EXPECT_NE(F, nullptr);
  if (!F)
    return Divergence{"no such field", {}};
  return RankUniformity(*P.TU).fieldDivergence(F);
}

const char *const Panel = R"(
struct panel { double *buf; int len, root, tag; };
static void bcast(struct panel *p) {
  MPI_Bcast(p->buf, p->len, MPI_DOUBLE, p->root, MPI_COMM_WORLD);
}
)";

TEST(FieldUniformityTest, InitializerListAndAssignments) {
  std::string Code = std::string(Panel) + R"(
int main(void) {
  int size;
  double b[8];
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 0; k < 4; k++) {
    struct panel p = {b, 8, k % size, 100 + k};
    p.tag = p.tag + 1;
    bcast(&p);
  }
  return 0;
}
)";
  EXPECT_FALSE(divergenceOf(Code, "root"));
  EXPECT_FALSE(divergenceOf(Code, "tag"));
  EXPECT_FALSE(divergenceOf(Code, "len"));
}

TEST(FieldUniformityTest, WrittenFromTheRank) {
  std::optional<Divergence> Why = divergenceOf(std::string(Panel) + R"(
int main(void) {
  int rank;
  double b[8];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct panel p = {b, 8, 0, 1};
  p.root = rank % 2;
  bcast(&p);
  return 0;
}
)",
                                               "root");
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("'root' is given a value here that may differ "
                             "between ranks"),
            std::string::npos)
      << Why->Reason;
}

// The same constant, but written in a helper only some ranks call.
TEST(FieldUniformityTest, WrittenInAHelperSomeRanksCall) {
  std::optional<Divergence> Why = divergenceOf(std::string(Panel) + R"(
static void reset(struct panel *p) { p->root = 0; }
int main(void) {
  int rank;
  double b[8];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct panel p = {b, 8, 1, 1};
  if (rank > 0)
    reset(&p);
  bcast(&p);
  return 0;
}
)",
                                               "root");
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("the condition 'rank > 0' may differ"),
            std::string::npos)
      << Why->Reason;
}

TEST(FieldUniformityTest, ObjectGivenToUnknownCode) {
  std::optional<Divergence> Why = divergenceOf(std::string(Panel) + R"(
void read_panel(struct panel *);
int main(void) {
  double b[8];
  struct panel p = {b, 8, 0, 1};
  read_panel(&p);
  bcast(&p);
  return 0;
}
)",
                                               "root");
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("the address of a 'panel' goes here to code "
                             "that may write 'root'"),
            std::string::npos)
      << Why->Reason;
}

TEST(FieldUniformityTest, ChangedOtherThanByAssignment) {
  std::optional<Divergence> Why = divergenceOf(std::string(Panel) + R"(
int main(void) {
  double b[8];
  struct panel p = {b, 8, 0, 1};
  p.root++;
  bcast(&p);
  return 0;
}
)",
                                               "root");
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("is changed here in a way that cannot be "
                             "followed"),
            std::string::npos)
      << Why->Reason;
}

// `comm = g->row_comm;` is the field's communicator; a local given two
// different ones is only itself.
TEST(FieldUniformityTest, FollowedCommunicatorCopies) {
  Parsed P(R"(
struct grid { MPI_Comm row, col; };
void f(struct grid *g, int which) {
  MPI_Comm one, two;
  one = g->row;
  two = g->row;
  if (which)
    two = g->col;
  MPI_Send(0, 0, MPI_INT, 0, 0, one);
  MPI_Send(0, 0, MPI_INT, 0, 0, two);
}
)");
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("f");
  ASSERT_NE(F, nullptr);
  std::vector<const clang::CallExpr *> Sends;
  findFirst(F->getBody(), [&](const clang::Stmt *S) {
    if (const auto *Call = llvm::dyn_cast<clang::CallExpr>(S))
      Sends.push_back(Call);
    return false;
  });
  ASSERT_EQ(Sends.size(), 2u);
  CommKey One = followedCommKey(Sends[0]->getArg(5), *F, *P.TU);
  CommKey Two = followedCommKey(Sends[1]->getArg(5), *F, *P.TU);
  ASSERT_NE(One.Decl, nullptr);
  EXPECT_EQ(One.Decl->getName(), "row");
  ASSERT_NE(Two.Decl, nullptr);
  EXPECT_EQ(Two.Decl->getName(), "two");
}

} // namespace

// A constructor's initialiser is a write the uses of the field do not show.
TEST(FieldUniformityTest, SetByAConstructor) {
  Parsed P(R"(
struct panel {
  int root;
  explicit panel(int r) : root(r) {}
};
int f(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  panel p(rank);
  return p.root;
}
)",
           /*CXX=*/true);
  ASSERT_TRUE(P.AST);
  const clang::FieldDecl *F = fieldNamed(P, "panel", "root");
  ASSERT_NE(F, nullptr);
  std::optional<Divergence> Why = RankUniformity(*P.TU).fieldDivergence(F);
  ASSERT_TRUE(Why);
  EXPECT_NE(Why->Reason.find("has a constructor"), std::string::npos)
      << Why->Reason;
}

namespace {

/// fieldChangesIn for the first loop of \p Code's function f.
std::optional<std::string> changesInLoop(const std::string &Code) {
  Parsed P(std::string(Panel) + Code);
  EXPECT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("f");
  const clang::FieldDecl *Field = fieldNamed(P, "panel", "buf");
  if (!F || !Field)
    return "no f or no field";
  const clang::Stmt *Loop = findFirst(F->getBody(), isLoop);
  if (!Loop)
    return "no loop";
  return fieldChangesIn(Field, Loop, *F, *P.TU);
}

} // namespace

// The polling loop of a broadcast whose buffer is `p->buf`: other writes
// of the field are harmless unless the loop can reach them.
TEST(FieldUniformityTest, FieldStableInLoop) {
  EXPECT_FALSE(changesInLoop(R"(
static void setup(struct panel *p, double *b) { p->buf = b; }
void f(struct panel *p, double *b, int n) {
  setup(p, b);
  for (int k = 0; k < n; k++)
    bcast(p);
}
)"));
  EXPECT_TRUE(changesInLoop(R"(
static void setup(struct panel *p, double *b) { p->buf = b; }
void f(struct panel *p, double *b, int n) {
  for (int k = 0; k < n; k++) {
    setup(p, b + k);
    bcast(p);
  }
}
)"));
  // Through a function pointer any function may run.
  EXPECT_TRUE(changesInLoop(R"(
static void setup(struct panel *p, double *b) { p->buf = b; }
void f(struct panel *p, double *b, int n, void (*step)(struct panel *, double *)) {
  for (int k = 0; k < n; k++) {
    step(p, b + k);
    bcast(p);
  }
}
void g(struct panel *p, double *b) { f(p, b, 3, setup); }
)"));
}
