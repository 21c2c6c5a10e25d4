//===- SourceEdits.cpp - Helpers for textual rewrites ---------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "SourceEdits.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Transformer/SourceCode.h"

using namespace clang;

namespace mpilift {
namespace transform {

/// The range of statement \p S with its semicolon and, when it stands on
/// lines of its own, its indentation and line break, so deleting it leaves
/// no blank line.
CharSourceRange statementRange(const Stmt &S, ASTContext &Context) {
  return Lexer::makeFileCharRange(
      tooling::getExtendedRange(S, tok::semi, Context),
      Context.getSourceManager(), Context.getLangOpts());
}

CharSourceRange wholeLines(const Stmt &S, ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange R = statementRange(S, Context);
  if (R.isInvalid())
    return R;
  auto [File, Begin] = SM.getDecomposedLoc(R.getBegin());
  unsigned End = SM.getFileOffset(R.getEnd());
  StringRef Code = SM.getBufferData(File);
  unsigned B = Begin;
  while (B > 0 && (Code[B - 1] == ' ' || Code[B - 1] == '\t'))
    --B;
  unsigned E = End;
  while (E < Code.size() && (Code[E] == ' ' || Code[E] == '\t'))
    ++E;
  if ((B == 0 || Code[B - 1] == '\n') && E < Code.size() && Code[E] == '\n')
    return CharSourceRange::getCharRange(
        R.getBegin().getLocWithOffset(int(B) - int(Begin)),
        R.getBegin().getLocWithOffset(int(E) + 1 - int(Begin)));
  return R;
}

std::string errorCodeTo(const analysis::ErrorFlow &Error) {
  return Error.spelling();
}

std::string declarationOf(const analysis::ErrorFlow &Error) {
  if (!Error.Declared)
    return "";
  return Error.Var->getType().getAsString() + " " +
         Error.Var->getNameAsString() + ";\n";
}

std::string ifSucceeded(const analysis::ErrorFlow &Error) {
  if (!Error || Error.accumulates())
    return "";
  return "if (" + Error.Var->getNameAsString() + " == MPI_SUCCESS)\n";
}

std::string freshName(StringRef Base, StringRef Code,
                      llvm::StringSet<> *Taken) {
  for (unsigned N = 1;; ++N) {
    std::string Name = N == 1 ? Base.str() : Base.str() + std::to_string(N);
    if (Taken && Taken->contains(Name))
      continue;
    // A whole-word occurrence anywhere in the file rules the name out.
    size_t Pos = 0;
    bool Used = false;
    while ((Pos = Code.find(Name, Pos)) != StringRef::npos) {
      auto IsWord = [](char C) { return isalnum(C) || C == '_'; };
      bool Left = Pos == 0 || !IsWord(Code[Pos - 1]);
      bool Right =
          Pos + Name.size() >= Code.size() || !IsWord(Code[Pos + Name.size()]);
      if (Left && Right) {
        Used = true;
        break;
      }
      Pos += Name.size();
    }
    if (Used)
      continue;
    if (Taken)
      Taken->insert(Name);
    return Name;
  }
}

/// The start of the line \p Loc is on, and that line's indentation.
std::pair<SourceLocation, std::string> lineStart(SourceLocation Loc,
                                                 const SourceManager &SM) {
  Loc = SM.getExpansionLoc(Loc);
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Code = SM.getBufferData(File);
  unsigned Begin = Offset;
  while (Begin > 0 && Code[Begin - 1] != '\n')
    --Begin;
  unsigned Text = Begin;
  while (Text < Code.size() && (Code[Text] == ' ' || Code[Text] == '\t'))
    ++Text;
  return {Loc.getLocWithOffset(int(Begin) - int(Offset)),
          Code.substr(Begin, Text - Begin).str()};
}

} // namespace transform
} // namespace mpilift
