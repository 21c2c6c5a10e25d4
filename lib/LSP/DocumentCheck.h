//===- DocumentCheck.h - One check of one open document ---------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs the check engine on an editor's buffer: the document's text over
/// the real file system, the compile command found as `mpilift check`
/// finds it, and the evidence of a trace. The result is what the server
/// publishes: the document's findings, each with the edits of its quick
/// fix, and the edits of all of them together.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_LSP_DOCUMENTCHECK_H
#define MPILIFT_LIB_LSP_DOCUMENTCHECK_H

#include "mpilift/Check/Session.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mpilift {
namespace lsp {

/// A finding of the document with its quick fix (text edits of the
/// document; empty when it offers none).
struct CheckedFinding {
  check::Finding F;
  llvm::json::Array Edits;
};

/// What one check of a document found.
struct DocumentResult {
  std::vector<CheckedFinding> Findings;
  /// Every rewrite of the document together, as --fix writes the file.
  llvm::json::Array FixAll;
  /// Problems that are not findings: no compile command, a unit that does
  /// not parse. Each becomes a diagnostic at the first line (or where the
  /// parse failed).
  struct Problem {
    std::string Message;
    unsigned Line = 1, Column = 1;
  };
  std::vector<Problem> Problems;
  /// What the session said along the way (wrappers not run, ...).
  std::vector<check::SessionMessage> Messages;
};

/// What a check of a document needs besides the document.
struct DocumentCheckSettings {
  check::SessionOptions Options;
  std::string CompileCommandsDir;
  /// The patterns of a trace (detect's JSON document) and where they came
  /// from; null when there is no evidence.
  const llvm::json::Value *Patterns = nullptr;
  std::string PatternsOrigin;
  /// The document's precompiled preamble (null: parse the headers every
  /// time).
  std::shared_ptr<check::InvocationHook> Preamble;
};

/// Checks \p Text as the content of \p Path.
DocumentResult checkDocument(const DocumentCheckSettings &Settings,
                             llvm::StringRef Path, llvm::StringRef Text);

} // namespace lsp
} // namespace mpilift

#endif // MPILIFT_LIB_LSP_DOCUMENTCHECK_H
