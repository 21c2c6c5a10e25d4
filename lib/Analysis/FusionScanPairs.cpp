//===- FusionScanPairs.cpp - A scan, then a reduction or scan of it -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Seed 001's rules SR2-Reduction and SS2-Scan: MPI_Scan with an
/// operation (x) followed by MPI_Reduce, MPI_Allreduce or MPI_Scan with
/// an operation (+) of the scan's result is one collective with (+) on
/// pairs (s, r), each rank starting from (x_i, x_i), combined by
///
///   op((s1, r1), (s2, r2)) = (s1 (+) (r1 (x) s2), r1 (x) r2),
///
/// whose first halves are the result, provided (x) distributes over (+):
/// a (x) (b (+) c) = (a (x) b) (+) (a (x) c). The operation is not
/// commutative; MPI applies it in rank order, which is what the rule
/// needs. Table 1: SR2-Reduction always pays, SS2-Scan when t_s > 2m; but
/// Table 1 leaves out the pairs written and the results read out, three
/// copies per element, which bench/fusion shows cost more than the saved
/// start-up from a few hundred elements on: the cost model decides both,
/// copies counted (CostModel.h).
///
/// The fused call does not compute the scan's own result, so nothing else
/// may read it: it must be a local variable or array that only the two
/// calls mention. Between the calls nothing may communicate, leave, or use
/// the second call's result (the fused call writes it where the scan
/// stood), or change what the second call reads.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/Fusion.h"

#include "mpilift/Analysis/MPICalls.h"

#include "FunctionFacts.h"
#include "FusionForms.h"
#include "RegionEdits.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace mpilift {
namespace analysis {

using namespace fusion;

bool isScanPair(FusionKind Kind) {
  return Kind == FusionKind::ScanReduce || Kind == FusionKind::ScanAllreduce ||
         Kind == FusionKind::ScanScan;
}

namespace fusion {

/// Operations for which a (+) a = a.
static bool idempotent(StringRef Op) {
  return Op == "MPI_MIN" || Op == "MPI_MAX" || Op == "MPI_BAND" ||
         Op == "MPI_BOR" || Op == "MPI_LAND" || Op == "MPI_LOR";
}

/// Whether \p Times distributes over \p Plus, on floating-point elements
/// when \p Floating.
Algebra distributes(StringRef Times, StringRef Plus, bool Floating) {
  auto Either = [&](StringRef A, StringRef B) {
    return (Times == A && Plus == B) || (Times == B && Plus == A);
  };
  // Distributive lattices, each operation also over itself.
  if ((Times == Plus && idempotent(Times)) || Either("MPI_MIN", "MPI_MAX") ||
      Either("MPI_BAND", "MPI_BOR") || Either("MPI_LAND", "MPI_LOR"))
    return Algebra::Exact;
  // Rings: the integers modulo 2^n, and the two-element field.
  if ((Times == "MPI_BAND" && Plus == "MPI_BXOR") ||
      (Times == "MPI_LAND" && Plus == "MPI_LXOR"))
    return Algebra::Exact;
  if (Times == "MPI_PROD" && Plus == "MPI_SUM")
    return Floating ? Algebra::Rounds : Algebra::Exact;
  // a + max(b, c) = max(a + b, a + c), where nothing overflows.
  if (Times == "MPI_SUM" && (Plus == "MPI_MIN" || Plus == "MPI_MAX"))
    return Floating ? Algebra::Rounds : Algebra::Overflows;
  return Algebra::None;
}

std::string notDistributive(StringRef Times, StringRef Plus, StringRef Needs) {
  return ("'" + Times + "' does not distribute over '" + Plus + "' (a " +
          Times + " (b " + Plus + " c) is not (a " + Times + " b) " + Plus +
          " (a " + Times + " c)), which " + Needs + " needs")
      .str();
}

} // namespace fusion

namespace {

/// The first mention of \p V in \p Body outside \p Allowed.
const DeclRefExpr *otherMention(const Stmt *Body, const VarDecl *V,
                                ArrayRef<const Expr *> Allowed) {
  llvm::SmallPtrSet<const Stmt *, 8> Inside;
  for (const Expr *E : Allowed)
    findFirst(E, [&](const Stmt *X) {
      Inside.insert(X);
      return false;
    });
  return cast_or_null<DeclRefExpr>(findFirst(Body, [&](const Stmt *X) {
    const auto *Ref = dyn_cast<DeclRefExpr>(X);
    return Ref && Ref->getDecl() == V && !Inside.count(Ref);
  }));
}

/// The mentions of \p V's name in the text of \p F's body that the
/// compiled code does not hold: code the preprocessor left out (`#ifdef
/// DEBUG ... #endif`), which another configuration compiles. Counted as
/// identifiers of the raw text less the references of the AST spelled there
/// and the declaration.
unsigned mentionsLeftOut(const FunctionDecl &F, const VarDecl &V,
                         ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  SourceRange Body = F.getBody()->getSourceRange();
  if (Body.getBegin().isMacroID() || Body.getEnd().isMacroID())
    return 0;
  FileID File = SM.getFileID(Body.getBegin());
  StringRef Buffer = SM.getBufferData(File);
  unsigned Begin = SM.getFileOffset(Body.getBegin());
  unsigned End = SM.getFileOffset(Body.getEnd());
  Lexer Raw(SM.getLocForStartOfFile(File), Context.getLangOpts(),
            Buffer.begin(), Buffer.begin() + Begin, Buffer.end());
  unsigned InText = 0;
  Token T;
  while (!Raw.LexFromRawLexer(T) && SM.getFileOffset(T.getLocation()) <= End) {
    if (T.is(tok::raw_identifier) && T.getRawIdentifier() == V.getName())
      ++InText;
  }
  auto Inside = [&](SourceLocation L) {
    L = SM.getSpellingLoc(L);
    return SM.getFileID(L) == File && SM.getFileOffset(L) >= Begin &&
           SM.getFileOffset(L) <= End;
  };
  unsigned Compiled = Inside(V.getLocation()) ? 1 : 0;
  findFirst(F.getBody(), [&](const Stmt *X) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(X))
      Compiled += Ref->getDecl() == &V && Inside(Ref->getLocation());
    return false;
  });
  return InText > Compiled ? InText - Compiled : 0;
}

} // namespace

void FusionFinder::judgeScanPair(FusionSite &Site, unsigned FirstIndex,
                                 unsigned SecondIndex) {
  const CallExpr *Scan = Site.Calls[0], *Second = Site.Calls[1];
  std::string Name = nameOf(Second);
  auto Refuse = [&](SafetyCheck Check, std::string Why, SourceLocation Loc) {
    Site.Refusals.push_back({Check, std::move(Why), Loc});
  };
  const Expr *TimesArg = mpiArgAsWritten(Scan, mpi::Role::Op);
  const Expr *PlusArg = mpiArgAsWritten(Second, mpi::Role::Op);
  std::string Times = spelled(TimesArg, Context),
              Plus = spelled(PlusArg, Context);
  Site.Operations = {Times, Plus};
  checkSameElements(Site, "the scan", Context);
  std::string Type =
      spelled(mpiArgAsWritten(Scan, mpi::Role::Datatype), Context);
  const PredefinedDatatype *DT = checkElementType(
      Site, Scan,
      " of one C type; the operation on pairs needs the C type of the "
      "elements",
      Context);
  checkConstantCount(Site, Scan, ", which the arrays of pairs need", Context);
  bool Floating = DT && (Context.*(DT->Type))->isRealFloatingType();
  for (const Expr *Arg : {TimesArg, PlusArg})
    checkCOperation(Site, Arg, DT, Type, "the operation on pairs", Context);
  switch (distributes(Times, Plus, Floating)) {
  case Algebra::Exact:
    break;
  case Algebra::Rounds:
    if (!AllowReassociation)
      Refuse(SafetyCheck::ReductionOrder,
             "'" + Times + "' distributes over '" + Plus +
                 "' on real numbers, but one collective on pairs of '" + Type +
                 "' computes other sums and products than MPI_Scan and " +
                 Name +
                 " do, which may round differently (allow it with "
                 "--allow-reassociation)",
             PlusArg->getBeginLoc());
    break;
  case Algebra::Overflows:
    Refuse(SafetyCheck::ReductionOrder,
           "'" + Times + "' distributes over '" + Plus +
               "', but the operation on pairs adds values of ranks that the "
               "scan never adds, which may overflow '" +
               Type + "' where the program's sums do not",
           PlusArg->getBeginLoc());
    break;
  case Algebra::None:
    Refuse(SafetyCheck::ReductionOrder,
           notDistributive(Times, Plus, "one collective on pairs") +
               (Times == Plus ? "; for one operation twice the seed fuses "
                                "only in a reduction tree MPI does not offer"
                              : ""),
           PlusArg->getBeginLoc());
    break;
  }
  if (spelled(mpiArgAsWritten(Scan, mpi::Role::SendBuffer), Context)
          .find("MPI_IN_PLACE") != std::string::npos)
    Refuse(SafetyCheck::SourceForm,
           "the scan is in place: its buffer would keep the values the scan "
           "replaced, since the fused call does not compute the scan's result",
           Scan->getBeginLoc());
  if (sameExpression(mpiArg(Second, mpi::Role::RecvBuffer),
                     mpiArg(Second, mpi::Role::SendBuffer), Context))
    Refuse(SafetyCheck::SourceForm,
           "the " + Name +
               " receives into its send buffer, which MPI does not allow",
           Second->getBeginLoc());
  judgeScanResult(Site);
  PairEffect Effect;
  Effect.Held = mpiArgAsWritten(Second, mpi::Role::RecvBuffer);
  Effect.Fused = Name + " on pairs";
  Effect.Moved = "the " + Name;
  Effect.Holds = "which the " + Name + " writes only after it";
  Effect.After = "the fused call would write it before";
  judgeBetween(Site, FirstIndex, SecondIndex, Effect);
  std::optional<uint64_t> Size = predefinedTypeSize(Type, Context);
  if (Size && !Site.Counts.empty())
    Site.Cost = estimateScanPair(Profile, uint64_t(Site.Counts.front()), *Size,
                                 Site.Kind == FusionKind::ScanScan);
}

void FusionFinder::judgeScanResult(FusionSite &Site) {
  const CallExpr *Scan = Site.Calls[0], *Second = Site.Calls[1];
  const Expr *Result = mpiArgAsWritten(Scan, mpi::Role::RecvBuffer);
  const auto *V = dyn_cast_or_null<VarDecl>(bufferBase(Result));
  QualType T = V ? V->getType() : QualType();
  if (!V || !V->isLocalVarDecl() || V->isStaticLocal() || T->isPointerType() ||
      T->isReferenceType()) {
    Site.Refusals.push_back(
        {SafetyCheck::MessageIntegrity,
         "the scan's result '" + spelled(Result, Context) +
             "' is not a local variable or array of '" +
             Site.Function->getNameAsString() +
             "': the fused call does not compute it, and other code may read "
             "it",
         Result->getBeginLoc()});
    return;
  }
  const DeclRefExpr *Other =
      otherMention(Site.Function->getBody(), V,
                   {Result, mpiArgAsWritten(Second, mpi::Role::SendBuffer)});
  if (!Other && mentionsLeftOut(*Site.Function, *V, Context)) {
    Site.Refusals.push_back(
        {SafetyCheck::MessageIntegrity,
         "'" + V->getNameAsString() +
             "', the scan's result, is named in code of '" +
             Site.Function->getNameAsString() +
             "' that the preprocessor leaves out here (#if); where it is "
             "compiled it may read the result, which the fused code does not "
             "compute",
         Result->getBeginLoc()});
    return;
  }
  if (!Other) {
    const Expr *Init = V->getInit();
    findFirst(Site.Function->getBody(), [&](const Stmt *S) {
      const auto *D = dyn_cast<DeclStmt>(S);
      if (D && D->isSingleDecl() && D->getSingleDecl() == V &&
          !D->getBeginLoc().isMacroID() &&
          (!Init || !Init->HasSideEffects(Context)))
        Site.UnusedDecl = D;
      return D && D->isSingleDecl() && D->getSingleDecl() == V;
    });
    return;
  }
  Site.Refusals.push_back(
      {SafetyCheck::MessageIntegrity,
       "'" + V->getNameAsString() +
           "', the scan's result, is used here: the fused call does not "
           "compute it",
       Other->getBeginLoc()});
}

} // namespace analysis
} // namespace mpilift
