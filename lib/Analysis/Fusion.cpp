//===- Fusion.cpp - Sequences of collectives one collective replaces -----===//
//
// Part of mpilift.
//
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

StringRef fusionRuleId() { return "mpilift-fuse-collectives"; }

std::string FusionSite::description() const {
  switch (Kind) {
  case FusionKind::ReduceBcast:
    return "MPI_Reduce followed by MPI_Bcast of its result from the same root";
  case FusionKind::GatherBcast:
    return "MPI_Gather followed by MPI_Bcast of the gathered buffer from the "
           "same root";
  case FusionKind::GathervBcast:
    return "MPI_Gatherv followed by MPI_Bcast of the gathered buffer from the "
           "same root";
  case FusionKind::Packed: {
    std::string Name = fusion::nameOf(Calls.front());
    return std::to_string(Calls.size()) + " " + Name +
           " calls back to back with the same " +
           (Name == "MPI_Allreduce" ? "operation, datatype"
            : Name == "MPI_Reduce"  ? "operation, datatype, root"
                                    : "datatype, root") +
           " and communicator";
  }
  case FusionKind::BcastReduce:
    return "MPI_Bcast followed by MPI_Reduce of the broadcast buffer";
  case FusionKind::BcastAllreduce:
    return "MPI_Bcast followed by MPI_Allreduce of the broadcast buffer";
  case FusionKind::BcastScan:
    return "MPI_Bcast followed by MPI_Scan of the broadcast buffer";
  case FusionKind::RotatingScatters:
    return "MPI_Scatter from every rank of the communicator as the root in "
           "turn";
  case FusionKind::ScanReduce:
  case FusionKind::ScanAllreduce:
  case FusionKind::ScanScan:
    return "MPI_Scan (" + Operations[0] + ") followed by " +
           fusion::nameOf(Calls[1]) + " (" + Operations[1] + ") of its result";
  case FusionKind::BcastScanReduce:
  case FusionKind::BcastScanAllreduce:
  case FusionKind::BcastScanScan:
    return "MPI_Bcast, MPI_Scan (" + Operations[0] +
           ") of the broadcast buffer, then " + fusion::nameOf(Calls[2]) +
           " (" + Operations[1] + ") of the scan's result";
  }
  llvm_unreachable("unknown fusion");
}

std::string FusionSite::replacement() const {
  switch (Kind) {
  case FusionKind::ReduceBcast:
    return "replace them with MPI_Allreduce";
  case FusionKind::GatherBcast:
    return "replace them with MPI_Allgather";
  case FusionKind::GathervBcast:
    return "replace them with MPI_Allgatherv";
  case FusionKind::Packed:
    return "replace them with one " + fusion::nameOf(Calls.front()) +
           " on a packed buffer";
  case FusionKind::BcastReduce:
    return "the root combines the p copies of the value itself (BR-Local)";
  case FusionKind::BcastAllreduce:
    return "each rank combines the p copies of the value itself "
           "(BR-Alllocal)";
  case FusionKind::BcastScan:
    return "each rank combines its rank + 1 copies of the value itself "
           "(BS-Comcast)";
  case FusionKind::RotatingScatters:
    return "replace the loop with MPI_Alltoall";
  case FusionKind::ScanReduce:
  case FusionKind::ScanAllreduce:
  case FusionKind::ScanScan:
    return "replace them with one " + fusion::nameOf(Calls[1]) +
           " on pairs with an operation of their own (" +
           (Kind == FusionKind::ScanScan ? "SS2-Scan" : "SR2-Reduction") + ")";
  case FusionKind::BcastScanReduce:
  case FusionKind::BcastScanAllreduce:
  case FusionKind::BcastScanScan: {
    bool Same = Operations[0] == Operations[1];
    std::string Who = Kind == FusionKind::BcastScanReduce ? "the root computes"
                      : Kind == FusionKind::BcastScanAllreduce
                          ? "each rank computes"
                          : "rank k computes";
    std::string Upto = Kind == FusionKind::BcastScanScan ? "k + 1" : "p";
    std::string Rule = Kind == FusionKind::BcastScanScan
                           ? (Same ? "BSS-Comcast" : "BSS2-Comcast")
                           : (Same ? "BSR-Local" : "BSR2-Local");
    return Who + " the result from the broadcast value itself (the " +
           "combination of its first " + Upto + " powers), without the scan (" +
           Rule + ")";
  }
  }
  llvm_unreachable("unknown fusion");
}

namespace fusion {

/// The variable statement \p S gives its call's error code to: `ierr =
/// MPI_Reduce(...);` or `int rc = MPI_Reduce(...);`.
const VarDecl *errorVariableOf(const Stmt *S) {
  if (const auto *Decl = dyn_cast<DeclStmt>(S))
    return Decl->isSingleDecl() ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                                : nullptr;
  const auto *Op = dyn_cast<BinaryOperator>(S);
  const auto *Ref = Op && Op->getOpcode() == BO_Assign
                        ? dyn_cast<DeclRefExpr>(Op->getLHS()->IgnoreParens())
                        : nullptr;
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The call of `if (ierr == MPI_SUCCESS) ierr = MPI_Bcast(...);` (no
/// `else`; the branch one statement that calls, giving its code to the
/// same variable or to none).
const CallExpr *successGuardedCall(const Stmt *S, const VarDecl *Error,
                                   ASTContext &Context) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || !testsSuccess(If, Error, Context))
    return nullptr;
  const Stmt *Then = soleStatement(If->getThen());
  if (!Then || isa<DeclStmt>(Then))
    return nullptr;
  const VarDecl *To = errorVariableOf(Then);
  if (isa<BinaryOperator>(Then) && To != Error)
    return nullptr;
  return statementCall(Then);
}

const CallExpr *checkedCall(const Stmt *S, ASTContext &Context) {
  const auto *If = dyn_cast<IfStmt>(S);
  const VarDecl *Assigned = nullptr;
  const Expr *Gate = nullptr;
  return If ? callCheckedBy(If, &Assigned, Context, &Gate) : nullptr;
}

const CallExpr *pairCallOf(const Stmt *S, ASTContext &Context) {
  const CallExpr *Call = statementCall(S);
  return Call ? Call : checkedCall(S, Context);
}

bool calls(const CallExpr *Call, mpi::FunctionId Id) {
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  return Info && Info->Id == Id;
}

std::string spelled(const Expr *E, const ASTContext &Context) {
  return E ? mpiHandleName(E, Context) : std::string();
}

std::string nameOf(const CallExpr *Call) {
  return Call->getDirectCallee()->getName().str();
}

/// Whether a combination by \p Op on \p Type may round differently in
/// another order: floating-point sums and products, and operations the
/// program defines (nothing says they are exact).
std::optional<std::string> orderDependence(StringRef Op, StringRef Type,
                                           StringRef Fused, StringRef Before) {
  static const char *const Exact[] = {"MPI_MAX",    "MPI_MIN",    "MPI_LAND",
                                      "MPI_LOR",    "MPI_LXOR",   "MPI_BAND",
                                      "MPI_BOR",    "MPI_BXOR",   "MPI_MAXLOC",
                                      "MPI_MINLOC", "MPI_REPLACE"};
  if (llvm::is_contained(Exact, Op))
    return std::nullopt;
  if (Op != "MPI_SUM" && Op != "MPI_PROD")
    return "'" + Op.str() +
           "' is an operation the program defines; whether it gives the "
           "same result in any order of combination is not known";
  static const char *const Floating[] = {"MPI_FLOAT",
                                         "MPI_DOUBLE",
                                         "MPI_LONG_DOUBLE",
                                         "MPI_C_FLOAT_COMPLEX",
                                         "MPI_C_DOUBLE_COMPLEX",
                                         "MPI_C_COMPLEX",
                                         "MPI_C_LONG_DOUBLE_COMPLEX",
                                         "MPI_CXX_FLOAT_COMPLEX",
                                         "MPI_CXX_DOUBLE_COMPLEX",
                                         "MPI_REAL",
                                         "MPI_DOUBLE_PRECISION"};
  bool Integer =
      predefinedDatatype(Type) && !llvm::is_contained(Floating, Type);
  if (Integer)
    return std::nullopt;
  return "a " + std::string(Op == "MPI_SUM" ? "sum" : "product") + " of '" +
         Type.str() + "' may round differently when " + Fused.str() +
         " combines the values in another order than " + Before.str() +
         " did; --allow-reassociation accepts results that differ in the last "
         "bits";
}

const Stmt *leavesCode(const Stmt *S) {
  return findFirst(S, [](const Stmt *X) {
    const auto *Call = dyn_cast<CallExpr>(X);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    return isa<ReturnStmt>(X) || isa<BreakStmt>(X) || isa<ContinueStmt>(X) ||
           isa<GotoStmt>(X) || isa<CXXThrowExpr>(X) ||
           (Callee && Callee->isNoReturn());
  });
}

bool isFailureCheckOf(const Stmt *S, const VarDecl *Code, ASTContext &Context) {
  const auto *If = dyn_cast<IfStmt>(S);
  return If && !If->getElse() && !If->getInit() &&
         !If->getConditionVariable() &&
         isFailureTest(If->getCond(), Code, Context);
}

bool onlyMPISeesAddress(const VarDecl *V, const FunctionFacts &Facts) {
  if (!V->isLocalVarDeclOrParm() || V->getType()->isPointerType() ||
      V->getType()->isReferenceType())
    return false;
  return llvm::none_of(Facts.writesOf(V), [](const Write &W) {
    return W.Kind == WriteKind::Escape ||
           (W.Kind == WriteKind::AddressPass && !mpiCallee(W.Call));
  });
}

} // namespace fusion

using namespace fusion;

namespace {

/// The variable the statement's call gives its error code to (`ierr =
/// MPI_X(...)`, `ierr |= MPI_X(...)`, the operator in \p Op), null for a
/// bare call; \p Declares is set for `int rc = MPI_X(...)`.
const VarDecl *errorVariable(const Stmt *S, bool &Declares,
                             BinaryOperatorKind &Op) {
  Declares = isa<DeclStmt>(S);
  Op = BO_Assign;
  if (const auto *Assign = dyn_cast<BinaryOperator>(S)) {
    Op = Assign->getOpcode();
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParens()))
      return dyn_cast<VarDecl>(Ref->getDecl());
  }
  return nullptr;
}

/// The part of a variable the buffer argument \p Buffer designates: the
/// member chain or constant element of `&cfg.n`, `&g->n` or `&s[1]` when
/// the call moves \p One element, else the whole variable (its name).
std::string bufferPath(const Expr *Buffer, bool One,
                       const ASTContext &Context) {
  const ValueDecl *Base = bufferBase(Buffer);
  std::string Whole = Base ? Base->getNameAsString() : "";
  const auto *Address = dyn_cast<UnaryOperator>(Buffer->IgnoreParenImpCasts());
  if (!One || !Address || Address->getOpcode() != UO_AddrOf)
    return Whole;
  const Expr *E = Address->getSubExpr()->IgnoreParens();
  if (!isa<MemberExpr, ArraySubscriptExpr>(E))
    return Whole;
  for (const Expr *X = E; !isa<DeclRefExpr>(X);) {
    if (const auto *M = dyn_cast<MemberExpr>(X)) {
      X = M->getBase()->IgnoreParenImpCasts();
      continue;
    }
    // An element at a constant index; anything else on the way (an index
    // the program computes, a call) stands for the whole variable.
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(X);
    if (!Sub || Sub->getIdx()->isValueDependent() ||
        !Sub->getIdx()->getIntegerConstantExpr(Context))
      return Whole;
    X = Sub->getBase()->IgnoreParenImpCasts();
  }
  std::string Path = spelled(E, Context);
  llvm::erase_if(Path, [](char C) { return C == ' ' || C == '\n'; });
  return Path;
}

/// Whether the parts \p A and \p B of variables (bufferPath) overlap: one
/// is the other or contains it.
bool overlaps(StringRef A, StringRef B) {
  auto Within = [](StringRef Part, StringRef Whole) {
    return Part == Whole || Part.starts_with((Whole + ".").str()) ||
           Part.starts_with((Whole + "->").str()) ||
           Part.starts_with((Whole + "[").str());
  };
  return Within(A, B) || Within(B, A);
}

/// The most bytes a packed MPI_Bcast may move: bench/fusion measured one
/// broadcast of 8 or 64 bytes faster than three of a third each at 2, 4
/// and 8 processes, and one of 512 bytes 1.3 to 3.4 times slower (Open MPI
/// 4.1 takes another algorithm; docs/performance.md).
constexpr uint64_t MaxPackedBcastBytes = 64;

} // namespace

bool FusionFinder::packingPays(FusionSite &Site) const {
  if (Site.Counts.size() != Site.Calls.size())
    return true; // Judged on its refusals.
  std::optional<uint64_t> Size = predefinedTypeSize(
      spelled(mpiArgAsWritten(Site.Calls.front(), mpi::Role::Datatype),
              Context),
      Context);
  if (!Size)
    return true;
  uint64_t Elements = 0;
  for (int64_t N : Site.Counts)
    Elements += uint64_t(N);
  bool Bcast = calls(Site.Calls.front(), mpi::FunctionId::Bcast);
  if (Bcast && Elements * *Size > MaxPackedBcastBytes)
    return false;
  Site.Cost = estimatePacking(Profile, Site.Calls.size(), Elements, *Size,
                              /*Combines=*/!Bcast);
  return Site.Cost->pays();
}

FusionFinder::FusionFinder(ASTContext &Context, bool AllowReassociation,
                           const ProjectFacts *Project,
                           const MachineProfile *Profile)
    : Context(Context), AllowReassociation(AllowReassociation),
      Profile(Profile ? *Profile : defaultMachineProfile()),
      TU(std::make_unique<TranslationUnitFacts>(Context)) {
  TU->setProject(Project);
}

FusionFinder::~FusionFinder() = default;

std::vector<FusionSite> FusionFinder::find(const FunctionDecl &F) {
  std::vector<FusionSite> Out;
  if (!F.doesThisDeclarationHaveABody() || F.isDependentContext())
    return Out;
  findFirst(F.getBody(), [&](const Stmt *S) {
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      findIn(F, *Block, Out);
    return false;
  });
  return Out;
}

std::optional<FusionFinder::NextCollective>
FusionFinder::nextCollective(const CompoundStmt &Block, unsigned First,
                             const FunctionDecl &F) {
  const Stmt *FirstStmt = Block.body_begin()[First];
  const VarDecl *Error = errorVariableOf(FirstStmt);
  // `if (ierr == MPI_SUCCESS) ierr = MPI_Scan(...);`: the scan's code.
  if (const auto *If = dyn_cast<IfStmt>(FirstStmt); If && !Error)
    if (const Stmt *Sole = soleStatement(If->getThen()))
      Error = errorVariableOf(Sole);
  for (unsigned J = First + 1; J < Block.size(); ++J) {
    const Stmt *NextStmt = Block.body_begin()[J];
    const Stmt *Holder = NextStmt;
    const CallExpr *Next = statementCall(NextStmt);
    if (const auto *Return = dyn_cast<ReturnStmt>(NextStmt);
        Return && Return->getRetValue()) {
      const auto *Call =
          dyn_cast<CallExpr>(Return->getRetValue()->IgnoreParenImpCasts());
      if (Call && mpiCallee(Call) &&
          mpiCallee(Call)->TheFamily == mpi::Family::BlockingCollective)
        return NextCollective{J, Call, NextStmt, /*Returned=*/true};
    }
    if (const CallExpr *Checked = checkedCall(NextStmt, Context);
        Checked &&
        mpiCallee(Checked)->TheFamily == mpi::Family::BlockingCollective)
      return NextCollective{J, Checked, NextStmt, /*Returned=*/false,
                            /*Checked=*/true};
    if (!Next && Error && !writtenBetween(Error, F, FirstStmt, NextStmt)) {
      Next = successGuardedCall(NextStmt, Error, Context);
      if (Next)
        Holder = soleStatement(cast<IfStmt>(NextStmt)->getThen());
    }
    if (Next && mpiCallee(Next)->TheFamily == mpi::Family::BlockingCollective)
      return NextCollective{J, Next, Holder};
  }
  return std::nullopt;
}

std::optional<FusionFinder::NextCollective>
FusionFinder::broadcastOfResult(const CompoundStmt &Block, unsigned First,
                                const FunctionDecl &F) {
  const CallExpr *Call = pairCallOf(Block.body_begin()[First], Context);
  std::optional<NextCollective> Next = nextCollective(Block, First, F);
  if (!Next || !calls(Next->Call, mpi::FunctionId::Bcast) ||
      !sameExpression(mpiArg(Next->Call, mpi::Role::InOutBuffer),
                      mpiArg(Call, mpi::Role::RecvBuffer), Context) ||
      !sameExpression(mpiArg(Next->Call, mpi::Role::Root),
                      mpiArg(Call, mpi::Role::Root), Context) ||
      !sameExpression(mpiArg(Next->Call, mpi::Role::Comm),
                      mpiArg(Call, mpi::Role::Comm), Context))
    return std::nullopt;
  return Next;
}

bool FusionFinder::writtenBetween(const VarDecl *V, const FunctionDecl &F,
                                  const Stmt *First, const Stmt *Last) const {
  const SourceManager &SM = Context.getSourceManager();
  return llvm::any_of(TU->factsOf(F).writesOf(V), [&](const Write &W) {
    SourceLocation At = SM.getExpansionLoc(W.Where->getBeginLoc());
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(First->getEndLoc()),
                                        At) &&
           SM.isBeforeInTranslationUnit(
               At, SM.getExpansionLoc(Last->getBeginLoc()));
  });
}

void FusionFinder::findIn(const FunctionDecl &F, const CompoundStmt &Block,
                          std::vector<FusionSite> &Out) {
  auto Site = [&](FusionKind Kind, unsigned First, unsigned Last) {
    FusionSite S;
    S.Kind = Kind;
    S.Function = &F;
    S.Block = &Block;
    // A call checked in place counts as its statement's call.
    for (unsigned I = First; I <= Last; ++I)
      if (const CallExpr *Call = pairCallOf(Block.body_begin()[I], Context)) {
        S.Stmts.push_back(Block.body_begin()[I]);
        S.Calls.push_back(Call);
      }
    return S;
  };
  // The statements a safe site rewrites; no other site may touch them.
  llvm::SmallDenseSet<unsigned, 8> Taken;
  auto Pair = [&](FusionSite S, unsigned I, unsigned J) {
    if (S.isSafe())
      Taken.insert(J);
    Out.push_back(std::move(S));
  };
  for (unsigned I = 0; I < Block.size(); ++I) {
    if (Taken.count(I))
      continue;
    if (std::optional<FusionSite> Loop = rotatingScatters(F, Block, I)) {
      Out.push_back(std::move(*Loop));
      continue;
    }
    const CallExpr *Call = statementCall(Block.body_begin()[I]);
    // A broadcast checked in place stays as it is; what follows it may
    // still be computed locally.
    const CallExpr *Bcast =
        Call ? Call : pairCallOf(Block.body_begin()[I], Context);
    if (calls(Bcast, mpi::FunctionId::Bcast)) {
      std::optional<Triple> Three = bcastScanTriple(F, Block, I);
      if (Three && Three->Site.isSafe() &&
          (!Three->Site.Cost || Three->Site.Cost->pays())) {
        Taken.insert(Three->Indices[1]);
        Taken.insert(Three->Indices[2]);
        Out.push_back(std::move(Three->Site));
        continue;
      }
      if (std::optional<NextCollective> Second =
              combinationOfResult(Block, I, F, mpi::Role::InOutBuffer, Bcast)) {
        FusionKind Kind = calls(Second->Call, mpi::FunctionId::Reduce)
                              ? FusionKind::BcastReduce
                          : calls(Second->Call, mpi::FunctionId::Allreduce)
                              ? FusionKind::BcastAllreduce
                              : FusionKind::BcastScan;
        FusionSite S = Site(Kind, I, I);
        S.Stmts.push_back(Block.body_begin()[Second->Index]);
        S.Calls.push_back(Second->Call);
        S.LocalStmt = Second->Holder;
        if (Three) {
          S.Declined = Three->Site.Refusals;
          S.DeclinedCall = Three->Site.Calls[2];
        }
        judgeLocal(S, I, Second->Index);
        Pair(std::move(S), I, Second->Index);
        continue;
      }
    }
    if (calls(Call, mpi::FunctionId::Scan)) {
      if (std::optional<NextCollective> Second =
              combinationOfResult(Block, I, F, mpi::Role::RecvBuffer)) {
        FusionKind Kind = calls(Second->Call, mpi::FunctionId::Reduce)
                              ? FusionKind::ScanReduce
                          : calls(Second->Call, mpi::FunctionId::Allreduce)
                              ? FusionKind::ScanAllreduce
                              : FusionKind::ScanScan;
        FusionSite S = Site(Kind, I, I);
        S.Stmts.push_back(Block.body_begin()[Second->Index]);
        S.Calls.push_back(Second->Call);
        judgeScanPair(S, I, Second->Index);
        if (Second->Returned || Second->Checked)
          S.Refusals.push_back(
              {SafetyCheck::SourceForm,
               (Second->Returned
                    ? "the function returns " + nameOf(Second->Call) + "'s code"
                    : nameOf(Second->Call) + "'s code is checked in place") +
                   "; the rewrite on pairs unpacks the result after the "
                   "fused call, and keeps no code returned or checked there",
               Second->Call->getBeginLoc()});
        if (!S.Cost || S.Cost->pays())
          Pair(std::move(S), I, Second->Index);
        continue;
      }
    }
    // A pair's first call may be checked in place.
    const CallExpr *PairFirst = pairCallOf(Block.body_begin()[I], Context);
    std::optional<FusionKind> PairKind =
        calls(PairFirst, mpi::FunctionId::Reduce) ? FusionKind::ReduceBcast
        : calls(PairFirst, mpi::FunctionId::Gather)
            ? std::optional(FusionKind::GatherBcast)
        : calls(PairFirst, mpi::FunctionId::Gatherv)
            ? std::optional(FusionKind::GathervBcast)
            : std::nullopt;
    if (PairKind) {
      if (std::optional<NextCollective> Bcast =
              broadcastOfResult(Block, I, F)) {
        FusionSite S = Site(*PairKind, I, I);
        S.Stmts.push_back(Block.body_begin()[Bcast->Index]);
        S.Calls.push_back(Bcast->Call);
        judgePair(S, I, Bcast->Index);
        Pair(std::move(S), I, Bcast->Index);
        continue;
      }
    }
    unsigned Run = packableRun(Block, I);
    for (unsigned K = 1; K < Run; ++K)
      if (Taken.count(I + K))
        Run = K;
    if (Run >= 2) {
      FusionSite S = Site(FusionKind::Packed, I, I + Run - 1);
      judgePacked(S);
      if (!packingPays(S))
        continue;
      Out.push_back(std::move(S));
      I += Run - 1;
    }
  }
}

std::optional<FusionFinder::Triple>
FusionFinder::bcastScanTriple(const FunctionDecl &F, const CompoundStmt &Block,
                              unsigned I) {
  std::optional<NextCollective> Scan =
      combinationOfResult(Block, I, F, mpi::Role::InOutBuffer);
  if (!Scan || Scan->Returned || Scan->Checked ||
      !calls(Scan->Call, mpi::FunctionId::Scan))
    return std::nullopt;
  std::optional<NextCollective> Last = combinationOfResult(
      Block, Scan->Index, F, mpi::Role::RecvBuffer, Scan->Call);
  if (!Last)
    return std::nullopt;
  Triple T;
  T.Site.Kind = calls(Last->Call, mpi::FunctionId::Reduce)
                    ? FusionKind::BcastScanReduce
                : calls(Last->Call, mpi::FunctionId::Allreduce)
                    ? FusionKind::BcastScanAllreduce
                    : FusionKind::BcastScanScan;
  T.Site.Function = &F;
  T.Site.Block = &Block;
  T.Site.Stmts = {Block.body_begin()[I], Block.body_begin()[Scan->Index],
                  Block.body_begin()[Last->Index]};
  T.Site.Calls = {statementCall(Block.body_begin()[I]), Scan->Call, Last->Call};
  T.Site.LocalStmt = Last->Holder;
  T.Indices = {I, Scan->Index, Last->Index};
  judgeBcastScanTriple(T.Site, I, Scan->Index, Last->Index);
  return T;
}

void FusionFinder::checkOrder(FusionSite &Site, const Expr *Op,
                              const Expr *Type, const CallExpr *At) {
  bool Packed = Site.Kind == FusionKind::Packed;
  std::optional<std::string> Why = orderDependence(
      spelled(Op, Context), spelled(Type, Context),
      Packed ? "one " + nameOf(At) + " of more values" : "MPI_Allreduce",
      Packed ? "the calls it replaces" : "MPI_Reduce");
  if (Why && !AllowReassociation)
    Site.Refusals.push_back(
        {SafetyCheck::ReductionOrder, *Why, At->getBeginLoc()});
}

void FusionFinder::judgePair(FusionSite &Site, unsigned FirstIndex,
                             unsigned SecondIndex) {
  assert(!isLocalFusion(Site.Kind) && "judged by judgeLocal");
  bool Reduce = Site.Kind == FusionKind::ReduceBcast;
  if (Reduce)
    judgeReduceBcast(Site);
  else if (Site.Kind == FusionKind::GatherBcast)
    judgeGatherBcast(Site);
  else
    judgeGathervBcast(Site, FirstIndex, SecondIndex);
  judgeCodeFlow(Site);
  PairEffect Effect;
  Effect.Held = mpiArgAsWritten(Site.Calls[0], mpi::Role::RecvBuffer);
  Effect.Fused = Reduce                                 ? "MPI_Allreduce"
                 : Site.Kind == FusionKind::GatherBcast ? "MPI_Allgather"
                                                        : "MPI_Allgatherv";
  Effect.Moved = "the broadcast";
  Effect.Holds =
      "where only the root holds " +
      std::string(Reduce ? "the reduced value" : "the gathered blocks");
  Effect.After = "after " + Effect.Fused + " every rank would";
  judgeBetween(Site, FirstIndex, SecondIndex, Effect);
}

void FusionFinder::judgeCodeFlow(FusionSite &Site) {
  const CallExpr *First = checkedCall(Site.Stmts[0], Context);
  const CallExpr *Second = checkedCall(Site.Stmts[1], Context);
  auto Refuse = [&](std::string Why, const CallExpr *At) {
    Site.Refusals.push_back(
        {SafetyCheck::SourceForm, std::move(Why), At->getBeginLoc()});
  };
  // `return MPI_Bcast(...);` returns the fused call's code: the first
  // call's, unless that one adds it to earlier codes or checks it in place.
  bool Declares = false;
  BinaryOperatorKind CodeOp = BO_Assign;
  const VarDecl *Code = errorVariable(Site.Stmts[0], Declares, CodeOp);
  if (isa<ReturnStmt>(Site.Stmts[1]) && Code && CodeOp != BO_Assign)
    return Refuse("the function returns " + nameOf(Site.Calls[1]) +
                      "'s code, and '" + Code->getNameAsString() +
                      "' accumulates " + nameOf(Site.Calls[0]) +
                      "'s; the fused call's code can go only one way",
                  Site.Calls[1]);
  if (First && isa<ReturnStmt>(Site.Stmts[1]))
    return Refuse("the function returns " + nameOf(Site.Calls[1]) +
                      "'s code, and " + nameOf(Site.Calls[0]) +
                      "'s is checked in place; the fused call's code can go "
                      "only one way",
                  Site.Calls[1]);
  // A first call checked in place: the fused call is checked the same
  // way, and the second's code, kept or dropped, goes as it does for any
  // pair.
  if (Second && !First)
    return Refuse(nameOf(Site.Calls[1]) + "'s code is checked in place and " +
                      nameOf(Site.Calls[0]) +
                      "'s is not; the fused call's code can go only one way",
                  Site.Calls[1]);
  if (First && Second &&
      checkShape(cast<IfStmt>(Site.Stmts[0]), First, Context) !=
          checkShape(cast<IfStmt>(Site.Stmts[1]), Second, Context))
    Refuse("the two calls' codes are checked in different ways; the fused "
           "call can be checked only one way",
           Site.Calls[1]);
}

void FusionFinder::judgeReduceBcast(FusionSite &Site) {
  const CallExpr *Reduce = Site.Calls[0], *Bcast = Site.Calls[1];
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  // The same message: count and datatype.
  for (mpi::Role R : {mpi::Role::Count, mpi::Role::Datatype})
    if (!sameExpression(mpiArg(Bcast, R), mpiArg(Reduce, R), Context))
      Refuse(SafetyCheck::MatchingArguments,
             "the broadcast's " +
                 std::string(R == mpi::Role::Count ? "count" : "datatype") +
                 " '" + spelled(mpiArgAsWritten(Bcast, R), Context) +
                 "' is not the reduction's '" +
                 spelled(mpiArgAsWritten(Reduce, R), Context) + "'",
             Bcast->getBeginLoc());
  // MPI_IN_PLACE on the root (`rank == root ? MPI_IN_PLACE : result`) is
  // MPI_IN_PLACE everywhere once every rank holds the result there.
  const Expr *Send = mpiArgAsWritten(Reduce, mpi::Role::SendBuffer);
  const Expr *Result = mpiArgAsWritten(Reduce, mpi::Role::RecvBuffer);
  Site.SendBuffer = spelled(Send, Context);
  if (Site.SendBuffer.find("MPI_IN_PLACE") != std::string::npos) {
    const auto *Choice =
        dyn_cast<ConditionalOperator>(Send->IgnoreParenImpCasts());
    const Expr *Other = nullptr;
    if (Choice && spelled(Choice->getTrueExpr()->IgnoreParenImpCasts(),
                          Context) == "MPI_IN_PLACE")
      Other = Choice->getFalseExpr();
    else if (Choice && spelled(Choice->getFalseExpr()->IgnoreParenImpCasts(),
                               Context) == "MPI_IN_PLACE")
      Other = Choice->getTrueExpr();
    if (Other && sameExpression(Other, Result, Context))
      Site.SendBuffer = "MPI_IN_PLACE";
    else
      Refuse(SafetyCheck::SourceForm,
             "the reduction's send buffer '" + spelled(Send, Context) +
                 "' is MPI_IN_PLACE on some ranks only, and the others do "
                 "not send from the result buffer",
             Send->getBeginLoc());
  }
  checkOrder(Site, mpiArgAsWritten(Reduce, mpi::Role::Op),
             mpiArgAsWritten(Reduce, mpi::Role::Datatype), Reduce);
}

void FusionFinder::judgeGatheredBuffer(FusionSite &Site) {
  const CallExpr *Gather = Site.Calls[0], *Bcast = Site.Calls[1];
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  if (!sameExpression(mpiArg(Bcast, mpi::Role::Datatype),
                      mpiArg(Gather, mpi::Role::RecvType), Context))
    Refuse(SafetyCheck::MatchingArguments,
           "the broadcast's datatype '" +
               spelled(mpiArgAsWritten(Bcast, mpi::Role::Datatype), Context) +
               "' is not the gather's receive datatype '" +
               spelled(mpiArgAsWritten(Gather, mpi::Role::RecvType), Context) +
               "'",
           Bcast->getBeginLoc());
  std::string Send =
      spelled(mpiArgAsWritten(Gather, mpi::Role::SendBuffer), Context);
  if (Send.find("MPI_IN_PLACE") != std::string::npos)
    Refuse(SafetyCheck::SourceForm,
           "the root gathers in place ('" + Send +
               "'), and the others' blocks are not in the result buffer for " +
               (Site.Kind == FusionKind::GatherBcast ? "MPI_Allgather"
                                                     : "MPI_Allgatherv") +
               " to take them from there",
           Gather->getBeginLoc());
}

void FusionFinder::judgeGatherBcast(FusionSite &Site) {
  const CallExpr *Gather = Site.Calls[0], *Bcast = Site.Calls[1];
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  judgeGatheredBuffer(Site);
  // The broadcast sends every block: the communicator's size times the
  // gather's count, spelled as a product with a variable that holds the
  // size.
  const Expr *Count = mpiArg(Bcast, mpi::Role::Count);
  const Expr *Block = mpiArg(Gather, mpi::Role::RecvCount);
  CommKey Comm = commKey(mpiArg(Gather, mpi::Role::Comm), Context);
  auto HoldsSize = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    const ValueDecl *D = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      D = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(E))
      D = Member->getMemberDecl();
    std::optional<QueryValue> Q =
        D ? queryValueOf(D, *Site.Function, *TU) : std::nullopt;
    return Q && Q->Query == CommQuery::Size && Q->Comm == Comm;
  };
  const auto *Product =
      Count ? dyn_cast<BinaryOperator>(Count->IgnoreParenImpCasts()) : nullptr;
  bool Whole = Product && Product->getOpcode() == BO_Mul &&
               ((HoldsSize(Product->getLHS()) &&
                 sameExpression(Product->getRHS(), Block, Context)) ||
                (HoldsSize(Product->getRHS()) &&
                 sameExpression(Product->getLHS(), Block, Context)));
  if (!Whole)
    Refuse(SafetyCheck::MatchingArguments,
           "the broadcast's count '" +
               spelled(mpiArgAsWritten(Bcast, mpi::Role::Count), Context) +
               "' is not seen to be the communicator's size times the "
               "gather's count '" +
               spelled(mpiArgAsWritten(Gather, mpi::Role::RecvCount), Context) +
               "'",
           Bcast->getBeginLoc());
}

void FusionFinder::judgeBetween(FusionSite &Site, unsigned FirstIndex,
                                unsigned SecondIndex,
                                const PairEffect &Effect) {
  const CallExpr *First = Site.Calls[0], *Second = Site.Calls[1];
  std::string Between = " between " + nameOf(First) + " and " + nameOf(Second);
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  // What lies between: no message, no use of the held buffer, nothing that
  // changes what the second call reads.
  const ValueDecl *Base = bufferBase(Effect.Held);
  llvm::SmallPtrSet<const VarDecl *, 8> SecondReads;
  for (mpi::Role R : {mpi::Role::Count, mpi::Role::Datatype, mpi::Role::Root,
                      mpi::Role::Op, mpi::Role::Comm})
    if (const Expr *Arg = mpiArgAsWritten(Second, R))
      variablesIn(Arg, SecondReads);
  const auto *BaseVar = dyn_cast_or_null<VarDecl>(Base);
  // A local array or scalar whose address never leaves MPI calls cannot
  // be reached by a function the statements between call.
  const FunctionFacts &Facts = TU->factsOf(*Site.Function);
  bool Private = BaseVar && onlyMPISeesAddress(BaseVar, Facts);
  const VarDecl *FirstCode =
      errorVariableOf(Site.Block->body_begin()[FirstIndex]);
  for (unsigned K = FirstIndex + 1; K < SecondIndex; ++K) {
    const Stmt *S = Site.Block->body_begin()[K];
    if (isFailureCheckOf(S, FirstCode, Context))
      continue;
    if (const Stmt *Mpi = findFirst(S, [](const Stmt *X) {
          const auto *Call = dyn_cast<CallExpr>(X);
          return Call && mpiCallee(Call);
        })) {
      Refuse(SafetyCheck::MessageOrder,
             "'" + cast<CallExpr>(Mpi)->getDirectCallee()->getName().str() +
                 "'" + Between + ": one " + Effect.Fused + " would move " +
                 Effect.Moved + " before it",
             Mpi->getBeginLoc());
      continue;
    }
    if (const Stmt *Leave = leavesCode(S)) {
      Refuse(SafetyCheck::SourceForm,
             "this statement can leave the code" + Between +
                 ", where the ranks that leave would have taken part in " +
                 Effect.Moved + " already once the two are one " + Effect.Fused,
             Leave->getBeginLoc());
      continue;
    }
    if (!Base || mentions(S, Base)) {
      Refuse(
          SafetyCheck::MessageIntegrity,
          "this statement uses '" +
              (Base ? Base->getNameAsString() : spelled(Effect.Held, Context)) +
              "'" + Between + ", " + Effect.Holds + "; " + Effect.After,
          S->getBeginLoc());
      continue;
    }
    if (const Stmt *Call =
            findFirst(S, [](const Stmt *X) { return isa<CallExpr>(X); });
        Call && !Private) {
      const FunctionDecl *Callee = cast<CallExpr>(Call)->getDirectCallee();
      Refuse(SafetyCheck::MessageIntegrity,
             "this statement calls " +
                 (Callee ? "'" + Callee->getNameAsString() + "'"
                         : std::string("a function")) +
                 Between + ", which may reach '" + Base->getNameAsString() +
                 "', " + Effect.Holds,
             Call->getBeginLoc());
      continue;
    }
    if (std::optional<std::pair<const Stmt *, std::string>> Changed =
            argumentChange(S, Second, SecondReads, Facts, Context))
      Refuse(SafetyCheck::MatchingArguments,
             Changed->second + ", which " + Effect.Moved + " reads," + Between,
             Changed->first->getBeginLoc());
  }
}

unsigned FusionFinder::packableRun(const CompoundStmt &Block, unsigned First) {
  const CallExpr *Head = statementCall(Block.body_begin()[First]);
  mpi::FunctionId Id;
  if (calls(Head, mpi::FunctionId::Allreduce))
    Id = mpi::FunctionId::Allreduce;
  else if (calls(Head, mpi::FunctionId::Reduce))
    Id = mpi::FunctionId::Reduce;
  else if (calls(Head, mpi::FunctionId::Bcast))
    Id = mpi::FunctionId::Bcast;
  else
    return 0;
  // What the calls share: everything but buffers and counts.
  std::vector<mpi::Role> Shared = {mpi::Role::Datatype, mpi::Role::Comm};
  if (Id != mpi::FunctionId::Bcast)
    Shared.push_back(mpi::Role::Op);
  if (Id != mpi::FunctionId::Allreduce)
    Shared.push_back(mpi::Role::Root);
  unsigned N = 1;
  for (unsigned J = First + 1; J < Block.size(); ++J, ++N) {
    const CallExpr *Next = statementCall(Block.body_begin()[J]);
    if (!calls(Next, Id))
      break;
    bool Alike = true;
    for (mpi::Role R : Shared)
      Alike &= sameExpression(mpiArg(Next, R), mpiArg(Head, R), Context);
    if (!Alike)
      break;
  }
  return N;
}

void FusionFinder::judgePacked(FusionSite &Site) {
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  const CallExpr *Head = Site.Calls[0];
  checkElementType(Site, Head,
                   "; the packed buffer needs the C type of its elements",
                   Context);
  // Counts that are constants size the packed buffer; error codes go to
  // one variable, or nowhere.
  bool Declares = false;
  BinaryOperatorKind ErrorOp = BO_Assign;
  const VarDecl *Error = errorVariable(Site.Stmts[0], Declares, ErrorOp);
  std::vector<std::string> Written;
  std::vector<const ValueDecl *> WrittenBases;
  // Two buffers may be one memory unless one is a local whose address only
  // MPI calls see or a `restrict` pointer, or both are distinct arrays or
  // scalars.
  const FunctionFacts &Facts = TU->factsOf(*Site.Function);
  auto Indirect = [](const ValueDecl *D) {
    QualType T = D->getType();
    return T->isPointerType() || T->isReferenceType() || isa<FieldDecl>(D);
  };
  auto mayAlias = [&](const ValueDecl *A, const ValueDecl *B) {
    if (A == B)
      return false; // Judged by their paths.
    for (const ValueDecl *D : {A, B}) {
      const auto *V = dyn_cast<VarDecl>(D);
      if ((V && onlyMPISeesAddress(V, Facts)) ||
          (D->getType()->isPointerType() && D->getType().isRestrictQualified()))
        return false;
    }
    return Indirect(A) || Indirect(B);
  };
  for (size_t I = 0; I < Site.Calls.size(); ++I) {
    const CallExpr *Call = Site.Calls[I];
    std::optional<int64_t> N = checkConstantCount(
        Site, Call, "; the packed buffer is an array of a constant size",
        Context);
    bool ThisDeclares = false;
    BinaryOperatorKind ThisOp = BO_Assign;
    if (errorVariable(Site.Stmts[I], ThisDeclares, ThisOp) != Error ||
        ThisDeclares || ThisOp != ErrorOp)
      Refuse(SafetyCheck::SourceForm,
             "the calls keep their error codes in different places; one call "
             "has one",
             Call->getBeginLoc());
    bool Bcast = calls(Call, mpi::FunctionId::Bcast);
    const Expr *Send = mpiArgAsWritten(Call, Bcast ? mpi::Role::InOutBuffer
                                                   : mpi::Role::SendBuffer);
    const Expr *Recv =
        Bcast ? Send : mpiArgAsWritten(Call, mpi::Role::RecvBuffer);
    if (spelled(Send, Context).find("MPI_IN_PLACE") != std::string::npos) {
      Refuse(SafetyCheck::SourceForm,
             "a call reduces in place; the packed form copies from its send "
             "buffer",
             Call->getBeginLoc());
      continue;
    }
    // Independent: no call reads what an earlier one wrote (its buffer, or
    // a variable another argument names: `&v[i]` after a call that wrote
    // `i`), no two write one variable or one field.
    const ValueDecl *In = bufferBase(Send), *Out = bufferBase(Recv);
    if (!In || !Out) {
      Refuse(SafetyCheck::MessageIntegrity,
             "the buffers of this call are not named variables, so that "
             "the calls are not seen to be independent",
             Call->getBeginLoc());
      continue;
    }
    bool One = N == 1;
    std::string InPath = bufferPath(Send, One, Context);
    std::string OutPath = bufferPath(Recv, One, Context);
    llvm::SmallPtrSet<const VarDecl *, 8> Reads;
    for (const Expr *Arg : Call->arguments()) {
      llvm::SmallPtrSet<const VarDecl *, 8> Named;
      variablesIn(Arg, Named);
      for (const VarDecl *V : Named)
        if (V != In && V != Out) // The buffers' own paths are judged below.
          Reads.insert(V);
    }
    std::string Earlier, Verb = "reads";
    for (size_t K = 0; K < Written.size(); ++K) {
      const std::string &W = Written[K];
      for (const VarDecl *V : Reads)
        if (overlaps(W, V->getNameAsString()))
          Earlier = V->getNameAsString();
      if (!Bcast && (overlaps(W, InPath) || mayAlias(In, WrittenBases[K]))) {
        Earlier = overlaps(W, InPath) ? InPath : W;
        Verb = overlaps(W, InPath) ? "reduces" : "may reduce";
      }
    }
    if (!Earlier.empty())
      Refuse(SafetyCheck::MessageIntegrity,
             "this call " + Verb + " '" + Earlier +
                 "', which an earlier call of the sequence writes; the calls "
                 "depend on each other",
             Call->getBeginLoc());
    if (llvm::any_of(Written, [&](const std::string &W) {
          return overlaps(W, OutPath);
        }))
      Refuse(SafetyCheck::MessageIntegrity,
             "two calls of the sequence write '" + OutPath + "'",
             Call->getBeginLoc());
    Written.push_back(OutPath);
    WrittenBases.push_back(Out);
  }
  if (!calls(Head, mpi::FunctionId::Bcast))
    checkOrder(Site, mpiArgAsWritten(Head, mpi::Role::Op),
               mpiArgAsWritten(Head, mpi::Role::Datatype), Head);
}

} // namespace analysis
} // namespace mpilift
