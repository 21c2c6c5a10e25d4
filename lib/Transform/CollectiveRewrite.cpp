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

/// `MPI_Bcast(a, b)` as `MPI_Ibcast(a, b, &Request)`.
std::string nonblockingForm(StringRef Call, StringRef Request) {
  assert(Call.starts_with("MPI_") && Call.ends_with(")") &&
         "not a collective call");
  return ("MPI_I" + Call.drop_front(4).take_front(1).lower() +
          Call.drop_front(5).drop_back() + ", &" + Request + ")")
      .str();
}

/// A name for the request that no identifier of the file uses.
std::string freshRequestName(ManualKind Kind, StringRef Code,
                             llvm::StringSet<> *Taken) {
  std::string Base = (analysis::collectiveNoun(Kind) == "broadcast"
                          ? std::string("bcast")
                          : analysis::collectiveNoun(Kind).str()) +
                     "_request";
  for (unsigned N = 1;; ++N) {
    std::string Name = N == 1 ? Base : Base + std::to_string(N);
    if (Taken && Taken->contains(Name))
      continue;
    // A whole-word occurrence anywhere in the file rules the name out.
    size_t Pos = 0;
    bool Used = false;
    while ((Pos = Code.find(Name, Pos)) != StringRef::npos) {
      auto IsWord = [](char C) { return isalnum(C) || C == '_'; };
      bool Left = Pos == 0 || !IsWord(Code[Pos - 1]);
      bool Right = Pos + Name.size() >= Code.size() ||
                   !IsWord(Code[Pos + Name.size()]);
      if (Left && Right) {
        Used = true;
        break;
      }
      Pos += Name.size();
    }
    if (Used)
      continue;
    if (Taken)
      Taken->insert(Name);
    return Name;
  }
}

/// The start of the line \p Loc is on, and that line's indentation.
std::pair<SourceLocation, std::string> lineStart(SourceLocation Loc,
                                                 const SourceManager &SM) {
  Loc = SM.getExpansionLoc(Loc);
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Code = SM.getBufferData(File);
  unsigned Begin = Offset;
  while (Begin > 0 && Code[Begin - 1] != '\n')
    --Begin;
  unsigned Text = Begin;
  while (Text < Code.size() && (Code[Text] == ' ' || Code[Text] == '\t'))
    ++Text;
  return {Loc.getLocWithOffset(int(Begin) - int(Offset)),
          Code.substr(Begin, Text - Begin).str()};
}

} // namespace

StringRef collectiveFunction(ManualKind Kind, bool Nonblocking) {
  switch (Kind) {
  case ManualKind::Bcast:
    return Nonblocking ? "MPI_Ibcast" : "MPI_Bcast";
  case ManualKind::Scatter:
    return Nonblocking ? "MPI_Iscatter" : "MPI_Scatter";
  case ManualKind::Gather:
    return Nonblocking ? "MPI_Igather" : "MPI_Gather";
  case ManualKind::Allgather:
    return Nonblocking ? "MPI_Iallgather" : "MPI_Allgather";
  case ManualKind::Alltoall:
    return Nonblocking ? "MPI_Ialltoall" : "MPI_Alltoall";
  }
  llvm_unreachable("unknown collective");
}

llvm::Expected<tooling::AtomicChange>
rewriteManualCollective(const ManualCollective &C, ASTContext &Context,
                        const RewriteOptions &Options) {
  assert(C.isSafe() && "rewriting a collective that failed a safety check");
  const SourceManager &SM = Context.getSourceManager();
  tooling::AtomicChange Change(SM, C.RootStmt->getBeginLoc());
  CallTexts Texts = textsOf(C, Context);
  std::string Request;
  if (Options.Nonblocking) {
    if (!C.Wait)
      return llvm::createStringError(
          "the nonblocking form needs the pattern directly inside a block");
    Request = freshRequestName(
        C.Kind, SM.getBufferData(SM.getFileID(SM.getExpansionLoc(
                    C.PatternStmt->getBeginLoc()))),
        Options.TakenNames);
    auto [DeclLine, Indent] = lineStart(C.PatternStmt->getBeginLoc(), SM);
    if (llvm::Error E = Change.insert(
            SM, DeclLine, Indent + "MPI_Request " + Request + ";\n"))
      return std::move(E);
    SourceLocation WaitLoc = C.Wait->Before ? C.Wait->Before->getBeginLoc()
                                            : C.Wait->Block->getRBracLoc();
    std::string WaitIndent = Indent;
    auto [WaitLine, Unused] = lineStart(WaitLoc, SM);
    if (llvm::Error E = Change.insert(SM, WaitLine,
                                      WaitIndent + "MPI_Wait(&" + Request +
                                          ", MPI_STATUS_IGNORE);\n",
                                      /*InsertAfter=*/false))
      return std::move(E);
    for (const Stmt *S : C.BranchWaits) {
      auto [Line, BranchIndent] = lineStart(S->getBeginLoc(), SM);
      if (llvm::Error E = Change.insert(SM, Line,
                                        BranchIndent + "MPI_Wait(&" + Request +
                                            ", MPI_STATUS_IGNORE);\n",
                                        /*InsertAfter=*/false))
        return std::move(E);
    }
  }
  auto Form = [&](std::string Call) {
    return Options.Nonblocking ? nonblockingForm(Call, Request) : Call;
  };
  if (!C.Guard) {
    CharSourceRange Loop =
        tooling::getExtendedRange(*C.RootStmt, tok::semi, Context);
    if (llvm::Error E =
            Change.replace(SM, Loop, Form(exchangeCall(C, Texts)) + ";"))
      return std::move(E);
    return Change;
  }
  auto [BlockingRoot, BlockingPeer] = collectiveCalls(C, Texts);
  std::string RootCall = Form(BlockingRoot), PeerCall = Form(BlockingPeer);

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
