//===- Edits.h - Combining, formatting and verifying rewrites ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What `--fix` does with the rewrites of a file, as functions every front
/// end can run before it shows a fix-it: combine them into one change
/// (a conflict is an error), apply it formatted in the file's clang-format
/// style, and parse the translation unit with the new text in place. A
/// fix-it that fails any of these is not shown, and `--fix` does not write
/// it.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_EDITS_H
#define MPILIFT_CHECK_EDITS_H

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Tooling/Refactoring/AtomicChange.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace mpilift {
namespace check {

/// One change with every edit of \p Changes, in order. Insertions of
/// different rewrites at the same place (two rewrites declaring their
/// requests before the same statement) are put one after the other; any
/// other overlap is an error.
llvm::Expected<clang::tooling::AtomicChange>
combineChanges(llvm::StringRef File,
               llvm::ArrayRef<clang::tooling::AtomicChange> Changes);

/// \p Code, the content of \p File, with \p Changes applied together and
/// formatted in the file's clang-format style (LLVM's when the file has
/// none usable; \p StyleProblem then says why).
llvm::Expected<std::string>
applyFormatted(llvm::StringRef File, llvm::StringRef Code,
               llvm::ArrayRef<clang::tooling::AtomicChange> Changes,
               std::string *StyleProblem = nullptr);

/// The run of whole lines [Begin, End) of a text that, replaced by Text,
/// turns it into another: one edit for a front end that wants few (an
/// editor's text edit, a clang-tidy fix-it).
struct LineSpanEdit {
  size_t Begin = 0, End = 0;
  std::string Text;
};

/// The line span in which \p Before and \p After differ; nothing when they
/// are equal.
std::optional<LineSpanEdit> changedLines(llvm::StringRef Before,
                                         llvm::StringRef After);

/// Called with the invocation of a verifying parse and the main file's
/// text in it, to add what matches that text (a precompiled preamble).
using PrepareInvocation =
    std::function<void(clang::CompilerInvocation &,
                       llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>,
                       const llvm::MemoryBuffer &)>;

/// Parses the translation unit \p Invocation describes, reading the files
/// of \p Contents (path -> text) from there instead of from \p FS, with
/// \p IncludeDirs searched last (where a rewrite's new header is). A
/// precompiled preamble of \p Invocation (made for the old text) is not
/// used; \p Prepare may add one for the new text. Nothing when it
/// compiles; otherwise its first error, as "file:line:col: text".
std::optional<std::string>
compileErrorWith(const clang::CompilerInvocation &Invocation,
                 llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                 const std::map<std::string, std::string> &Contents,
                 llvm::ArrayRef<std::string> IncludeDirs = {},
                 const PrepareInvocation &Prepare = nullptr);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_EDITS_H
