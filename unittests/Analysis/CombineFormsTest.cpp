//===- CombineFormsTest.cpp - Statements that fold a value into another ---===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The spellings of a reduction's combine step, each named with MPI's
/// operation, and statements that read an accumulator without being one of
/// MPI's operations.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "CombineForms.h"

#include "clang/Lex/Lexer.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using mpilift::analysis::test::Parsed;
using mpilift::analysis::test::text;
using mpilift::commgraph::ReduceOp;

namespace {

/// "MPI_SUM into=acc from=x" for the combine the last statement of f's
/// body spells; "none" if it spells none.
std::string form(const std::string &Body, bool CXX = false) {
  std::string Prefix = CXX ? "#include <cstddef>\nnamespace std { template "
                             "<class T> const T &max(const T &a, const T &b) "
                             "{ return a < b ? b : a; } }\n"
                           : "double fmax(double, double);\n";
  Parsed P(Prefix +
               "struct pair { double v; int i; };\nvoid f(long acc, long "
               "x, long y, double d, double e, struct pair *p, long "
               "*v, int k) {\n" +
               Body + "\n}\n",
           CXX);
  const clang::FunctionDecl *F = P.function("f");
  if (!F)
    return "no function";
  const auto *Block = llvm::cast<clang::CompoundStmt>(F->getBody());
  const clang::ASTContext &Ctx = P.AST->getASTContext();
  std::optional<CombineForm> Form = combineForm(Block->body_back(), Ctx);
  if (!Form)
    return "none";
  std::string Out = Form->Op == ReduceOp::Other
                        ? std::string("other")
                        : std::string(mpilift::commgraph::name(Form->Op));
  Out += " into=" + text(Form->Into, Ctx);
  if (Form->Base)
    Out += " base=" + text(Form->Base, Ctx);
  return Out + " from=" + text(Form->From, Ctx);
}

TEST(CombineFormsTest, CompoundAssignments) {
  EXPECT_EQ(form("acc += x;"), "MPI_SUM into=acc from=x");
  EXPECT_EQ(form("acc *= x;"), "MPI_PROD into=acc from=x");
  EXPECT_EQ(form("acc &= x;"), "MPI_BAND into=acc from=x");
  EXPECT_EQ(form("acc |= v[k];"), "MPI_BOR into=acc from=v[k]");
  EXPECT_EQ(form("v[k] ^= x;"), "MPI_BXOR into=v[k] from=x");
}

TEST(CombineFormsTest, SpelledOutAndEitherSide) {
  EXPECT_EQ(form("acc = acc + x;"), "MPI_SUM into=acc from=x");
  EXPECT_EQ(form("acc = x * acc;"), "MPI_PROD into=acc from=x");
  EXPECT_EQ(form("acc = acc && x;"), "MPI_LAND into=acc from=x");
  EXPECT_EQ(form("acc = (x || acc);"), "MPI_LOR into=acc from=x");
  EXPECT_EQ(form("p->v = p->v + d;"), "MPI_SUM into=p->v from=d");
}

TEST(CombineFormsTest, MinimumAndMaximum) {
  EXPECT_EQ(form("if (x > acc) acc = x;"), "MPI_MAX into=acc from=x");
  EXPECT_EQ(form("if (acc > x) { acc = x; }"), "MPI_MIN into=acc from=x");
  EXPECT_EQ(form("if (x <= acc) acc = x;"), "MPI_MIN into=acc from=x");
  EXPECT_EQ(form("acc = x > acc ? x : acc;"), "MPI_MAX into=acc from=x");
  EXPECT_EQ(form("acc = acc < x ? acc : x;"), "MPI_MIN into=acc from=x");
  EXPECT_EQ(form("d = fmax(d, e);"), "MPI_MAX into=d from=e");
  EXPECT_EQ(form("acc = std::max(acc, x);", /*CXX=*/true),
            "MPI_MAX into=acc from=x");
  // An `if` that does more than take the value is none.
  EXPECT_EQ(form("if (x > acc) { acc = x; y = 1; }"), "none");
  EXPECT_EQ(form("if (x > acc) acc = y;"), "none");
}

TEST(CombineFormsTest, IntoAThirdPlace) {
  EXPECT_EQ(form("acc = x + y;"), "MPI_SUM into=acc base=x from=y");
  EXPECT_EQ(form("acc = x < y ? x : y;"), "MPI_MIN into=acc base=x from=y");
  EXPECT_EQ(form("acc = x - y;"), "other into=acc base=x from=y");
  // A copy combines nothing; a constant added is no second place.
  EXPECT_EQ(form("acc = x;"), "none");
  EXPECT_EQ(form("acc = x + 1;"), "none");
}

/// The combine the initializer of f's last declaration spells, as form()
/// prints it with `into=` the variable's name.
std::string declared(const std::string &Body) {
  Parsed P("void f(long acc, long x, long y) {\n" + Body + "\n}\n");
  const clang::FunctionDecl *F = P.function("f");
  if (!F)
    return "no function";
  const auto *Block = llvm::cast<clang::CompoundStmt>(F->getBody());
  const auto *Decl = llvm::dyn_cast<clang::DeclStmt>(Block->body_back());
  if (!Decl || !Decl->isSingleDecl())
    return "no declaration";
  const auto *V = llvm::cast<clang::VarDecl>(Decl->getSingleDecl());
  const clang::ASTContext &Ctx = P.AST->getASTContext();
  std::optional<CombineForm> Form = declaredCombine(*V, Ctx);
  if (!Form)
    return "none";
  EXPECT_EQ(Form->Declared, V);
  EXPECT_EQ(Form->Into, nullptr);
  return std::string(Form->Op == ReduceOp::Other
                         ? "other"
                         : mpilift::commgraph::name(Form->Op)) +
         " into=" + V->getName().str() + " base=" + text(Form->Base, Ctx) +
         " from=" + text(Form->From, Ctx);
}

TEST(CombineFormsTest, DeclarationsCombineIntoTheirVariable) {
  EXPECT_EQ(declared("long next = x + y;"), "MPI_SUM into=next base=x from=y");
  EXPECT_EQ(declared("long low = x < y ? x : y;"),
            "MPI_MIN into=low base=x from=y");
  EXPECT_EQ(declared("long d = x - y;"), "other into=d base=x from=y");
  EXPECT_EQ(declared("long c = x;"), "none");
  EXPECT_EQ(declared("long c = x + 1;"), "none");
  // `(acc += x)` changes acc as well: no combine into the new variable.
  EXPECT_EQ(declared("long c = (acc += x);"), "none");
  EXPECT_EQ(form("y = (acc += x);"), "none");
}

TEST(CombineFormsTest, OperationsOfTheProgramsOwn) {
  EXPECT_EQ(form("acc = acc * 31 + x;"), "other into=acc from=x");
  EXPECT_EQ(form("acc -= x;"), "other into=acc from=x");
  EXPECT_EQ(form("acc += 2 * x;"), "other into=acc from=x");
  EXPECT_EQ(form("acc = acc * 2;"), "none");
}

TEST(CombineFormsTest, ExactnessDependsOnTheType) {
  Parsed P("int i; double d; float f; unsigned u;");
  clang::ASTContext &Ctx = P.AST->getASTContext();
  EXPECT_TRUE(exactInAnyOrder(ReduceOp::Sum, Ctx.IntTy));
  EXPECT_TRUE(exactInAnyOrder(ReduceOp::Prod, Ctx.UnsignedIntTy));
  EXPECT_FALSE(exactInAnyOrder(ReduceOp::Sum, Ctx.DoubleTy));
  EXPECT_FALSE(exactInAnyOrder(ReduceOp::Prod, Ctx.FloatTy));
  EXPECT_TRUE(exactInAnyOrder(ReduceOp::Max, Ctx.DoubleTy));
  EXPECT_TRUE(exactInAnyOrder(ReduceOp::Min, Ctx.FloatTy));
  EXPECT_FALSE(exactInAnyOrder(ReduceOp::Other, Ctx.IntTy));
}

} // namespace

/// "MPI_MAXLOC into=a.v from=b.v ties=lower" for the combine of (value,
/// index) pairs the last statement of g's body spells; "none" if none.
std::string pairForm(const std::string &Body, bool CXX = false) {
  Parsed P(std::string(CXX ? "" : "typedef ") +
               "struct pair { double v; int i; }" + (CXX ? ";" : " pair;") +
               "\nstruct swapped { int i; double v; };\n"
               "struct triple { double v; int i; int extra; };\n"
               "void g(pair a, pair b, pair *q, pair *r, pair arr[4], int k,"
               " struct swapped s, struct swapped t, struct triple x, "
               "struct triple y) {\n" +
               Body + "\n}\n",
           CXX);
  const clang::FunctionDecl *F = P.function("g");
  if (!F)
    return "no function";
  const auto *Block = llvm::cast<clang::CompoundStmt>(F->getBody());
  const clang::ASTContext &Ctx = P.AST->getASTContext();
  std::optional<CombineForm> Form = combineForm(Block->body_back(), Ctx);
  if (!Form || Form->PairType.isNull())
    return "none";
  static const char *const Ties[] = {"none", "lower", "own", "other"};
  std::string Out = Form->Op == ReduceOp::Other
                        ? std::string("other")
                        : std::string(mpilift::commgraph::name(Form->Op));
  return Out + " into=" + text(Form->Into, Ctx) +
         " from=" + text(Form->From, Ctx) +
         " ties=" + Ties[static_cast<int>(Form->Ties)];
}

TEST(CombineFormsTest, PairsWithTheirIndex) {
  // MPI's own operation: equal values keep the smaller index.
  EXPECT_EQ(pairForm("if (b.v > a.v || (b.v == a.v && b.i < a.i)) a = b;"),
            "MPI_MAXLOC into=a.v from=b.v ties=lower");
  EXPECT_EQ(pairForm("if (q->v > r->v || (r->v == q->v && r->i > q->i)) "
                     "{ r->v = q->v; r->i = q->i; }"),
            "MPI_MAXLOC into=r->v from=q->v ties=lower");
  EXPECT_EQ(pairForm("if (a.v < arr[k].v || (a.v == arr[k].v && arr[k].i < "
                     "a.i)) *q = arr[k];"),
            "none");
  EXPECT_EQ(pairForm("if (arr[k].v < a.v || (a.v == arr[k].v && arr[k].i < "
                     "a.i)) a = arr[k];"),
            "MPI_MINLOC into=a.v from=arr[k].v ties=lower");
  // Without the indices compared, ties depend on the order.
  EXPECT_EQ(pairForm("if (b.v < a.v) { a.i = b.i; a.v = b.v; }"),
            "MPI_MINLOC into=a.v from=b.v ties=own");
  EXPECT_EQ(pairForm("if (a.v <= b.v) a = b;"),
            "MPI_MAXLOC into=a.v from=b.v ties=other");
  EXPECT_EQ(pairForm("if (b.v > a.v) *q = b;"), "none");
  // C++'s assignment operator of the structure.
  EXPECT_EQ(pairForm("if (b.v > a.v || (b.v == a.v && b.i < a.i)) a = b;",
                     /*CXX=*/true),
            "MPI_MAXLOC into=a.v from=b.v ties=lower");
}

TEST(CombineFormsTest, PairsMPIHasNoOperationFor) {
  // The larger index kept on a tie.
  EXPECT_EQ(pairForm("if (b.v > a.v || (b.v == a.v && b.i > a.i)) a = b;"),
            "other into=a.v from=b.v ties=none");
  // Not the layout of MPI_DOUBLE_INT: index first, or a third field.
  EXPECT_EQ(pairForm("if (t.v > s.v || (t.v == s.v && t.i < s.i)) s = t;"),
            "other into=s.v from=t.v ties=none");
  EXPECT_EQ(pairForm("if (y.v > x.v || (y.v == x.v && y.i < x.i)) x = y;"),
            "other into=x.v from=y.v ties=none");
  // Only one field copied, or another field compared: no pair combine.
  EXPECT_EQ(pairForm("if (b.v > a.v) { a.v = b.v; a.v = b.v; }"), "none");
  EXPECT_EQ(pairForm("if (b.v > a.v || (b.v == a.v && b.v < a.v)) a = b;"),
            "none");
}
