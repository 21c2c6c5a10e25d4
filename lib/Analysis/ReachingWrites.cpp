//===- ReachingWrites.cpp - Writes of a variable that reach a read --------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ReachingWrites.h"

#include "StatementTree.h"

#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <set>
#include <vector>

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Whether \p W gives the variable a value without reading the old one, so
/// no earlier write reaches past it.
bool replacesValue(const Write &W) {
  return W.Kind == WriteKind::Init || W.Kind == WriteKind::Assign;
}

/// Whether \p W is a write the graph can place and whose effect is known:
/// the variable changes there and nowhere else.
bool placeable(const Write &W) {
  switch (W.Kind) {
  case WriteKind::Init:
  case WriteKind::Assign:
  case WriteKind::Compound:
  case WriteKind::IncDec:
    return true;
  case WriteKind::AddressPass:
  case WriteKind::Element:
  case WriteKind::Escape:
    return false;
  }
  return false;
}

} // namespace

ReachingWrites::ReachingWrites(const FunctionDecl &F, ASTContext &Context) {
  const Stmt *Body = F.getBody();
  // Exceptions leave a block where the graph has no edge.
  if (!Body ||
      findFirst(Body, [](const Stmt *S) { return isa<CXXTryStmt>(S); }))
    return;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  Graph = CFG::buildCFG(&F, const_cast<Stmt *>(Body), &Context, Options);
  if (!Graph)
    return;
  Facts = std::make_unique<BranchFacts>(F, Context);
  for (const CFGBlock *Block : *Graph) {
    unsigned Index = 0;
    for (const CFGElement &E : *Block) {
      if (std::optional<CFGStmt> S = E.getAs<CFGStmt>())
        Place.try_emplace(S->getStmt(), Block, Index);
      ++Index;
    }
  }
}

ReachingWrites::~ReachingWrites() = default;

std::optional<PathFacts>
ReachingWrites::factsOnEdge(PathFacts Known, const CFGBlock &Pred,
                            const CFGBlock &Succ) const {
  const Stmt *Branch = Pred.getTerminatorStmt();
  const auto *Logical = dyn_cast_or_null<BinaryOperator>(Branch);
  if (Pred.succ_size() != 2 ||
      !(isa_and_nonnull<IfStmt>(Branch) || (Logical && Logical->isLogicalOp())))
    return Known;
  // The first successor is where the condition holds, the second where
  // it does not.
  const CFGBlock *Then = Pred.succ_begin()[0].getReachableBlock();
  const CFGBlock *Else = Pred.succ_begin()[1].getReachableBlock();
  const auto *Condition = dyn_cast_or_null<Expr>(Pred.getTerminatorCondition());
  if (!Condition || Then == Else || (Then != &Succ && Else != &Succ))
    return Known;
  return Facts->narrowByBranch(std::move(Known), Condition, Then == &Succ);
}

std::optional<Reach> ReachingWrites::reaching(ArrayRef<Write> Writes,
                                              const Stmt &Use) const {
  auto UseAt = Place.find(&Use);
  if (!Graph || UseAt == Place.end())
    return std::nullopt;
  llvm::DenseMap<const Stmt *, unsigned> WriteAt;
  for (unsigned I = 0; I < Writes.size(); ++I) {
    if (!placeable(Writes[I]) || !Place.count(Writes[I].Where))
      return std::nullopt;
    WriteAt[Writes[I].Where] = I;
  }
  Reach Out;
  Out.Writes.resize(Writes.size());
  // Walk back from the read: a block, the index of the element after the
  // last one to look at, and what the path knows of local integers there.
  // A block is entered from its end once for each set of facts.
  struct Point {
    const CFGBlock *Block;
    unsigned End;
    PathFacts Known;
  };
  llvm::SmallVector<Point, 16> Work;
  std::set<std::pair<const CFGBlock *, std::vector<ValueFact>>> Entered;
  Work.push_back({UseAt->second.first, UseAt->second.second, {}});
  while (!Work.empty()) {
    Point At = Work.pop_back_val();
    bool Ended = false;
    for (unsigned I = At.End; I-- > 0 && !Ended;) {
      std::optional<CFGStmt> S = (*At.Block)[I].getAs<CFGStmt>();
      if (!S)
        continue;
      if (auto It = WriteAt.find(S->getStmt()); It != WriteAt.end()) {
        Out.Writes.set(It->second);
        Ended = replacesValue(Writes[It->second]);
      }
      if (Ended)
        break;
      std::optional<PathFacts> Before =
          Facts->stepBack(std::move(At.Known), *S->getStmt());
      if (!Before)
        Ended = true; // No run takes this path.
      else
        At.Known = std::move(*Before);
    }
    if (Ended)
      continue;
    if (At.Block == &Graph->getEntry())
      Out.FromEntry = true;
    for (const CFGBlock::AdjacentBlock &Pred : At.Block->preds()) {
      const CFGBlock *P = Pred.getReachableBlock();
      std::optional<PathFacts> Known =
          P ? factsOnEdge(At.Known, *P, *At.Block) : std::nullopt;
      if (Known &&
          Entered
              .insert({P, std::vector<ValueFact>(Known->begin(), Known->end())})
              .second)
        Work.push_back({P, P->size(), std::move(*Known)});
    }
  }
  return Out;
}

} // namespace analysis
} // namespace mpilift
