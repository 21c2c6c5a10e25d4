//===- Transport.cpp - JSON-RPC messages over a byte stream ---------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/LSP/Transport.h"

#include "llvm/ADT/StringExtras.h"

#include <optional>

namespace mpilift {
namespace lsp {

namespace {

/// Reads one header line without its line end; false at the end of input
/// before any character.
bool readLine(std::FILE *In, std::string &Line) {
  Line.clear();
  int C;
  while ((C = std::fgetc(In)) != EOF) {
    if (C == '\n') {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return true;
    }
    Line += static_cast<char>(C);
  }
  return !Line.empty();
}

} // namespace

ReadStatus MessageReader::read(std::string &Body, std::string &Problem) {
  std::string Line;
  std::optional<size_t> Length;
  bool AnyHeader = false;
  while (true) {
    if (!readLine(In, Line)) {
      if (!AnyHeader)
        return ReadStatus::EndOfInput;
      Problem = "the input ended inside a header";
      return ReadStatus::BadHeader;
    }
    if (Line.empty()) {
      if (!AnyHeader)
        continue; // Blank lines between messages.
      break;
    }
    AnyHeader = true;
    auto [Name, Value] = llvm::StringRef(Line).split(':');
    if (!Name.trim().equals_insensitive("Content-Length"))
      continue;
    size_t N = 0;
    if (Value.trim().getAsInteger(10, N)) {
      Problem = "bad Content-Length '" + Value.trim().str() + "'";
      return ReadStatus::BadHeader;
    }
    Length = N;
  }
  if (!Length) {
    Problem = "a message without Content-Length";
    return ReadStatus::BadHeader;
  }
  Body.resize(*Length);
  size_t Got = *Length ? std::fread(&Body[0], 1, *Length, In) : 0;
  if (Got != *Length) {
    Problem = "the input ended inside a message of " + std::to_string(*Length) +
              " bytes";
    return ReadStatus::BadHeader;
  }
  return ReadStatus::Message;
}

void MessageWriter::send(const llvm::json::Value &Message) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << Message;
  OS.flush();
  std::lock_guard<std::mutex> Lock(Mutex);
  Out << "Content-Length: " << Text.size() << "\r\n\r\n" << Text;
  Out.flush();
}

void MessageWriter::reply(const llvm::json::Value &Id,
                          llvm::json::Value Result) {
  send(llvm::json::Object{
      {"jsonrpc", "2.0"}, {"id", Id}, {"result", std::move(Result)}});
}

void MessageWriter::replyError(const llvm::json::Value &Id, int Code,
                               llvm::StringRef Message) {
  send(llvm::json::Object{
      {"jsonrpc", "2.0"},
      {"id", Id},
      {"error", llvm::json::Object{{"code", Code}, {"message", Message}}}});
}

void MessageWriter::notify(llvm::StringRef Method, llvm::json::Value Params) {
  send(llvm::json::Object{
      {"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}});
}

} // namespace lsp
} // namespace mpilift
