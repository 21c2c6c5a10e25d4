//===- FusionRewrite.cpp - One collective for a fused sequence ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Transform/FusionRewrite.h"

#include "mpilift/Analysis/MPICalls.h"

#include "SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
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

/// The MPI name of the handle \p Call passes as \p R (`MPI_LONG` for
/// `COUNT_T`), for what the rewrite computes from it.
std::string handleName(const CallExpr *Call, mpi::Role R, ASTContext &Context) {
  const Expr *E = analysis::mpiArgAsWritten(Call, R);
  return E ? analysis::mpiHandleName(E, Context) : std::string();
}

/// The fused call of a pair (MPI_Allreduce, MPI_Allgather, MPI_Allgatherv).
std::string pairCall(const FusionSite &Site, ASTContext &Context) {
  const CallExpr *First = Site.Calls[0];
  auto Arg = [&](mpi::Role R) { return argText(First, R, Context); };
  if (Site.Kind == FusionKind::ReduceBcast)
    return llvm::formatv("MPI_Allreduce({0}, {1}, {2}, {3}, {4}, {5})",
                         Site.SendBuffer, Arg(mpi::Role::RecvBuffer),
                         Arg(mpi::Role::Count), Arg(mpi::Role::Datatype),
                         Arg(mpi::Role::Op), Arg(mpi::Role::Comm))
        .str();
  if (Site.Kind == FusionKind::GathervBcast)
    return llvm::formatv(
               "MPI_Allgatherv({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7})",
               Arg(mpi::Role::SendBuffer), Arg(mpi::Role::SendCount),
               Arg(mpi::Role::SendType), Arg(mpi::Role::RecvBuffer),
               Arg(mpi::Role::RecvCounts), Arg(mpi::Role::RecvDispls),
               Arg(mpi::Role::RecvType), Arg(mpi::Role::Comm))
        .str();
  return llvm::formatv("MPI_Allgather({0}, {1}, {2}, {3}, {4}, {5}, {6})",
                       Arg(mpi::Role::SendBuffer), Arg(mpi::Role::SendCount),
                       Arg(mpi::Role::SendType), Arg(mpi::Role::RecvBuffer),
                       Arg(mpi::Role::RecvCount), Arg(mpi::Role::RecvType),
                       Arg(mpi::Role::Comm))
      .str();
}

/// The variable statement \p S gives its call's code to (`ierr = ...`,
/// `int rc = ...`), null for others.
const VarDecl *codeVariable(const Stmt *S) {
  if (const auto *Decl = dyn_cast<DeclStmt>(S))
    return Decl->isSingleDecl() ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                                : nullptr;
  const auto *Op = dyn_cast<BinaryOperator>(S);
  const auto *Ref = Op && Op->isAssignmentOp()
                        ? dyn_cast<DeclRefExpr>(Op->getLHS()->IgnoreParens())
                        : nullptr;
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// Whether the second call's statement \p Second may go whole: it keeps
/// no code, or keeps it where the first call's statement \p First, now
/// the fused call's, assigns it, or accumulates it the same way (`ierr |=`
/// both).
bool codeKeptByFirst(const Stmt *First, const Stmt *Second) {
  const auto *Op = dyn_cast<BinaryOperator>(Second);
  if (!Op)
    return true;
  const auto *FirstOp = dyn_cast<BinaryOperator>(First);
  bool FirstAssigns =
      isa<DeclStmt>(First) || (FirstOp && FirstOp->getOpcode() == BO_Assign);
  bool SameAccumulation = FirstOp && FirstOp->getOpcode() == Op->getOpcode();
  return codeVariable(First) == codeVariable(Second) &&
         (FirstAssigns || SameAccumulation);
}

/// `ierr = `, `ierr |= `: how statement \p S, a call keeping its code in
/// a variable, gives it; empty for a bare call or a declaration.
std::string keptCode(const Stmt *S, ASTContext &Context) {
  const auto *Op = dyn_cast<BinaryOperator>(S);
  if (!Op || !Op->isAssignmentOp())
    return "";
  return analysis::sourceText(Op->getLHS(), Context) + " " +
         Op->getOpcodeStr().str() + " ";
}

/// The second call of a pair goes with its statement. A declaration keeps
/// its variable, now MPI_SUCCESS (\p Call is the call's range), and so
/// does a variable the first call's statement does not assign (`MPI_Reduce(
/// ...); ierr = MPI_Bcast(...);` gives `ierr = MPI_SUCCESS;`).
llvm::Error removeSecondCall(const FusionSite &Site, CharSourceRange Call,
                             tooling::AtomicChange &Change,
                             ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  if (isa<DeclStmt>(Site.Stmts[1]) ||
      !codeKeptByFirst(Site.Stmts[0], Site.Stmts[1]))
    return Change.replace(SM, Call, "MPI_SUCCESS");
  return Change.replace(SM, wholeLines(*Site.Stmts[1], Context), "");
}

/// `return MPI_Bcast(...);` as the second call: the function returns the
/// fused call's code instead, from the variable the first call's
/// statement assigns or declares, or from one that statement now declares
/// (`int rc = MPI_Allreduce(...);` for a bare `MPI_Reduce(...);`).
llvm::Error returnFusedCode(const FusionSite &Site, CharSourceRange Second,
                            std::string &FusedCall,
                            tooling::AtomicChange &Change,
                            ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *FirstStmt = Site.Stmts[0];
  const VarDecl *Code = codeVariable(FirstStmt);
  std::string Name;
  if (Code) {
    Name = Code->getNameAsString();
  } else {
    llvm::StringSet<> Taken;
    Name = freshName("rc", SM.getBufferData(SM.getFileID(Second.getBegin())),
                     &Taken);
    FusedCall = "int " + Name + " = " + FusedCall;
  }
  return Change.replace(SM, Second, Name);
}

/// A pair: the first call becomes the fused one; the second call's
/// statement goes (a declaration keeps its variable, now MPI_SUCCESS; a
/// return returns the fused call's code).
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
  std::string Fused = pairCall(Site, Context);
  if (!isa<ReturnStmt>(Site.Stmts[1])) {
    if (llvm::Error E = removeSecondCall(Site, Second, Change, Context))
      return E;
  } else if (llvm::Error E =
                 returnFusedCode(Site, Second, Fused, Change, Context)) {
    return E;
  }
  // A bare first call declaring the code replaces its whole statement (a
  // `(void)` cast included).
  if (isa<ReturnStmt>(Site.Stmts[1]) && !codeVariable(Site.Stmts[0]))
    First = SM.getExpansionRange(Site.Stmts[0]->getSourceRange());
  if (llvm::Error E = Change.replace(SM, First, Fused))
    return E;
  return Change;
}

/// The count of \p Call as written, in parentheses unless it is a name or
/// a literal.
std::string operand(const CallExpr *Call, ASTContext &Context) {
  const Expr *Count = analysis::mpiArgAsWritten(Call, mpi::Role::Count);
  std::string Text = analysis::sourceText(Count, Context);
  const Expr *Bare = Count->IgnoreImpCasts();
  if (isa<IntegerLiteral, DeclRefExpr, ParenExpr>(Bare) ||
      StringRef(Text).find_first_of(" +-*/%()?:<>&|^") == StringRef::npos)
    return Text;
  return "(" + Text + ")";
}

/// The sum of the counts of \p Site's calls as written (literals added up,
/// the others named: `2 + NBIN`), and in \p Offsets the sum of those
/// before each call.
std::string countSum(const FusionSite &Site, ASTContext &Context,
                     std::vector<std::string> &Offsets) {
  int64_t Literal = 0;
  std::vector<std::string> Named;
  auto Sum = [&] {
    std::string Text = llvm::join(Named, " + ");
    if (Literal != 0 || Named.empty())
      Text += (Text.empty() ? "" : " + ") + std::to_string(Literal);
    return Text;
  };
  for (size_t I = 0; I < Site.Calls.size(); ++I) {
    Offsets.push_back(Sum());
    const Expr *Count =
        analysis::mpiArgAsWritten(Site.Calls[I], mpi::Role::Count);
    if (isa<IntegerLiteral>(Count->IgnoreParenImpCasts()) &&
        !Count->getBeginLoc().isMacroID())
      Literal += Site.Counts[I];
    else
      Named.push_back(operand(Site.Calls[I], Context));
  }
  return Sum();
}

/// Independent calls of one collective: their send buffers copied into one
/// array, one call, the results copied out. A broadcast packs on its root
/// and unpacks everywhere; a reduction to a root unpacks on the root only,
/// where MPI writes its result.
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
  const CallExpr *Head = Site.Calls.front();
  std::string Function = Head->getDirectCallee()->getName().str();
  bool Bcast = Function == "MPI_Bcast", Allreduce = Function == "MPI_Allreduce";
  llvm::StringSet<> Taken;
  std::string In =
      freshName(Bcast ? "packed_bcast" : "packed_in", Code, &Taken);
  std::string Out = Bcast ? In : freshName("packed_out", Code, &Taken);
  std::string Rank = Allreduce ? "" : freshName("pack_rank", Code, &Taken);
  const std::string &T = Site.ElementType;
  auto Arg = [&](const CallExpr *Call, mpi::Role R) {
    return argText(Call, R, Context);
  };
  // Counts as the calls spell them, so that the packed form follows a
  // macro the program changes later: each offset is the sum of the counts
  // before it.
  std::vector<std::string> Offsets;
  std::string Total = countSum(Site, Context, Offsets);
  std::string Root = Allreduce ? "" : Arg(Head, mpi::Role::Root);
  auto Copies = [&](bool Into, mpi::Role R) {
    std::string Text;
    for (size_t I = 0; I < Site.Calls.size(); ++I) {
      std::string Buffer = Arg(Site.Calls[I], R);
      std::string Packed = (Into ? In : Out) + " + " + Offsets[I];
      Text += llvm::formatv("memcpy({0}, {1}, {2} * sizeof({3}));\n",
                            Into ? Packed : Buffer, Into ? Buffer : Packed,
                            operand(Site.Calls[I], Context), T)
                  .str();
    }
    return Text;
  };
  std::string Text = "{\n" + T + " " + In + "[" + Total + "]";
  if (!Bcast)
    Text += ", " + Out + "[" + Total + "]";
  Text += ";\n";
  // The rank decides who packs (a broadcast) or unpacks (a reduction); its
  // query's error code is not kept: it fails only where the collective on
  // the same communicator fails and reports.
  if (!Allreduce)
    Text += "int " + Rank + " = -1;\nMPI_Comm_rank(" +
            Arg(Head, mpi::Role::Comm) + ", &" + Rank + ");\n";
  std::string OnRoot = "if (" + Rank + " == (" + Root + ")) {\n";
  if (Bcast)
    Text += OnRoot + Copies(true, mpi::Role::InOutBuffer) + "}\n";
  else
    Text += Copies(true, mpi::Role::SendBuffer);
  // `ierr = ` (`ierr |= `) when the calls kept their error codes.
  std::string Error = keptCode(FirstStmt, Context);
  std::string Type = Arg(Head, mpi::Role::Datatype);
  std::string Comm = Arg(Head, mpi::Role::Comm);
  if (Bcast)
    Text += llvm::formatv("{0}MPI_Bcast({1}, {2}, {3}, {4}, {5});\n", Error, In,
                          Total, Type, Root, Comm);
  else if (Allreduce)
    Text += llvm::formatv("{0}MPI_Allreduce({1}, {2}, {3}, {4}, {5}, {6});\n",
                          Error, In, Out, Total, Type, Arg(Head, mpi::Role::Op),
                          Comm);
  else
    Text += llvm::formatv("{0}MPI_Reduce({1}, {2}, {3}, {4}, {5}, {6}, {7});\n",
                          Error, In, Out, Total, Type, Arg(Head, mpi::Role::Op),
                          Root, Comm);
  if (Bcast)
    Text += Copies(false, mpi::Role::InOutBuffer);
  else if (Allreduce)
    Text += Copies(false, mpi::Role::RecvBuffer);
  else
    Text += OnRoot + Copies(false, mpi::Role::RecvBuffer) + "}\n";
  Text += "}";
  tooling::AtomicChange Change(SM, Range.getBegin());
  if (llvm::Error E = Change.replace(SM, Range, Text))
    return E;
  Change.addHeader(Context.getLangOpts().CPlusPlus ? "<cstring>"
                                                   : "<string.h>");
  return Change;
}

/// How element \p Index of the buffer \p Buffer (of elements of type
/// \p Element, named \p T) is written in the generated code: `x` for `&x`
/// of one element, `a[i]` for an array or pointer of them, a cast
/// otherwise.
std::string elementOf(const Expr *Buffer, StringRef Index, bool One,
                      QualType Element, StringRef T, bool Const,
                      ASTContext &Context) {
  // Names, members, elements and calls need no parentheses around them.
  auto Operand = [&](const Expr *X) {
    std::string Text = analysis::sourceText(X, Context);
    const Expr *Bare = X->IgnoreImpCasts();
    if (isa<DeclRefExpr, MemberExpr, ArraySubscriptExpr, ParenExpr, CallExpr>(
            Bare))
      return Text;
    return "(" + Text + ")";
  };
  const Expr *E = Buffer->IgnoreParenImpCasts();
  auto Same = [&](QualType Q) {
    return Context.hasSameUnqualifiedType(Q, Element);
  };
  if (const auto *Address = dyn_cast<UnaryOperator>(E);
      One && Address && Address->getOpcode() == UO_AddrOf &&
      Same(Address->getSubExpr()->getType()))
    return Operand(Address->getSubExpr());
  QualType Type = E->getType();
  if (const ArrayType *Array = Context.getAsArrayType(Type);
      (Array && Same(Array->getElementType())) ||
      (Type->isPointerType() && Same(Type->getPointeeType())))
    return Operand(E) + "[" + Index.str() + "]";
  return llvm::formatv("(({0}{1} *)({2}))[{3}]", Const ? "const " : "", T,
                       analysis::sourceText(Buffer, Context), Index)
      .str();
}

/// `(a op b)` in C for MPI's operation \p Op, judged to have a C operator.
std::string combinedInParens(StringRef Op, StringRef A, StringRef B) {
  std::optional<std::string> E = analysis::combinedInC(Op, A, B);
  assert(E && "judged to have a C operator");
  return "(" + *E + ")";
}

/// The elements \p Second's result and the broadcast buffer \p Source
/// hold, as C lvalues, and the loop over them (empty for one element).
struct LocalElements {
  std::string X, Result, Index;
  bool One = false;
};

LocalElements localElements(const FusionSite &Site, const CallExpr *Second,
                            const Expr *Source, StringRef Code,
                            ASTContext &Context, llvm::StringSet<> &Taken) {
  const analysis::PredefinedDatatype *DT = analysis::predefinedDatatype(
      handleName(Second, mpi::Role::Datatype, Context));
  assert(DT && "judged to be predefined");
  QualType Element = Context.*(DT->Type);
  const Expr *Count = analysis::mpiArg(Second, mpi::Role::Count);
  std::optional<llvm::APSInt> N = Count->getIntegerConstantExpr(Context);
  LocalElements L;
  L.One = N && *N == 1;
  L.Index = L.One ? "0" : freshName("fold_i", Code, &Taken);
  L.X = elementOf(Source, L.Index, L.One, Element, Site.ElementType, true,
                  Context);
  L.Result =
      elementOf(analysis::mpiArgAsWritten(Second, mpi::Role::RecvBuffer),
                L.Index, L.One, Element, Site.ElementType, false, Context);
  return L;
}

/// \p Body for each element of \p Second's result.
std::string overElements(const LocalElements &L, const CallExpr *Second,
                         const std::string &Body, ASTContext &Context) {
  if (L.One)
    return Body;
  return llvm::formatv("for (int {0} = 0; {0} < ({1}); ++{0}) {{\n{2}}\n",
                       L.Index, argText(Second, mpi::Role::Count, Context),
                       Body);
}

/// The statements giving each element of \p Second's result the
/// combination of \p Copies copies of the broadcast element (in
/// \p Source), counted in a \p Counter: the element itself for an
/// idempotent operation (minimum, maximum, bitwise and, or), a product for
/// a sum, the element or zero for an exclusive or, otherwise seed 001's
/// `repeat`, the binary method (about log2 of the copies combinations).
std::string localCombination(const FusionSite &Site, const CallExpr *Second,
                             const Expr *Source, StringRef Copies,
                             StringRef Counter, StringRef Code,
                             ASTContext &Context, llvm::StringSet<> &Taken) {
  const std::string &T = Site.ElementType;
  LocalElements L = localElements(Site, Second, Source, Code, Context, Taken);
  const std::string &X = L.X, &Result = L.Result;
  std::string Op = handleName(Second, mpi::Role::Op, Context);
  std::string Body;
  if (Op == "MPI_MIN" || Op == "MPI_MAX" || Op == "MPI_BAND" ||
      Op == "MPI_BOR") {
    Body = Result + " = " + X + ";\n";
  } else if (Op == "MPI_SUM") {
    // The usual arithmetic conversions make the product the element type's
    // (or int's, converted back as MPI's sums are).
    bool Name = StringRef(Copies).find(' ') == StringRef::npos;
    Body = llvm::formatv("{0} = {1}{2}{3} * {4};\n", Result, Name ? "" : "(",
                         Copies, Name ? "" : ")", X);
  } else if (Op == "MPI_BXOR") {
    Body = llvm::formatv("{0} = ({1}) % 2 ? {2} : 0;\n", Result, Copies, X);
  } else {
    std::string K = freshName("fold_k", Code, &Taken);
    std::string Base = freshName("fold_base", Code, &Taken);
    std::string Acc = freshName("fold_acc", Code, &Taken);
    auto Combine = [&](StringRef A, StringRef B) {
      return combinedInParens(Op, A, B);
    };
    Body = llvm::formatv("{0} {1} = {2}, {3};\n"
                         "{9} {4} = {5};\n"
                         "while (!({4} & 1)) {{\n{1} = {6};\n{4} >>= 1;\n}\n"
                         "{3} = {1};\n"
                         "for ({4} >>= 1; {4} > 0; {4} >>= 1) {{\n"
                         "{1} = {6};\n"
                         "if ({4} & 1)\n{3} = {7};\n"
                         "}\n"
                         "{8} = {3};\n",
                         T, Base, X, Acc, K, Copies, Combine(Base, Base),
                         Combine(Acc, Base), Result, Counter);
  }
  return overElements(L, Second, Body, Context);
}

/// The statements giving each element of the last call's result S_n = b
/// (+) b^2 (+) ... (+) b^n of the broadcast element b, powers by the
/// scan's operation (x) and the sum by the last call's (+): the binary
/// method on n from its top bit, S_2m = S_m (+) (b^m (x) S_m), b^2m = b^m
/// (x) b^m, and for a one bit b^(2m+1) = b^2m (x) b, S_2m+1 = S_2m (+)
/// b^(2m+1).
std::string powerSums(const FusionSite &Site, StringRef N, StringRef Code,
                      ASTContext &Context, llvm::StringSet<> &Taken) {
  const CallExpr *Bcast = Site.Calls[0], *Last = Site.Calls[2];
  LocalElements L = localElements(
      Site, Last, analysis::mpiArgAsWritten(Bcast, mpi::Role::InOutBuffer),
      Code, Context, Taken);
  std::string Times = handleName(Site.Calls[1], mpi::Role::Op, Context);
  std::string Plus = handleName(Last, mpi::Role::Op, Context);
  auto Combine = combinedInParens;
  std::string Base = freshName("fold_base", Code, &Taken);
  std::string Sum = freshName("fold_sum", Code, &Taken);
  std::string Power = freshName("fold_power", Code, &Taken);
  std::string Bit = freshName("fold_bit", Code, &Taken);
  std::string Body =
      llvm::formatv("{0} {1} = {2}, {3} = {1}, {4} = {1};\n"
                    "long long {5} = 1;\n"
                    "while ({5} * 2 <= ({6}))\n{5} *= 2;\n"
                    "for ({5} >>= 1; {5} > 0; {5} >>= 1) {{\n"
                    "{3} = {7};\n"
                    "{4} = {8};\n"
                    "if (({6}) & {5}) {{\n"
                    "{4} = {9};\n"
                    "{3} = {10};\n"
                    "}\n"
                    "}\n"
                    "{11} = {3};\n",
                    Site.ElementType, Base, L.X, Sum, Power, Bit, N,
                    Combine(Plus, Sum, Combine(Times, Power, Sum)),
                    Combine(Times, Power, Power), Combine(Times, Power, Base),
                    Combine(Plus, Sum, Power), L.Result);
  return overElements(L, Last, Body, Context);
}

/// A broadcast, then a reduction or scan of its buffer (or, for a triple,
/// of the scan of its buffer): the last call's statement becomes the
/// ranks' own combination of the broadcast value, with the communicator's
/// rank and size it needs asked of MPI (the error code going where the
/// call's went); a triple's scan goes.
llvm::Expected<tooling::AtomicChange> rewriteLocal(const FusionSite &Site,
                                                   ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *Holder = Site.LocalStmt;
  CharSourceRange Range = statementRange(*Holder, Context);
  if (Range.getBegin().isInvalid() || Range.getEnd().isInvalid())
    return llvm::createStringError("the call is not plain source text");
  StringRef Code = SM.getBufferData(SM.getFileID(Range.getBegin()));
  llvm::StringSet<> Taken;
  const CallExpr *Second = Site.Calls.back();
  bool Triple = analysis::isBcastScanTriple(Site.Kind);
  bool ToRoot = Site.Kind == FusionKind::BcastReduce ||
                Site.Kind == FusionKind::BcastScanReduce;
  bool Everywhere = Site.Kind == FusionKind::BcastAllreduce ||
                    Site.Kind == FusionKind::BcastScanAllreduce;
  bool Prefix = !ToRoot && !Everywhere;
  std::string Comm = argText(Second, mpi::Role::Comm, Context);
  bool NeedRank = !Everywhere;
  bool NeedSize = !Prefix;
  std::string Rank = NeedRank ? freshName("fold_rank", Code, &Taken) : "";
  std::string Size = NeedSize ? freshName("fold_size", Code, &Taken) : "";
  // Where the error code goes: `ierr = `, `int rc = `, or nowhere. A code
  // accumulated (`ierr |= `) may hold an earlier failure: the queries'
  // codes are accumulated too, and nothing is guarded by it.
  std::string Error, Declared, Assign = " = ";
  if (const auto *Decl = dyn_cast<DeclStmt>(Holder)) {
    const auto *V = cast<VarDecl>(Decl->getSingleDecl());
    Error = V->getNameAsString();
    Declared = V->getType().getAsString(Context.getPrintingPolicy()) + " ";
  } else if (const auto *Op = dyn_cast<BinaryOperator>(Holder)) {
    Error = analysis::sourceText(Op->getLHS(), Context);
    Assign = " " + Op->getOpcodeStr().str() + " ";
  }
  // `return MPI_Allreduce(...);`: the queries' code is returned, from a
  // variable of its own. `if (MPI_Allreduce(...) != MPI_SUCCESS) ...`: each
  // query is checked the same way.
  const auto *Returned = dyn_cast<ReturnStmt>(Holder);
  const auto *Check = dyn_cast<IfStmt>(Holder);
  if (Returned) {
    Error = freshName("rc", Code, &Taken);
    Declared = "int ";
  }
  bool Accumulates = Assign != " = ";
  std::string Text = "int ";
  Text += NeedRank && NeedSize ? Rank + ", " + Size : NeedRank ? Rank : Size;
  Text += ";\n";
  std::string Succeeded =
      Error.empty() || Accumulates ? "" : Error + " == MPI_SUCCESS";
  auto Ask = [&](StringRef Query, StringRef Into, bool First) {
    std::string Call =
        llvm::formatv("{0}({1}, &{2});\n", Query, Comm, Into).str();
    if (Check)
      return analysis::checkWithCall(
                 Check, Second,
                 llvm::formatv("{0}({1}, &{2})", Query, Comm, Into).str(),
                 Context) +
             "\n";
    if (Error.empty())
      return Call;
    if (First || Accumulates)
      return Declared + Error + Assign + Call;
    return "if (" + Succeeded + ")\n" + Error + Assign + Call;
  };
  if (NeedRank)
    Text += Ask("MPI_Comm_rank", Rank, true);
  if (NeedSize)
    Text += Ask("MPI_Comm_size", Size, !NeedRank);
  std::string N = Prefix ? Rank + " + 1" : Size;
  std::string Condition = Succeeded;
  if (ToRoot)
    Condition += (Condition.empty() ? "" : " && ") + Rank + " == (" +
                 argText(Second, mpi::Role::Root, Context) + ")";
  // A pair combines its second call's send buffer (the broadcast buffer);
  // a triple's last call combines the scan's result, which goes: b is the
  // broadcast buffer.
  const Expr *Source = analysis::mpiArgAsWritten(
      Site.Calls[Triple ? 0 : 1],
      Triple ? mpi::Role::InOutBuffer : mpi::Role::SendBuffer);
  std::string Loop;
  if (!Triple)
    Loop =
        localCombination(Site, Second, Source, N, "int", Code, Context, Taken);
  else if (Site.Operations[0] == Site.Operations[1])
    // n (n + 1) / 2 copies: b^1 to b^n, each of as many copies.
    Loop = localCombination(Site, Second, Source,
                            "(long long)(" + N + ") * ((" + N + ") + 1) / 2",
                            "long long", Code, Context, Taken);
  else
    Loop = powerSums(Site, N, Code, Context, Taken);
  Text +=
      Condition.empty() ? Loop : "if (" + Condition + ") {\n" + Loop + "}\n";
  // A declaration's variable stays in scope; anything else is one block.
  if (Declared.empty())
    Text = "{\n" + Text + "}";
  else
    Text.pop_back();
  if (Returned)
    Text += "\nreturn " + Error + ";";
  tooling::AtomicChange Change(SM, Range.getBegin());
  if (llvm::Error E = Change.replace(SM, Range, Text))
    return E;
  if (Triple) {
    CharSourceRange Scan =
        SM.getExpansionRange(Site.Calls[1]->getSourceRange());
    if (llvm::Error E = removeSecondCall(Site, Scan, Change, Context))
      return E;
    if (Site.UnusedDecl)
      if (llvm::Error E =
              Change.replace(SM, wholeLines(*Site.UnusedDecl, Context), ""))
        return E;
  }
  return Change;
}

/// Scatters from every root in turn: the loop becomes one MPI_Alltoall,
/// its error code going where the scatter's went.
llvm::Expected<tooling::AtomicChange>
rewriteRotatingScatters(const FusionSite &Site, ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Range = statementRange(*Site.Stmts[0], Context);
  if (Range.getBegin().isInvalid() || Range.getEnd().isInvalid())
    return llvm::createStringError("the loop is not plain source text");
  const CallExpr *Scatter = Site.Calls[0];
  auto Arg = [&](mpi::Role R) { return argText(Scatter, R, Context); };
  std::string Error = keptCode(Site.LocalStmt, Context);
  std::string Text =
      llvm::formatv("{0}MPI_Alltoall({1}, {2}, {3}, {4}, {5}, {6}, {7});",
                    Error, Arg(mpi::Role::SendBuffer),
                    Arg(mpi::Role::SendCount), Arg(mpi::Role::SendType),
                    Site.RecvArray, Arg(mpi::Role::RecvCount),
                    Arg(mpi::Role::RecvType), Arg(mpi::Role::Comm))
          .str();
  tooling::AtomicChange Change(SM, Range.getBegin());
  if (llvm::Error E = Change.replace(SM, Range, Text))
    return E;
  return Change;
}

/// \p Op combining \p A and \p B in C, for elements of the C type \p T:
/// sums and products of signed integers in the unsigned type of their
/// width, which wraps where the signed one would overflow (GCC and Clang
/// convert back modulo 2^n), as MPI's own sums do.
std::string pairCombination(StringRef Op, StringRef A, StringRef B, StringRef T,
                            QualType Element) {
  bool Wraps =
      Element->isSignedIntegerType() && (Op == "MPI_SUM" || Op == "MPI_PROD");
  if (!Wraps) {
    std::optional<std::string> E = analysis::combinedInC(Op, A, B);
    assert(E && "judged to have a C operator");
    return "(" + *E + ")";
  }
  std::string U = "unsigned " + T.str();
  if (StringRef(T).starts_with("signed "))
    U = "unsigned " + T.drop_front(7).str();
  std::optional<std::string> E = analysis::combinedInC(
      Op, "(" + U + ")" + A.str(), "(" + U + ")" + B.str());
  return "((" + T.str() + ")(" + *E + "))";
}

/// The operation on pairs of rules SR2 and SS2, as a function at file
/// scope named \p Name: op((s1, r1), (s2, r2)) = (s1 + (r1 x s2), r1 x r2),
/// where MPI passes the lower ranks' pair in `in`.
std::string pairOperation(const FusionSite &Site, StringRef Name,
                          QualType Element) {
  const std::string &T = Site.ElementType;
  StringRef Times = Site.Operations[0], Plus = Site.Operations[1];
  std::string Rule =
      Site.Kind == FusionKind::ScanScan ? "SS2-Scan" : "SR2-Reduction";
  return llvm::formatv(
             "/* {0} of the prefixes {1} forms, on pairs (s, r) of {2} (seed "
             "001, rule {3}): (s1, r1) then (s2, r2) is (s1 + r1 x s2, r1 x "
             "r2). */\n"
             "static void {4}(void *in, void *inout, int *len, "
             "MPI_Datatype *type) {{\n"
             "const {2} *a = (const {2} *)in;\n"
             "{2} *b = ({2} *)inout;\n"
             "for (int i = 0; i < *len; ++i) {{\n"
             "{2} s = {5};\n"
             "b[2 * i + 1] = {6};\n"
             "b[2 * i] = s;\n"
             "}\n"
             "(void)type;\n"
             "}\n\n",
             Plus, Times, T, Rule, Name,
             pairCombination(
                 Plus, "a[2 * i]",
                 pairCombination(Times, "a[2 * i + 1]", "b[2 * i]", T, Element),
                 T, Element),
             pairCombination(Times, "a[2 * i + 1]", "b[2 * i + 1]", T, Element))
      .str();
}

/// Where a function at file scope goes so that \p F can use it: before the
/// outermost declaration holding F, and before its comment.
SourceLocation beforeFunction(const FunctionDecl &F, ASTContext &Context) {
  const Decl *Top = &F;
  while (!isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl>(
      Top->getLexicalDeclContext()))
    Top = Decl::castFromDeclContext(Top->getLexicalDeclContext());
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Begin = SM.getExpansionLoc(Top->getBeginLoc());
  if (const RawComment *Comment = Context.getRawCommentForDeclNoCache(Top))
    Begin = SM.getExpansionLoc(Comment->getBeginLoc());
  return lineStart(Begin, SM).first;
}

/// A scan and a reduction or scan of its result: one collective on pairs
/// with an operation of its own (a function the rewrite adds before the
/// function), where the scan stood; the operation and the pairs' datatype
/// are made on the first pass only. The second call's statement goes.
llvm::Expected<tooling::AtomicChange> rewriteScanPair(const FusionSite &Site,
                                                      ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  const Stmt *FirstStmt = Site.Stmts[0];
  CharSourceRange Range = statementRange(*FirstStmt, Context);
  CharSourceRange Second =
      SM.getExpansionRange(Site.Calls[1]->getSourceRange());
  if (Range.getBegin().isInvalid() || Range.getEnd().isInvalid() ||
      Second.getBegin().isInvalid() ||
      SM.getFileID(Range.getBegin()) != SM.getFileID(Second.getBegin()))
    return llvm::createStringError("the calls are not plain source text");
  StringRef Code = SM.getBufferData(SM.getFileID(Range.getBegin()));
  const CallExpr *Scan = Site.Calls[0], *Last = Site.Calls[1];
  auto Arg = [&](const CallExpr *Call, mpi::Role R) {
    return argText(Call, R, Context);
  };
  const analysis::PredefinedDatatype *DT = analysis::predefinedDatatype(
      handleName(Scan, mpi::Role::Datatype, Context));
  assert(DT && "judged to be predefined");
  QualType Element = Context.*(DT->Type);
  const std::string &T = Site.ElementType;
  llvm::StringSet<> Taken;
  std::string Function =
      freshName("fused_pair_op_" +
                    std::to_string(SM.getExpansionLineNumber(Range.getBegin())),
                Code, &Taken);
  std::string Op = freshName("fused_op", Code, &Taken);
  std::string Pair = freshName("fused_pair", Code, &Taken);
  std::string In = freshName("fused_in", Code, &Taken);
  std::string Out = freshName("fused_out", Code, &Taken);
  bool One = Site.Counts.front() == 1;
  std::string I = One ? "0" : freshName("fused_i", Code, &Taken);
  std::string Count = Arg(Scan, mpi::Role::Count);
  std::string Loop =
      One ? ""
          : llvm::formatv("for (int {0} = 0; {0} < ({1}); ++{0})\n", I, Count)
                .str();
  std::string X =
      elementOf(analysis::mpiArgAsWritten(Scan, mpi::Role::SendBuffer), I, One,
                Element, T, true, Context);
  std::string Result =
      elementOf(analysis::mpiArgAsWritten(Last, mpi::Role::RecvBuffer), I, One,
                Element, T, false, Context);
  std::string Text;
  // `int rc = MPI_Scan(...)`: the variable stays in the enclosing block.
  std::string Error;
  if (const auto *Decl = dyn_cast<DeclStmt>(FirstStmt)) {
    const auto *V = cast<VarDecl>(Decl->getSingleDecl());
    Error = V->getNameAsString() + " = ";
    Text += V->getType().getAsString(Context.getPrintingPolicy()) + " " +
            V->getNameAsString() + ";\n";
  } else {
    Error = keptCode(FirstStmt, Context);
  }
  std::string Comm = Arg(Last, mpi::Role::Comm);
  std::string Name = Last->getDirectCallee()->getName().str();
  std::string Extra = Site.Kind == FusionKind::ScanReduce
                          ? Arg(Last, mpi::Role::Root) + ", "
                          : "";
  Text +=
      llvm::formatv("{{\nstatic MPI_Op {0} = MPI_OP_NULL;\n"
                    "static MPI_Datatype {1};\n"
                    "{2} {3}[{4}][2], {5}[{4}][2];\n"
                    "if ({0} == MPI_OP_NULL) {{\n"
                    "MPI_Type_contiguous(2, {6}, &{1});\n"
                    "MPI_Type_commit(&{1});\n"
                    "MPI_Op_create({7}, 0, &{0});\n"
                    "}\n"
                    "{8}{3}[{9}][0] = {3}[{9}][1] = {10};\n"
                    "{11}{12}({3}, {5}, {4}, {1}, {0}, {13}{14});\n",
                    Op, Pair, T, In, Count, Out, Arg(Scan, mpi::Role::Datatype),
                    Function, Loop, I, X, Error, Name, Extra, Comm)
          .str();
  std::string Unpack = Loop + Result + " = " + Out + "[" + I + "][0];\n";
  if (Site.Kind == FusionKind::ScanReduce) {
    // MPI writes a reduction's result on the root only.
    std::string Rank = freshName("fused_rank", Code, &Taken);
    Text += llvm::formatv("int {0} = -1;\nMPI_Comm_rank({1}, &{0});\n"
                          "if ({0} == ({2})) {{\n{3}}\n",
                          Rank, Comm, Arg(Last, mpi::Role::Root), Unpack)
                .str();
  } else {
    Text += Unpack;
  }
  Text += "}";
  tooling::AtomicChange Change(SM, Range.getBegin());
  if (llvm::Error E = Change.insert(SM, beforeFunction(*Site.Function, Context),
                                    pairOperation(Site, Function, Element)))
    return E;
  if (llvm::Error E = Change.replace(SM, Range, Text))
    return E;
  if (Site.UnusedDecl)
    if (llvm::Error E =
            Change.replace(SM, wholeLines(*Site.UnusedDecl, Context), ""))
      return E;
  if (llvm::Error E = removeSecondCall(Site, Second, Change, Context))
    return E;
  return Change;
}

} // namespace

llvm::Expected<tooling::AtomicChange> rewriteFusion(const FusionSite &Site,
                                                    ASTContext &Context) {
  assert(Site.isSafe() && "fusing an unsafe sequence");
  if (Site.Kind == FusionKind::Packed)
    return rewritePacked(Site, Context);
  if (analysis::isLocalFusion(Site.Kind) ||
      analysis::isBcastScanTriple(Site.Kind))
    return rewriteLocal(Site, Context);
  if (Site.Kind == FusionKind::RotatingScatters)
    return rewriteRotatingScatters(Site, Context);
  if (analysis::isScanPair(Site.Kind))
    return rewriteScanPair(Site, Context);
  return rewritePair(Site, Context);
}

} // namespace transform
} // namespace mpilift
