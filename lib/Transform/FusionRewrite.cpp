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

llvm::Expected<tooling::AtomicChange>
rewriteFusion(const analysis::FusionSite &Site, ASTContext &Context) {
  assert(Site.isSafe() && "fusing an unsafe sequence");
  const SourceManager &SM = Context.getSourceManager();
  const CallExpr *Reduce = Site.First;
  auto Arg = [&](mpi::Role R) {
    return analysis::sourceText(analysis::mpiArgAsWritten(Reduce, R), Context);
  };
  CharSourceRange First = SM.getExpansionRange(Reduce->getSourceRange());
  CharSourceRange Second = SM.getExpansionRange(Site.Second->getSourceRange());
  if (First.getBegin().isInvalid() || Second.getBegin().isInvalid() ||
      SM.getFileID(First.getBegin()) != SM.getFileID(Second.getBegin()))
    return llvm::createStringError("the calls are not plain source text");
  tooling::AtomicChange Change(SM, First.getBegin());
  std::string Call = llvm::formatv(
      "MPI_Allreduce({0}, {1}, {2}, {3}, {4}, {5})", Site.SendBuffer,
      Arg(mpi::Role::RecvBuffer), Arg(mpi::Role::Count),
      Arg(mpi::Role::Datatype), Arg(mpi::Role::Op), Arg(mpi::Role::Comm));
  if (llvm::Error E = Change.replace(SM, First, Call))
    return E;
  // `int rc = MPI_Bcast(...);` keeps `rc` for what follows.
  if (isa<DeclStmt>(Site.SecondStmt)) {
    if (llvm::Error E = Change.replace(SM, Second, "MPI_SUCCESS"))
      return E;
    return Change;
  }
  if (llvm::Error E =
          Change.replace(SM, wholeLines(*Site.SecondStmt, Context), ""))
    return E;
  return Change;
}

} // namespace transform
} // namespace mpilift
