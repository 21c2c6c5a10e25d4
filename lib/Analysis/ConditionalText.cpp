//===- ConditionalText.cpp - Names in preprocessor conditionals -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ConditionalText.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// One arm of a conditional group: from its directive to the next
/// directive of the same group.
struct Arm {
  unsigned Group;
  unsigned Begin, End = ~0u;
};

/// The identifiers of a function body's text with their offsets, and the
/// arms of its conditional groups.
struct LexedBody {
  std::vector<std::pair<StringRef, unsigned>> Identifiers;
  std::vector<Arm> Arms;
};

LexedBody lexBody(const SourceManager &SM, const LangOptions &Options,
                  FileID File, StringRef Text, unsigned BeginOffset,
                  unsigned EndOffset) {
  LexedBody Out;
  Lexer L(SM.getLocForStartOfFile(File), Options, Text.begin(),
          Text.begin() + BeginOffset, Text.end());
  // The open groups, innermost last, each with its current arm.
  std::vector<size_t> Open;
  unsigned Groups = 0;
  bool DirectiveNext = false;
  unsigned HashOffset = 0;
  Token Tok;
  while (true) {
    L.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      break;
    unsigned Offset = SM.getFileOffset(Tok.getLocation());
    if (Offset > EndOffset)
      break;
    if (Tok.is(tok::hash) && Tok.isAtStartOfLine()) {
      DirectiveNext = true;
      HashOffset = Offset;
      continue;
    }
    if (Tok.isNot(tok::raw_identifier)) {
      DirectiveNext = false;
      continue;
    }
    StringRef Name = Tok.getRawIdentifier();
    if (!DirectiveNext) {
      if (!Open.empty())
        Out.Identifiers.emplace_back(Name, Offset);
      continue;
    }
    DirectiveNext = false;
    if (Name == "if" || Name == "ifdef" || Name == "ifndef") {
      Open.push_back(Out.Arms.size());
      Out.Arms.push_back({Groups++, HashOffset});
    } else if (!Open.empty() && (Name.starts_with("elif") || Name == "else")) {
      Out.Arms[Open.back()].End = HashOffset;
      unsigned Group = Out.Arms[Open.back()].Group;
      Open.back() = Out.Arms.size();
      Out.Arms.push_back({Group, HashOffset});
    } else if (!Open.empty() && Name == "endif") {
      Out.Arms[Open.back()].End = HashOffset;
      Open.pop_back();
    }
  }
  return Out;
}

} // namespace

llvm::StringSet<> conditionalIdentifiers(const FunctionDecl &F,
                                         SourceRange Except) {
  llvm::StringSet<> Names;
  const Stmt *Body = F.getBody();
  if (!Body)
    return Names;
  const ASTContext &Ctx = F.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = SM.getExpansionLoc(Body->getBeginLoc());
  SourceLocation End = SM.getExpansionLoc(Body->getEndLoc());
  auto [File, BeginOffset] = SM.getDecomposedLoc(Begin);
  auto [EndFile, EndOffset] = SM.getDecomposedLoc(End);
  bool Invalid = false;
  StringRef Text = SM.getBufferData(File, &Invalid);
  if (Invalid || File != EndFile || EndOffset < BeginOffset ||
      EndOffset >= Text.size())
    return Names;
  std::optional<std::pair<unsigned, unsigned>> Skip;
  if (Except.isValid()) {
    auto [ExceptFile, From] =
        SM.getDecomposedLoc(SM.getExpansionLoc(Except.getBegin()));
    auto [ExceptEndFile, To] =
        SM.getDecomposedLoc(SM.getExpansionLoc(Except.getEnd()));
    if (ExceptFile == File && ExceptEndFile == File)
      Skip.emplace(From, To);
  }
  LexedBody Lexed =
      lexBody(SM, Ctx.getLangOpts(), File, Text, BeginOffset, EndOffset);
  auto InArm = [](const Arm &A, unsigned Offset) {
    return Offset >= A.Begin && Offset < A.End;
  };
  // The other arms of a group one of whose arms holds the excepted range
  // are never compiled with it: what they name cannot read what it left.
  llvm::SmallDenseSet<unsigned, 4> HoldingGroups;
  if (Skip)
    for (const Arm &A : Lexed.Arms)
      if (InArm(A, Skip->first))
        HoldingGroups.insert(A.Group);
  for (auto [Name, Offset] : Lexed.Identifiers) {
    if (Skip && Offset >= Skip->first && Offset <= Skip->second)
      continue;
    bool Exclusive = llvm::any_of(Lexed.Arms, [&](const Arm &A) {
      return HoldingGroups.count(A.Group) && InArm(A, Offset) &&
             !InArm(A, Skip->first);
    });
    if (!Exclusive)
      Names.insert(Name);
  }
  return Names;
}

} // namespace analysis
} // namespace mpilift
