//===- LibraryHeaders.cpp - Headers that are not the program's ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/LibraryHeaders.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace mpilift {
namespace analysis {

LibraryHeaders::LibraryHeaders(const ASTContext &Context)
    : SM(Context.getSourceManager()) {
  DeclContextLookupResult Init =
      Context.getTranslationUnitDecl()->lookup(&Context.Idents.get("MPI_Init"));
  if (Init.empty())
    return;
  PresumedLoc P =
      SM.getPresumedLoc(SM.getExpansionLoc(Init.front()->getLocation()));
  if (P.isValid())
    MPIDir = llvm::sys::path::parent_path(P.getFilename()).str();
}

bool LibraryHeaders::contain(SourceLocation Loc) const {
  Loc = SM.getExpansionLoc(Loc);
  if (SM.isInMainFile(Loc))
    return false;
  if (SM.isInSystemHeader(Loc))
    return true;
  PresumedLoc P = SM.getPresumedLoc(Loc);
  if (!P.isValid())
    return true;
  if (MPIDir.empty())
    return false;
  llvm::StringRef File = P.getFilename();
  return llvm::sys::path::parent_path(File) == MPIDir ||
         File.starts_with(MPIDir + "/");
}

void scopeToProgramCode(ASTContext &Context) {
  LibraryHeaders Library(Context);
  std::vector<Decl *> Scope;
  for (Decl *D : Context.getTranslationUnitDecl()->decls())
    if (!Library.contain(D->getLocation()))
      Scope.push_back(D);
  if (Context.getTraversalScope() != Scope)
    Context.setTraversalScope(Scope);
}

} // namespace analysis
} // namespace mpilift
