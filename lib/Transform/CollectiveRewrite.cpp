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

/// The text of \p Call's argument of role \p R as written ("" if none).
std::string argText(const CallExpr *Call, mpi::Role R,
                    const ASTContext &Context) {
  const Expr *E = analysis::mpiArgAsWritten(Call, R);
  return E ? sourceText(E, Context) : std::string();
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

StringRef collectiveFunction(ManualKind Kind, bool Nonblocking, bool Vector) {
  switch (Kind) {
  case ManualKind::Bcast:
    return Nonblocking ? "MPI_Ibcast" : "MPI_Bcast";
  case ManualKind::Scatter:
    if (Vector)
      return Nonblocking ? "MPI_Iscatterv" : "MPI_Scatterv";
    return Nonblocking ? "MPI_Iscatter" : "MPI_Scatter";
  case ManualKind::Gather:
    if (Vector)
      return Nonblocking ? "MPI_Igatherv" : "MPI_Gatherv";
    return Nonblocking ? "MPI_Igather" : "MPI_Gather";
  case ManualKind::Allgather:
    return Nonblocking ? "MPI_Iallgather" : "MPI_Allgather";
  case ManualKind::Alltoall:
    return Nonblocking ? "MPI_Ialltoall" : "MPI_Alltoall";
  case ManualKind::Reduce:
    return Nonblocking ? "MPI_Ireduce" : "MPI_Reduce";
  case ManualKind::Allreduce:
    return Nonblocking ? "MPI_Iallreduce" : "MPI_Allreduce";
  case ManualKind::Scan:
    return Nonblocking ? "MPI_Iscan" : "MPI_Scan";
  case ManualKind::Exscan:
    return Nonblocking ? "MPI_Iexscan" : "MPI_Exscan";
  }
  llvm_unreachable("unknown collective");
}

llvm::Expected<tooling::AtomicChange>
rewriteManualCollective(const ManualCollective &C, ASTContext &Context,
                        const RewriteOptions &Options) {
  assert(C.isSafe() && "rewriting a collective that failed a safety check");
  assert(C.Region && "every proven finding comes from the evaluation");
  return rewriteProvenRegion(C, Context, Options);
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
