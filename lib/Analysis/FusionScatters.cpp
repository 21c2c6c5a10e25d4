//===- FusionScatters.cpp - p scatters with rotating roots: an alltoall --===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A loop that runs MPI_Scatter once with every rank of the communicator
/// as the root, each time into the root's block of one receive array:
///
///   for (int r = 0; r < size; ++r)
///     MPI_Scatter(send, n, T, recv + r * n, n, T, r, comm);
///
/// Rank j receives block j of every root r's send buffer into its block
/// r: that is MPI_Alltoall(send, n, T, recv, n, T, comm). Safe when the
/// loop runs over exactly the communicator's ranks, nothing but the
/// receive buffer's block depends on the root, and the blocks are of the
/// receive count in elements of the receive datatype.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Fusion.h"

#include "mpilift/Analysis/MPICalls.h"

#include "CommQueries.h"
#include "FunctionFacts.h"
#include "FusionForms.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

using namespace fusion;

namespace {

/// Whether \p For starts \p V at 0: `int r = 0` or `r = 0`.
bool startsAtZero(const ForStmt &For, const VarDecl *V,
                  const ASTContext &Context) {
  const Expr *Start = nullptr;
  if (const auto *Decl = dyn_cast_or_null<DeclStmt>(For.getInit())) {
    if (Decl->isSingleDecl() && Decl->getSingleDecl() == V)
      Start = V->getInit();
  } else if (const auto *Assign =
                 dyn_cast_or_null<BinaryOperator>(For.getInit())) {
    if (Assign->getOpcode() == BO_Assign &&
        namedVariable(Assign->getLHS()) == V)
      Start = Assign->getRHS();
  }
  std::optional<llvm::APSInt> Zero =
      Start && !Start->isValueDependent()
          ? Start->getIntegerConstantExpr(Context)
          : std::nullopt;
  return Zero && Zero->isZero();
}

/// Whether \p For steps \p V by one: `++r`, `r++` or `r += 1`.
bool stepsByOne(const ForStmt &For, const VarDecl *V,
                const ASTContext &Context) {
  const Expr *Inc = For.getInc();
  if (const auto *Op = dyn_cast_or_null<UnaryOperator>(Inc))
    return Op->isIncrementOp() && namedVariable(Op->getSubExpr()) == V;
  const auto *Add = dyn_cast_or_null<CompoundAssignOperator>(Inc);
  if (!Add || Add->getOpcode() != BO_AddAssign ||
      namedVariable(Add->getLHS()) != V)
    return false;
  std::optional<llvm::APSInt> One =
      Add->getRHS()->getIntegerConstantExpr(Context);
  return One && *One == 1;
}

/// The bound of `r < N`, if \p For's condition is that.
const Expr *upperBound(const ForStmt &For, const VarDecl *V) {
  const auto *Less = dyn_cast_or_null<BinaryOperator>(For.getCond());
  if (!Less || Less->getOpcode() != BO_LT || namedVariable(Less->getLHS()) != V)
    return nullptr;
  return Less->getRHS();
}

/// The array and the block size of `recv + r * n`, `recv + n * r`,
/// `&recv[r * n]` or `&recv[n * r]`, with \p V as r.
std::optional<std::pair<const Expr *, const Expr *>> blockOf(const Expr *Buffer,
                                                             const VarDecl *V) {
  const Expr *E = Buffer->IgnoreParenImpCasts();
  const Expr *Array = nullptr, *Offset = nullptr;
  if (const auto *Add = dyn_cast<BinaryOperator>(E);
      Add && Add->getOpcode() == BO_Add) {
    Array = Add->getLHS();
    Offset = Add->getRHS();
  } else if (const auto *Address = dyn_cast<UnaryOperator>(E);
             Address && Address->getOpcode() == UO_AddrOf) {
    const auto *Sub =
        dyn_cast<ArraySubscriptExpr>(Address->getSubExpr()->IgnoreParens());
    if (!Sub)
      return std::nullopt;
    Array = Sub->getBase();
    Offset = Sub->getIdx();
  }
  const auto *Product =
      Offset ? dyn_cast<BinaryOperator>(Offset->IgnoreParenImpCasts())
             : nullptr;
  if (!Product || Product->getOpcode() != BO_Mul)
    return std::nullopt;
  if (namedVariable(Product->getLHS()) == V)
    return std::pair(Array, Product->getRHS());
  if (namedVariable(Product->getRHS()) == V)
    return std::pair(Array, Product->getLHS());
  return std::nullopt;
}

} // namespace

std::optional<FusionSite>
FusionFinder::rotatingScatters(const FunctionDecl &F, const CompoundStmt &Block,
                               unsigned Index) {
  const auto *For = dyn_cast<ForStmt>(Block.body_begin()[Index]);
  const Stmt *Body = For ? soleStatement(For->getBody()) : nullptr;
  const CallExpr *Scatter = Body ? statementCall(Body) : nullptr;
  if (!calls(Scatter, mpi::FunctionId::Scatter))
    return std::nullopt;
  // Every rank of the communicator is the root once.
  const VarDecl *V = namedVariable(mpiArg(Scatter, mpi::Role::Root));
  const Expr *Bound = V ? upperBound(*For, V) : nullptr;
  if (!Bound || !startsAtZero(*For, V, Context) ||
      !stepsByOne(*For, V, Context))
    return std::nullopt;
  const VarDecl *Size = namedVariable(Bound);
  const ValueDecl *SizeField = Size;
  if (!SizeField)
    if (const auto *Member = dyn_cast<MemberExpr>(Bound->IgnoreParenImpCasts()))
      SizeField = Member->getMemberDecl();
  std::optional<QueryValue> Q =
      SizeField ? queryValueOf(SizeField, F, *TU) : std::nullopt;
  if (!Q || Q->Query != CommQuery::Size ||
      Q->Comm != commKey(mpiArg(Scatter, mpi::Role::Comm), Context))
    return std::nullopt;
  FusionSite S;
  S.Kind = FusionKind::RotatingScatters;
  S.Function = &F;
  S.Block = &Block;
  S.Stmts.push_back(For);
  S.Calls.push_back(Scatter);
  S.LocalStmt = Body;
  judgeRotating(S, V);
  return S;
}

void FusionFinder::judgeRotating(FusionSite &Site, const VarDecl *Root) {
  const CallExpr *Scatter = Site.Calls[0];
  const auto *For = cast<ForStmt>(Site.Stmts[0]);
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  std::string R = Root->getNameAsString();
  // Nothing but the receive block depends on the root.
  for (mpi::Role Role :
       {mpi::Role::SendBuffer, mpi::Role::SendCount, mpi::Role::SendType,
        mpi::Role::RecvCount, mpi::Role::RecvType, mpi::Role::Comm}) {
    const Expr *Arg = mpiArgAsWritten(Scatter, Role);
    if (Arg && mentions(Arg, Root))
      Refuse(SafetyCheck::MatchingArguments,
             "the scatter's argument '" + spelled(Arg, Context) +
                 "' depends on the root '" + R +
                 "'; MPI_Alltoall takes one for every block",
             Arg->getBeginLoc());
  }
  for (const Expr *Arg : Scatter->arguments())
    if (spelled(Arg, Context).find("MPI_IN_PLACE") != std::string::npos)
      Refuse(SafetyCheck::SourceForm,
             "a root scatters in place; MPI_Alltoall has no such form",
             Arg->getBeginLoc());
  // The receive buffer is block r of one array, of the receive count in
  // elements of the receive datatype.
  const Expr *Recv = mpiArgAsWritten(Scatter, mpi::Role::RecvBuffer);
  std::optional<std::pair<const Expr *, const Expr *>> Block =
      blockOf(Recv, Root);
  const Expr *Count = mpiArg(Scatter, mpi::Role::RecvCount);
  std::string Type =
      spelled(mpiArgAsWritten(Scatter, mpi::Role::RecvType), Context);
  const PredefinedDatatype *DT = predefinedDatatype(Type);
  if (!Block || !sameExpression(Block->second, Count, Context) ||
      mentions(Block->first, Root)) {
    Refuse(
        SafetyCheck::MatchingArguments,
        "the receive buffer '" + spelled(Recv, Context) +
            "' is not seen to be block '" + R +
            "' of one array, of the receive count '" +
            spelled(mpiArgAsWritten(Scatter, mpi::Role::RecvCount), Context) +
            "'",
        Recv->getBeginLoc());
  } else if (!DT) {
    Refuse(SafetyCheck::SourceForm,
           "'" + Type +
               "' is no predefined datatype, so that the blocks' size in "
               "elements of the array is not known",
           Recv->getBeginLoc());
  } else {
    QualType Array = Block->first->IgnoreParenImpCasts()->getType();
    QualType Element = Array->isPointerType() ? Array->getPointeeType()
                       : Array->isArrayType()
                           ? QualType(Array->getArrayElementTypeNoTypeQual(), 0)
                           : QualType();
    if (Element.isNull() ||
        !Context.hasSameUnqualifiedType(Element, Context.*(DT->Type)))
      Refuse(SafetyCheck::SourceForm,
             "the receive array's elements are not of the C type of '" + Type +
                 "', so that its blocks are not the receive count of them",
             Recv->getBeginLoc());
    else
      Site.RecvArray = spelled(Block->first, Context);
  }
  // The root's value after the loop: gone with the loop.
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!Init || Init->getSingleDecl() != Root) {
    const SourceManager &SM = Context.getSourceManager();
    for (const DeclRefExpr *Ref :
         TU->factsOf(*Site.Function).referencesOf(Root))
      if (SM.isBeforeInTranslationUnit(For->getEndLoc(), Ref->getBeginLoc())) {
        Refuse(SafetyCheck::SourceForm,
               "'" + R +
                   "' is read after the loop, which the rewrite no longer "
                   "runs",
               Ref->getBeginLoc());
        break;
      }
  }
}

} // namespace analysis
} // namespace mpilift
