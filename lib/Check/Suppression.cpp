//===- Suppression.cpp - NOLINT comments ----------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Check/Suppression.h"

#include "mpilift/Check/GlobList.h"

#include "llvm/ADT/SmallVector.h"

namespace mpilift {
namespace check {

Suppressions::Suppressions(llvm::StringRef Code) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Code.split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    llvm::StringRef Line = Lines[I];
    size_t Comment = Line.find("//");
    size_t Block = Line.find("/*");
    size_t Start = std::min(Comment, Block);
    if (Start == llvm::StringRef::npos)
      continue;
    llvm::StringRef Text = Line.drop_front(Start);
    size_t At = 0;
    while ((At = Text.find("NOLINT", At)) != llvm::StringRef::npos) {
      llvm::StringRef Rest = Text.drop_front(At + 6);
      Suppressions::Comment C{Comment::SameLine, I + 1, ""};
      if (Rest.consume_front("NEXTLINE"))
        C.TheKind = Comment::NextLine;
      else if (Rest.consume_front("BEGIN"))
        C.TheKind = Comment::Begin;
      else if (Rest.consume_front("END"))
        C.TheKind = Comment::End;
      if (Rest.consume_front("(")) {
        size_t Close = Rest.find(')');
        if (Close == llvm::StringRef::npos) {
          At += 6; // Malformed: clang-tidy ignores it too.
          continue;
        }
        C.Globs = Rest.take_front(Close).str();
      }
      Comments.push_back(C);
      At += 6;
    }
  }
}

bool Suppressions::selects(const Comment &C, llvm::StringRef Check) {
  return C.Globs.empty() || GlobList(C.Globs).contains(Check);
}

bool Suppressions::suppresses(unsigned Line, llvm::StringRef Check) const {
  int Open = 0;
  for (const Comment &C : Comments) {
    switch (C.TheKind) {
    case Comment::SameLine:
      if (C.Line == Line && selects(C, Check))
        return true;
      break;
    case Comment::NextLine:
      if (C.Line + 1 == Line && selects(C, Check))
        return true;
      break;
    case Comment::Begin:
      if (C.Line < Line && selects(C, Check))
        ++Open;
      break;
    case Comment::End:
      if (C.Line < Line && selects(C, Check) && Open > 0)
        --Open;
      break;
    }
  }
  return Open > 0;
}

} // namespace check
} // namespace mpilift
