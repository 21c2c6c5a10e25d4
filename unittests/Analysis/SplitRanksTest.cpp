//===- SplitRanksTest.cpp - Rank and size fields set beside a split -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The split proof on grid set-ups the way HPL and ScaLAPACK-like codes
/// write them, and on the set-ups whose fields are not the rank or the
/// size they look like.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "SplitRanks.h"

#include "gtest/gtest.h"

#include <map>

using namespace mpilift::analysis;
using namespace mpilift::analysis::test;

namespace {

const char *const Grid = R"(
#define MPI_UNDEFINED (-32766)
int MPI_Comm_split(MPI_Comm, int, int, MPI_Comm *);
typedef enum { ROW_MAJOR = 101, COLUMN_MAJOR = 102 } order_t;
typedef struct {
  MPI_Comm all, row, col;
  int iam, myrow, mycol, nprow, npcol;
} grid_t;
)";

/// "field -> rank/size of comm" for each field the proof shows, and the
/// refusals by field ("-" for the whole function).
struct Outcome {
  std::map<std::string, std::string> Fields;
  std::map<std::string, std::string> Refused;
  size_t Inputs = 0;
};

Outcome proofOf(const std::string &Body, llvm::StringRef Function = "init") {
  Parsed P(std::string(Grid) + Body);
  Outcome O;
  EXPECT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function(Function);
  EXPECT_NE(F, nullptr);
  if (!F)
    return O;
  const SplitProof &Proof = splitProofOf(*F, *P.TU);
  for (const SplitField &S : Proof.Fields)
    O.Fields[S.Write->getMemberDecl()->getNameAsString()] =
        std::string(S.Query == CommQuery::Rank ? "rank" : "size") + " of " +
        S.CommWrite->getMemberDecl()->getNameAsString();
  for (const auto &[Write, Why] : Proof.Refused)
    O.Refused[Write ? Write->getMemberDecl()->getNameAsString() : "-"] = Why;
  O.Inputs = Proof.Inputs.size();
  return O;
}

/// HPL_grid_init's shape: the grid's own communicator first (processes
/// past the grid get MPI_UNDEFINED), then its rows and columns.
const char *const HPLInit = R"(
int init(MPI_Comm comm, order_t order, int nprow, int npcol, grid_t *g) {
  int rank, size, myrow, mycol, ierr;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (nprow < 1 || npcol < 1 || nprow * npcol > size)
    MPI_Abort(comm, 1);
  if (order == ROW_MAJOR) {
    myrow = rank / npcol;
    mycol = rank - myrow * npcol;
  } else {
    mycol = rank / nprow;
    myrow = rank - mycol * nprow;
  }
  g->iam = rank; g->myrow = myrow; g->mycol = mycol;
  g->nprow = nprow; g->npcol = npcol;
  ierr = MPI_Comm_split(comm, rank < nprow * npcol ? 0 : MPI_UNDEFINED, rank,
                        &g->all);
  if (ierr != MPI_SUCCESS)
    return ierr;
  ierr = MPI_Comm_split(g->all, myrow, mycol, &g->row);
  if (ierr == MPI_SUCCESS)
    ierr = MPI_Comm_split(g->all, mycol, myrow, &g->col);
  return ierr;
}
)";

TEST(SplitRanksTest, HPLGridInit) {
  Outcome O = proofOf(HPLInit);
  EXPECT_EQ(O.Fields["mycol"], "rank of row");
  EXPECT_EQ(O.Fields["npcol"], "size of row");
  EXPECT_EQ(O.Fields["myrow"], "rank of col");
  EXPECT_EQ(O.Fields["nprow"], "size of col");
  EXPECT_EQ(O.Fields["iam"], "rank of all");
  EXPECT_EQ(O.Inputs, 3u); // order, nprow, npcol.
}

TEST(SplitRanksTest, KeyReversedIsNoRank) {
  std::string Code = HPLInit;
  std::string From = "MPI_Comm_split(g->all, myrow, mycol, &g->row)";
  Code.replace(Code.find(From), From.size(),
               "MPI_Comm_split(g->all, myrow, npcol - 1 - mycol, &g->row)");
  Outcome O = proofOf(Code);
  EXPECT_EQ(O.Fields.count("mycol"), 0u);
  EXPECT_EQ(O.Fields["npcol"], "size of row");
  EXPECT_EQ(O.Refused["mycol"],
            "at 2 processes with 'order' ROW_MAJOR, 'nprow' 1, 'npcol' 2, "
            "process 0 gives it 0 where its rank in 'row' is 1 of 2");
}

TEST(SplitRanksTest, ShortLastRowIsNoSize) {
  // Without the guard, a grid larger than the processes leaves the last
  // row short: the column is still the rank, the width not the size.
  std::string Code = HPLInit;
  std::string From = " || nprow * npcol > size";
  Code.erase(Code.find(From), From.size());
  Outcome O = proofOf(Code);
  EXPECT_EQ(O.Fields.count("npcol"), 0u);
  EXPECT_EQ(O.Fields.count("nprow"), 0u);
  EXPECT_EQ(O.Fields["mycol"], "rank of row");
  EXPECT_EQ(O.Fields["myrow"], "rank of col");
  EXPECT_NE(O.Refused["npcol"].find("where its rank in"), std::string::npos)
      << O.Refused["npcol"];
}

TEST(SplitRanksTest, DivisionByZeroMakesNoCommunicator) {
  // No guard at all: a shape of zero columns divides by zero before the
  // split, which no run of the program gets past.
  Outcome O = proofOf(R"(
void init(MPI_Comm comm, int npcol, grid_t *g) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % npcol;
  MPI_Comm_split(comm, rank / npcol, rank, &g->row);
}
)");
  EXPECT_EQ(O.Fields["mycol"], "rank of row");
}

TEST(SplitRanksTest, SplitCheckedInACondition) {
  Outcome O = proofOf(R"(
int init(MPI_Comm comm, int npcol, grid_t *g) {
  int rank;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || npcol < 1)
    MPI_Abort(comm, 1);
  g->mycol = rank % npcol;
  if (MPI_Comm_split(comm, rank / npcol, g->mycol, &g->row) != MPI_SUCCESS)
    return 1;
  return 0;
}
)");
  EXPECT_EQ(O.Fields["mycol"], "rank of row");
}

TEST(SplitRanksTest, WhatTheProofDoesNotTake) {
  EXPECT_EQ(proofOf(R"(
void init(MPI_Comm comm, grid_t *g) {
  int rank, k;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % 2;
  for (k = 0; k < 1; k++)
    MPI_Comm_split(comm, rank / 2, rank, &g->row);
}
)")
                .Refused["-"],
            "a split is inside a loop");
  EXPECT_EQ(proofOf(R"(
void init(MPI_Comm comm, grid_t *g) {
  int rank, x = 0;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % 2;
  MPI_Comm_split(comm, rank / 2, rank, &g->row);
  MPI_Send(&x, 1, MPI_INT, 0, 0, g->row);
}
)")
                .Refused["-"],
            "it also calls 'MPI_Send'");
  EXPECT_EQ(proofOf(R"(
void init(MPI_Comm comm, MPI_Comm other, grid_t *g) {
  int rank, me;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(other, &me);
  g->mycol = me % 2;
  MPI_Comm_split(comm, rank / 2, rank, &g->row);
}
)")
                .Refused["-"],
            "it also queries a rank or size on another communicator");
  EXPECT_EQ(proofOf(R"(
void init(MPI_Comm comm, grid_t *g) {
  int rank, tries = 0;
  MPI_Comm_rank(comm, &rank);
again:
  g->mycol = rank % 2;
  if (MPI_Comm_split(comm, rank / 2, rank, &g->row) != MPI_SUCCESS &&
      ++tries < 3)
    goto again;
}
)")
                .Refused["-"],
            "it has labels a jump may go back to");
  EXPECT_EQ(proofOf(R"(
void init(MPI_Comm comm, grid_t *g) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % 2;
  if (rank > 1 && MPI_Comm_split(comm, rank / 2, rank, &g->row) != 0)
    MPI_Abort(comm, 1);
}
)")
                .Refused["-"],
            "a split or a field write is not the first thing its statement "
            "does");
  EXPECT_EQ(proofOf(R"(
void init(MPI_Comm comm, grid_t *g) {
  int rank, color = 0;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % 2;
  MPI_Comm_split(comm, color++, rank, &g->row);
}
)")
                .Refused["-"],
            "a split's colour or key changes state");
  Outcome Twice = proofOf(R"(
void init(MPI_Comm comm, grid_t *g) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % 2;
  if (rank > 5)
    g->mycol = 0;
  MPI_Comm_split(comm, rank / 2, rank, &g->row);
}
)");
  EXPECT_EQ(Twice.Fields.count("mycol"), 0u);
  EXPECT_EQ(Twice.Refused["mycol"], "'mycol' is written more than once");
}

TEST(SplitRanksTest, ConstructorOfAClass) {
  Parsed P(std::string(Grid) + R"(
class Grid {
public:
  Grid(MPI_Comm parent, int prows) {
    MPI_Comm_rank(parent, &iam_);
    MPI_Comm_size(parent, &n_);
    if (prows < 1 || n_ % prows != 0)
      MPI_Abort(parent, 1);
    cols_ = n_ / prows;
    col_ = iam_ % cols_;
    MPI_Comm_split(parent, iam_ / cols_, col_, &row_);
  }
private:
  int iam_ = 0, n_ = 1, col_ = 0, cols_ = 1;
  MPI_Comm row_;
};
)",
           /*CXX=*/true);
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *Ctor = nullptr;
  for (const clang::Decl *D :
       P.AST->getASTContext().getTranslationUnitDecl()->decls())
    if (const auto *Class = llvm::dyn_cast<clang::CXXRecordDecl>(D))
      if (Class->getName() == "Grid" && Class->hasDefinition())
        for (const clang::CXXConstructorDecl *C : Class->ctors())
          if (C->doesThisDeclarationHaveABody())
            Ctor = C;
  ASSERT_NE(Ctor, nullptr);
  std::map<std::string, std::string> Fields;
  for (const SplitField &S : splitProofOf(*Ctor, *P.TU).Fields)
    Fields[S.Write->getMemberDecl()->getNameAsString()] =
        S.Query == CommQuery::Rank ? "rank" : "size";
  EXPECT_EQ(Fields["col_"], "rank");
  EXPECT_EQ(Fields["cols_"], "size");
}

} // namespace

TEST(SplitRanksTest, RefusalsStayWithTheSplitObject) {
  Parsed P(std::string(Grid) + R"(
typedef struct { int nb; } panel_t;
void init(MPI_Comm comm, grid_t *g, panel_t *p) {
  int rank, i;
  MPI_Comm_rank(comm, &rank);
  g->mycol = rank % 2;
  p->nb = 64;
  for (i = 0; i < 1; ++i)
    MPI_Comm_split(comm, rank / 2, rank, &g->row);
}
)");
  ASSERT_TRUE(P.AST);
  const clang::FunctionDecl *F = P.function("init");
  ASSERT_NE(F, nullptr);
  std::map<std::string, std::string> Why;
  findFirst(F->getBody(), [&](const clang::Stmt *S) {
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(S))
      Why[M->getMemberDecl()->getNameAsString()] = splitRefusalOf(*M, *P.TU);
    return false;
  });
  EXPECT_EQ(Why["mycol"], "a split is inside a loop");
  EXPECT_EQ(Why["nb"], "");
}
