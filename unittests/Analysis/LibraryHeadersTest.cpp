//===- LibraryHeadersTest.cpp - Which code is the program's ---------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MPI library's headers come in with -I, as the compiler wrappers pass
/// them, and still count as a library's; a header of the project does not.
/// The traversal scope the analyses set keeps only the program's code.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/LibraryHeaders.h"

#include "clang/AST/Decl.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

using namespace clang;
using namespace mpilift::analysis;

namespace {

const char *const Main = R"(
#include <mpi.h>
#include <cxx/bindings.h>
#include "util.h"
int main(void) { return util(); }
)";

std::unique_ptr<ASTUnit> parse() {
  tooling::FileContentMappings Files = {
      {"/opt/mpi/include/mpi.h", "int MPI_Init(int *, char ***);\n"},
      {"/opt/mpi/include/cxx/bindings.h", "int mpi_cxx_helper(void);\n"},
      {"/project/include/util.h", "int util(void);\n"}};
  return tooling::buildASTFromCodeWithArgs(
      Main, {"-std=c11", "-I/opt/mpi/include", "-I/project/include"},
      "/project/src/main.c", "mpilift-test",
      std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), Files);
}

const NamedDecl *named(ASTContext &Context, llvm::StringRef Name) {
  DeclContextLookupResult Found =
      Context.getTranslationUnitDecl()->lookup(&Context.Idents.get(Name));
  return Found.empty() ? nullptr : Found.front();
}

TEST(LibraryHeadersTest, MPIHeadersPassedWithDashIAreALibrarys) {
  std::unique_ptr<ASTUnit> AST = parse();
  ASSERT_TRUE(AST);
  ASTContext &Context = AST->getASTContext();
  LibraryHeaders Library(Context);
  for (llvm::StringRef Name : {"MPI_Init", "mpi_cxx_helper"}) {
    const NamedDecl *D = named(Context, Name);
    ASSERT_TRUE(D) << Name.str();
    EXPECT_TRUE(Library.contain(D->getLocation())) << Name.str();
  }
  for (llvm::StringRef Name : {"util", "main"}) {
    const NamedDecl *D = named(Context, Name);
    ASSERT_TRUE(D) << Name.str();
    EXPECT_FALSE(Library.contain(D->getLocation())) << Name.str();
  }
}

TEST(LibraryHeadersTest, TraversalScopeKeepsTheProgramsDeclarations) {
  std::unique_ptr<ASTUnit> AST = parse();
  ASSERT_TRUE(AST);
  ASTContext &Context = AST->getASTContext();
  scopeToProgramCode(Context);
  std::vector<std::string> Names;
  for (const Decl *D : Context.getTraversalScope())
    if (const auto *N = dyn_cast<NamedDecl>(D))
      Names.push_back(N->getNameAsString());
  EXPECT_EQ(Names, (std::vector<std::string>{"util", "main"}));
}

} // namespace
