//===- SessionImpl.h - The state of a check session -------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a check session collects over all translation units, shared by
/// Session.cpp (running units, applying fixes) and UnitCheck.cpp (the
/// rules on one unit's AST).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_CHECK_SESSIONIMPL_H
#define MPILIFT_LIB_CHECK_SESSIONIMPL_H

#include "CompilerFlags.h"

#include "mpilift/Analysis/ProjectFacts.h"
#include "mpilift/Check/GlobList.h"
#include "mpilift/Check/Session.h"

#include "clang/Tooling/Tooling.h"

#include <mutex>
#include <set>

namespace mpilift {
namespace check {

class CheckSession::Impl {
public:
  explicit Impl(SessionOptions TheOptions)
      : Options(std::move(TheOptions)),
        Wrappers(std::make_shared<MPIWrapperFlags>(
            Options.QueryDriver, [this](std::string Text) {
              message(SessionMessage::Warning, std::move(Text));
            })) {}

  /// Reports \p Text now (OnMessage) or keeps it.
  void message(SessionMessage::Kind Kind, std::string Text) {
    SessionMessage M{Kind, std::move(Text)};
    std::lock_guard<std::mutex> Lock(MessageMutex);
    if (Options.OnMessage)
      Options.OnMessage(M);
    else
      Messages.push_back(std::move(M));
  }

  SessionOptions Options;
  /// Held while a translation unit is analysed (units parse in parallel).
  std::mutex Mutex;
  TraceEvidence Evidence;
  BlockedTime Blocked;
  std::shared_ptr<MPIWrapperFlags> Wrappers;
  /// The configuration files whose QueryDriver was ignored (said once).
  std::set<std::string> IgnoredQueryDrivers;
  /// Rewrites per file, deduplicated by their edits (a header pattern is
  /// reached from every translation unit that includes it).
  std::map<std::string,
           std::vector<std::pair<std::string, clang::tooling::AtomicChange>>>
      Changes;
  std::set<std::string> SeenChanges;
  /// Patterns (real path:offset) some translation unit refused: a header
  /// pattern proven in one unit and refused in another is not rewritten,
  /// since one edit would serve both.
  std::set<std::string> RefusedSites;
  unsigned Findings = 0, Rewritable = 0, Suppressed = 0;
  unsigned Parsed = 0, ParseFailures = 0, ConfigErrors = 0;
  bool AnyError = false;
  std::vector<Finding> Results;
  /// For each rewritten file, a translation unit that includes it, to parse
  /// the rewrite again before writing it.
  std::map<std::string, std::string> Origin;
  /// The sink of the last run (what a later pass reports to).
  FindingSink *Sink = nullptr;
  /// The facts of every unit of the database, built by the first run
  /// (null: the units are checked alone).
  std::unique_ptr<analysis::ProjectFacts> Project;
  bool ProjectBuilt = false;

private:
  std::mutex MessageMutex;
  std::vector<SessionMessage> Messages;
  friend class CheckSession;
};

/// A tool over \p Files with the session's adjusters, reading through
/// \p FS when given.
std::unique_ptr<clang::tooling::ClangTool>
newTool(const clang::tooling::CompilationDatabase &Compilations,
        const std::vector<std::string> &Files, CheckSession::Impl &S,
        llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS);

/// \p FS, or (when null) a file system of the machine's own whose working
/// directory belongs to it alone: for a tool on one of several threads,
/// whose chdir on the process's would move every other thread's relative
/// paths.
inline llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
fileSystemForThread(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  return FS ? FS : llvm::vfs::createPhysicalFileSystem();
}

/// The frontend action that runs the rules on each unit of a session,
/// reporting its findings to \p Sink (may be null).
std::unique_ptr<clang::tooling::FrontendActionFactory>
newUnitCheckFactory(CheckSession::Impl &Session, FindingSink *Sink);

/// Whether \p Checks enables one of the overlap rules.
bool anyOverlapRule(const GlobList &Checks);

/// The fingerprint of a finding of \p Rule at \p Statement of \p Function:
/// the rule, the function and the statement's text without white space,
/// which survives edits elsewhere in the file and moves with the code.
std::string fingerprintOf(llvm::StringRef Rule,
                          const clang::FunctionDecl &Function,
                          const clang::Stmt *Statement,
                          const clang::ASTContext &Context);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_LIB_CHECK_SESSIONIMPL_H
