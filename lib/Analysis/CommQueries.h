//===- CommQueries.h - Which values are the rank and the size ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Whether a variable, a parameter, a field or a global holds what
/// MPI_Comm_rank or MPI_Comm_size gives for a communicator: every write of
/// it is that query (a parameter: every caller passes such a value; a field
/// or a static global: every write in the translation unit is). The
/// communicator is named by the expression the query was given, so a
/// caller can compare it with the one its messages use.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_COMMQUERIES_H
#define MPILIFT_LIB_ANALYSIS_COMMQUERIES_H

#include "FunctionFacts.h"

#include <optional>

namespace mpilift {
namespace analysis {

enum class CommQuery { Rank, Size };

/// A communicator as the source names it: a predefined handle
/// (`MPI_COMM_WORLD`), or the variable, parameter or field holding it.
struct CommKey {
  std::string Handle;
  const clang::ValueDecl *Decl = nullptr;

  bool valid() const { return !Handle.empty() || Decl; }
  bool operator==(const CommKey &O) const {
    return Handle == O.Handle && Decl == O.Decl;
  }
  bool operator!=(const CommKey &O) const { return !(*this == O); }
};

/// The field a getter call returns: `team.rank()` where
/// `int rank() const { return rank_; }` (a member function whose body
/// returns a field of its own object and does nothing else). Null for any
/// other expression.
const clang::MemberExpr *getterField(const clang::Expr *E);

/// The communicator \p E names in \p Where; invalid when it is anything
/// else (a call, an array element).
CommKey commKey(const clang::Expr *E, const clang::ASTContext &Context);

/// The communicator \p E names in \p Where, through local copies: a
/// local variable of \p Where whose every write assigns it the same
/// communicator (`comm = PANEL->grid->row_comm;`) is that communicator.
CommKey followedCommKey(const clang::Expr *E, const clang::FunctionDecl &Where,
                        TranslationUnitFacts &TU);

/// What a query's result holds: which query, on which communicator.
struct QueryValue {
  CommQuery Query;
  CommKey Comm;
};

/// What \p D holds when read in \p Where, if it is a query's result: a
/// local or parameter of \p Where (a parameter: every caller passes such
/// a value, on the communicator it passes for one of \p Where's own
/// communicator parameters, or on one fixed communicator), a field (every
/// write of it in the unit is the query, and every member function is
/// defined here), or a static global (every write in the unit is).
std::optional<QueryValue> queryValueOf(const clang::ValueDecl *D,
                                       const clang::FunctionDecl &Where,
                                       TranslationUnitFacts &TU,
                                       unsigned Depth = 0);

/// The query whose result the field use \p Use receives (`&s->rank` passed
/// to `MPI_Comm_rank(s->comm, ...)`); nothing for any other use.
std::optional<QueryValue> queryWritingField(const clang::MemberExpr &Use,
                                            clang::ASTContext &Context);

/// Whether each write of the communicator field \p Comm is followed, in
/// its function, by a query that writes \p Field again: otherwise a later
/// write (`MPI_Comm_split(t->comm, ..., &t->comm)` in a helper) leaves the
/// field the rank or size in the communicator it replaced. Freeing it
/// (MPI_Comm_free) leaves nothing to query; copies of whole objects
/// (implicit member functions) copy both fields together.
bool queriedAfterCommWrites(const clang::FieldDecl *Field,
                            const clang::FieldDecl *Comm,
                            TranslationUnitFacts &TU);

/// Whether the field use \p Use is the communicator MPI_Comm_free releases
/// (`MPI_Comm_free(&t->comm)`).
bool freesField(const clang::MemberExpr &Use, clang::ASTContext &Context);

/// The MPI_Comm_size call that statement \p S is (`MPI_Comm_size(c,
/// &n);`, also as `ierr = MPI_Comm_size(c, &n);`) when it writes the size
/// into a local variable, which \p Size receives; null otherwise.
const clang::CallExpr *sizeQueryStatement(const clang::Stmt *S,
                                          const clang::VarDecl **Size);

/// The variable statement \p S computes as a whole: the one of
/// assignedVariable(S), or the size a sizeQueryStatement writes.
const clang::VarDecl *computedVariable(const clang::Stmt *S);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_COMMQUERIES_H
