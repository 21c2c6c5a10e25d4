//===- SplitRanks.h - Rank and size fields set beside a split ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Process grids are rarely queried: a set-up function computes a row and
/// a column from the rank, stores them in a structure, and splits the
/// communicator by them (HPL's HPL_grid_init):
///
///   myrow = rank / npcol; mycol = rank - myrow * npcol;
///   g->myrow = myrow; g->mycol = mycol; g->npcol = npcol;
///   MPI_Comm_split(comm, myrow, mycol, &g->row_comm);
///
/// `g->mycol` is then the rank in `g->row_comm` and `g->npcol` its size,
/// though no MPI_Comm_rank says so. The split proof shows it by running
/// the function with the rank-space evaluator as every process of the
/// parent communicator, at every size up to 16 and a few up to 64, for
/// the values of the function's integer parameters that matter for a shape
/// (every enumerator of an enumeration), doing what MPI_Comm_split does with
/// the colours and keys (splits of a communicator the same function split
/// before included), and comparing what each member wrote into the field
/// with its rank in, or the size of, the new communicator. Settings in
/// which a process ends the program before a split (a guard that calls
/// MPI_Abort or exit, or an integer division by zero, whose behaviour is
/// undefined) are left out: no communicator is made in them.
///
/// The proof takes the parameters as the same on every process; whoever
/// uses it must prove that (SplitProof::Inputs).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_SPLITRANKS_H
#define MPILIFT_LIB_ANALYSIS_SPLITRANKS_H

#include "CommQueries.h"

#include <string>
#include <vector>

namespace mpilift {
namespace analysis {

/// A field write that holds the rank in, or the size of, a communicator
/// its function makes with MPI_Comm_split.
struct SplitField {
  const clang::MemberExpr *Write = nullptr; ///< `g->mycol` in `g->mycol = ..`
  /// `g->row_comm` in the split's `&g->row_comm`.
  const clang::MemberExpr *CommWrite = nullptr;
  CommQuery Query = CommQuery::Rank;
};

/// What the split proof shows of one function.
struct SplitProof {
  std::vector<SplitField> Fields;
  /// The parameters the proof gave every value of a range, as values the
  /// same on every process: the proof holds where they are.
  std::vector<const clang::ParmVarDecl *> Inputs;
  /// Why a field written beside a split is neither, by field write; also
  /// why the function was not evaluated at all (with a null write).
  std::vector<std::pair<const clang::MemberExpr *, std::string>> Refused;
  /// Functions without a body in the unit that the proof took to end the
  /// program where a process called them before a split (HPL_pabort in
  /// another file): whoever uses the proof must show that they do.
  std::vector<const clang::FunctionDecl *> AssumedEnding;
  /// Whether the function splits a communicator into a field at all.
  bool Splits = false;
};

/// The largest parent communicator the proof simulates with every value
/// from 0 to the size plus one of each input; larger ones (up to 64) take
/// the edges and every divisor of the size.
constexpr int64_t SplitProofMaxSize = 8;

/// The split proof of \p F (computed once per unit and function).
const SplitProof &splitProofOf(const clang::FunctionDecl &F,
                               TranslationUnitFacts &TU);

/// The split-proven field write \p Use is (and, in \p Proof, the proof it
/// belongs to); null when it is none.
const SplitField *splitFieldOf(const clang::MemberExpr &Use,
                               TranslationUnitFacts &TU,
                               const SplitProof **Proof = nullptr);

/// The query the write \p Use holds by its function's split proof, when
/// every input of the proof is the same on every rank (RankUniformity);
/// nothing otherwise.
std::optional<QueryValue> provenSplitQuery(const clang::MemberExpr &Use,
                                           TranslationUnitFacts &TU);

/// The first function \p Proof took to end the program that neither is
/// declared not to return nor, by the project's summaries, ends the
/// program whenever it is called; null when there is none.
const clang::FunctionDecl *unprovenEnding(const SplitProof &Proof,
                                          const TranslationUnitFacts &TU);

/// Whether the function of USR \p Key ends the program whenever it is
/// called, by the project's summaries.
bool endsProgramInProject(llvm::StringRef Key, const TranslationUnitFacts &TU);

/// Why the write \p Use, beside a split of the same object's
/// communicator, holds neither the rank nor the size in it; empty when
/// the split proof did not judge it.
std::string splitRefusalOf(const clang::MemberExpr &Use,
                           TranslationUnitFacts &TU);

/// The query the write of \p F holds: the rank or the size on the
/// communicator field the split writes.
inline QueryValue splitQuery(const SplitField &F) {
  CommKey Comm;
  Comm.Decl = F.CommWrite->getMemberDecl();
  return QueryValue{F.Query, Comm};
}

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_SPLITRANKS_H
