//===- Findings.h - Findings of mpilift check and their outputs -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A finding as every output needs it (text goes through clang's
/// diagnostics; SARIF and the exported fixes are written from these), and
/// the writers: SARIF 2.1.0 for CI code scanning, and the YAML that
/// `clang-apply-replacements` applies.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_FINDINGS_H
#define MPILIFT_CHECK_FINDINGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace mpilift {
namespace check {

/// A place in a source file; line and column are 1-based, as clang prints.
struct Place {
  std::string File; ///< Absolute path.
  unsigned Line = 0, Column = 0;
};

/// A note attached to a finding (a refusal reason, where a wait goes).
struct Note {
  Place Where;
  std::string Message;
};

/// One text replacement of a fix: [Begin, End) becomes Text.
struct Edit {
  Place Begin, End;
  std::string Text;
};

/// One finding of one rule.
struct Finding {
  std::string Rule;   ///< "mpilift-manual-bcast".
  bool Error = false; ///< Promoted by --warnings-as-errors.
  /// A site that was examined and needs nothing (an overlap site with
  /// nothing to overlap): a remark, SARIF level "note", never an error.
  bool Remark = false;
  std::string Message;
  Place Where;
  std::vector<Note> Notes;
  std::vector<Edit> Fix;   ///< Empty when there is nothing to apply.
  std::string Fingerprint; ///< Stable across unrelated edits of the file.
};

/// What SARIF says about a rule.
struct RuleInfo {
  std::string Id, ShortDescription, HelpUri;
};

/// The rules mpilift check has, with their documentation pages.
llvm::ArrayRef<RuleInfo> allRules();

/// A SARIF 2.1.0 log with one run: the tool with a rule entry per rule,
/// and one result per finding (locations, related locations for the
/// notes, partial fingerprints, fixes).
llvm::json::Value toSarif(llvm::ArrayRef<Finding> Findings,
                          llvm::StringRef Version);

/// `clang-apply-replacements` YAML (a TranslationUnitReplacements
/// document) whose replacements turn each file's \p Before content into
/// its \p After content.
void writeReplacementsYaml(
    const std::map<std::string, std::pair<std::string, std::string>> &Files,
    llvm::raw_ostream &OS);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_FINDINGS_H
