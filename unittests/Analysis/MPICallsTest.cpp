//===- MPICallsTest.cpp - What MPI calls' arguments name ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MPI handles behind the program's own macros; the pair datatypes of
/// MPI_MINLOC and MPI_MAXLOC and the structures they describe.
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

TEST(PairDatatypeTest, SizesAreThoseOfTheCStructures) {
  Parsed P("struct di { double v; int i; };\n"
           "struct id { int i; double v; };\n"
           "struct dii { double v; int i; int more; };\n"
           "struct si { short v; int i; };\n");
  const clang::ASTContext &Ctx = P.AST->getASTContext();
  EXPECT_EQ(predefinedTypeSize("MPI_DOUBLE_INT", Ctx), 16u);
  EXPECT_EQ(predefinedTypeSize("MPI_2INT", Ctx), 8u);
  EXPECT_EQ(predefinedTypeSize("MPI_SHORT_INT", Ctx), 8u);
  EXPECT_EQ(predefinedTypeSize("MPI_FLOAT_INT", Ctx), 8u);
  EXPECT_EQ(predefinedDatatype("MPI_DOUBLE_INT"), nullptr);
  const PairDatatype *DoubleInt = pairDatatypeOf(Ctx.DoubleTy, Ctx);
  ASSERT_NE(DoubleInt, nullptr);
  EXPECT_EQ(DoubleInt->MPIName, "MPI_DOUBLE_INT");
  EXPECT_EQ(pairDatatypeOf(Ctx.UnsignedIntTy, Ctx), nullptr);
  auto Record = [&](llvm::StringRef Name) -> const clang::RecordDecl & {
    for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (const auto *R = llvm::dyn_cast<clang::RecordDecl>(D))
        if (R->getName() == Name)
          return *R;
    ADD_FAILURE() << "no struct " << Name.str();
    return *llvm::cast<clang::RecordDecl>(
        *Ctx.getTranslationUnitDecl()->decls_begin());
  };
  EXPECT_TRUE(isPairRecord(Record("di"), *DoubleInt, Ctx));
  EXPECT_FALSE(isPairRecord(Record("id"), *DoubleInt, Ctx));
  EXPECT_FALSE(isPairRecord(Record("dii"), *DoubleInt, Ctx));
  EXPECT_FALSE(isPairRecord(Record("di"), *pairDatatype("MPI_SHORT_INT"), Ctx));
  EXPECT_TRUE(isPairRecord(Record("si"), *pairDatatype("MPI_SHORT_INT"), Ctx));
}

} // namespace
