//===- ReachingWrites.h - Writes that reach a read --------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Old C codes declare their scalars at the top and reuse them: HPL's
/// HPL_pdtrsv counts `tmp1` over a rank's own rows in one loop and later
/// computes a block size from it, written anew first. A proof that asks
/// whether every write of `tmp1` is the same on every rank refuses what a
/// proof of the writes that can reach the read accepts. This finds those
/// writes on the function's control-flow graph (clang's CFG): walking back
/// from the read along every path, a write is collected where the walk
/// meets it, and an initializer or a plain assignment ends that path. A
/// path that branches on local integers rule out (BranchFacts.h: `error =
/// 1` and later the false branch of `if (error)` after a maximum over the
/// processes; the false branch of `if (rank == 0)` and later the true
/// branch of another) is not walked further.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_REACHINGWRITES_H
#define MPILIFT_LIB_ANALYSIS_REACHINGWRITES_H

#include "BranchFacts.h"
#include "FunctionFacts.h"

#include "clang/Analysis/CFG.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <optional>

namespace mpilift {
namespace analysis {

/// What may reach one read: which writes, and whether the value the
/// variable had when the function began (a parameter's, or none).
struct Reach {
  /// Bit I for the I-th write of the list asked about.
  llvm::BitVector Writes;
  bool FromEntry = false;
};

/// The control-flow graph of one function, placed for reaching writes.
class ReachingWrites {
public:
  ReachingWrites(const clang::FunctionDecl &F, clang::ASTContext &Context);
  ~ReachingWrites();

  /// Which of \p Writes (every write of one local scalar, as FunctionFacts
  /// lists them) may give the value the read \p Use sees. Nothing when the
  /// graph cannot tell: no graph (a `try`, or code clang does not build
  /// one for), a write or the read it does not place, or a write that is
  /// no initializer, assignment, compound assignment or increment (the
  /// address may let a write happen anywhere).
  std::optional<Reach> reaching(llvm::ArrayRef<Write> Writes,
                                const clang::Stmt &Use) const;

private:
  /// \p Facts at the end of \p Pred when the walk came from its successor
  /// \p Succ, narrowed by its branch; nothing when no run goes that way.
  std::optional<PathFacts> factsOnEdge(PathFacts Facts,
                                       const clang::CFGBlock &Pred,
                                       const clang::CFGBlock &Succ) const;

  std::unique_ptr<clang::CFG> Graph;
  /// What branches on local integers say (caches which are tracked).
  mutable std::unique_ptr<BranchFacts> Facts;
  /// Each statement the graph lists, with its block and index there.
  llvm::DenseMap<const clang::Stmt *,
                 std::pair<const clang::CFGBlock *, unsigned>>
      Place;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_REACHINGWRITES_H
