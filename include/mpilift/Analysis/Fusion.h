//===- Fusion.h - Sequences of collectives one collective replaces -*- C++ -*-//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Gorlatch's fusion rules (seed 001, section 3) on the MPI collective
/// calls a function makes: a sequence of collectives whose composition is
/// one collective is replaced by it. The rules implemented are those that
/// pay at every message size and process count:
///
///  - MPI_Reduce to a root followed by MPI_Bcast of the reduced buffer from
///    that root is MPI_Allreduce;
///  - MPI_Gather to a root followed by MPI_Bcast of the gathered buffer
///    from that root is MPI_Allgather; with MPI_Gatherv, MPI_Allgatherv,
///    when every rank holds the root's counts and displacements and the
///    blocks are exactly what the broadcast sends;
///  - independent MPI_Allreduce, MPI_Reduce or MPI_Bcast calls back to
///    back, with one operation, datatype, root and communicator, are one
///    call on a packed buffer;
///  - MPI_Bcast of a buffer followed by MPI_Reduce, MPI_Allreduce or
///    MPI_Scan of that buffer combines p copies (rank + 1 for the scan) of
///    one value, which each rank that needs the result computes itself:
///    the broadcast stays, the second collective becomes a local
///    combination (rules BR-Local, BR-Alllocal and BS-Comcast);
///  - MPI_Scatter in a loop over every rank as the root, each into its
///    block of one array, is MPI_Alltoall;
///  - MPI_Scan with an operation that distributes over the operation of
///    the MPI_Reduce, MPI_Allreduce or MPI_Scan that follows on its result
///    is one collective on pairs (rules SR2-Reduction and SS2-Scan), where
///    the cost model says it pays.
///
/// The calls are statements of one block; the statements between a pair
/// stay, in place, and must not see the difference: before the fusion
/// only the root holds the result there, after it every rank does. So
/// nothing between them may communicate (message-order), touch the result
/// or call what could (message-integrity), or change the second call's
/// arguments (matching-arguments). A floating-point sum or product, or an
/// operation the program defines, may round differently when MPI combines
/// the values in another order, or in another algorithm for another
/// message size (reduction-order): refused unless the user allows
/// reassociation.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_FUSION_H
#define MPILIFT_ANALYSIS_FUSION_H

#include "mpilift/Analysis/CostModel.h"
#include "mpilift/Analysis/ManualCollective.h"
#include "mpilift/MPI/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpilift {
namespace analysis {

class TranslationUnitFacts;
class ProjectFacts;

enum class FusionKind {
  ReduceBcast,      ///< MPI_Reduce, MPI_Bcast of its result: MPI_Allreduce.
  GatherBcast,      ///< MPI_Gather, MPI_Bcast of its result: MPI_Allgather.
  GathervBcast,     ///< MPI_Gatherv, MPI_Bcast of its result: Allgatherv.
  Packed,           ///< Independent calls of one collective: one, packed.
  BcastReduce,      ///< MPI_Bcast, MPI_Reduce of it: local at the root.
  BcastAllreduce,   ///< MPI_Bcast, MPI_Allreduce of it: local everywhere.
  BcastScan,        ///< MPI_Bcast, MPI_Scan of it: local on each rank.
  RotatingScatters, ///< MPI_Scatter from every root in turn: MPI_Alltoall.
  ScanReduce,       ///< MPI_Scan, MPI_Reduce of its result: on pairs.
  ScanAllreduce,    ///< MPI_Scan, MPI_Allreduce of its result: on pairs.
  ScanScan,         ///< MPI_Scan, MPI_Scan of its result: on pairs.
  /// MPI_Bcast, MPI_Scan of the broadcast buffer, then MPI_Reduce,
  /// MPI_Allreduce or MPI_Scan of the scan's result: computed where the
  /// last call stood (BSR-, BSR2-Local, BSS-, BSS2-Comcast).
  BcastScanReduce,
  BcastScanAllreduce,
  BcastScanScan,
};

/// Whether \p Kind keeps the broadcast and computes locally what the
/// second collective combined.
bool isLocalFusion(FusionKind Kind);

/// Whether \p Kind is a scan followed by a reduction or scan of its
/// result, which one collective on pairs replaces (rules SR2-Reduction
/// and SS2-Scan).
bool isScanPair(FusionKind Kind);

/// Whether \p Kind is a broadcast, a scan of its buffer and a combination
/// of the scan's result, which each rank that needs the last result
/// computes from the broadcast value.
bool isBcastScanTriple(FusionKind Kind);

/// The C expression combining \p A and \p B (already parenthesised) by
/// the predefined operation \p Op ("MPI_SUM"), or nothing for an operation
/// without one (MPI_MAXLOC, the program's own).
std::optional<std::string> combinedInC(llvm::StringRef Op, llvm::StringRef A,
                                       llvm::StringRef B);

/// One sequence of collective calls one call replaces.
struct FusionSite {
  FusionKind Kind = FusionKind::ReduceBcast;
  const clang::FunctionDecl *Function = nullptr;
  const clang::CompoundStmt *Block = nullptr;
  /// The statements of Block holding the calls, and the calls, in order.
  std::vector<const clang::Stmt *> Stmts;
  std::vector<const clang::CallExpr *> Calls;
  /// ReduceBcast: the send buffer the fused call takes (the reduction's,
  /// or "MPI_IN_PLACE" when the root reduces in place and the others send
  /// from the result buffer).
  std::string SendBuffer;
  /// RotatingScatters: the array whose blocks the scatters receive into.
  std::string RecvArray;
  /// Packed and the local fusions: the C type of the elements.
  std::string ElementType;
  std::vector<int64_t> Counts;
  /// The scan pairs: the two calls' operations as spelled ("MPI_PROD").
  std::vector<std::string> Operations;
  /// The scan pairs: the declaration of the scan's result, which the
  /// fusion leaves unused, when it declares nothing else and its
  /// initializer does nothing (`long prefix;`).
  const clang::DeclStmt *UnusedDecl = nullptr;
  /// The local fusions: the statement holding the second call (the branch
  /// of `if (ierr == MPI_SUCCESS) ierr = MPI_Reduce(...);`), which the
  /// local combination replaces.
  const clang::Stmt *LocalStmt = nullptr;
  /// Why not to fuse; empty when the fusion is safe.
  std::vector<Refusal> Refusals;
  /// A broadcast and a scan of its buffer (BS-Comcast) whose scan's result
  /// the next collective combines: why the three are not fused instead
  /// (empty when they are no such triple); the finding's notes say it.
  std::vector<Refusal> Declined;
  /// The last call of that triple.
  const clang::CallExpr *DeclinedCall = nullptr;
  /// A fusion that pays only under a condition on the machine: the cost
  /// model's prediction, which said it pays.
  std::optional<CostEstimate> Cost;

  bool isSafe() const { return Refusals.empty(); }
  /// "MPI_Reduce followed by MPI_Bcast of its result from the same root".
  std::string description() const;
  /// What replaces the calls: "MPI_Allreduce", "one MPI_Allreduce on a
  /// packed buffer".
  std::string replacement() const;
};

/// "mpilift-fuse-collectives".
llvm::StringRef fusionRuleId();

/// Finds the fusable sequences in function bodies.
class FusionFinder {
public:
  /// \p AllowReassociation: floating-point sums and products (and
  /// operations the program defines) may be combined in another order.
  /// \p Project: the facts of the program's other units (null: none).
  /// \p Profile: the machine the cost model predicts for (null: the
  /// default profile).
  FusionFinder(clang::ASTContext &Context, bool AllowReassociation,
               const ProjectFacts *Project = nullptr,
               const MachineProfile *Profile = nullptr);
  ~FusionFinder();

  /// The sequences in \p F's body, in source order.
  std::vector<FusionSite> find(const clang::FunctionDecl &F);

private:
  void findIn(const clang::FunctionDecl &F, const clang::CompoundStmt &Block,
              std::vector<FusionSite> &Out);
  /// A blocking collective after another: its statement's index, the
  /// call, and the statement holding it (the branch of `if (ierr ==
  /// MPI_SUCCESS) ierr = MPI_Bcast(...);`).
  struct NextCollective {
    unsigned Index;
    const clang::CallExpr *Call;
    const clang::Stmt *Holder;
    /// `return MPI_Bcast(...);`: the function returns the call's code.
    bool Returned = false;
    /// `if (MPI_Bcast(...) != MPI_SUCCESS) ...`: checked in place.
    bool Checked = false;
  };
  /// The first blocking collective of \p Block after the call at \p First
  /// (in \p F), with only plain statements between; it may run only if
  /// the first call succeeded, while nothing between changes that code.
  std::optional<NextCollective> nextCollective(const clang::CompoundStmt &Block,
                                               unsigned First,
                                               const clang::FunctionDecl &F);
  /// The MPI_Bcast of the result of the call at \p First, if it is the
  /// next collective (in \p F).
  std::optional<NextCollective>
  broadcastOfResult(const clang::CompoundStmt &Block, unsigned First,
                    const clang::FunctionDecl &F);
  /// Whether \p V of \p F is written after \p First and before \p Last.
  bool writtenBetween(const clang::VarDecl *V, const clang::FunctionDecl &F,
                      const clang::Stmt *First, const clang::Stmt *Last) const;
  /// Judges what lies between the two calls of a pair and what they
  /// combine.
  void judgePair(FusionSite &Site, unsigned FirstIndex, unsigned SecondIndex);
  /// Refuses a pair whose calls' codes one fused call cannot keep: checked
  /// in place in different ways, or returned after a first call that
  /// accumulates or checks its code.
  void judgeCodeFlow(FusionSite &Site);
  void judgeReduceBcast(FusionSite &Site);
  void judgeGatherBcast(FusionSite &Site);
  /// matching-arguments, source-form: the broadcast's datatype is the
  /// gather's receive datatype, and the root does not gather in place.
  void judgeGatheredBuffer(FusionSite &Site);
  /// MPI_Gatherv (statement \p GathervIndex), MPI_Bcast of its result
  /// (\p BcastIndex): the counts and displacements, which MPI_Allgatherv
  /// reads on every rank, are the same on every rank, and the blocks they
  /// give are exactly the elements the broadcast sends
  /// (FusionGathervBlocks.cpp).
  void judgeGathervBcast(FusionSite &Site, unsigned GathervIndex,
                         unsigned BcastIndex);
  /// The MPI_Reduce, MPI_Allreduce or MPI_Scan of the buffer the call at
  /// \p First writes as its argument \p Result (a broadcast's, a scan's
  /// result), on the same communicator, if it is the next collective.
  /// \p Call is the call at \p First when the statement only holds it
  /// (`if (ierr == MPI_SUCCESS) ierr = MPI_Scan(...);`).
  std::optional<NextCollective>
  combinationOfResult(const clang::CompoundStmt &Block, unsigned First,
                      const clang::FunctionDecl &F, mpi::Role Result,
                      const clang::CallExpr *Call = nullptr);
  /// Judges a local fusion: the second call's arguments and what lies
  /// between the calls.
  /// Statement \p Skip between them is judged elsewhere (a triple's scan).
  void judgeLocal(FusionSite &Site, unsigned FirstIndex, unsigned SecondIndex,
                  std::optional<unsigned> Skip = std::nullopt);
  /// The fusion of the broadcast at \p I of \p Block, the scan of its
  /// buffer and a combination of the scan's result, judged, and the three
  /// statements' indices.
  struct Triple {
    FusionSite Site;
    std::array<unsigned, 3> Indices;
  };
  std::optional<Triple> bcastScanTriple(const clang::FunctionDecl &F,
                                        const clang::CompoundStmt &Block,
                                        unsigned I);
  /// Judges a broadcast (statement \p First), a scan of its buffer
  /// (\p Scan) and a combination of the scan's result (\p Last) in
  /// \p Site, whose calls are the three.
  void judgeBcastScanTriple(FusionSite &Site, unsigned First, unsigned Scan,
                            unsigned Last);
  /// The loop at \p Index of \p Block, if it scatters from every rank of
  /// the communicator as the root in turn (`for (r = 0; r < size; ++r)
  /// MPI_Scatter(..., r, comm);`), judged.
  std::optional<FusionSite> rotatingScatters(const clang::FunctionDecl &F,
                                             const clang::CompoundStmt &Block,
                                             unsigned Index);
  void judgeRotating(FusionSite &Site, const clang::VarDecl *Root);
  /// Judges a scan pair: the operations' algebra, the scan's result
  /// (nothing else may read it), what lies between, and for SS2-Scan the
  /// cost model.
  void judgeScanPair(FusionSite &Site, unsigned FirstIndex,
                     unsigned SecondIndex);
  /// message-integrity: the scan's result is a local variable or array
  /// that only the two calls of \p Site mention.
  void judgeScanResult(FusionSite &Site);
  /// What fusing a pair changes for the statements between its calls.
  struct PairEffect {
    /// The buffer those statements must leave alone.
    const clang::Expr *Held = nullptr;
    /// "MPI_Allreduce", and what the fused call moves before them ("the
    /// broadcast").
    std::string Fused, Moved;
    /// Why they must: "where only the root holds the reduced value", and
    /// what the fusion changes about it ("after MPI_Allreduce every rank
    /// would").
    std::string Holds, After;
  };
  void judgeBetween(FusionSite &Site, unsigned FirstIndex, unsigned SecondIndex,
                    const PairEffect &Effect);
  /// The packable MPI_Allreduce, MPI_Reduce or MPI_Bcast statements from
  /// \p First on: calls of one function with the same operation, datatype,
  /// root and communicator; fewer than two is none.
  unsigned packableRun(const clang::CompoundStmt &Block, unsigned First);
  void judgePacked(FusionSite &Site);
  /// Whether one call of the packed sequence is worth it, by the cost
  /// model (the copies against the start-ups saved; the prediction goes to
  /// Site.Cost); a packed MPI_Bcast of more than 64 bytes was measured
  /// slower than the calls it replaces (bench/fusion) whatever the model
  /// says. A sequence whose sizes are unknown is judged on its refusals.
  bool packingPays(FusionSite &Site) const;
  /// reduction-order: a refusal unless \p Op on \p Type is exact in any
  /// order or reassociation is allowed.
  void checkOrder(FusionSite &Site, const clang::Expr *Op,
                  const clang::Expr *Type, const clang::CallExpr *At);

  clang::ASTContext &Context;
  bool AllowReassociation;
  MachineProfile Profile;
  std::unique_ptr<TranslationUnitFacts> TU;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_FUSION_H
