//===- ErrorFlowTest.cpp - Where an MPI call's error code goes ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The spellings of kept error codes: assigned, accumulated, used in other
/// ways, and the text of a check with another call in its place.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/ErrorFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

using namespace mpilift::analysis;
using namespace clang::ast_matchers;

namespace {

const char *const Code = R"(
int send(int to);
void sink(int);
int codes(int n) {
  int ierr = 0, nerr = 0, other = 0;
  ierr = send(1);
  ierr |= send(2);
  nerr += send(3);
  other -= send(4);
  sink(send(5));
  if (send(6) != 0)
    return -1;
  for (int i = 0; i < n; ++i)
    ierr = send(7);
  if ((ierr = send(8)) != 0)
    return ierr;
  return ierr + nerr + other;
}
)";

class ErrorFlowTest : public ::testing::Test {
protected:
  void SetUp() override {
    AST =
        clang::tooling::buildASTFromCodeWithArgs(Code, {"-std=c99"}, "codes.c");
    ASSERT_TRUE(AST);
    auto Matches =
        match(callExpr(callee(functionDecl(hasName("send")))).bind("call"),
              AST->getASTContext());
    for (const BoundNodes &N : Matches)
      Calls.push_back(N.getNodeAs<clang::CallExpr>("call"));
    llvm::sort(Calls, [&](const clang::CallExpr *A, const clang::CallExpr *B) {
      return AST->getSourceManager().isBeforeInTranslationUnit(
          A->getBeginLoc(), B->getBeginLoc());
    });
    ASSERT_EQ(Calls.size(), 8u);
  }

  ErrorFlow flowOf(unsigned I) {
    return errorFlowOf(Calls[I - 1], AST->getASTContext());
  }

  std::unique_ptr<clang::ASTUnit> AST;
  std::vector<const clang::CallExpr *> Calls;
};

TEST_F(ErrorFlowTest, AssignedAndAccumulatedCodesAreKept) {
  ErrorFlow Assigned = flowOf(1);
  ASSERT_TRUE(Assigned);
  EXPECT_EQ(Assigned.Var->getName(), "ierr");
  EXPECT_FALSE(Assigned.accumulates());
  EXPECT_EQ(Assigned.spelling(), "ierr = ");

  ErrorFlow Or = flowOf(2);
  ASSERT_TRUE(Or);
  EXPECT_TRUE(Or.accumulates());
  EXPECT_EQ(Or.spelling(), "ierr |= ");
  EXPECT_NE(Or, Assigned);

  ErrorFlow Sum = flowOf(3);
  ASSERT_TRUE(Sum);
  EXPECT_EQ(Sum.Var->getName(), "nerr");
  EXPECT_EQ(Sum.spelling(), "nerr += ");

  // A loop body is a statement of its own too.
  ErrorFlow InLoop = flowOf(7);
  ASSERT_TRUE(InLoop);
  EXPECT_EQ(InLoop, Assigned);
}

TEST_F(ErrorFlowTest, OtherUsesKeepNoCode) {
  EXPECT_FALSE(flowOf(4)); // `-=` mixes codes with something else.
  EXPECT_FALSE(flowOf(5)); // An argument.
  EXPECT_FALSE(flowOf(6)); // Compared in a condition.
  EXPECT_FALSE(flowOf(8)); // Assigned inside a condition.
  EXPECT_TRUE(keepsErrorCodes(clang::BO_OrAssign));
  EXPECT_FALSE(keepsErrorCodes(clang::BO_SubAssign));
  EXPECT_EQ(ErrorFlow().spelling(), "");
}

TEST_F(ErrorFlowTest, ACheckTakesAnotherCallInPlaceOfItsOwn) {
  clang::ASTContext &Ctx = AST->getASTContext();
  auto Ifs = match(ifStmt(hasCondition(hasDescendant(
                              callExpr(callee(functionDecl(hasName("send")))))))
                       .bind("if"),
                   Ctx);
  ASSERT_EQ(Ifs.size(), 2u);
  std::vector<const clang::IfStmt *> Checks;
  for (const BoundNodes &N : Ifs)
    Checks.push_back(N.getNodeAs<clang::IfStmt>("if"));
  llvm::sort(Checks, [&](const clang::IfStmt *A, const clang::IfStmt *B) {
    return AST->getSourceManager().isBeforeInTranslationUnit(A->getBeginLoc(),
                                                             B->getBeginLoc());
  });
  EXPECT_EQ(checkWithCall(Checks[0], Calls[5], "all(6)", Ctx),
            "if (all(6) != 0)\n    return -1;");
  EXPECT_EQ(checkWithCall(Checks[1], Calls[7], "all(8)", Ctx),
            "if ((ierr = all(8)) != 0)\n    return ierr;");
  // The condition alone, as the analysis compares checks.
  EXPECT_EQ(checkWithCall(Checks[0]->getCond(), Calls[5], "@", Ctx), "@ != 0");
}

} // namespace
