//===- RegionRewrite.cpp - Proven regions to MPI collectives --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rewrite of a region the rank-space evaluation proved: the
/// collective call goes where the proof placed it (instead of the anchor
/// statement when the rewrite removes that, before it otherwise), the
/// statements that exist only for the hand-written communication go, and
/// everything else stays. The call's form follows the ranks that reach
/// each place: the root keeps its own block with MPI_IN_PLACE.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Transform/CollectiveRewrite.h"

#include "mpilift/Analysis/MPICalls.h"

#include "SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Transformer/SourceCode.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;

namespace mpilift {
namespace transform {

namespace {

using analysis::CollectivePlacement;
using analysis::ManualCollective;
using analysis::ManualKind;
using analysis::ProvenRegion;
using analysis::sourceText;

/// The argument texts of the call.
struct Texts {
  std::string Root, Count, Type, Comm, Buffer, Send, Recv, Counts, Displs;
};

Texts textsOf(const ProvenRegion &R, const ASTContext &Context) {
  auto Of = [&](const Expr *E) { return E ? sourceText(E, Context) : ""; };
  Texts T;
  T.Root = R.Root           ? Of(R.Root)
           : R.RootConstant ? std::to_string(*R.RootConstant)
                            : "";
  T.Count = R.Count           ? Of(R.Count)
            : R.CountConstant ? std::to_string(*R.CountConstant)
                              : "";
  T.Type = Of(R.Datatype);
  T.Comm = Of(R.Comm);
  T.Buffer = Of(R.Buffer);
  T.Send = R.SendBuffer
               ? analysis::spellBuffer(Of(R.SendBuffer), R.SendSpelling)
               : "";
  T.Recv = R.RecvBuffer
               ? analysis::spellBuffer(Of(R.RecvBuffer), R.RecvSpelling)
               : "";
  T.Counts = Of(R.Counts);
  T.Displs = Of(R.Displs);
  return T;
}

/// The call at a place the root (\p Root) and/or the others reach.
llvm::Expected<std::string> callAt(const ManualCollective &C, const Texts &T,
                                   bool Root, bool Others) {
  const ProvenRegion &R = *C.Region;
  switch (C.Kind) {
  case ManualKind::Bcast:
    return llvm::formatv("MPI_Bcast({0}, {1}, {2}, {3}, {4})", T.Buffer,
                         T.Count, T.Type, T.Root, T.Comm)
        .str();
  case ManualKind::Scatter:
    if (Root && Others)
      break;
    if (R.isVector() && Root)
      return llvm::formatv("MPI_Scatterv({0}, {1}, {2}, {3}, MPI_IN_PLACE, 0, "
                           "{3}, {4}, {5})",
                           T.Send, T.Counts, T.Displs, T.Type, T.Root, T.Comm)
          .str();
    if (R.isVector())
      return llvm::formatv("MPI_Scatterv(NULL, NULL, NULL, {2}, {0}, {1}, {2}, "
                           "{3}, {4})",
                           T.Recv, T.Count, T.Type, T.Root, T.Comm)
          .str();
    if (Root)
      return llvm::formatv("MPI_Scatter({0}, {1}, {2}, MPI_IN_PLACE, {1}, "
                           "{2}, {3}, {4})",
                           T.Send, T.Count, T.Type, T.Root, T.Comm)
          .str();
    return llvm::formatv("MPI_Scatter(NULL, 0, {2}, {0}, {1}, {2}, {3}, {4})",
                         T.Recv, T.Count, T.Type, T.Root, T.Comm)
        .str();
  case ManualKind::Gather:
    if (Root && Others)
      break;
    if (R.isVector() && Root)
      return llvm::formatv("MPI_Gatherv(MPI_IN_PLACE, 0, {3}, {0}, {1}, {2}, "
                           "{3}, {4}, {5})",
                           T.Recv, T.Counts, T.Displs, T.Type, T.Root, T.Comm)
          .str();
    if (R.isVector())
      return llvm::formatv("MPI_Gatherv({0}, {1}, {2}, NULL, NULL, NULL, {2}, "
                           "{3}, {4})",
                           T.Send, T.Count, T.Type, T.Root, T.Comm)
          .str();
    if (Root)
      return llvm::formatv("MPI_Gather(MPI_IN_PLACE, {1}, {2}, {0}, {1}, "
                           "{2}, {3}, {4})",
                           T.Recv, T.Count, T.Type, T.Root, T.Comm)
          .str();
    return llvm::formatv("MPI_Gather({0}, {1}, {2}, NULL, 0, {2}, {3}, {4})",
                         T.Send, T.Count, T.Type, T.Root, T.Comm)
        .str();
  case ManualKind::Allgather:
  case ManualKind::Alltoall: {
    const char *Name =
        C.Kind == ManualKind::Allgather ? "MPI_Allgather" : "MPI_Alltoall";
    if (R.InPlace)
      return llvm::formatv("{0}(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, {1}, {2}, "
                           "{3}, {4})",
                           Name, T.Recv, T.Count, T.Type, T.Comm)
          .str();
    return llvm::formatv("{0}({1}, {2}, {3}, {4}, {2}, {3}, {5})", Name, T.Send,
                         T.Count, T.Type, T.Recv, T.Comm)
        .str();
  }
  case ManualKind::Reduce:
    // The root combines in place when its own value is in the result.
    if (R.InPlace && Root && Others)
      break;
    // Where only the other ranks come, the result buffer is not significant;
    // the same buffer as the data would alias an output with an input,
    // which MPI forbids.
    return llvm::formatv("MPI_Reduce({0}, {1}, {2}, {3}, {4}, {5}, {6})",
                         R.InPlace && Root ? "MPI_IN_PLACE" : T.Send,
                         !Root && T.Recv == T.Send ? "NULL" : T.Recv, T.Count,
                         T.Type, R.Op, T.Root, T.Comm)
        .str();
  case ManualKind::Allreduce:
  case ManualKind::Scan:
  case ManualKind::Exscan:
    return llvm::formatv("{0}({1}, {2}, {3}, {4}, {5}, {6})",
                         collectiveFunction(C.Kind, false, false),
                         R.InPlace ? "MPI_IN_PLACE" : T.Send, T.Recv, T.Count,
                         T.Type, R.Op, T.Comm)
        .str();
  }
  return llvm::createStringError(
      "the root and the other ranks reach the same place, where their calls "
      "of the " +
      analysis::collectiveNoun(C.Kind).str() + " would have to differ");
}

/// The first element of the result buffer \p R's call writes, as an
/// lvalue: `total` for `&total`, `v[0]` for `v.data()`, `*p` for `p`.
std::string firstResultElement(const ProvenRegion &R, ASTContext &Context) {
  const Expr *E = R.RecvBuffer->IgnoreParenImpCasts();
  std::string Text = sourceText(R.RecvBuffer, Context);
  switch (R.RecvSpelling) {
  case analysis::BufferSpelling::AddressOf:
    return isa<DeclRefExpr>(E) ? Text : "(" + Text + ")";
  case analysis::BufferSpelling::VectorData:
    return Text + "[0]";
  case analysis::BufferSpelling::AsWritten:
    break;
  }
  if (const auto *Address = dyn_cast<UnaryOperator>(E);
      Address && Address->getOpcode() == UO_AddrOf)
    return sourceText(Address->getSubExpr(), Context);
  return isa<DeclRefExpr>(E) ? "*" + Text : "*(" + Text + ")";
}

/// After MPI_Exscan, which leaves rank 0's result undefined: the value the
/// region left there, set again.
std::string firstResultAgain(const ManualCollective &C, ASTContext &Context) {
  const ProvenRegion &R = *C.Region;
  if (C.Kind != ManualKind::Exscan || !R.FirstResult || !R.Rank)
    return "";
  return "\nif (" + sourceText(R.Rank, Context) + " == 0)\n  " +
         firstResultElement(R, Context) + " = " +
         std::to_string(*R.FirstResult) + ";";
}

/// The check of the error code that followed the removed calls, on a
/// line of its own.
std::string errorCheck(const ProvenRegion &R, ASTContext &Context) {
  if (!R.ErrorCheck)
    return "";
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Range = SM.getExpansionRange(
      tooling::getExtendedRange(*R.ErrorCheck, tok::semi, Context));
  return "\n" + Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
}

/// `MPI_Bcast(a, b)` as `MPI_Ibcast(a, b, &Request)`.
std::string nonblocking(StringRef Call, StringRef Request) {
  return ("MPI_I" + Call.drop_front(4).take_front(1).lower() +
          Call.drop_front(5).drop_back() + ", &" + Request + ")")
      .str();
}

bool isBranch(const Stmt &S, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(S);
  const auto *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
  return Parent && !isa<CompoundStmt>(Parent);
}

/// Removes what the rewrite replaces, statement by statement: an `else`
/// left empty goes with its keyword, a branch becomes empty.
llvm::Error removeStatements(llvm::ArrayRef<const Stmt *> Removed,
                             ASTContext &Context,
                             tooling::AtomicChange &Change) {
  const SourceManager &SM = Context.getSourceManager();
  for (const Stmt *S : Removed) {
    DynTypedNodeList Parents = Context.getParents(*S);
    const auto *If = Parents.empty() ? nullptr : Parents[0].get<IfStmt>();
    if (If && If->getElse() == S) {
      SourceLocation From = Lexer::getLocForEndOfToken(
          If->getThen()->getEndLoc(), 0, SM, Context.getLangOpts());
      CharSourceRange Range = CharSourceRange::getCharRange(
          From, Lexer::getLocForEndOfToken(S->getEndLoc(), 0, SM,
                                           Context.getLangOpts()));
      if (llvm::Error E = Change.replace(SM, Range, ""))
        return E;
      continue;
    }
    if (isBranch(*S, Context)) {
      CharSourceRange Range = tooling::getExtendedRange(*S, tok::semi, Context);
      if (llvm::Error E =
              Change.replace(SM, Range, isa<CompoundStmt>(S) ? "{}" : ";"))
        return E;
      continue;
    }
    if (llvm::Error E = Change.replace(SM, wholeLines(*S, Context), ""))
      return E;
  }
  return llvm::Error::success();
}

/// Listing 7 in MPI 3: one MPI_Ibcast per broadcast, in a request that
/// outlives the calls of the polling function. The root completes it at
/// once, as its send did; the others start it at their first probe and
/// test it at each, so the branch that received runs when it is over.
llvm::Expected<tooling::AtomicChange>
rewritePolling(const ManualCollective &C, const Texts &T, ASTContext &Context,
               const RewriteOptions &Options, tooling::AtomicChange Change) {
  const ProvenRegion &R = *C.Region;
  const analysis::PollingForm &Form = *C.Polling;
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *First = R.Block->body_begin()[R.First];
  std::string Request = freshName(
      "bcast_request",
      SM.getBufferData(SM.getFileID(SM.getExpansionLoc(First->getBeginLoc()))),
      Options.TakenNames);
  auto [Line, Indent] = lineStart(First->getBeginLoc(), SM);
  if (llvm::Error E = Change.insert(SM, Line,
                                    Indent + "static MPI_Request " + Request +
                                        " = MPI_REQUEST_NULL;\n"))
    return E;
  // The proof's own placement (before the guard) would block the others
  // until the message is there: the root's call takes the place of its
  // send, the others' start and test it where they probed.
  llvm::Expected<std::string> RootCall = callAt(C, T, true, false);
  llvm::Expected<std::string> OthersCall = callAt(C, T, false, true);
  if (!RootCall)
    return RootCall.takeError();
  if (!OthersCall)
    return OthersCall.takeError();
  // Error codes kept: each call's goes where the send's and the probe's
  // went, and a failed start is not waited for or tested.
  std::string Root = errorCodeTo(R.ErrorCode) +
                     nonblocking(*RootCall, Request) + ";\n" +
                     ifSucceeded(R.ErrorCode) + errorCodeTo(R.ErrorCode) +
                     "MPI_Wait(&" + Request + ", MPI_STATUS_IGNORE);";
  if (isBranch(*Form.RootSend, Context))
    Root = "{\n" + Root + "\n}";
  if (llvm::Error E = Change.replace(
          SM, tooling::getExtendedRange(*Form.RootSend, tok::semi, Context),
          Root))
    return E;
  std::string Test =
      "MPI_Test(&" + Request + ", " +
      sourceText(analysis::mpiArgAsWritten(Form.Probe, mpi::Role::Flag),
                 Context) +
      ", MPI_STATUS_IGNORE);";
  // With an error code, it holds MPI_SUCCESS when the start is skipped.
  std::string Start =
      (Form.ErrorCode && !Form.ErrorCode.accumulates()
           ? errorCodeTo(Form.ErrorCode) + "MPI_SUCCESS;\n"
           : "") +
      "if (" + Request + " == MPI_REQUEST_NULL)\n" +
      errorCodeTo(Form.ErrorCode) + nonblocking(*OthersCall, Request) + ";\n" +
      ifSucceeded(Form.ErrorCode) + errorCodeTo(Form.ErrorCode) + Test;
  if (llvm::Error E = Change.replace(
          SM, tooling::getExtendedRange(*Form.ProbeStmt, tok::semi, Context),
          Start))
    return E;
  if (llvm::Error E = removeStatements(Form.Removed, Context, Change))
    return E;
  return Change;
}

/// Where the collective call's code goes: the removed calls' variable
/// (ErrorCode), or, when they kept none but the function returned one of
/// their codes, a variable the rewrite declares.
struct CollectiveCode {
  /// What goes before the call (`ierr = `, `ierr |= `, `int rc = `).
  std::string Assign;
  /// What goes before a wait of its request, so that the wait's code goes
  /// there too without hiding an earlier failure (`ierr |= `, `if (ierr ==
  /// MPI_SUCCESS) ierr = `); empty without a variable.
  std::string WaitAssign;
  /// The variable is declared where the call goes: a wait elsewhere may
  /// be out of its scope.
  bool DeclaredAtCall = false;
};

/// `return MPI_Recv(...);` returns the collective's code instead: the
/// variable the other calls kept theirs in, or one declared for it (at the
/// collective call when that is the region's first statement, else before
/// the region).
llvm::Expected<CollectiveCode>
collectiveCode(const ProvenRegion &R, const Stmt *First, ASTContext &Context,
               const RewriteOptions &Options, tooling::AtomicChange &Change) {
  CollectiveCode Out;
  Out.Assign = declarationOf(R.ErrorCode) + errorCodeTo(R.ErrorCode);
  Out.DeclaredAtCall = R.ErrorCode.Declared;
  if (R.ErrorCode)
    Out.WaitAssign = ifSucceeded(R.ErrorCode) + errorCodeTo(R.ErrorCode);
  if (R.Returned.empty())
    return Out;
  const SourceManager &SM = Context.getSourceManager();
  std::string Var =
      R.ErrorCode ? R.ErrorCode.Var->getNameAsString()
                  : freshName("rc",
                              SM.getBufferData(SM.getFileID(
                                  SM.getExpansionLoc(First->getBeginLoc()))),
                              Options.TakenNames);
  for (const CallExpr *Call : R.Returned)
    if (llvm::Error E = Change.replace(
            SM, SM.getExpansionRange(Call->getSourceRange()), Var))
      return E;
  if (R.ErrorCode)
    return Out; // The collective's code goes there already.
  Out.WaitAssign = "if (" + Var + " == MPI_SUCCESS)\n" + Var + " = ";
  // One call, before the region's first statement: it declares it.
  if (R.Placements.size() == 1 && R.Placements[0].Anchor == First &&
      !isa<CompoundStmt>(First)) {
    Out.Assign = "int " + Var + " = ";
    Out.DeclaredAtCall = true;
    return Out;
  }
  auto [Line, Indent] = lineStart(First->getBeginLoc(), SM);
  if (llvm::Error E =
          Change.insert(SM, Line, Indent + "int " + Var + " = MPI_SUCCESS;\n"))
    return E;
  Out.Assign = Var + " = ";
  return Out;
}

/// Whether \p V, a local variable, is in scope at \p Loc: after its
/// declaration, in the block that declares it.
bool inScopeAt(const VarDecl *V, SourceLocation Loc, ASTContext &Context) {
  DynTypedNodeList Up = Context.getParents(*V);
  const auto *Decl = Up.empty() ? nullptr : Up[0].get<DeclStmt>();
  DynTypedNodeList Holder = Decl ? Context.getParents(*Decl) : Up;
  const auto *Block =
      Decl && !Holder.empty() ? Holder[0].get<CompoundStmt>() : nullptr;
  const SourceManager &SM = Context.getSourceManager();
  return Block && SM.isPointWithin(SM.getExpansionLoc(Loc),
                                   SM.getExpansionLoc(Decl->getEndLoc()),
                                   SM.getExpansionLoc(Block->getRBracLoc()));
}

} // namespace

llvm::Expected<tooling::AtomicChange>
rewriteProvenRegion(const ManualCollective &C, ASTContext &Context,
                    const RewriteOptions &Options) {
  assert(C.Region && C.isSafe() && "rewriting an unproven region");
  const ProvenRegion &R = *C.Region;
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *First = R.Block->body_begin()[R.First];
  tooling::AtomicChange Change(SM, First->getBeginLoc());
  Texts T = textsOf(R, Context);
  if (C.Polling)
    return rewritePolling(C, T, Context, Options, Change);
  std::string Request;
  if (Options.Nonblocking) {
    if (!C.Wait)
      return llvm::createStringError(
          "the nonblocking form needs the pattern directly inside a block");
    Request = freshName(
        (C.Kind == ManualKind::Bcast ? std::string("bcast")
                                     : analysis::collectiveNoun(C.Kind).str()) +
            "_request",
        SM.getBufferData(
            SM.getFileID(SM.getExpansionLoc(First->getBeginLoc()))),
        Options.TakenNames);
    auto [Line, Indent] = lineStart(First->getBeginLoc(), SM);
    if (llvm::Error E =
            Change.insert(SM, Line, Indent + "MPI_Request " + Request + ";\n"))
      return E;
  }
  llvm::Expected<CollectiveCode> Code =
      collectiveCode(R, First, Context, Options, Change);
  if (!Code)
    return Code.takeError();
  std::string Wait = "MPI_Wait(&" + Request + ", MPI_STATUS_IGNORE);";
  if (Options.Nonblocking) {
    bool WaitedEverywhere =
        llvm::all_of(R.Placements,
                     [](const CollectivePlacement &P) { return P.WaitAtOnce; });
    SourceLocation WaitLoc = C.Wait->Before ? C.Wait->Before->getBeginLoc()
                                            : C.Wait->Block->getRBracLoc();
    std::string Indent = lineStart(First->getBeginLoc(), SM).second;
    SourceLocation Line = lineStart(WaitLoc, SM).first;
    // The sunk wait keeps its code where the start's went, in the scope
    // of a variable the removed calls kept theirs in.
    std::string Sunk = Wait;
    if (R.ErrorCode && !Code->DeclaredAtCall &&
        inScopeAt(R.ErrorCode.Var, WaitLoc, Context))
      Sunk = Code->WaitAssign + Wait;
    if (!WaitedEverywhere)
      if (llvm::Error E = Change.insert(SM, Line, Indent + Sunk + "\n",
                                        /*InsertAfter=*/false))
        return E;
  }
  for (const CollectivePlacement &P : R.Placements) {
    llvm::Expected<std::string> Call = callAt(C, T, P.Root, P.Others);
    if (!Call)
      return Call.takeError();
    std::string CallText =
        Options.Nonblocking ? nonblocking(*Call, Request) : *Call;
    // Rank 0's result of an exclusive scan is set again once the call is
    // over: after its wait.
    std::string Again = firstResultAgain(C, Context);
    if (Options.Nonblocking && !Again.empty() && !P.WaitAtOnce)
      return llvm::createStringError(
          "rank 0's result of the exclusive scan must be set again after "
          "the wait, which does not follow the call here");
    bool WaitHere = Options.Nonblocking && P.WaitAtOnce;
    // The code goes where the removed calls' went, or is checked as they
    // were; a wait at once keeps its code there too, before the check.
    std::string Text =
        R.CallCheck ? analysis::checkWithCall(R.CallCheck, R.CheckedCall,
                                              CallText, Context) +
                          (WaitHere ? "\n" + Wait : "")
                    : Code->Assign + CallText + ";" +
                          (WaitHere ? "\n" + Code->WaitAssign + Wait : "") +
                          errorCheck(R, Context);
    Text += Again;
    if (P.Replace) {
      if (isa<CompoundStmt>(P.Anchor))
        Text = "{\n" + Text + "\n}";
      CharSourceRange Range =
          tooling::getExtendedRange(*P.Anchor, tok::semi, Context);
      if (llvm::Error E = Change.replace(SM, Range, Text))
        return E;
      continue;
    }
    if (const auto *Block = dyn_cast<CompoundStmt>(P.Anchor)) {
      // A block that stays: the call opens it.
      SourceLocation After = Lexer::getLocForEndOfToken(
          Block->getLBracLoc(), 0, SM, Context.getLangOpts());
      if (llvm::Error E = Change.insert(SM, After, "\n" + Text))
        return E;
      continue;
    }
    if (isBranch(*P.Anchor, Context)) {
      CharSourceRange Range = statementRange(*P.Anchor, Context);
      if (Range.isInvalid())
        return llvm::createStringError("the pattern is not plain source text");
      if (llvm::Error E =
              Change.insert(SM, Range.getBegin(), "{\n" + Text + "\n"))
        return E;
      if (llvm::Error E = Change.insert(SM, Range.getEnd(), "\n}"))
        return E;
      continue;
    }
    if (llvm::Error E = Change.insert(SM, P.Anchor->getBeginLoc(), Text + "\n"))
      return E;
  }
  if (llvm::Error E = removeStatements(R.Removed, Context, Change))
    return E;
  return Change;
}

} // namespace transform
} // namespace mpilift
