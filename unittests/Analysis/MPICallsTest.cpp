//===- MPICallsTest.cpp - What MPI calls' arguments name ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MPI handles behind the program's own macros.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "mpilift/Analysis/MPICalls.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using mpilift::analysis::test::Parsed;

namespace {

/// The MPI name mpiHandleName gives the datatype argument of the call in
/// f's body, with \p Macros defined before it.
std::string handle(const std::string &Macros, const std::string &Type) {
  Parsed P(Macros + "\nvoid f(long *x) {\n  MPI_Send(x, 1, " + Type +
           ", 0, 0, MPI_COMM_WORLD);\n}\n");
  const clang::FunctionDecl *F = P.function("f");
  if (!F)
    return "no function";
  const auto *Block = llvm::cast<clang::CompoundStmt>(F->getBody());
  const auto *Call = llvm::dyn_cast<clang::CallExpr>(Block->body_front());
  if (!Call)
    return "no call";
  return mpiHandleName(Call->getArg(2)->IgnoreImpCasts(),
                       P.AST->getASTContext());
}

TEST(MPIHandleNameTest, TheProgramsMacrosStandForMPIsNames) {
  EXPECT_EQ(handle("", "MPI_LONG"), "MPI_LONG");
  EXPECT_EQ(handle("#define COUNT_T MPI_LONG", "COUNT_T"), "MPI_LONG");
  EXPECT_EQ(handle("#define COUNT_T MPI_LONG /* the counts */\n"
                   "#define INDEX_T (COUNT_T)",
                   "INDEX_T"),
            "MPI_LONG");
  // More than one name behind the macro: left as written.
  EXPECT_EQ(handle("int wide;\n#define COUNT_T (wide ? MPI_LONG : MPI_INT)",
                   "COUNT_T"),
            "COUNT_T");
}

} // namespace
