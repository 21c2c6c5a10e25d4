//===- SourceEdits.h - Helpers for textual rewrites -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Ranges, positions and names the rewrites of lib/Transform share.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_TRANSFORM_SOURCEEDITS_H
#define MPILIFT_LIB_TRANSFORM_SOURCEEDITS_H

#include "mpilift/Analysis/ErrorFlow.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <utility>

namespace mpilift {
namespace transform {

/// The file range of statement \p S with its semicolon; invalid when it
/// is not plain source text (a macro expansion).
clang::CharSourceRange statementRange(const clang::Stmt &S,
                                      clang::ASTContext &Context);

/// The range of statement \p S with its semicolon and, when it stands on
/// lines of its own, its indentation and line break, so deleting it leaves
/// no blank line.
clang::CharSourceRange wholeLines(const clang::Stmt &S,
                                  clang::ASTContext &Context);

/// A name starting with \p Base that no identifier of \p Code uses and
/// that is not in \p Taken; it is added to \p Taken.
std::string freshName(llvm::StringRef Base, llvm::StringRef Code,
                      llvm::StringSet<> *Taken);

/// `ierr = ` (or `ierr |= `) when a call's error code goes to \p Error;
/// empty without a variable.
std::string errorCodeTo(const analysis::ErrorFlow &Error);

/// `int ierr;` and a line break when the pattern declared the variable its
/// calls' codes go to (`int ierr = MPI_Send(...);`); empty otherwise.
std::string declarationOf(const analysis::ErrorFlow &Error);

/// `if (ierr == MPI_SUCCESS)` and a line break, so that what follows runs
/// only if the call before succeeded; empty without a variable, and for an
/// accumulated code, which may hold an earlier call's failure: the
/// original went on after it, so the rewrite does too.
std::string ifSucceeded(const analysis::ErrorFlow &Error);

/// The start of the line \p Loc is on, and that line's indentation.
std::pair<clang::SourceLocation, std::string>
lineStart(clang::SourceLocation Loc, const clang::SourceManager &SM);

} // namespace transform
} // namespace mpilift

#endif // MPILIFT_LIB_TRANSFORM_SOURCEEDITS_H
