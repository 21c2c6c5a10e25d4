//===- EvalPrelude.h - A fake MPI for the analysis unit tests ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Declarations of the MPI functions the tests use (no MPI installation is
/// needed; the special ranks have MPICH's values), and a parsed unit with
/// its facts and the region of a function's communication.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_UNITTESTS_ANALYSIS_EVALPRELUDE_H
#define MPILIFT_UNITTESTS_ANALYSIS_EVALPRELUDE_H

#include "FunctionFacts.h"
#include "RankEvaluator.h"
#include "StatementTree.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Tooling.h"

#include <memory>
#include <optional>
#include <string>

namespace mpilift {
namespace analysis {
namespace test {

inline const char *const MPIPrelude = R"(
typedef __SIZE_TYPE__ size_t;
typedef struct comm *MPI_Comm;
typedef struct type *MPI_Datatype;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;
typedef struct request *MPI_Request;
typedef long MPI_Aint;
extern struct comm world;
extern struct type ompi_mpi_int, ompi_mpi_long, ompi_mpi_double, ompi_mpi_char;
#define MPI_COMM_WORLD (&world)
#define MPI_INT (&ompi_mpi_int)
#define MPI_LONG (&ompi_mpi_long)
#define MPI_DOUBLE (&ompi_mpi_double)
#define MPI_CHAR (&ompi_mpi_char)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ANY_TAG (-1)
#define MPI_SUCCESS 0
int MPI_Abort(MPI_Comm, int);
int MPI_Comm_rank(MPI_Comm, int *);
int MPI_Comm_size(MPI_Comm, int *);
int MPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
int MPI_Recv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
int MPI_Isend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
              MPI_Request *);
int MPI_Irecv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
int MPI_Wait(MPI_Request *, MPI_Status *);
int MPI_Waitall(int, MPI_Request *, MPI_Status *);
int MPI_Iprobe(int, int, MPI_Comm, int *, MPI_Status *);
int MPI_Bcast(void *, int, MPI_Datatype, int, MPI_Comm);
typedef struct op *MPI_Op;
extern struct op sum_op, max_op, min_op, prod_op;
#define MPI_SUM (&sum_op)
#define MPI_MAX (&max_op)
#define MPI_MIN (&min_op)
#define MPI_PROD (&prod_op)
#define MPI_IN_PLACE ((void *)1)
int MPI_Reduce(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
int MPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
int MPI_Scan(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
int MPI_Gather(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
               MPI_Comm);
int MPI_Sendrecv(const void *, int, MPI_Datatype, int, int, void *, int,
                 MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
void *memcpy(void *, const void *, size_t);
int printf(const char *, ...);
void compute(void);
)";

/// The source text of \p E as written (its expansion), "-" for none.
inline std::string text(const clang::Expr *E, const clang::ASTContext &Ctx) {
  if (!E)
    return "-";
  const clang::SourceManager &SM = Ctx.getSourceManager();
  return clang::Lexer::getSourceText(SM.getExpansionRange(E->getSourceRange()),
                                     SM, Ctx.getLangOpts())
      .str();
}

/// A unit parsed from the prelude and \p Code, with its facts. The code is
/// the whole program, as a compile database of one file would say (tests
/// of what other units do give the unit another project).
struct Parsed {
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<TranslationUnitFacts> TU;
  ProjectFacts WholeProgram;

  explicit Parsed(const std::string &Code, bool CXX = false) {
    AST = clang::tooling::buildASTFromCodeWithArgs(
        std::string(MPIPrelude) + Code,
        {CXX ? "-std=c++17" : "-std=c11", "-Wno-everything"},
        CXX ? "input.cpp" : "input.c");
    if (!AST)
      return;
    TU = std::make_unique<TranslationUnitFacts>(AST->getASTContext());
    WholeProgram.add(TU->summarize());
    TU->setProject(&WholeProgram);
  }

  /// The function (or method) named \p Name with a body.
  const clang::FunctionDecl *function(llvm::StringRef Name) const {
    const clang::FunctionDecl *Found = nullptr;
    struct Finder : clang::RecursiveASTVisitor<Finder> {
      llvm::StringRef Name;
      const clang::FunctionDecl *&Found;
      Finder(llvm::StringRef N, const clang::FunctionDecl *&F)
          : Name(N), Found(F) {}
      bool VisitFunctionDecl(clang::FunctionDecl *F) {
        if (F->getIdentifier() && F->getName() == Name &&
            F->doesThisDeclarationHaveABody())
          Found = F;
        return true;
      }
    } V(Name, Found);
    V.TraverseDecl(AST->getASTContext().getTranslationUnitDecl());
    return Found;
  }

  /// The first argument of the first call of \p Callee in \p F, past
  /// parentheses and implicit casts (`use(n)`: the read of `n`).
  static const clang::Expr *firstArgumentOf(const clang::FunctionDecl &F,
                                            llvm::StringRef Callee) {
    const clang::Expr *Arg = nullptr;
    findFirst(F.getBody(), [&](const clang::Stmt *S) {
      const auto *Call = llvm::dyn_cast<clang::CallExpr>(S);
      const clang::FunctionDecl *Named =
          Call ? Call->getDirectCallee() : nullptr;
      if (Named && Named->getName() == Callee && Call->getNumArgs() > 0)
        Arg = Call->getArg(0)->IgnoreParenImpCasts();
      return Arg != nullptr;
    });
    return Arg;
  }

  /// The statements \p First to \p Last of \p Name's body.
  std::optional<Region> bodyRegion(llvm::StringRef Name, unsigned First,
                                   unsigned Last) const {
    const clang::FunctionDecl *F = function(Name);
    if (!F)
      return std::nullopt;
    Region R;
    R.Function = F;
    R.Block = llvm::cast<clang::CompoundStmt>(F->getBody());
    R.First = First;
    R.Last = Last;
    return R;
  }

  /// The statements of \p Name's body from the first to the last that
  /// holds a point-to-point call.
  std::optional<Region> communicationRegion(llvm::StringRef Name) const {
    const clang::FunctionDecl *F = function(Name);
    if (!F)
      return std::nullopt;
    const auto *Body = llvm::cast<clang::CompoundStmt>(F->getBody());
    Region R;
    R.Function = F;
    R.Block = Body;
    bool Any = false;
    unsigned I = 0;
    for (const clang::Stmt *S : Body->body()) {
      bool Calls = findFirst(S, [](const clang::Stmt *X) {
        const auto *C = llvm::dyn_cast<clang::CallExpr>(X);
        const mpi::FunctionInfo *Info = C ? mpiCallee(C) : nullptr;
        return Info && Info->TheFamily != mpi::Family::CommQuery;
      });
      if (Calls) {
        if (!Any)
          R.First = I;
        R.Last = I;
        Any = true;
      }
      ++I;
    }
    if (!Any)
      return std::nullopt;
    return R;
  }
};

} // namespace test
} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_UNITTESTS_ANALYSIS_EVALPRELUDE_H
