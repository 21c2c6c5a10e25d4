//===- Server.h - mpilift's language server ---------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mpilift lsp`: a Language Server Protocol 3.17 server over a message
/// stream. It checks the open documents with the same engine as `mpilift
/// check` (check/Session.h), on the editor's unsaved text, publishes the
/// findings as diagnostics and offers their rewrites as code actions (one
/// quick fix per finding, and a source action with every rewrite of the
/// file), formatted as `--fix` writes them.
///
/// Checks run on a worker thread: an edit schedules a check of its
/// document after a quiet interval, a newer edit replaces the scheduled
/// one, and the result of a check whose document changed meanwhile is
/// dropped. Bad input (malformed JSON-RPC, unknown methods, a file without
/// a compile command, a unit that does not parse) is answered, never
/// fatal.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LSP_SERVER_H
#define MPILIFT_LSP_SERVER_H

#include "mpilift/Check/Session.h"
#include "mpilift/LSP/Transport.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <memory>
#include <string>

namespace mpilift {
namespace lsp {

/// What `mpilift lsp`'s command line sets; initializationOptions may
/// override the trace, patterns, checks, collectives and the wrappers
/// that may run.
struct ServerOptions {
  /// The engine's options (Checks, Collectives, QueryDriver, ...).
  check::SessionOptions Check;
  /// A trace directory or a patterns file (`mpilift detect --format json`)
  /// whose patterns are the evidence; at most one.
  std::string TraceDir, PatternsFile;
  /// The build directory holding compile_commands.json; empty: the nearest
  /// one above each document, as `mpilift check` finds it.
  std::string CompileCommandsDir;
  /// Prefix of the rules' pages (`<DocsBase>docs/checks/<rule>.md`).
  std::string DocsBase;
  /// Quiet interval after an edit before the document is checked.
  unsigned DebounceMs = 300;
  /// The patterns of a trace directory as `mpilift detect --format json`
  /// writes them (the trace reader lives with the command-line tool).
  std::function<llvm::Expected<llvm::json::Value>(llvm::StringRef Dir)>
      LoadTrace;
  std::string Version;
};

/// One server: reads messages until `exit` or the end of input.
class LanguageServer {
public:
  LanguageServer(ServerOptions Options, MessageReader &In, MessageWriter &Out);
  ~LanguageServer();
  LanguageServer(const LanguageServer &) = delete;
  LanguageServer &operator=(const LanguageServer &) = delete;

  /// Serves; returns the exit status: 0 after `shutdown` then `exit`, 1
  /// when the input ended or `exit` came without `shutdown`.
  int run();

  class Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace lsp
} // namespace mpilift

#endif // MPILIFT_LSP_SERVER_H
