//===- FusionRewrite.cpp - One collective for a fused sequence ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Transform/FusionRewrite.h"

#include "mpilift/Analysis/MPICalls.h"

#include "SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;

namespace mpilift {
namespace transform {

namespace {

using analysis::FusionKind;
using analysis::FusionSite;

std::string argText(const CallExpr *Call, mpi::Role R, ASTContext &Context) {
  const Expr *E = analysis::mpiArgAsWritten(Call, R);
  return E ? analysis::sourceText(E, Context) : std::string();
}

/// The fused call of a pair (MPI_Allreduce, MPI_Allgather).
std::string pairCall(const FusionSite &Site, ASTContext &Context) {
  const CallExpr *First = Site.Calls[0];
  auto Arg = [&](mpi::Role R) { return argText(First, R, Context); };
  if (Site.Kind == FusionKind::ReduceBcast)
    return llvm::formatv("MPI_Allreduce({0}, {1}, {2}, {3}, {4}, {5})",
                         Site.SendBuffer, Arg(mpi::Role::RecvBuffer),
                         Arg(mpi::Role::Count), Arg(mpi::Role::Datatype),
                         Arg(mpi::Role::Op), Arg(mpi::Role::Comm))
        .str();
  return llvm::formatv("MPI_Allgather({0}, {1}, {2}, {3}, {4}, {5}, {6})",
                       Arg(mpi::Role::SendBuffer), Arg(mpi::Role::SendCount),
                       Arg(mpi::Role::SendType), Arg(mpi::Role::RecvBuffer),
                       Arg(mpi::Role::RecvCount), Arg(mpi::Role::RecvType),
                       Arg(mpi::Role::Comm))
      .str();
}

/// A pair: the first call becomes the fused one; the second call's
/// statement goes (a declaration keeps its variable, now MPI_SUCCESS).
llvm::Expected<tooling::AtomicChange> rewritePair(const FusionSite &Site,
                                                  ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange First = SM.getExpansionRange(Site.Calls[0]->getSourceRange());
  CharSourceRange Second =
      SM.getExpansionRange(Site.Calls[1]->getSourceRange());
  if (First.getBegin().isInvalid() || Second.getBegin().isInvalid() ||
      SM.getFileID(First.getBegin()) != SM.getFileID(Second.getBegin()))
    return llvm::createStringError("the calls are not plain source text");
  tooling::AtomicChange Change(SM, First.getBegin());
  if (llvm::Error E = Change.replace(SM, First, pairCall(Site, Context)))
    return E;
  if (isa<DeclStmt>(Site.Stmts[1])) {
    if (llvm::Error E = Change.replace(SM, Second, "MPI_SUCCESS"))
      return E;
    return Change;
  }
  if (llvm::Error E =
          Change.replace(SM, wholeLines(*Site.Stmts[1], Context), ""))
    return E;
  return Change;
}

/// Independent MPI_Allreduce calls: their send buffers copied into one
/// array, one call, the results copied out.
llvm::Expected<tooling::AtomicChange> rewritePacked(const FusionSite &Site,
                                                    ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *FirstStmt = Site.Stmts.front(), *LastStmt = Site.Stmts.back();
  CharSourceRange Range = CharSourceRange::getCharRange(
      statementRange(*FirstStmt, Context).getBegin(),
      statementRange(*LastStmt, Context).getEnd());
  if (Range.getBegin().isInvalid() || Range.getEnd().isInvalid() ||
      SM.getFileID(Range.getBegin()) != SM.getFileID(Range.getEnd()))
    return llvm::createStringError("the calls are not plain source text");
  StringRef Code = SM.getBufferData(SM.getFileID(Range.getBegin()));
  std::string In = freshName("packed_in", Code, nullptr);
  std::string Out = freshName("packed_out", Code, nullptr);
  int64_t Total = 0;
  for (int64_t N : Site.Counts)
    Total += N;
  const CallExpr *Head = Site.Calls.front();
  const std::string &T = Site.ElementType;
  std::string Text = "{\n" + T + " " + In + "[" + std::to_string(Total) +
                     "], " + Out + "[" + std::to_string(Total) + "];\n";
  int64_t Offset = 0;
  for (size_t I = 0; I < Site.Calls.size(); ++I) {
    Text += llvm::formatv(
                "memcpy({0} + {1}, {2}, {3} * sizeof({4}));\n", In, Offset,
                argText(Site.Calls[I], mpi::Role::SendBuffer, Context),
                Site.Counts[I], T)
                .str();
    Offset += Site.Counts[I];
  }
  // `ierr = ` when the calls kept their error codes.
  std::string Error;
  if (const auto *Op = dyn_cast<BinaryOperator>(FirstStmt))
    Error = analysis::sourceText(Op->getLHS(), Context) + " = ";
  Text +=
      llvm::formatv("{0}MPI_Allreduce({1}, {2}, {3}, {4}, {5}, {6});\n", Error,
                    In, Out, Total, argText(Head, mpi::Role::Datatype, Context),
                    argText(Head, mpi::Role::Op, Context),
                    argText(Head, mpi::Role::Comm, Context))
          .str();
  Offset = 0;
  for (size_t I = 0; I < Site.Calls.size(); ++I) {
    Text +=
        llvm::formatv("memcpy({0}, {1} + {2}, {3} * sizeof({4}));\n",
                      argText(Site.Calls[I], mpi::Role::RecvBuffer, Context),
                      Out, Offset, Site.Counts[I], T)
            .str();
    Offset += Site.Counts[I];
  }
  Text += "}";
  tooling::AtomicChange Change(SM, Range.getBegin());
  if (llvm::Error E = Change.replace(SM, Range, Text))
    return E;
  Change.addHeader(Context.getLangOpts().CPlusPlus ? "<cstring>"
                                                   : "<string.h>");
  return Change;
}

} // namespace

llvm::Expected<tooling::AtomicChange> rewriteFusion(const FusionSite &Site,
                                                    ASTContext &Context) {
  assert(Site.isSafe() && "fusing an unsafe sequence");
  if (Site.Kind == FusionKind::PackedAllreduce)
    return rewritePacked(Site, Context);
  return rewritePair(Site, Context);
}

} // namespace transform
} // namespace mpilift
