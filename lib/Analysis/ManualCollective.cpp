//===- ManualCollective.cpp - Hand-written collectives in the AST ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The finder of hand-written collectives: the region finder
/// (RegionFinder.cpp) proposes regions, the rank-space evaluator
/// (RankEvaluator.cpp) runs them for every rank, the judge
/// (CollectiveJudge.cpp) decides with CommGraph which collective they form,
/// and the safety checks refuse what a rewrite would change. This file
/// holds the entry point and the names findings are reported under.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/ManualCollective.h"

#include "FunctionFacts.h"
#include "RegionFinder.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

StringRef checkName(SafetyCheck Check) {
  switch (Check) {
  case SafetyCheck::InputIndependence:
    return "input-independence";
  case SafetyCheck::ScaleIndependence:
    return "scale-independence";
  case SafetyCheck::MessageIntegrity:
    return "message-integrity";
  case SafetyCheck::MatchingArguments:
    return "matching-arguments";
  case SafetyCheck::MessageOrder:
    return "message-order";
  case SafetyCheck::StatusUse:
    return "status-use";
  case SafetyCheck::SourceForm:
    return "source-form";
  case SafetyCheck::PollingLoop:
    return "polling-loop";
  case SafetyCheck::ReductionOrder:
    return "reduction-order";
  }
  llvm_unreachable("unknown safety check");
}

StringRef ruleId(ManualKind Kind) {
  switch (Kind) {
  case ManualKind::Bcast:
    return "mpilift-manual-bcast";
  case ManualKind::Scatter:
    return "mpilift-manual-scatter";
  case ManualKind::Gather:
    return "mpilift-manual-gather";
  case ManualKind::Allgather:
    return "mpilift-manual-allgather";
  case ManualKind::Alltoall:
    return "mpilift-manual-alltoall";
  case ManualKind::Reduce:
    return "mpilift-manual-reduce";
  case ManualKind::Allreduce:
    return "mpilift-manual-allreduce";
  case ManualKind::Scan:
  case ManualKind::Exscan:
    return "mpilift-manual-scan";
  }
  llvm_unreachable("unknown collective");
}

std::string withArticle(StringRef Noun) {
  bool Vowel = !Noun.empty() && StringRef("aeiou").contains(Noun.front());
  return (Vowel ? "an " : "a ") + Noun.str();
}

StringRef topologyName(ManualTopology Topology) {
  switch (Topology) {
  case ManualTopology::Star:
    return "star";
  case ManualTopology::Ring:
    return "ring";
  case ManualTopology::Chain:
    return "chain";
  case ManualTopology::Tree:
    return "tree";
  case ManualTopology::Exchange:
    return "exchange";
  }
  llvm_unreachable("unknown topology");
}

StringRef collectiveNoun(ManualKind Kind) {
  switch (Kind) {
  case ManualKind::Bcast:
    return "broadcast";
  case ManualKind::Scatter:
    return "scatter";
  case ManualKind::Gather:
    return "gather";
  case ManualKind::Allgather:
    return "allgather";
  case ManualKind::Alltoall:
    return "alltoall";
  case ManualKind::Reduce:
    return "reduction";
  case ManualKind::Allreduce:
    return "allreduce";
  case ManualKind::Scan:
    return "scan";
  case ManualKind::Exscan:
    return "exclusive scan";
  }
  llvm_unreachable("unknown collective");
}

std::string spellBuffer(StringRef Text, BufferSpelling Spelling) {
  switch (Spelling) {
  case BufferSpelling::AsWritten:
    return Text.str();
  case BufferSpelling::AddressOf:
    return "&" + Text.str();
  case BufferSpelling::VectorData:
    return Text.str() + ".data()";
  }
  llvm_unreachable("unknown spelling");
}

std::string sourceText(const Expr *E, const ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  // An expression that is one argument of a macro (`total` in
  // `COMBINE(total, part)`) is that argument's text; one that is a whole
  // macro use is the use; one inside a macro's body has no text of its
  // own, and stands for the use that expands it.
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM,
      Context.getLangOpts());
  if (Range.isInvalid())
    Range = SM.getExpansionRange(E->getSourceRange());
  return Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
}

bool writtenAsItself(const Expr *E, const ASTContext &Context) {
  SourceRange Range = E->getSourceRange();
  if (!Range.getBegin().isMacroID() && !Range.getEnd().isMacroID())
    return true;
  return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Range),
                                  Context.getSourceManager(),
                                  Context.getLangOpts())
      .isValid();
}

std::string squeezed(StringRef Text) {
  std::string Out;
  for (char C : Text)
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

ManualCollectiveFinder::ManualCollectiveFinder(ASTContext &Context,
                                               bool AllowReassociation,
                                               const ProjectFacts *Project)
    : Facts(std::make_unique<TranslationUnitFacts>(Context)) {
  Facts->allowReassociation(AllowReassociation);
  Facts->setProject(Project);
}

ManualCollectiveFinder::~ManualCollectiveFinder() = default;

std::vector<UnjudgedCalls>
ManualCollectiveFinder::unjudged(const FunctionDecl &Function) const {
  auto It = Unjudged.find(&Function);
  return It == Unjudged.end() ? std::vector<UnjudgedCalls>() : It->second;
}

std::vector<ManualCollective>
ManualCollectiveFinder::find(const FunctionDecl &Function) {
  if (!Function.doesThisDeclarationHaveABody())
    return {};
  const SourceManager &SM = Function.getASTContext().getSourceManager();
  std::vector<UnjudgedCalls> &Stops = Unjudged[&Function];
  std::vector<ManualCollective> Found =
      findEvaluatedCollectives(*Facts, Function, &Stops);
  // Calls a finding speaks for are judged.
  for (UnjudgedCalls &U : Stops)
    llvm::erase_if(U.Calls, [&](const CallExpr *Call) {
      return llvm::any_of(Found, [&](const ManualCollective &C) {
        return SM.isPointWithin(Call->getBeginLoc(), C.Range.getBegin(),
                                C.Range.getEnd());
      });
    });
  llvm::erase_if(Stops, [](const UnjudgedCalls &U) { return U.Calls.empty(); });
  return Found;
}

} // namespace analysis
} // namespace mpilift
