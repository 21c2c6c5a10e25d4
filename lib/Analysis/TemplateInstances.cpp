//===- TemplateInstances.cpp - Collectives in function templates ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A hand-written collective in a function template is proven through the
/// template's instantiations: the template's own text has no types to
/// evaluate, while each instantiation is an ordinary function whose
/// statements carry the template's source locations. One edit of the text
/// serves every instantiation, so the rewrite is offered only when every
/// instantiation of the unit is proven, and proven alike: the same region,
/// the same placements and the same argument expressions. A template
/// defined in a header may be instantiated by other units with types this
/// one never sees: its findings say what the instantiations form, refused
/// by source-form.
///
//===----------------------------------------------------------------------===//

#include "RegionFinder.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

bool sameLoc(const Stmt *A, const Stmt *B) {
  if (!A || !B)
    return A == B;
  return A->getSourceRange() == B->getSourceRange() &&
         A->getStmtClass() == B->getStmtClass();
}

bool sameLoc(const Decl *A, const Decl *B) {
  if (!A || !B)
    return A == B;
  return A->getLocation() == B->getLocation();
}

bool samePlacements(const std::vector<CollectivePlacement> &A,
                    const std::vector<CollectivePlacement> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!sameLoc(A[I].Anchor, B[I].Anchor) || A[I].Root != B[I].Root ||
        A[I].Others != B[I].Others || A[I].Replace != B[I].Replace ||
        A[I].WaitAtOnce != B[I].WaitAtOnce)
      return false;
  return true;
}

template <typename StmtT>
bool sameStatements(const std::vector<const StmtT *> &A,
                    const std::vector<const StmtT *> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!sameLoc(A[I], B[I]))
      return false;
  return true;
}

/// Whether two instantiations' proofs give the same edits of the text.
bool sameRewrite(const ProvenRegion &A, const ProvenRegion &B) {
  return sameLoc(A.Block, B.Block) && A.First == B.First && A.Last == B.Last &&
         samePlacements(A.Placements, B.Placements) &&
         sameStatements(A.Removed, B.Removed) && sameLoc(A.Root, B.Root) &&
         A.RootConstant == B.RootConstant && sameLoc(A.Count, B.Count) &&
         A.CountConstant == B.CountConstant &&
         sameLoc(A.Datatype, B.Datatype) && sameLoc(A.Comm, B.Comm) &&
         sameLoc(A.Buffer, B.Buffer) && sameLoc(A.SendBuffer, B.SendBuffer) &&
         sameLoc(A.RecvBuffer, B.RecvBuffer) && A.InPlace == B.InPlace &&
         sameLoc(A.Counts, B.Counts) && sameLoc(A.Displs, B.Displs) &&
         sameLoc(A.ErrorCode.Var, B.ErrorCode.Var) &&
         A.ErrorCode.Op == B.ErrorCode.Op &&
         sameLoc(A.ErrorCheck, B.ErrorCheck) &&
         sameLoc(A.CallCheck, B.CallCheck) &&
         sameStatements(A.Returned, B.Returned);
}

bool sameFinding(const ManualCollective &A, const ManualCollective &B) {
  if (A.Kind != B.Kind || A.Range != B.Range ||
      A.Region.has_value() != B.Region.has_value() ||
      A.Refusals.size() != B.Refusals.size())
    return false;
  for (size_t I = 0; I < A.Refusals.size(); ++I)
    if (A.Refusals[I].Check != B.Refusals[I].Check ||
        A.Refusals[I].Reason != B.Refusals[I].Reason)
      return false;
  if ((A.Wait.has_value() != B.Wait.has_value()) ||
      (A.Wait && !sameLoc(A.Wait->Before, B.Wait->Before)))
    return false;
  return !A.Region || sameRewrite(*A.Region, *B.Region);
}

std::string nameOf(const FunctionDecl &F) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  F.getNameForDiagnostic(OS, F.getASTContext().getPrintingPolicy(),
                         /*Qualified=*/false);
  return "'" + Name + "'";
}

/// The instantiations of \p T this unit has bodies for, in the order the
/// unit made them (explicit specializations are functions of their own).
std::vector<const FunctionDecl *>
instantiations(const FunctionTemplateDecl &T) {
  std::vector<const FunctionDecl *> Out;
  for (const FunctionDecl *S : T.specializations()) {
    TemplateSpecializationKind K = S->getTemplateSpecializationKind();
    if ((K == TSK_ImplicitInstantiation ||
         K == TSK_ExplicitInstantiationDefinition) &&
        S->doesThisDeclarationHaveABody())
      Out.push_back(S);
  }
  return Out;
}

/// The findings of \p Mine where \p Other's instantiation was found
/// otherwise: refused, each naming both.
void refuseDifferences(std::vector<ManualCollective> &Mine,
                       const std::vector<ManualCollective> &Other,
                       const FunctionDecl &MineF, const FunctionDecl &OtherF) {
  for (ManualCollective &C : Mine) {
    const ManualCollective *Match = nullptr;
    for (const ManualCollective &O : Other)
      if (O.Range == C.Range)
        Match = &O;
    if (Match && sameFinding(C, *Match))
      continue;
    // The refusal that explains it, if the other instantiation has one.
    if (Match && !Match->isSafe() && C.isSafe()) {
      C.Refusals = Match->Refusals;
      for (Refusal &R : C.Refusals)
        R.Reason = "in " + nameOf(OtherF) + ": " + R.Reason;
    } else if (C.isSafe()) {
      C.Refusals.push_back(
          {SafetyCheck::SourceForm,
           "the instantiations " + nameOf(MineF) + " and " + nameOf(OtherF) +
               " of this template are not proven alike; one edit of its "
               "text serves them all",
           C.PatternStmt->getBeginLoc()});
    }
    C.Region.reset();
  }
}

} // namespace

std::vector<ManualCollective>
findEvaluatedInTemplate(TranslationUnitFacts &TU, const FunctionDecl &F,
                        std::vector<UnjudgedCalls> *Unjudged) {
  const FunctionTemplateDecl *T = F.getDescribedFunctionTemplate();
  const SourceManager &SM = F.getASTContext().getSourceManager();
  if (!T)
    return {};
  std::vector<const FunctionDecl *> Instances = instantiations(*T);
  if (Instances.empty())
    return {};
  std::vector<ManualCollective> Found =
      findEvaluatedCollectives(TU, *Instances.front(), Unjudged);
  for (size_t I = 1; I < Instances.size(); ++I) {
    std::vector<ManualCollective> Other =
        findEvaluatedCollectives(TU, *Instances[I]);
    refuseDifferences(Found, Other, *Instances.front(), *Instances[I]);
  }
  if (!SM.isInMainFile(SM.getExpansionLoc(F.getLocation())))
    for (ManualCollective &C : Found) {
      C.Refusals.insert(C.Refusals.begin(),
                        {SafetyCheck::SourceForm,
                         "the pattern is in a template; its instantiations "
                         "may use other types than the checks can see",
                         C.PatternStmt->getBeginLoc()});
      C.Region.reset();
      C.Fallback.reset();
    }
  return Found;
}

} // namespace analysis
} // namespace mpilift
