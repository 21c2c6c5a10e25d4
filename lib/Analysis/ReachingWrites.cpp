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
  // Walk back from the read: (block, index of the element after the last
  // one to look at). A block is entered from its end once.
  llvm::SmallVector<std::pair<const CFGBlock *, unsigned>, 16> Work;
  llvm::DenseSet<const CFGBlock *> Entered;
  Work.push_back(UseAt->second);
  while (!Work.empty()) {
    auto [Block, End] = Work.pop_back_val();
    bool Replaced = false;
    for (unsigned I = End; I-- > 0 && !Replaced;) {
      std::optional<CFGStmt> S = (*Block)[I].getAs<CFGStmt>();
      auto It = S ? WriteAt.find(S->getStmt()) : WriteAt.end();
      if (It == WriteAt.end())
        continue;
      Out.Writes.set(It->second);
      Replaced = replacesValue(Writes[It->second]);
    }
    if (Replaced)
      continue;
    if (Block == &Graph->getEntry())
      Out.FromEntry = true;
    for (const CFGBlock::AdjacentBlock &Pred : Block->preds())
      if (const CFGBlock *P = Pred.getReachableBlock())
        if (Entered.insert(P).second)
          Work.push_back({P, P->size()});
  }
  return Out;
}

} // namespace analysis
} // namespace mpilift
