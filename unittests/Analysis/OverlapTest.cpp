//===- OverlapTest.cpp - Wait matching and sinking ------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The overlap analysis on the shapes of paper 004: the MG give/take of
/// Figures 2 and 4 (conditional sends of one buffer), the BT wait of
/// Figure 1 (a wait in a conditional), Figure 3's WaitGraph (two sends
/// completed by one request's waits), and what stops a wait.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Overlap.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

using namespace mpilift::analysis;

namespace {

const char *const Prelude = R"(
typedef struct comm *MPI_Comm;
typedef struct type *MPI_Datatype;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;
typedef struct request *MPI_Request;
extern struct comm world;
extern struct type double_type;
#define MPI_COMM_WORLD (&world)
#define MPI_DOUBLE (&double_type)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
int MPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
int MPI_Recv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
int MPI_Isend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
              MPI_Request *);
int MPI_Irecv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
int MPI_Wait(MPI_Request *, MPI_Status *);
void compute(void);
double norm(const double *, int);
)";

struct Analysed;
Analysed analyse(const std::string &Code, bool Aggressive = false);

struct Analysed {
  std::unique_ptr<clang::ASTUnit> AST;
  std::vector<OverlapSite> Sites;

  /// The line of \p Loc in the code after the prelude.
  unsigned line(clang::SourceLocation Loc) const {
    return AST->getSourceManager().getSpellingLineNumber(Loc) - PreludeLines;
  }
  unsigned PreludeLines = 0;
};

Analysed analyse(const std::string &Code, bool Aggressive) {
  Analysed A;
  std::string Prefix = Prelude;
  A.PreludeLines = std::count(Prefix.begin(), Prefix.end(), '\n');
  A.AST = clang::tooling::buildASTFromCodeWithArgs(Prefix + Code, {"-std=c11"},
                                                   "input.c");
  EXPECT_TRUE(A.AST);
  clang::ASTContext &Context = A.AST->getASTContext();
  OverlapFinder Finder(Context, Aggressive);
  for (const clang::Decl *D : Context.getTranslationUnitDecl()->decls())
    if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D))
      if (F->getName() == "f" && F->hasBody())
        A.Sites = Finder.find(*F);
  return A;
}

// Figure 4: the first send's wait leaves its `if` and stops at the second
// give's refill; the second sinks to the end of the loop body, past the
// take, which only reads the buffer (through a function whose body only
// reads a `const` parameter; an unknown one could keep the pointer).
TEST(OverlapTest, Figure4GiveAndTake) {
  Analysed A = analyse(R"(
static double sum(const double *v, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += v[k];
  return s;
}
void f(int n, int c1, int c2) {
  double buff[64], got[64];
  for (int it = 0; it < n; it++) {
    if (c1) {
      for (int k = 0; k < 64; k++) buff[k] = k;
      MPI_Send(buff, 64, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    }
    compute();
    if (c2) {
      for (int k = 0; k < 64; k++) buff[k] = -k;
      MPI_Send(buff, 64, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    }
    MPI_Recv(got, 64, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double s = sum(buff, 64) + got[0];
  }
}
)");
  ASSERT_EQ(A.Sites.size(), 3u);
  const OverlapSite &First = A.Sites[0], &Second = A.Sites[1];
  EXPECT_EQ(First.Rule, OverlapRule::SplitSend);
  EXPECT_TRUE(First.canTransform()) << First.Refused;
  EXPECT_TRUE(First.LeavesConditional);
  EXPECT_EQ(First.Crossed, 1u); // compute();
  ASSERT_NE(First.Before, nullptr);
  EXPECT_EQ(A.line(First.Before->getBeginLoc()), 15u); // if (c2)
  EXPECT_EQ(First.Stop, "this statement may write 'buff'");

  EXPECT_TRUE(Second.canTransform()) << Second.Refused;
  EXPECT_TRUE(Second.LeavesConditional);
  EXPECT_EQ(Second.Before, nullptr);
  EXPECT_EQ(Second.Crossed, 2u); // The receive and the reading sum.
  EXPECT_EQ(Second.Stop, "the end of the loop body (a wait stays in its loop)");

  // The receive's buffer is read at once: nothing to overlap.
  EXPECT_EQ(A.Sites[2].Rule, OverlapRule::SplitRecv);
  EXPECT_FALSE(A.Sites[2].canTransform());
  EXPECT_EQ(A.Sites[2].Refused,
            "the wait cannot move: this statement uses 'got'");
}

// Figure 1 (BT): a wait in a conditional moves out behind a flag; wait
// matching finds the Irecv through the request variable.
TEST(OverlapTest, Figure1ConditionalWait) {
  Analysed A = analyse(R"(
void f(int first) {
  double in[8];
  MPI_Request r;
  if (!first) {
    MPI_Irecv(in, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);
    compute();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  compute();
  double x = in[0];
}
)");
  ASSERT_EQ(A.Sites.size(), 1u);
  const OverlapSite &S = A.Sites[0];
  EXPECT_EQ(S.Rule, OverlapRule::SinkWait);
  EXPECT_TRUE(S.canTransform()) << S.Refused;
  ASSERT_EQ(S.Starts.size(), 1u);
  EXPECT_EQ(A.line(S.Starts[0]->getBeginLoc()), 6u);
  EXPECT_TRUE(S.LeavesConditional);
  EXPECT_EQ(S.Crossed, 1u);
  EXPECT_EQ(S.Stop, "this statement uses 'in'");
}

// Figure 3: two sends completed through one request; the wait depends on
// both buffers, and the request's reuse stops it too.
TEST(OverlapTest, Figure3OneWaitTwoSends) {
  Analysed A = analyse(R"(
void f(int c) {
  double a[4], b[4];
  MPI_Request r;
  if (c)
    MPI_Isend(a, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
  else
    MPI_Isend(b, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  compute();
  double s = a[0] + b[0];
  b[1] = s;
}
)");
  ASSERT_EQ(A.Sites.size(), 1u);
  const OverlapSite &S = A.Sites[0];
  EXPECT_EQ(S.Starts.size(), 2u);
  EXPECT_EQ(S.Crossed, 2u); // Reading a pending send's buffer is fine.
  EXPECT_EQ(S.Stop, "this statement may write 'b'");
}

// A pointer alias written after the send, a call given the buffer, and a
// request reached through a pointer.
TEST(OverlapTest, WhatStopsAWait) {
  Analysed A = analyse(R"(
struct ex { MPI_Request req; };
void scale(double *, int);
void f(void) {
  double v[4], w[4];
  double *alias = v;
  MPI_Send(v, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  alias[0] = 1;
  MPI_Send(w, 4, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
  compute();
  scale(w, 4);
  struct ex x, *px = &x;
  MPI_Isend(w, 4, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, &px->req);
  MPI_Wait(&px->req, MPI_STATUS_IGNORE);
}
)");
  ASSERT_EQ(A.Sites.size(), 3u);
  EXPECT_EQ(A.Sites[0].Refused, "the wait cannot move: this access through a "
                                "pointer may reach the buffer");
  // w's address goes to scale() only later: compute() cannot reach it.
  EXPECT_TRUE(A.Sites[1].canTransform()) << A.Sites[1].Refused;
  EXPECT_EQ(A.Sites[1].Crossed, 1u);
  EXPECT_EQ(A.Sites[1].Stop, "this statement may write 'w'");
  EXPECT_EQ(A.Sites[2].Refused, "the request is reached through a pointer or "
                                "a nested field, which the matching does not "
                                "follow");
}

// Algorithm 2: the send's wait leaves the loop; the refill is its
// dependence point. A loop that can be left by `return` keeps the wait
// inside, where Algorithm 1 puts it.
TEST(OverlapTest, AggressiveLeavesTheLoop) {
  const char *Code = R"(
void f(int n) {
  double row[8];
  for (int it = 0; it < n; it++) {
    RETURN
    for (int k = 0; k < 8; k++) row[k] = it + k;
    MPI_Send(row, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    compute();
  }
}
)";
  std::string Plain = Code, Leaving = Code;
  Plain.replace(Plain.find("RETURN"), 6, "");
  Leaving.replace(Leaving.find("RETURN"), 6, "if (n < 0) return;");
  Analysed A = analyse(Plain, /*Aggressive=*/true);
  ASSERT_EQ(A.Sites.size(), 1u);
  const OverlapSite &S = A.Sites[0];
  EXPECT_TRUE(S.canTransform()) << S.Refused;
  ASSERT_NE(S.AggressiveLoop, nullptr);
  ASSERT_EQ(S.DependencePoints.size(), 1u);
  EXPECT_EQ(A.line(S.DependencePoints[0]->getBeginLoc()), 6u);

  Analysed B = analyse(Leaving, /*Aggressive=*/true);
  ASSERT_EQ(B.Sites.size(), 1u);
  EXPECT_EQ(B.Sites[0].AggressiveLoop, nullptr);
  EXPECT_EQ(B.Sites[0].AggressiveRefused,
            "the loop can be left other than through its end");
  // The conservative placement stays: after compute(), in the loop.
  EXPECT_TRUE(B.Sites[0].canTransform()) << B.Sites[0].Refused;
  EXPECT_EQ(B.Sites[0].Crossed, 1u);
}

} // namespace

// Error codes kept: the split send's statement is the assignment, and the
// variable is one of its wait's dependences. A read of it is passed, a
// write stops the wait; a moved wait stops at any use of it.
TEST(OverlapTest, ErrorCodes) {
  Analysed A = analyse(R"(
void f(int n) {
  double halo[8], in[8];
  int ierr, nerr = 0;
  MPI_Request r;
  ierr = MPI_Irecv(in, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &r);
  ierr = MPI_Send(halo, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  if (ierr != 0) nerr++;
  compute();
  ierr = MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (ierr != 0) nerr++;
}
)");
  ASSERT_EQ(A.Sites.size(), 2u);
  const OverlapSite &Send = A.Sites[0], &Wait = A.Sites[1];
  EXPECT_EQ(Send.Rule, OverlapRule::SplitSend);
  EXPECT_TRUE(Send.canTransform()) << Send.Refused;
  ASSERT_NE(Send.ErrorCode.Var, nullptr);
  EXPECT_EQ(Send.ErrorCode.Var->getName(), "ierr");
  EXPECT_EQ(Send.ErrorCode.Op, clang::BO_Assign);
  EXPECT_TRUE(llvm::isa<clang::BinaryOperator>(Send.CallStmt));
  EXPECT_EQ(Send.Crossed, 2u); // The check of ierr and compute().
  ASSERT_NE(Send.Before, nullptr);
  EXPECT_EQ(A.line(Send.Before->getBeginLoc()), 10u); // The wait.
  EXPECT_EQ(Send.Stop, "this statement may write 'ierr'");

  EXPECT_EQ(Wait.Rule, OverlapRule::SinkWait);
  EXPECT_FALSE(Wait.canTransform());
  EXPECT_EQ(Wait.Refused, "the wait cannot move: this statement uses 'ierr'");
}

// A pending send's buffer may be read through pointers; a write through
// one may reach it.
TEST(OverlapTest, SendPassesReadsThroughPointers) {
  Analysed A = analyse(R"(
struct grid { int me, n; };
void f(const struct grid *g, double *halo, double *out) {
  MPI_Send(halo, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  int right = (g->me + 1) % g->n;
  double first = halo[0] + right;
  out[0] = first;
}
)");
  ASSERT_EQ(A.Sites.size(), 1u);
  const OverlapSite &S = A.Sites[0];
  EXPECT_TRUE(S.canTransform()) << S.Refused;
  EXPECT_EQ(S.Crossed, 2u);
  ASSERT_NE(S.Before, nullptr);
  EXPECT_EQ(A.line(S.Before->getBeginLoc()), 7u); // out[0] = first;
  EXPECT_EQ(S.Stop, "this access through a pointer may reach the buffer");
}
