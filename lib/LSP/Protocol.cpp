//===- Protocol.cpp - LSP positions, URIs and edits -----------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/LSP/Protocol.h"

#include "mpilift/Check/Edits.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace mpilift {
namespace lsp {

std::string uriFromPath(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-_.~").contains(C)) {
      Uri += C;
      continue;
    }
    Uri += '%';
    Uri += llvm::hexdigit(static_cast<unsigned char>(C) >> 4);
    Uri += llvm::hexdigit(static_cast<unsigned char>(C) & 15);
  }
  return Uri;
}

llvm::Expected<std::string> pathFromUri(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return llvm::createStringError("'" + Uri.str() +
                                   "' is not a file: URI; only files on this "
                                   "machine are checked");
  // An authority ("file://host/path") other than empty or localhost names
  // another machine.
  if (!Uri.starts_with("/") && !Uri.consume_front("localhost"))
    return llvm::createStringError("'file://" + Uri.str() +
                                   "' names a file on another host");
  std::string Path;
  for (size_t I = 0; I < Uri.size(); ++I) {
    if (Uri[I] != '%') {
      Path += Uri[I];
      continue;
    }
    unsigned Hi, Lo;
    if (I + 2 >= Uri.size() || (Hi = llvm::hexDigitValue(Uri[I + 1])) == ~0U ||
        (Lo = llvm::hexDigitValue(Uri[I + 2])) == ~0U)
      return llvm::createStringError("bad escape in the URI 'file://" +
                                     Uri.str() + "'");
    Path += static_cast<char>(Hi * 16 + Lo);
    I += 2;
  }
  if (!llvm::sys::path::is_absolute(Path))
    return llvm::createStringError("'file://" + Uri.str() +
                                   "' is not an absolute path");
  return Path;
}

namespace {

/// How many UTF-16 code units the UTF-8 bytes of \p Bytes take (a byte
/// that starts no valid sequence counts as one).
int utf16Length(llvm::StringRef Bytes) {
  int N = 0;
  for (size_t I = 0; I < Bytes.size();) {
    unsigned Len = llvm::getNumBytesForUTF8(Bytes[I]);
    if (Len == 0 || I + Len > Bytes.size())
      Len = 1;
    N += Len == 4 ? 2 : 1;
    I += Len;
  }
  return N;
}

/// The byte offset where line \p Line (0-based) starts, or the text's size.
size_t lineStart(llvm::StringRef Text, int Line) {
  size_t Offset = 0;
  for (int L = 0; L < Line; ++L) {
    size_t End = Text.find('\n', Offset);
    if (End == llvm::StringRef::npos)
      return Text.size();
    Offset = End + 1;
  }
  return Offset;
}

} // namespace

Position positionAt(llvm::StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  llvm::StringRef Before = Text.take_front(Offset);
  Position P;
  P.Line = static_cast<int>(Before.count('\n'));
  size_t Start = Before.rfind('\n');
  Start = Start == llvm::StringRef::npos ? 0 : Start + 1;
  P.Character = utf16Length(Before.drop_front(Start));
  return P;
}

size_t offsetAt(llvm::StringRef Text, Position P) {
  size_t Start = lineStart(Text, P.Line);
  size_t End = Text.find('\n', Start);
  if (End == llvm::StringRef::npos)
    End = Text.size();
  int Units = 0;
  size_t I = Start;
  while (I < End && Units < P.Character) {
    unsigned Len = llvm::getNumBytesForUTF8(Text[I]);
    if (Len == 0 || I + Len > End)
      Len = 1;
    Units += Len == 4 ? 2 : 1;
    I += Len;
  }
  return I;
}

Position positionOf(llvm::StringRef Text, unsigned Line, unsigned Column) {
  size_t Start = lineStart(Text, Line > 0 ? int(Line) - 1 : 0);
  size_t End = Text.find('\n', Start);
  if (End == llvm::StringRef::npos)
    End = Text.size();
  size_t Offset = std::min(Start + (Column > 0 ? Column - 1 : 0), End);
  return positionAt(Text, Offset);
}

llvm::json::Value toJSON(const Position &P) {
  return llvm::json::Object{{"line", P.Line}, {"character", P.Character}};
}

llvm::json::Value toJSON(const Range &R) {
  return llvm::json::Object{{"start", toJSON(R.Start)}, {"end", toJSON(R.End)}};
}

bool fromJSON(const llvm::json::Value &V, Position &P, llvm::json::Path Path) {
  llvm::json::ObjectMapper O(V, Path);
  return O && O.map("line", P.Line) && O.map("character", P.Character);
}

bool fromJSON(const llvm::json::Value &V, Range &R, llvm::json::Path Path) {
  llvm::json::ObjectMapper O(V, Path);
  return O && O.map("start", R.Start) && O.map("end", R.End);
}

llvm::json::Array textEditsBetween(llvm::StringRef Before,
                                   llvm::StringRef After) {
  std::optional<check::LineSpanEdit> Span = check::changedLines(Before, After);
  if (!Span)
    return {};
  Range R{positionAt(Before, Span->Begin), positionAt(Before, Span->End)};
  return llvm::json::Array{
      llvm::json::Object{{"range", toJSON(R)}, {"newText", Span->Text}}};
}

Range rangeOf(llvm::StringRef Text, const check::Place &Where) {
  Position Start = positionOf(Text, Where.Line, Where.Column);
  size_t Begin = offsetAt(Text, Start);
  size_t End = Text.find('\n', Begin);
  if (End == llvm::StringRef::npos)
    End = Text.size();
  llvm::StringRef Rest = Text.slice(Begin, End).rtrim();
  return {Start, positionAt(Text, Begin + Rest.size())};
}

namespace {

/// The range of \p Where in the document (\p Uri, \p Text) or, for another
/// file, in that file as it is on disk.
llvm::json::Object locationOf(const check::Place &Where,
                              llvm::StringRef DocumentPath,
                              llvm::StringRef Text) {
  std::string Uri = uriFromPath(Where.File);
  if (Where.File == DocumentPath)
    return llvm::json::Object{{"uri", Uri},
                              {"range", toJSON(rangeOf(Text, Where))}};
  auto Other = llvm::MemoryBuffer::getFile(Where.File);
  Range R;
  if (Other)
    R = rangeOf((*Other)->getBuffer(), Where);
  else
    R.Start = R.End = {int(Where.Line) - 1, int(Where.Column) - 1};
  return llvm::json::Object{{"uri", Uri}, {"range", toJSON(R)}};
}

/// The page of \p Rule under \p DocsBase.
std::string pageOf(llvm::StringRef Rule, llvm::StringRef DocsBase) {
  for (const check::RuleInfo &R : check::allRules())
    if (R.Id == Rule)
      return (DocsBase + R.HelpUri).str();
  return (DocsBase + "docs/checks/" + Rule + ".md").str();
}

/// \p F's message without the rule id that ends it in text output; LSP
/// carries it as the diagnostic's code.
std::string messageOf(const check::Finding &F) {
  llvm::StringRef M = F.Message;
  M.consume_back(" [" + F.Rule + "]");
  return M.str();
}

} // namespace

llvm::json::Object diagnosticOf(const check::Finding &F, llvm::StringRef Text,
                                llvm::StringRef DocsBase) {
  // DiagnosticSeverity: 1 error, 2 warning, 3 information.
  int Severity = F.Error ? 1 : F.Remark ? 3 : 2;
  llvm::json::Object D{{"range", toJSON(rangeOf(Text, F.Where))},
                       {"severity", Severity},
                       {"code", F.Rule},
                       {"codeDescription",
                        llvm::json::Object{{"href", pageOf(F.Rule, DocsBase)}}},
                       {"source", "mpilift"},
                       {"message", messageOf(F)}};
  llvm::json::Array Related;
  for (const check::Note &N : F.Notes)
    Related.push_back(llvm::json::Object{
        {"location", locationOf(N.Where, F.Where.File, Text)},
        {"message", N.Message}});
  if (!Related.empty())
    D["relatedInformation"] = std::move(Related);
  return D;
}

} // namespace lsp
} // namespace mpilift
