//===- Protocol.h - LSP positions, URIs and edits ---------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The LSP structures mpilift's server needs, as functions between its
/// findings and the protocol's JSON: file URIs, positions (a line and a
/// character counted in UTF-16 code units, as LSP 3.17 requires unless a
/// client negotiates otherwise), ranges, text edits and diagnostics.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LSP_PROTOCOL_H
#define MPILIFT_LSP_PROTOCOL_H

#include "mpilift/Check/Findings.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mpilift {
namespace lsp {

/// A place in a document: 0-based line and UTF-16 character.
struct Position {
  int Line = 0, Character = 0;
  bool operator<(const Position &O) const {
    return Line < O.Line || (Line == O.Line && Character < O.Character);
  }
  bool operator==(const Position &O) const {
    return Line == O.Line && Character == O.Character;
  }
};

/// [Start, End) in a document.
struct Range {
  Position Start, End;
};

/// `file:///a%20b/c.c` for `/a b/c.c`.
std::string uriFromPath(llvm::StringRef Path);
/// The absolute path a `file:` URI names; an error for other schemes and
/// bad escapes.
llvm::Expected<std::string> pathFromUri(llvm::StringRef Uri);

/// The position of byte \p Offset of \p Text.
Position positionAt(llvm::StringRef Text, size_t Offset);
/// The byte offset of \p P in \p Text; a character past the line's end
/// means the end of the line, a line past the end the end of the text.
size_t offsetAt(llvm::StringRef Text, Position P);
/// The position of 1-based \p Line and byte \p Column (clang's).
Position positionOf(llvm::StringRef Text, unsigned Line, unsigned Column);

llvm::json::Value toJSON(const Position &P);
llvm::json::Value toJSON(const Range &R);
bool fromJSON(const llvm::json::Value &V, Position &P, llvm::json::Path Path);
bool fromJSON(const llvm::json::Value &V, Range &R, llvm::json::Path Path);

/// The text edits that turn \p Before into \p After: one edit replacing
/// the lines between their common first and last lines (empty when they
/// are equal).
llvm::json::Array textEditsBetween(llvm::StringRef Before,
                                   llvm::StringRef After);

/// Where a finding's diagnostic is shown in \p Text: from its place to
/// the end of that line's text.
Range rangeOf(llvm::StringRef Text, const check::Place &Where);

/// The LSP diagnostic of \p F, a finding in the document \p Text: rule id
/// as `code`, its page as `codeDescription`, notes as `relatedInformation`
/// (notes in other files than the finding's are read from disk for their
/// positions), severity from the finding. \p DocsBase prefixes the rules'
/// pages (`docs/checks/<rule>.md`).
llvm::json::Object diagnosticOf(const check::Finding &F, llvm::StringRef Text,
                                llvm::StringRef DocsBase);

} // namespace lsp
} // namespace mpilift

#endif // MPILIFT_LSP_PROTOCOL_H
