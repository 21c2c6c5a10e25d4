//===- MPICalls.h - MPI calls in the AST ------------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The MPI vocabulary applied to Clang's AST: which MPI function a call
/// is, its argument of a role, and the predefined datatypes with their C
/// types. Shared by the analyses and the rewrites, so no one indexes MPI
/// arguments by position or keeps its own datatype table.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_MPICALLS_H
#define MPILIFT_ANALYSIS_MPICALLS_H

#include "mpilift/MPI/Vocabulary.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mpilift {
namespace analysis {

/// The MPI function \p Call calls (also by name in a template with
/// dependent arguments), or null.
const mpi::FunctionInfo *mpiCallee(const clang::CallExpr *Call);

/// Whether \p Call sends or receives a message: a blocking or nonblocking
/// send or receive, or MPI_Sendrecv.
bool isMessageCall(const clang::CallExpr *Call);

/// The argument of \p Call with role \p R, as written, or null.
const clang::Expr *mpiArgAsWritten(const clang::CallExpr *Call, mpi::Role R);
/// The same for a call already known to call \p Info's function.
const clang::Expr *mpiArgAsWritten(const clang::CallExpr *Call,
                                   const mpi::FunctionInfo &Info, mpi::Role R);

/// The same without parens and implicit casts, for the analyses.
const clang::Expr *mpiArg(const clang::CallExpr *Call, mpi::Role R);

/// Whether \p T is declared as `MPI_Datatype` (a handle in Open MPI, an
/// `int` in MPICH).
bool isDatatypeHandle(clang::QualType T);

/// The variable \p E names (through parens and implicit casts), or null.
const clang::VarDecl *namedVariable(const clang::Expr *E);

/// Whether \p S refers to \p D: by name, or as a member through `this`.
bool mentions(const clang::Stmt *S, const clang::ValueDecl *D);

/// The variable at the bottom of a buffer expression: `buf`, `&buf`,
/// `&buf[k]`, `buf + k`, `s.field`, `v.data()`, `&v[0]`, casts; a field
/// when the object is a member reached through `this`. Null when the
/// expression is anything else.
const clang::ValueDecl *bufferBase(const clang::Expr *E);

/// A predefined MPI datatype and the C type it describes.
struct PredefinedDatatype {
  llvm::StringRef MPIName; ///< "MPI_INT".
  llvm::StringRef CType;   ///< "int", for `sizeof` in generated code.
  clang::CanQualType clang::ASTContext::*Type; ///< &ASTContext::IntTy.
};

/// The name of the MPI handle (a datatype, an operation) \p E stands for:
/// the text as written when that names one of MPI's (`MPI_LONG`), else the
/// MPI name behind the program's own macros that each stand for one name
/// (`#define COUNT_T MPI_LONG`, `#define REAL_T COUNT_T`); else the text as
/// written.
std::string mpiHandleName(const clang::Expr *E,
                          const clang::ASTContext &Context);

/// The entry for the datatype spelled \p Name, or null for a derived or
/// unknown one.
const PredefinedDatatype *predefinedDatatype(llvm::StringRef Name);

/// One of MPI's datatypes for MPI_MINLOC and MPI_MAXLOC: a value and an
/// `int` index, laid out as `struct { Value v; int i; }`.
struct PairDatatype {
  llvm::StringRef MPIName;                      ///< "MPI_DOUBLE_INT".
  clang::CanQualType clang::ASTContext::*Value; ///< &ASTContext::DoubleTy.
};

/// The entry for the pair datatype spelled \p Name, or null.
const PairDatatype *pairDatatype(llvm::StringRef Name);

/// The pair datatype of values of \p Value, or null when MPI has none.
const PairDatatype *pairDatatypeOf(clang::QualType Value,
                                   const clang::ASTContext &Context);

/// Where the index of \p Pair's structure starts, in bytes.
uint64_t pairIndexOffset(const PairDatatype &Pair,
                         const clang::ASTContext &Context);

/// Whether \p Record is laid out as \p Pair's C structure: two fields, a
/// value of its type, then an `int`, and nothing else.
bool isPairRecord(const clang::RecordDecl &Record, const PairDatatype &Pair,
                  const clang::ASTContext &Context);

/// The size in bytes of the C type the predefined datatype spelled \p Name
/// describes (a pair datatype's structure included); nothing for a derived
/// or unknown one.
std::optional<uint64_t> predefinedTypeSize(llvm::StringRef Name,
                                           const clang::ASTContext &Context);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_MPICALLS_H
