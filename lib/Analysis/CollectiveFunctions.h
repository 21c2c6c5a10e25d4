//===- CollectiveFunctions.h - Functions that are a broadcast ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Codes wrap their hand-written collectives in functions of their own and
/// call them wherever they need one (HPL's HPL_broadcast spreads HPL.dat's
/// settings in HPL_pdinfo):
///
///   int tree_bcast(void *buf, int count, int type, int root, MPI_Comm c) {
///     int rank, size, ...;
///     if (count <= 0) return MPI_SUCCESS;
///     MPI_Comm_size(c, &size); if (size <= 1) return MPI_SUCCESS;
///     MPI_Comm_rank(c, &rank);
///     ... a binomial tree of sends and receives of buf ...
///     return err;
///   }
///
/// A call of such a function leaves its buffer the same on every process
/// of the communicator, as MPI_Bcast would, when the function is that and
/// nothing else: the rank-space evaluation proves its region a broadcast
/// with the parameters taken as the same on every process (the contract
/// every call must keep, which the caller checks), the region lies in the
/// body itself, what comes before it only computes locals, asks for the
/// rank and size, and returns where the broadcast would move nothing (a
/// count of at most 0, a communicator of one process), and after it comes
/// at most a `return` of a local. The broadcast's arguments are the
/// function's parameters (the datatype may depend on one, as HPL's
/// `HPL_2_MPI_TYPE(DTYPE)` does: it is recorded for each value of an
/// enumeration).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_COLLECTIVEFUNCTIONS_H
#define MPILIFT_LIB_ANALYSIS_COLLECTIVEFUNCTIONS_H

#include "mpilift/Analysis/MPICalls.h"
#include "mpilift/Analysis/ProjectFacts.h"

#include "clang/AST/Expr.h"

#include <optional>

namespace mpilift {
namespace analysis {

class TranslationUnitFacts;

/// Whether \p F is a broadcast through and through, and of which of its
/// parameters (computed once per unit and function).
std::optional<BroadcastFunction> broadcastFunction(const clang::FunctionDecl &F,
                                                   TranslationUnitFacts &TU);

/// A call that broadcasts: MPI_Bcast, or a function of the program that is
/// one (broadcastFunction, here or in the project's summaries), with the
/// expressions at the call that give its arguments.
struct BroadcastCall {
  const clang::CallExpr *Call = nullptr;
  const clang::Expr *Buffer = nullptr;
  /// The count and the root: an argument, or (null) a constant.
  const clang::Expr *Count = nullptr, *Root = nullptr;
  std::optional<int64_t> CountConstant, RootConstant;
  const clang::Expr *Comm = nullptr;
  /// Null when the datatype is none of MPI's predefined ones.
  const PredefinedDatatype *Type = nullptr;
  /// The function's name when it is not MPI_Bcast, for the notes.
  std::string Through;
  /// The arguments its proof took as the same on every process: whoever
  /// relies on the call must prove them so.
  std::vector<const clang::Expr *> MustAgree;
};

/// \p Call as a broadcast, when it is one.
std::optional<BroadcastCall> broadcastCallOf(const clang::CallExpr *Call,
                                             TranslationUnitFacts &TU);

/// The predefined datatype \p E names: MPI's own name, through the
/// program's macros, or the MPI name a macro of MPI's expands at its start
/// (an arm of HPL's `HPL_2_MPI_TYPE`).
const PredefinedDatatype *predefinedTypeOf(const clang::Expr *E,
                                           const clang::ASTContext &Ctx);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_COLLECTIVEFUNCTIONS_H
