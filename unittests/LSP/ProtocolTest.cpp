//===- ProtocolTest.cpp - LSP positions, URIs, edits, messages ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/LSP/Protocol.h"
#include "mpilift/Check/Edits.h"
#include "mpilift/LSP/Transport.h"

#include "gtest/gtest.h"

#include <cstdio>

using namespace mpilift;
using namespace mpilift::lsp;

namespace {

TEST(ProtocolTest, UrisRoundTripWithEscapes) {
  EXPECT_EQ(uriFromPath("/a b/c#1.c"), "file:///a%20b/c%231.c");
  llvm::Expected<std::string> Path = pathFromUri("file:///a%20b/c%231.c");
  ASSERT_TRUE(bool(Path));
  EXPECT_EQ(*Path, "/a b/c#1.c");
  llvm::Expected<std::string> Local = pathFromUri("file://localhost/x.c");
  ASSERT_TRUE(bool(Local));
  EXPECT_EQ(*Local, "/x.c");
}

TEST(ProtocolTest, BadUrisAreErrors) {
  for (const char *Uri : {"untitled:Untitled-1", "file://host/x.c",
                          "file:///x%2.c", "file:///x%zz.c", "file://x.c"}) {
    llvm::Expected<std::string> Path = pathFromUri(Uri);
    EXPECT_FALSE(bool(Path)) << Uri;
    llvm::consumeError(Path.takeError());
  }
}

TEST(ProtocolTest, PositionsCountUtf16CodeUnits) {
  // "é" is 2 bytes and 1 code unit; "😀" is 4 bytes and 2 code units.
  std::string Text = "ab\n\xC3\xA9x\xF0\x9F\x98\x80y\nlast";
  Position P = positionAt(Text, Text.find('x'));
  EXPECT_EQ(P.Line, 1);
  EXPECT_EQ(P.Character, 1);
  P = positionAt(Text, Text.find('y'));
  EXPECT_EQ(P.Character, 4);
  EXPECT_EQ(offsetAt(Text, {1, 4}), Text.find('y'));
  // Past the end of a line: its end; past the last line: the text's end.
  EXPECT_EQ(offsetAt(Text, {0, 99}), 2u);
  EXPECT_EQ(offsetAt(Text, {9, 0}), Text.size());
  // clang's 1-based byte columns.
  Position Y = positionOf(Text, 2, Text.find('y') - Text.find('\n'));
  EXPECT_EQ(Y.Line, 1);
  EXPECT_EQ(Y.Character, 4);
}

TEST(ProtocolTest, EditsReplaceWholeChangedLines) {
  std::string Before = "a\nb\nc\nd\n", After = "a\nB\nC\nd\n";
  llvm::json::Array Edits = textEditsBetween(Before, After);
  ASSERT_EQ(Edits.size(), 1u);
  const llvm::json::Object *E = Edits[0].getAsObject();
  EXPECT_EQ(E->getString("newText"), "B\nC\n");
  Range R;
  llvm::json::Path::Root Root;
  ASSERT_TRUE(fromJSON(*E->get("range"), R, Root));
  EXPECT_EQ(R.Start, (Position{1, 0}));
  EXPECT_EQ(R.End, (Position{3, 0}));
  EXPECT_TRUE(textEditsBetween(Before, Before).empty());
  // Applying the span gives the new text, also at the ends of the text.
  for (auto [Old, New] : {std::pair<std::string, std::string>{"x\ny", "z\ny"},
                          {"x\ny", "x\nw"},
                          {"x\n", "x\nadded\n"},
                          {"", "all new\n"}}) {
    std::optional<check::LineSpanEdit> Span = check::changedLines(Old, New);
    ASSERT_TRUE(Span.has_value());
    std::string Applied = Old;
    Applied.replace(Span->Begin, Span->End - Span->Begin, Span->Text);
    EXPECT_EQ(Applied, New);
  }
}

TEST(ProtocolTest, DiagnosticsCarryRuleLinkAndNotes) {
  check::Finding F;
  F.Rule = "mpilift-manual-bcast";
  F.Message = "loop of sends implements a broadcast [mpilift-manual-bcast]";
  F.Where = {"/p/a.c", 2, 3};
  F.Notes.push_back({{"/p/a.c", 1, 1}, "a note"});
  llvm::json::Object D = diagnosticOf(F, "int x;\n  for (;;) {}\n", "B/");
  EXPECT_EQ(D.getString("code"), "mpilift-manual-bcast");
  EXPECT_EQ(D.getString("message"), "loop of sends implements a broadcast");
  EXPECT_EQ(D.getObject("codeDescription")->getString("href"),
            "B/docs/checks/mpilift-manual-bcast.md");
  EXPECT_EQ(D.getInteger("severity"), 2);
  ASSERT_EQ(D.getArray("relatedInformation")->size(), 1u);
}

/// A reader over \p Input.
std::FILE *streamOf(const std::string &Input) {
  return fmemopen(const_cast<char *>(Input.data()), Input.size(), "r");
}

TEST(TransportTest, ReadsFramedMessagesAndSaysWhatIsWrong) {
  std::string Input = "Content-Length: 2\r\nContent-Type: x\r\n\r\n{}"
                      "\r\nContent-Length: 3\r\n\r\n[1]";
  std::FILE *In = streamOf(Input);
  MessageReader R(In);
  std::string Body, Problem;
  EXPECT_EQ(R.read(Body, Problem), ReadStatus::Message);
  EXPECT_EQ(Body, "{}");
  EXPECT_EQ(R.read(Body, Problem), ReadStatus::Message);
  EXPECT_EQ(Body, "[1]");
  EXPECT_EQ(R.read(Body, Problem), ReadStatus::EndOfInput);
  std::fclose(In);

  for (const char *Bad :
       {"Content-Length: x\r\n\r\n{}", "Content-Type: y\r\n\r\n{}",
        "Content-Length: 10\r\n\r\n{}"}) {
    std::string Text = Bad;
    std::FILE *B = streamOf(Text);
    MessageReader BR(B);
    EXPECT_EQ(BR.read(Body, Problem), ReadStatus::BadHeader) << Bad;
    EXPECT_FALSE(Problem.empty());
    std::fclose(B);
  }
}

TEST(TransportTest, WritesContentLength) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  MessageWriter W(OS);
  W.notify("x", llvm::json::Object{});
  OS.flush();
  std::string Body = R"({"jsonrpc":"2.0","method":"x","params":{}})";
  EXPECT_EQ(Out, "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" +
                     Body);
}

} // namespace
