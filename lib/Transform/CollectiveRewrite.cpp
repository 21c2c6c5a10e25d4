//===- CollectiveRewrite.cpp - Manual collectives to MPI calls ------------===//
//
// Part of mpilift.
//
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

using analysis::ManualCollective;
using analysis::ManualKind;
using analysis::sourceText;

/// The argument texts both calls share.
struct CallTexts {
  std::string Count, Type, Root, Comm, RootBuffer, PeerBuffer;
};

/// The text of \p Call's argument of role \p R as written ("" if none).
std::string argText(const CallExpr *Call, mpi::Role R,
                    const ASTContext &Context) {
  const Expr *E = analysis::mpiArgAsWritten(Call, R);
  return E ? sourceText(E, Context) : std::string();
}

CallTexts textsOf(const ManualCollective &C, const ASTContext &Context) {
  auto Arg = [&](const CallExpr *Call, mpi::Role R) {
    return argText(Call, R, Context);
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
  return freshName(Base, Code, Taken);
}

/// `MPI_Send(...)`, `MPI_Recv(...)` or `MPI_Sendrecv(...)` as libcdag
/// operations on \p Graph.
llvm::Expected<std::string> cdagOperations(const CallExpr *Call,
                                           StringRef Graph,
                                           const ASTContext &Context) {
  auto Arg = [&](mpi::Role R) { return argText(Call, R, Context); };
  auto Bytes = [&](mpi::Role Count,
                   mpi::Role Type) -> llvm::Expected<std::string> {
    std::string TypeText = Arg(Type);
    const analysis::PredefinedDatatype *D =
        analysis::predefinedDatatype(TypeText);
    if (!D)
      return llvm::createStringError("no C type for the datatype " + TypeText);
    return "(size_t)(" + Arg(Count) + ") * sizeof(" + D->CType.str() + ")";
  };
  StringRef Name = Call->getDirectCallee()->getName();
  if (Name == "MPI_Recv") {
    auto N = Bytes(mpi::Role::Count, mpi::Role::Datatype);
    if (!N)
      return N.takeError();
    return llvm::formatv("cDAG_Recv({0}, {1}, {2}, {3}, {4}, NULL)", Graph,
                         Arg(mpi::Role::RecvBuffer), *N, Arg(mpi::Role::Source),
                         Arg(mpi::Role::Tag))
        .str();
  }
  if (Name == "MPI_Sendrecv") {
    auto Out = Bytes(mpi::Role::SendCount, mpi::Role::SendType);
    auto In = Bytes(mpi::Role::RecvCount, mpi::Role::RecvType);
    if (!Out)
      return Out.takeError();
    if (!In)
      return In.takeError();
    return llvm::formatv("(cDAG_Send({0}, {1}, {2}, {3}, {4}, NULL), "
                         "cDAG_Recv({0}, {5}, {6}, {7}, {8}, NULL))",
                         Graph, Arg(mpi::Role::SendBuffer), *Out,
                         Arg(mpi::Role::Dest), Arg(mpi::Role::SendTag),
                         Arg(mpi::Role::RecvBuffer), *In,
                         Arg(mpi::Role::Source), Arg(mpi::Role::RecvTag))
        .str();
  }
  auto N = Bytes(mpi::Role::Count, mpi::Role::Datatype);
  if (!N)
    return N.takeError();
  return llvm::formatv("cDAG_Send({0}, {1}, {2}, {3}, {4}, NULL)", Graph,
                       Arg(mpi::Role::SendBuffer), *N, Arg(mpi::Role::Dest),
                       Arg(mpi::Role::Tag))
      .str();
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
  if (C.Region)
    return rewriteProvenRegion(C, Context, Options);
  const SourceManager &SM = Context.getSourceManager();
  tooling::AtomicChange Change(SM, C.RootStmt->getBeginLoc());
  CallTexts Texts = textsOf(C, Context);
  std::string Request;
  if (Options.Nonblocking) {
    if (!C.Wait)
      return llvm::createStringError(
          "the nonblocking form needs the pattern directly inside a block");
    Request = freshRequestName(C.Kind,
                               SM.getBufferData(SM.getFileID(SM.getExpansionLoc(
                                   C.PatternStmt->getBeginLoc()))),
                               Options.TakenNames);
    auto [DeclLine, Indent] = lineStart(C.PatternStmt->getBeginLoc(), SM);
    if (llvm::Error E = Change.insert(
            SM, DeclLine, Indent + "MPI_Request " + Request + ";\n"))
      return E;
    SourceLocation WaitLoc = C.Wait->Before ? C.Wait->Before->getBeginLoc()
                                            : C.Wait->Block->getRBracLoc();
    std::string WaitIndent = Indent;
    auto [WaitLine, Unused] = lineStart(WaitLoc, SM);
    if (llvm::Error E = Change.insert(SM, WaitLine,
                                      WaitIndent + "MPI_Wait(&" + Request +
                                          ", MPI_STATUS_IGNORE);\n",
                                      /*InsertAfter=*/false))
      return E;
    for (const Stmt *S : C.BranchWaits) {
      auto [Line, BranchIndent] = lineStart(S->getBeginLoc(), SM);
      if (llvm::Error E = Change.insert(SM, Line,
                                        BranchIndent + "MPI_Wait(&" + Request +
                                            ", MPI_STATUS_IGNORE);\n",
                                        /*InsertAfter=*/false))
        return E;
    }
  }
  auto Form = [&](std::string Call) {
    return Options.Nonblocking ? nonblockingForm(Call, Request) : Call;
  };
  // The root's loop goes, or, when it does more than communicate, only its
  // call goes and the collective runs just before it (completed there: the
  // rest of the loop may read what it brings).
  auto ReplaceRootLoop = [&](const std::string &Call) -> llvm::Error {
    if (!C.LoopCallStmt)
      return Change.replace(
          SM, tooling::getExtendedRange(*C.RootStmt, tok::semi, Context),
          Call + ";");
    std::string Before = Call + ";\n";
    if (Options.Nonblocking)
      Before += "MPI_Wait(&" + Request + ", MPI_STATUS_IGNORE);\n";
    if (llvm::Error E = Change.insert(SM, C.RootStmt->getBeginLoc(), Before))
      return E;
    return Change.replace(SM, wholeLines(*C.LoopCallStmt, Context), "");
  };
  if (!C.Guard) {
    if (llvm::Error E = ReplaceRootLoop(Form(exchangeCall(C, Texts))))
      return E;
    return Change;
  }
  auto [BlockingRoot, BlockingPeer] = collectiveCalls(C, Texts);
  std::string RootCall = Form(BlockingRoot), PeerCall = Form(BlockingPeer);

  const Stmt *Then = C.Guard->getThen(), *Else = C.Guard->getElse();
  bool LoopInThen = SM.isPointWithin(C.RootStmt->getBeginLoc(),
                                     Then->getBeginLoc(), Then->getEndLoc());
  const Stmt *RootBranch = LoopInThen ? Then : Else;
  const Stmt *PeerBranch = LoopInThen ? Else : Then;

  if (RootCall == PeerCall && !C.LoopCallStmt &&
      holdsOnly(RootBranch, C.RootStmt, C.Removed) &&
      holdsOnly(PeerBranch, C.PeerCall, C.Removed)) {
    CharSourceRange Whole =
        tooling::getExtendedRange(*C.Guard, tok::semi, Context);
    if (llvm::Error E = Change.replace(SM, Whole, RootCall + ";"))
      return E;
    return Change;
  }
  if (llvm::Error E = ReplaceRootLoop(RootCall))
    return E;
  CharSourceRange Peer =
      CharSourceRange::getTokenRange(C.PeerCall->getSourceRange());
  if (llvm::Error E = Change.replace(SM, Peer, PeerCall))
    return E;
  for (const Stmt *S : C.Removed)
    if (llvm::Error E = Change.replace(SM, wholeLines(*S, Context), ""))
      return E;
  return Change;
}

} // namespace transform
} // namespace mpilift

namespace mpilift {
namespace transform {

llvm::Expected<tooling::AtomicChange>
rewriteToCDag(const ManualCollective &C, ASTContext &Context,
              llvm::StringSet<> *TakenNames) {
  assert(C.Fallback && C.Fallback->Blocker.empty() &&
         "rewriting a pattern libcdag cannot take");
  const SourceManager &SM = Context.getSourceManager();
  tooling::AtomicChange Change(SM, C.RootStmt->getBeginLoc());
  StringRef Code = SM.getBufferData(
      SM.getFileID(SM.getExpansionLoc(C.PatternStmt->getBeginLoc())));
  std::string Schedule = freshName("cdag_schedule", Code, TakenNames);
  std::string Key = freshName("cdag_key", Code, TakenNames);
  std::string Now = freshName("cdag_now", Code, TakenNames);
  std::string Stale = freshName("cdag_stale", Code, TakenNames);
  std::string Graph = freshName("cdag_graph", Code, TakenNames);
  std::string Status = freshName("cdag_status", Code, TakenNames);
  const CallExpr *First = C.RootCall;
  std::string Comm = argText(First, mpi::Role::Comm, Context);

  // The key: what the graph was built for, on this rank.
  std::string Values;
  for (const analysis::FallbackKey &K : C.Fallback->Key) {
    std::string Name = K.Var->getNameAsString();
    if (!Values.empty())
      Values += ", ";
    if (!K.ByAddress)
      Values += "(long)(" + Name + ")";
    else if (K.Var->getType()->isPointerType())
      Values += "(long)(size_t)(" + Name + ")";
    else
      Values += "(long)(size_t)&(" + Name + ")";
  }
  // And the communicator, whatever its handle type is.
  Values += (Values.empty() ? "" : ", ") + ("(long)(size_t)(" + Comm + ")");
  size_t KeySize = C.Fallback->Key.size() + 1;
  std::string Before = llvm::formatv(
      "{{\n"
      "static cDAG_Schedule {0} = NULL;\n"
      "static long {1}[{2}];\n"
      "long {3}[{2}] = {{{4}};\n"
      "int {5} = {0} == NULL;\n"
      "for (int k = 0; k < {2}; k++)\n"
      "  {5} |= {1}[k] != {3}[k];\n"
      "MPI_Allreduce(MPI_IN_PLACE, &{5}, 1, MPI_INT, MPI_LOR, {6});\n"
      "if ({5}) {{\n"
      "cDAG_Graph {7};\n"
      "if ({0} != NULL)\n"
      "  cDAG_Free_schedule(&{0});\n"
      "cDAG_Create({6}, &{7});\n",
      Schedule, Key, KeySize, Now, Values, Stale, Comm, Graph);
  std::string After =
      llvm::formatv("\nint {0} = cDAG_Compile({1}, &{2});\n"
                    "if ({0} != CDAG_SUCCESS)\n"
                    "  MPI_Abort({3}, {0});\n"
                    "cDAG_Free(&{1});\n"
                    "for (int k = 0; k < {4}; k++)\n"
                    "  {5}[k] = {6}[k];\n"
                    "}\n"
                    "if (cDAG_Run({2}) != CDAG_SUCCESS)\n"
                    "  MPI_Abort({3}, 1);\n"
                    "}",
                    Status, Graph, Schedule, Comm, KeySize, Key, Now);

  CharSourceRange Region = statementRange(*C.PatternStmt, Context);
  if (Region.isInvalid())
    return llvm::createStringError("the region is not plain source text");
  if (llvm::Error E = Change.insert(SM, Region.getBegin(), Before))
    return E;
  for (const CallExpr *Call : {C.RootCall, C.PeerCall}) {
    if (!Call)
      continue;
    llvm::Expected<std::string> Ops = cdagOperations(Call, Graph, Context);
    if (!Ops)
      return Ops.takeError();
    if (llvm::Error E = Change.replace(
            SM, CharSourceRange::getTokenRange(Call->getSourceRange()), *Ops))
      return E;
  }
  if (llvm::Error E = Change.insert(SM, Region.getEnd(), After))
    return E;
  Change.addHeader("<cdag/cdag.h>");
  return Change;
}

} // namespace transform
} // namespace mpilift
