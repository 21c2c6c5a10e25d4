//===- ConditionalCode.h - Preprocessor conditionals of a unit --*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The proofs see the code one configuration compiles. A rewrite that
/// replaces text holding `#ifdef VERBOSE ... #endif` would drop what the
/// other configurations compile there, proven or not: the conditional
/// directives are recorded while a unit is parsed, so that such a rewrite
/// can be refused. (Text the preprocessor skipped begins at a directive, so
/// replaced text that reaches into it holds that directive.)
///
/// What the replaced text uses is configuration too when it is defined in
/// an arm of a conditional that does not also hold the text, or on the
/// command line:
///
///   #ifdef USE_MAX
///   #define COMBINE(acc, v) ((acc) = (acc) > (v) ? (acc) : (v))
///   #else
///   #define COMBINE(acc, v) ((acc) += (v))
///   #endif
///
/// A receive loop that combines with `COMBINE` (or with a function, a
/// constant or a type defined so) is a sum in one build and a maximum in
/// the other; a rewrite that deletes the use keeps only what the proven
/// build compiled. The include guard of a header is no such conditional,
/// and a function defined whole inside `#ifdef` may be rewritten inside:
/// the other build compiles none of its text.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_CHECK_CONDITIONALCODE_H
#define MPILIFT_LIB_CHECK_CONDITIONALCODE_H

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mpilift {
namespace check {

/// The conditional directives of one unit, and the uses of what they
/// define.
class ConditionalCode {
public:
  /// A conditional directive: where its name stands, and the name (`ifdef`).
  struct Directive {
    clang::SourceLocation Loc;
    std::string Name;
  };

  /// A use of a name whose meaning another configuration may change.
  struct ConfiguredUse {
    clang::SourceLocation Use;
    std::string Name;
    /// The `#define`'s name or the declaration; invalid for a definition
    /// on the command line.
    clang::SourceLocation Definition;
    /// The directive whose arm holds the definition (none on the command
    /// line).
    std::optional<Directive> Arm;
  };

  /// Callbacks that record into this object; give them to \p PP before it
  /// runs. This object must outlive them.
  std::unique_ptr<clang::PPCallbacks> recorder(clang::Preprocessor &PP);

  /// The first directive within [\p Offset, \p Offset + \p Length) of the
  /// file \p Path; none if the text holds no conditional directive.
  std::optional<Directive> within(llvm::StringRef Path, unsigned Offset,
                                  unsigned Length,
                                  const clang::SourceManager &SM) const;

  /// The first use within the same text of a macro, or of a declaration
  /// of \p Context, that is defined on the command line or in an arm of a
  /// conditional that does not hold the text. \p Library tells the
  /// definitions of MPI's and the system's headers, which are left out.
  std::optional<ConfiguredUse>
  configuredWithin(llvm::StringRef Path, unsigned Offset, unsigned Length,
                   clang::ASTContext &Context, const clang::Preprocessor &PP,
                   llvm::function_ref<bool(clang::SourceLocation)> Library);

private:
  friend class ConditionalRecorder;
  /// The text of one arm of a conditional: from its directive to the next
  /// one of the same conditional.
  struct Arm {
    clang::FileID File;
    unsigned Begin = 0, End = 0;
    Directive At;
    bool Outermost = false;
  };
  /// A name used somewhere, and where it is defined.
  struct NameUse {
    clang::SourceLocation Use;
    std::string Name;
    clang::SourceLocation Definition;
  };

  const std::vector<Arm> &arms(const clang::SourceManager &SM);
  /// The arm, other than an include guard, that holds \p Definition but
  /// not \p Use.
  std::optional<Directive> armApart(clang::SourceLocation Definition,
                                    clang::SourceLocation Use,
                                    const clang::Preprocessor &PP);
  const std::vector<NameUse> &
  declarationUses(clang::ASTContext &Context,
                  llvm::function_ref<bool(clang::SourceLocation)> Library);

  std::vector<Directive> Directives;
  std::vector<NameUse> MacroUses;
  std::optional<std::vector<Arm>> Arms;
  std::optional<std::vector<NameUse>> DeclUses;
};

} // namespace check
} // namespace mpilift

#endif // MPILIFT_LIB_CHECK_CONDITIONALCODE_H
