//===- CollectiveRewrite.cpp - Manual collectives to MPI calls ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Transform/CollectiveRewrite.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "mpilift/MPI/Vocabulary.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Transformer/SourceCode.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;

namespace mpilift {
namespace transform {

namespace {

using analysis::ManualCollective;
using analysis::ManualKind;
using analysis::sourceText;

/// The argument texts both calls share.
struct CallTexts {
  std::string Count, Type, Root, Comm, RootBuffer, PeerBuffer;
};

CallTexts textsOf(const ManualCollective &C, const ASTContext &Context) {
  auto Arg = [&](const CallExpr *Call, mpi::Role R) {
    const mpi::FunctionInfo *Info = mpi::lookup(
        Call->getDirectCallee()->getName().str());
    return sourceText(Call->getArg(*Info->argIndex(R)), Context);
  };
  if (!C.Guard) // Allgather, alltoall: one exchange call, no root.
    return {Arg(C.RootCall, mpi::Role::SendCount),
            Arg(C.RootCall, mpi::Role::SendType),
            "",
            Arg(C.RootCall, mpi::Role::Comm),
            sourceText(C.RootBuffer, Context),
            sourceText(C.SendBuffer, Context)};
  bool PeerSends = C.Kind == ManualKind::Gather;
  return {Arg(C.RootCall, mpi::Role::Count),
          Arg(C.RootCall, mpi::Role::Datatype),
          sourceText(C.Root, Context),
          Arg(C.RootCall, mpi::Role::Comm),
          sourceText(C.RootBuffer, Context),
          Arg(C.PeerCall,
              PeerSends ? mpi::Role::SendBuffer : mpi::Role::RecvBuffer)};
}

/// The one call every rank makes for an allgather or alltoall; the send
/// text is PeerBuffer. In place, the own block is the contribution.
std::string exchangeCall(const ManualCollective &C, const CallTexts &T) {
  const char *Name =
      C.Kind == ManualKind::Allgather ? "MPI_Allgather" : "MPI_Alltoall";
  if (C.InPlace)
    return llvm::formatv("{0}(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, {1}, {2}, "
                         "{3}, {4})",
                         Name, T.RootBuffer, T.Count, T.Type, T.Comm);
  return llvm::formatv("{0}({1}, {2}, {3}, {4}, {2}, {3}, {5})", Name,
                       T.PeerBuffer, T.Count, T.Type, T.RootBuffer, T.Comm);
}

/// The collective call each side makes. The root keeps its own block where
/// it is (MPI_IN_PLACE), exactly as the loop that skipped it did.
std::pair<std::string, std::string> collectiveCalls(const ManualCollective &C,
                                                    const CallTexts &T) {
  switch (C.Kind) {
  case ManualKind::Bcast:
    return {llvm::formatv("MPI_Bcast({0}, {1}, {2}, {3}, {4})", T.RootBuffer,
                          T.Count, T.Type, T.Root, T.Comm),
            llvm::formatv("MPI_Bcast({0}, {1}, {2}, {3}, {4})", T.PeerBuffer,
                          T.Count, T.Type, T.Root, T.Comm)};
  case ManualKind::Scatter:
    return {llvm::formatv("MPI_Scatter({0}, {1}, {2}, MPI_IN_PLACE, {1}, {2}, "
                          "{3}, {4})",
                          T.RootBuffer, T.Count, T.Type, T.Root, T.Comm),
            llvm::formatv("MPI_Scatter(NULL, 0, {2}, {0}, {1}, {2}, {3}, {4})",
                          T.PeerBuffer, T.Count, T.Type, T.Root, T.Comm)};
  case ManualKind::Allgather:
  case ManualKind::Alltoall:
    break;
  case ManualKind::Gather:
    return {llvm::formatv("MPI_Gather(MPI_IN_PLACE, {1}, {2}, {0}, {1}, {2}, "
                          "{3}, {4})",
                          T.RootBuffer, T.Count, T.Type, T.Root, T.Comm),
            llvm::formatv("MPI_Gather({0}, {1}, {2}, NULL, 0, {2}, {3}, {4})",
                          T.PeerBuffer, T.Count, T.Type, T.Root, T.Comm)};
  }
  llvm_unreachable("unknown collective");
}

/// Whether \p Branch holds nothing but \p Only once the statements in
/// \p Removed are gone.
bool holdsOnly(const Stmt *Branch, const Stmt *Only,
               llvm::ArrayRef<const Stmt *> Removed) {
  if (Branch == Only)
    return true;
  const auto *Block = dyn_cast<CompoundStmt>(Branch);
  if (!Block)
    return false;
  unsigned Kept = 0;
  bool Found = false;
  for (const Stmt *S : Block->body()) {
    if (llvm::is_contained(Removed, S))
      continue;
    ++Kept;
    const Stmt *Inner = S;
    if (const auto *E = dyn_cast<Expr>(S))
      Inner = E->IgnoreParenCasts();
    Found |= S == Only || Inner == Only;
  }
  return Kept == 1 && Found;
}

/// The range of statement \p S with its semicolon and, when it stands on
/// lines of its own, its indentation and line break, so deleting it leaves
/// no blank line.
CharSourceRange wholeLines(const Stmt &S, ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange R = tooling::getExtendedRange(S, tok::semi, Context);
  R = Lexer::makeFileCharRange(R, SM, Context.getLangOpts());
  if (R.isInvalid())
    return R;
  auto [File, Begin] = SM.getDecomposedLoc(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  StringRef Code = SM.getBufferData(File);
  unsigned B = Begin;
  while (B > 0 && (Code[B - 1] == ' ' || Code[B - 1] == '\t'))
    --B;
  unsigned E = End;
  while (E < Code.size() && (Code[E] == ' ' || Code[E] == '\t'))
    ++E;
  if ((B == 0 || Code[B - 1] == '\n') && E < Code.size() && Code[E] == '\n')
    return CharSourceRange::getCharRange(R.getBegin().getLocWithOffset(
                                             int(B) - int(Begin)),
                                         R.getBegin().getLocWithOffset(
                                             int(E) + 1 - int(Begin)));
  return R;
}

} // namespace

llvm::Expected<tooling::AtomicChange>
rewriteManualCollective(const ManualCollective &C, ASTContext &Context) {
  assert(C.isSafe() && "rewriting a collective that failed a safety check");
  const SourceManager &SM = Context.getSourceManager();
  tooling::AtomicChange Change(SM, C.RootStmt->getBeginLoc());
  CallTexts Texts = textsOf(C, Context);
  if (!C.Guard) {
    CharSourceRange Loop =
        tooling::getExtendedRange(*C.RootStmt, tok::semi, Context);
    if (llvm::Error E =
            Change.replace(SM, Loop, exchangeCall(C, Texts) + ";"))
      return std::move(E);
    return Change;
  }
  auto [RootCall, PeerCall] = collectiveCalls(C, Texts);

  const Stmt *Then = C.Guard->getThen(), *Else = C.Guard->getElse();
  bool LoopInThen = SM.isPointWithin(C.RootStmt->getBeginLoc(),
                                     Then->getBeginLoc(), Then->getEndLoc());
  const Stmt *RootBranch = LoopInThen ? Then : Else;
  const Stmt *PeerBranch = LoopInThen ? Else : Then;

  if (RootCall == PeerCall && holdsOnly(RootBranch, C.RootStmt, C.Removed) &&
      holdsOnly(PeerBranch, C.PeerCall, C.Removed)) {
    CharSourceRange Whole =
        tooling::getExtendedRange(*C.Guard, tok::semi, Context);
    if (llvm::Error E = Change.replace(SM, Whole, RootCall + ";"))
      return std::move(E);
    return Change;
  }
  CharSourceRange Loop =
      tooling::getExtendedRange(*C.RootStmt, tok::semi, Context);
  if (llvm::Error E = Change.replace(SM, Loop, RootCall + ";"))
    return std::move(E);
  CharSourceRange Peer = CharSourceRange::getTokenRange(
      C.PeerCall->getSourceRange());
  if (llvm::Error E = Change.replace(SM, Peer, PeerCall))
    return std::move(E);
  for (const Stmt *S : C.Removed)
    if (llvm::Error E = Change.replace(SM, wholeLines(*S, Context), ""))
      return std::move(E);
  return Change;
}

} // namespace transform
} // namespace mpilift
