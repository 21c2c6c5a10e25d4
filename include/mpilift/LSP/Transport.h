//===- Transport.h - JSON-RPC messages over a byte stream -------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The base protocol of the Language Server Protocol: each message is a
/// header part (`Content-Length: N`, other fields ignored) and an empty
/// line, then N bytes of JSON. Reading and writing are separate so that a
/// worker thread can publish diagnostics while the main thread reads.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LSP_TRANSPORT_H
#define MPILIFT_LSP_TRANSPORT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <mutex>
#include <string>

namespace mpilift {
namespace lsp {

/// What reading a message can end with besides a message.
enum class ReadStatus {
  Message,    ///< The body is in the out parameter.
  EndOfInput, ///< The stream ended between messages.
  BadHeader,  ///< No usable Content-Length; the stream cannot go on.
};

/// Reads framed messages from a C stream.
class MessageReader {
public:
  explicit MessageReader(std::FILE *In) : In(In) {}

  /// Reads the next message's body into \p Body (not yet parsed as JSON,
  /// so that a body that is not JSON can be answered with ParseError).
  /// \p Problem says what was wrong for BadHeader.
  ReadStatus read(std::string &Body, std::string &Problem);

private:
  std::FILE *In;
};

/// Writes framed messages; safe to call from several threads.
class MessageWriter {
public:
  explicit MessageWriter(llvm::raw_ostream &Out) : Out(Out) {}

  void send(const llvm::json::Value &Message);

  /// A response to request \p Id.
  void reply(const llvm::json::Value &Id, llvm::json::Value Result);
  /// An error response (JSON-RPC error codes, e.g. -32601 MethodNotFound).
  void replyError(const llvm::json::Value &Id, int Code,
                  llvm::StringRef Message);
  /// A notification from the server.
  void notify(llvm::StringRef Method, llvm::json::Value Params);

private:
  llvm::raw_ostream &Out;
  std::mutex Mutex;
};

/// JSON-RPC and LSP error codes.
enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
};

} // namespace lsp
} // namespace mpilift

#endif // MPILIFT_LSP_TRANSPORT_H
