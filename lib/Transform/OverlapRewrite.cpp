//===- OverlapRewrite.cpp - Split blocking calls, sink waits --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Transform/OverlapRewrite.h"

#include "SourceEdits.h"

#include "mpilift/Analysis/MPICalls.h"
#include "mpilift/Analysis/ManualCollective.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Transformer/SourceCode.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace mpilift {
namespace transform {

StringRef nonblockingName(StringRef Name) {
  return llvm::StringSwitch<StringRef>(Name)
      .Case("MPI_Send", "MPI_Isend")
      .Case("MPI_Ssend", "MPI_Issend")
      .Case("MPI_Bsend", "MPI_Ibsend")
      .Case("MPI_Rsend", "MPI_Irsend")
      .Case("MPI_Recv", "MPI_Irecv")
      .Default("");
}

namespace {

using analysis::OverlapRule;
using analysis::OverlapSite;
using analysis::sourceText;

/// Collects the edits of one site.
class OverlapEdits {
public:
  OverlapEdits(const OverlapSite &Site, ASTContext &Context,
               const OverlapOptions &Options)
      : Site(Site), Context(Context), SM(Context.getSourceManager()),
        Options(Options), Change(SM, Site.Call->getBeginLoc()),
        Code(SM.getBufferData(
            SM.getFileID(SM.getExpansionLoc(Site.Call->getBeginLoc())))) {}

  llvm::Expected<tooling::AtomicChange> run();

private:
  std::string fresh(StringRef Base) {
    return freshName(Base, Code, Options.TakenNames);
  }
  /// Inserts \p Text as lines of their own before the line of \p Loc.
  llvm::Error insertLinesBefore(SourceLocation Loc, StringRef Text) {
    auto [Line, Indent] = lineStart(Loc, SM);
    std::string Lines;
    for (StringRef L : llvm::split(Text, '\n'))
      Lines += Indent + L.str() + "\n";
    return Change.insert(SM, Line, Lines, /*InsertAfter=*/false);
  }
  /// Puts \p Text at the sink: on a line of its own after the statement
  /// before \c Before (so it never shares an insertion point with the
  /// declarations another site puts before \c Before), or before the
  /// block's closing brace.
  llvm::Error insertAtSink(StringRef Text) {
    if (!Site.Before)
      return insertLinesBefore(Site.Block->getRBracLoc(), Text);
    const Stmt *Previous = nullptr;
    for (const Stmt *S : Site.Block->body()) {
      if (S == Site.Before)
        break;
      Previous = S;
    }
    if (!Previous)
      return insertLinesBefore(Site.Before->getBeginLoc(), Text);
    CharSourceRange Range = statementRange(*Previous, Context);
    if (Range.isInvalid())
      return llvm::createStringError("the statement before the sink point is "
                                     "not plain source text");
    return Change.insert(SM, Range.getEnd(), "\n" + Text.str());
  }
  bool polls() const {
    return Options.Polling && !Site.StatusNeeded && !Site.PollBodies.empty();
  }
  llvm::Error insertPolling(StringRef Counter, StringRef Guard,
                            StringRef TestCall);
  llvm::Expected<tooling::AtomicChange> split();
  llvm::Expected<tooling::AtomicChange>
  splitOutOfLoop(StringRef Nonblocking, StringRef Args, bool Recv);
  llvm::Expected<tooling::AtomicChange> sinkWait();

  const OverlapSite &Site;
  ASTContext &Context;
  const SourceManager &SM;
  const OverlapOptions &Options;
  tooling::AtomicChange Change;
  StringRef Code;
};

/// `if (Guard ++Counter % N == 0) { int done; TestCall; }` at the top of
/// each innermost loop body the wait now crosses; a body that is a single
/// statement gets braces.
llvm::Error OverlapEdits::insertPolling(StringRef Counter, StringRef Guard,
                                        StringRef TestCall) {
  for (const Stmt *Body : Site.PollBodies) {
    std::string Text = "\nif (" + Guard.str() + "++" + Counter.str() + " % " +
                       std::to_string(Options.PollInterval) + " == 0) {\n" +
                       TestCall.str() + ";\n}";
    if (const auto *Block = dyn_cast<CompoundStmt>(Body)) {
      if (llvm::Error E =
              Change.insert(SM, Block->getLBracLoc().getLocWithOffset(1), Text))
        return E;
      continue;
    }
    CharSourceRange Range = statementRange(*Body, Context);
    if (Range.isInvalid())
      return llvm::createStringError("a loop body to poll in is not plain "
                                     "source text");
    if (llvm::Error E = Change.insert(SM, Range.getBegin(), "{" + Text + "\n"))
      return E;
    if (llvm::Error E = Change.insert(SM, Range.getEnd(), "\n}"))
      return E;
  }
  return llvm::Error::success();
}

/// Algorithm 2: the requests of the loop's calls go into a ring; each
/// dependence point of the loop body and the loop's exit complete every
/// outstanding one; a full ring completes its oldest before a new post.
llvm::Expected<tooling::AtomicChange>
OverlapEdits::splitOutOfLoop(StringRef Nonblocking, StringRef Args, bool Recv) {
  constexpr unsigned Capacity = 64;
  std::string Ring = fresh(Recv ? "recv_requests" : "send_requests");
  std::string Posted = fresh(Ring + "_posted"), Done = fresh(Ring + "_done");
  std::string Size = std::to_string(Capacity);
  auto Slot = [&](StringRef Counter) {
    return "&" + Ring + "[" + Counter.str() + " % " + Size + "]";
  };
  std::string Complete = "while (" + Done + " < " + Posted + ") {\nMPI_Wait(" +
                         Slot(Done) + ", MPI_STATUS_IGNORE);\n" + Done +
                         "++;\n}";
  std::string Post = "if (" + Posted + " - " + Done + " == " + Size +
                     ") {\nMPI_Wait(" + Slot(Done) + ", MPI_STATUS_IGNORE);\n" +
                     Done + "++;\n}\n" + Nonblocking.str() + "(" + Args.str() +
                     Slot(Posted) + ");\n" + Posted + "++;";
  bool HolderIsPoint = false;
  for (const Stmt *Point : Site.DependencePoints) {
    if (Point == Site.CallStmt) {
      HolderIsPoint = true;
      continue;
    }
    if (llvm::Error E = insertLinesBefore(Point->getBeginLoc(), Complete))
      return E;
  }
  if (HolderIsPoint)
    Post = Complete + "\n" + Post;
  if (llvm::Error E = Change.replace(
          SM, tooling::getExtendedRange(*Site.CallStmt, tok::semi, Context),
          Post))
    return E;
  if (llvm::Error E = insertLinesBefore(Site.AggressiveLoop->getBeginLoc(),
                                        "MPI_Request " + Ring + "[" + Size +
                                            "];\nunsigned " + Posted +
                                            " = 0, " + Done + " = 0;"))
    return E;
  CharSourceRange Loop = statementRange(*Site.AggressiveLoop, Context);
  if (Loop.isInvalid())
    return llvm::createStringError("the loop is not plain source text");
  if (llvm::Error E = Change.insert(SM, Loop.getEnd(), "\n" + Complete))
    return E;
  return std::move(Change);
}

/// MPI_Send(args) -> MPI_Isend(args, &request) here, MPI_Wait at the sink.
llvm::Expected<tooling::AtomicChange> OverlapEdits::split() {
  const CallExpr *Call = Site.Call;
  StringRef Name = Call->getDirectCallee()->getName();
  StringRef Nonblocking = nonblockingName(Name);
  if (Nonblocking.empty())
    return llvm::createStringError("no nonblocking form of " + Name);
  bool Recv = Site.Rule == OverlapRule::SplitRecv;
  std::string Request = fresh(Recv ? "recv_request" : "send_request");
  std::string Args;
  unsigned Kept = Call->getNumArgs() - (Recv ? 1 : 0); // Recv: no status.
  for (unsigned I = 0; I < Kept; ++I)
    Args += sourceText(Call->getArg(I), Context) + ", ";
  std::string Status =
      Recv ? sourceText(Call->getArg(Call->getNumArgs() - 1), Context)
           : std::string("MPI_STATUS_IGNORE");
  if (Site.AggressiveLoop)
    return splitOutOfLoop(Nonblocking, Args, Recv);
  if (llvm::Error E = Change.replace(
          SM, CharSourceRange::getTokenRange(Call->getSourceRange()),
          (Nonblocking + "(" + Args + "&" + Request + ")").str()))
    return E;
  std::string Declarations = "MPI_Request " + Request + " = MPI_REQUEST_NULL;";
  if (polls()) {
    std::string Counter = fresh(Request + "_polls");
    std::string Done = fresh(Request + "_done");
    Declarations += "\nunsigned " + Counter + " = 0;";
    if (llvm::Error E =
            insertPolling(Counter, "",
                          "int " + Done + ";\nMPI_Test(&" + Request + ", &" +
                              Done + ", MPI_STATUS_IGNORE)"))
      return E;
  }
  if (llvm::Error E =
          insertLinesBefore(Site.Holder->getBeginLoc(), Declarations))
    return E;
  std::string Wait = "MPI_Wait(&" + Request + ", " + Status + ")";
  if (llvm::Error E = insertAtSink(
          Site.CallCheck
              ? analysis::checkWithCall(Site.CallCheck, Call, Wait, Context)
              : errorCodeTo(Site.ErrorCode) + Wait + ";"))
    return E;
  return std::move(Change);
}

/// The wait moves to the sink; out of a conditional, behind a flag set
/// where it was.
llvm::Expected<tooling::AtomicChange> OverlapEdits::sinkWait() {
  const CallExpr *Wait = Site.Call;
  std::string WaitText =
      Site.CallCheck
          ? analysis::checkWithCall(Site.CallCheck, Wait,
                                    sourceText(Wait, Context), Context)
          : errorCodeTo(Site.ErrorCode) + sourceText(Wait, Context) + ";";
  std::string Declarations, Flag;
  if (Site.LeavesConditional) {
    Flag = fresh("wait_pending");
    Declarations = "int " + Flag + " = 0;";
    CharSourceRange Original =
        tooling::getExtendedRange(*Site.CallStmt, tok::semi, Context);
    if (llvm::Error E = Change.replace(SM, Original, Flag + " = 1;"))
      return E;
    WaitText = "if (" + Flag + ")\n  " + WaitText;
  } else {
    if (llvm::Error E =
            Change.replace(SM, wholeLines(*Site.CallStmt, Context), ""))
      return E;
  }
  if (polls()) {
    bool All = Wait->getDirectCallee()->getName() == "MPI_Waitall";
    std::string Counter = fresh("wait_polls");
    std::string Done = fresh("wait_done");
    std::string Test =
        All ? "MPI_Testall(" + sourceText(Wait->getArg(0), Context) + ", " +
                  sourceText(Wait->getArg(1), Context) + ", &" + Done +
                  ", MPI_STATUSES_IGNORE)"
            : "MPI_Test(" + sourceText(Wait->getArg(0), Context) + ", &" +
                  Done + ", MPI_STATUS_IGNORE)";
    Declarations += std::string(Declarations.empty() ? "" : "\n") +
                    "unsigned " + Counter + " = 0;";
    if (llvm::Error E =
            insertPolling(Counter, Flag.empty() ? "" : Flag + " && ",
                          "int " + Done + ";\n" + Test))
      return E;
  }
  if (!Declarations.empty())
    if (llvm::Error E =
            insertLinesBefore(Site.Holder->getBeginLoc(), Declarations))
      return E;
  if (llvm::Error E = insertAtSink(WaitText))
    return E;
  return std::move(Change);
}

llvm::Expected<tooling::AtomicChange> OverlapEdits::run() {
  return Site.Rule == OverlapRule::SinkWait ? sinkWait() : split();
}

} // namespace

llvm::Expected<tooling::AtomicChange>
rewriteOverlap(const OverlapSite &Site, ASTContext &Context,
               const OverlapOptions &Options) {
  assert(Site.canTransform() && "rewriting a refused overlap site");
  return OverlapEdits(Site, Context, Options).run();
}

} // namespace transform
} // namespace mpilift
