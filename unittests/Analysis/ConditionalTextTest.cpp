//===- ConditionalTextTest.cpp - Names in preprocessor conditionals -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// conditionalIdentifiers: the names a function's conditional blocks spell,
/// in the branches the preprocessor took and in those it skipped, outside
/// the range given.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "ConditionalText.h"
#include "StatementTree.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using namespace mpilift::analysis::test;

namespace {

std::vector<std::string> sorted(const llvm::StringSet<> &Names) {
  std::vector<std::string> Out;
  for (const auto &Entry : Names)
    Out.push_back(Entry.getKey().str());
  llvm::sort(Out);
  return Out;
}

const char *Code = R"(
void use(int);
int count(int size) {
  int p, last = 0, seen = 0;
  for (p = 1; p < size; p++) {
#ifdef VERBOSE
    use(p);
#endif
    last = p;
  }
#if defined(TRACE) && TRACE > 1
  use(seen);
#  ifndef QUIET
  use(last);
#  endif
#else
  seen = 1;
#endif
  return last + seen;
}
)";

TEST(ConditionalTextTest, NamesOfTakenAndSkippedBranchesAlike) {
  Parsed P(Code);
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("count");
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(sorted(conditionalIdentifiers(*F, clang::SourceRange())),
            (std::vector<std::string>{"QUIET", "TRACE", "VERBOSE", "defined",
                                      "last", "p", "seen", "use"}));
}

TEST(ConditionalTextTest, TheRangeGivenIsLeftOut) {
  Parsed P(Code);
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("count");
  ASSERT_NE(F, nullptr);
  const clang::Stmt *Loop = findFirst(F->getBody(), [](const clang::Stmt *S) {
    return clang::isa<clang::ForStmt>(S);
  });
  ASSERT_NE(Loop, nullptr);
  // `use(p)` is in the loop: only the blocks after it count.
  EXPECT_EQ(sorted(conditionalIdentifiers(*F, Loop->getSourceRange())),
            (std::vector<std::string>{"QUIET", "TRACE", "defined", "last",
                                      "seen", "use"}));
}

// Another arm of the conditional that holds the range is never compiled
// with it; code after the conditional is.
TEST(ConditionalTextTest, OtherArmsOfTheRangesOwnConditionalAreLeftOut) {
  Parsed P(R"(
void use(int);
int pass(int size) {
  int p = 0, q = 0;
#ifndef OWN_FIRST
  for (p = 1; p < size; p++)
    q += p;
#else
  use(p);
#endif
#ifdef TRACE
  use(q);
#endif
  return q;
}
)");
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("pass");
  ASSERT_NE(F, nullptr);
  const clang::Stmt *Loop = findFirst(F->getBody(), [](const clang::Stmt *S) {
    return clang::isa<clang::ForStmt>(S);
  });
  ASSERT_NE(Loop, nullptr);
  EXPECT_EQ(sorted(conditionalIdentifiers(*F, Loop->getSourceRange())),
            (std::vector<std::string>{"OWN_FIRST", "TRACE", "q", "use"}));
}

TEST(ConditionalTextTest, NoConditionalNoNames) {
  Parsed P("int twice(int x) {\n  int y = 2 * x;\n  return y;\n}\n"
           "#ifdef AFTER\nint z;\n#endif\n");
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("twice");
  ASSERT_NE(F, nullptr);
  EXPECT_TRUE(conditionalIdentifiers(*F, clang::SourceRange()).empty());
}

} // namespace
