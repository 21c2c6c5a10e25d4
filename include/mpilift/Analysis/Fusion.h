//===- Fusion.h - Sequences of collectives one collective replaces -*- C++ -*-//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Gorlatch's fusion rules (seed 001, section 3) on the MPI collective
/// calls a function makes: a sequence of collectives whose composition is
/// one collective is replaced by it. The rule implemented so far is the
/// one that pays at every message size and process count: MPI_Reduce to a
/// root followed by MPI_Bcast of the reduced buffer from that root is
/// MPI_Allreduce.
///
/// The two calls are statements of one block; the statements between them
/// stay, in place, and must not see the difference: before the fusion only
/// the root holds the reduced value there, after it every rank does. So
/// nothing between them may communicate (message-order), touch the result
/// or call what could (message-integrity), or change the broadcast's
/// arguments (matching-arguments). A floating-point sum or product, or an
/// operation the program defines, may round differently when MPI combines
/// the values in another order (reduction-order): refused unless the user
/// allows reassociation.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_FUSION_H
#define MPILIFT_ANALYSIS_FUSION_H

#include "mpilift/Analysis/ManualCollective.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <vector>

namespace mpilift {
namespace analysis {

/// One sequence of two collective calls one call replaces.
struct FusionSite {
  const clang::FunctionDecl *Function = nullptr;
  const clang::CompoundStmt *Block = nullptr;
  /// The statements of Block holding the two calls.
  const clang::Stmt *FirstStmt = nullptr, *SecondStmt = nullptr;
  const clang::CallExpr *First = nullptr;  ///< MPI_Reduce.
  const clang::CallExpr *Second = nullptr; ///< MPI_Bcast.
  /// The send buffer the fused call takes: the reduction's, or
  /// "MPI_IN_PLACE" when the root reduces in place and the others send
  /// from the result buffer.
  std::string SendBuffer;
  /// Why not to fuse; empty when the fusion is safe.
  std::vector<Refusal> Refusals;

  bool isSafe() const { return Refusals.empty(); }
};

/// "mpilift-fuse-collectives".
llvm::StringRef fusionRuleId();

/// Finds the fusable sequences in function bodies.
class FusionFinder {
public:
  /// \p AllowReassociation: floating-point sums and products (and
  /// operations the program defines) may be combined in another order.
  FusionFinder(clang::ASTContext &Context, bool AllowReassociation)
      : Context(Context), AllowReassociation(AllowReassociation) {}

  /// The sequences in \p F's body, in source order.
  std::vector<FusionSite> find(const clang::FunctionDecl &F);

private:
  void findIn(const clang::FunctionDecl &F, const clang::CompoundStmt &Block,
              std::vector<FusionSite> &Out);
  /// Judges what lies between the two calls of \p Site and what they
  /// combine.
  void judge(FusionSite &Site, unsigned FirstIndex, unsigned SecondIndex);

  clang::ASTContext &Context;
  bool AllowReassociation;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_FUSION_H
