//===- Session.h - One run of mpilift's rules over a database ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The check engine as a library: options, a compile database and optional
/// trace evidence in; typed findings (rule, severity, place, message,
/// notes, edits) out; applying the edits is a separate step. The command
/// line (`mpilift check`), the language server (`mpilift lsp`) and the
/// clang-tidy module are front ends over it.
///
/// A session checks translation units with clang's tooling: each unit is
/// parsed, the collective, fusion and overlap rules run over its functions,
/// and the rewrites a unit proposes are verified before they are offered
/// (the edits of a file go together, and the unit still compiles with
/// them). A FindingSink sees each finding while the unit's AST is alive,
/// to render it (clang's diagnostics, LSP diagnostics); every finding is
/// also kept in the session.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_SESSION_H
#define MPILIFT_CHECK_SESSION_H

#include "mpilift/Analysis/CostModel.h"
#include "mpilift/Check/Evidence.h"
#include "mpilift/Check/Findings.h"
#include "mpilift/Transform/OverlapRewrite.h"

#include "clang/Basic/SourceLocation.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Refactoring/AtomicChange.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
class CompilerInvocation;
class DiagnosticConsumer;
class SourceManager;
} // namespace clang

namespace mpilift {
namespace check {

/// The rules that run when neither the options nor .mpilift.yaml say: the
/// collective rules and the fusion rule. The overlap rules change where
/// programs block, which pays only sometimes (docs/performance.md), so they
/// run when named.
extern const char *const DefaultChecks;

/// A problem of the run a front end reports ("cannot read 'x'"; the
/// session goes on with the rest), or what it did ("applied 2 fixes in
/// 'x'").
struct SessionMessage {
  enum Kind { Error, Warning, Info } TheKind = Error;
  std::string Text;
};

/// Lets a front end reuse work between checks of one file, as an editor
/// keeps a precompiled preamble per open file. prepare() sees the
/// invocation of every parse of a unit whose main file reads \p Main: the
/// unit's own, and each that verifies rewrites with the rewritten text. It
/// may add an implicit precompiled preamble (one that matches \p Main);
/// what it remaps in the invocation must be its own copies.
class InvocationHook {
public:
  virtual ~InvocationHook();
  virtual void prepare(clang::CompilerInvocation &Invocation,
                       llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                       const llvm::MemoryBuffer &Main) = 0;
};

/// What the front end decides; .mpilift.yaml (found from each unit's main
/// file) fills what is left unset.
struct SessionOptions {
  std::optional<std::string> Checks, WarningsAsErrors, HeaderFilter,
      Collectives, Fallback;
  /// The overlap rules' options.
  transform::OverlapOptions Overlap;
  double OverlapThresholdMs = 1.0;
  bool OverlapAggressive = false;
  /// Floating-point sums and products may be combined in another order
  /// (--allow-reassociation).
  bool AllowReassociation = false;
  /// The machine the fusion cost model predicts for (--cost-profile; null:
  /// the default profile, docs/cost-profile.md).
  std::shared_ptr<const analysis::MachineProfile> Profile;
  /// Comma-separated globs of MPI compiler wrappers (paths) that may be
  /// run to ask for their flags beside those found by name on PATH
  /// (--query-driver; never taken from the repository's files).
  std::string QueryDriver;
  /// Sees each parse's invocation (null: none).
  std::shared_ptr<InvocationHook> Hook;
  /// Where the project index keeps each unit's summary between runs
  /// (empty: nowhere; docs/project-index.md).
  std::string IndexCacheDir;
  /// Keep every unit's rewrites for computeFixes().
  bool KeepFixes = false;
  /// Units checked in parallel; their clang diagnostics are printed whole
  /// and in file order.
  unsigned Jobs = 1;
  /// Where the units' diagnostics go (clang's, and what a sink reports
  /// through them); null keeps clang's default (standard error).
  clang::DiagnosticConsumer *Diagnostics = nullptr;
  /// Told each problem of the run as it happens ("cannot read 'x'") and
  /// what --fix did; without it they are kept for takeMessages().
  std::function<void(const SessionMessage &)> OnMessage;
};

/// Receives each finding of a unit while the unit's AST is alive: \p Loc
/// is where it is reported, \p Change its verified rewrite (null when it
/// offers none).
class FindingSink {
public:
  virtual ~FindingSink();
  virtual void found(const Finding &F,
                     const clang::tooling::AtomicChange *Change,
                     const clang::SourceManager &SM, clang::SourceLocation Loc,
                     clang::CompilerInstance &CI) = 0;
};

/// The new content of every file the rewrites touch, formatted in the
/// file's clang-format style: file -> (before, after).
using NewContents = std::map<std::string, std::pair<std::string, std::string>>;

/// One run of the rules: state shared by the units it checks.
class CheckSession {
public:
  explicit CheckSession(SessionOptions Options);
  ~CheckSession();
  CheckSession(const CheckSession &) = delete;
  CheckSession &operator=(const CheckSession &) = delete;

  const SessionOptions &options() const;

  /// Evidence from a trace: the sites of its patterns (a document of
  /// `mpilift detect --format json`, named \p Origin in errors), and
  /// optionally the time its blocking calls took.
  llvm::Error addPatterns(const llvm::json::Value &Doc, llvm::StringRef Origin);
  void setBlockedTime(BlockedTime Blocked);
  /// Whether the rules the options name weigh sites by blocked time (an
  /// overlap rule is named).
  bool wantsBlockedTime() const;
  const TraceEvidence &evidence() const;
  const BlockedTime &blockedTime() const;

  /// With evidence, the units of \p Files that hold its sites (see
  /// unitsWithSites; the decision goes to messages()); else \p Files.
  std::vector<std::string> unitsToCheck(std::vector<std::string> Files);

  /// Checks \p Files of \p Compilations, reporting each finding to
  /// \p Sink (if any); files are read through \p FS when given (an
  /// editor's unsaved buffers over the disk). Returns non-zero when a unit
  /// could not be run.
  int run(const clang::tooling::CompilationDatabase &Compilations,
          const std::vector<std::string> &Files, FindingSink *Sink = nullptr,
          llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr);

  /// Every finding so far, sorted by place.
  std::vector<Finding> findings() const;
  bool anyError() const;
  unsigned parseFailures() const;
  unsigned configErrors() const;
  /// Problems found along the way, in order (when no OnMessage took
  /// them).
  std::vector<SessionMessage> takeMessages();

  /// The content of every file the kept rewrites change, each verified by
  /// parsing its unit with all of them in place; false if some could not
  /// be computed (messages() says why; the others are in \p Out).
  bool computeFixes(const clang::tooling::CompilationDatabase &Compilations,
                    NewContents &Out);
  /// Writes \p Contents atomically; then runs the fusion rule once more
  /// over the units of the written files (a rewrite may have made a
  /// sequence it fuses) and writes its fixes too. False on a problem.
  bool writeFixes(const clang::tooling::CompilationDatabase &Compilations,
                  const NewContents &Contents);

  class Impl;

private:
  std::unique_ptr<Impl> P;
};

/// The real path of the file \p Loc is in (its expansion), or \p Fallback:
/// how findings name their files.
std::string realFileOf(const clang::SourceManager &SM,
                       clang::SourceLocation Loc, std::string Fallback);

/// Where the project index of a compile database keeps its summaries:
/// `.cache/mpilift` in \p DatabaseDir, or else in the nearest directory
/// above \p File that holds a compile_commands.json (empty: none).
std::string indexCacheFor(llvm::StringRef File, llvm::StringRef DatabaseDir);

/// The include directories of libcdag's header (this build's source tree,
/// or where it is installed): a libcdag fallback is compiled with them.
std::vector<std::string> cdagIncludeDirs();

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_SESSION_H
