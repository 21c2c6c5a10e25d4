//===- ConditionalCode.cpp - Preprocessor conditionals of a unit ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ConditionalCode.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/FileEntry.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/MacroInfo.h"

using namespace clang;

namespace mpilift {
namespace check {

class ConditionalRecorder : public PPCallbacks {
public:
  ConditionalRecorder(ConditionalCode &Out, Preprocessor &PP)
      : Out(Out), PP(PP) {}

  void MacroExpands(const Token &Name, const MacroDefinition &MD, SourceRange,
                    const MacroArgs *) override {
    const MacroInfo *Info = MD.getMacroInfo();
    if (Info)
      Out.MacroUses.push_back(
          {PP.getSourceManager().getExpansionLoc(Name.getLocation()),
           Name.getIdentifierInfo()->getName().str(),
           Info->getDefinitionLoc()});
  }

  void If(SourceLocation Loc, SourceRange, ConditionValueKind) override {
    add(Loc, "if");
  }
  void Elif(SourceLocation Loc, SourceRange, ConditionValueKind,
            SourceLocation) override {
    add(Loc, "elif");
  }
  void Ifdef(SourceLocation Loc, const Token &,
             const MacroDefinition &) override {
    add(Loc, "ifdef");
  }
  void Ifndef(SourceLocation Loc, const Token &,
              const MacroDefinition &) override {
    add(Loc, "ifndef");
  }
  void Elifdef(SourceLocation Loc, const Token &,
               const MacroDefinition &) override {
    add(Loc, "elifdef");
  }
  void Elifdef(SourceLocation Loc, SourceRange, SourceLocation) override {
    add(Loc, "elifdef");
  }
  void Elifndef(SourceLocation Loc, const Token &,
                const MacroDefinition &) override {
    add(Loc, "elifndef");
  }
  void Elifndef(SourceLocation Loc, SourceRange, SourceLocation) override {
    add(Loc, "elifndef");
  }
  void Else(SourceLocation Loc, SourceLocation) override { add(Loc, "else"); }
  void Endif(SourceLocation Loc, SourceLocation) override { add(Loc, "endif"); }

private:
  void add(SourceLocation Loc, const char *Name) {
    Out.Directives.push_back({Loc, Name});
  }

  ConditionalCode &Out;
  Preprocessor &PP;
};

std::unique_ptr<PPCallbacks> ConditionalCode::recorder(Preprocessor &PP) {
  return std::make_unique<ConditionalRecorder>(*this, PP);
}

namespace {

/// Where \p Loc stands in the file \p Path, if it stands there.
std::optional<unsigned> offsetIn(SourceLocation Loc, llvm::StringRef Path,
                                 const SourceManager &SM) {
  if (Loc.isInvalid() || Loc.isMacroID())
    return std::nullopt;
  auto [File, At] = SM.getDecomposedLoc(Loc);
  OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
  if (!Entry || Entry->getName() != Path)
    return std::nullopt;
  return At;
}

bool opens(llvm::StringRef Name) {
  return Name == "if" || Name == "ifdef" || Name == "ifndef";
}

/// The names the program's code refers to (variables, functions,
/// constants, fields, types) with where each is defined.
class ReferenceCollector : public RecursiveASTVisitor<ReferenceCollector> {
public:
  ReferenceCollector(
      const SourceManager &SM,
      std::vector<std::pair<SourceLocation, const NamedDecl *>> &Out)
      : SM(SM), Out(Out) {}

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    if (const auto *F = dyn_cast<FunctionDecl>(D))
      if (const FunctionDecl *Definition = F->getDefinition())
        D = Definition;
    add(E->getLocation(), D);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    add(E->getMemberLoc(), E->getMemberDecl());
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc TL) {
    add(TL.getNameLoc(), TL.getDecl());
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc TL) {
    add(TL.getNameLoc(), TL.getTypedefNameDecl());
    return true;
  }

private:
  void add(SourceLocation Use, const NamedDecl *D) {
    if (D && Use.isValid())
      Out.push_back({SM.getExpansionLoc(Use), D});
  }

  const SourceManager &SM;
  std::vector<std::pair<SourceLocation, const NamedDecl *>> &Out;
};

} // namespace

std::optional<ConditionalCode::Directive>
ConditionalCode::within(llvm::StringRef Path, unsigned Offset, unsigned Length,
                        const SourceManager &SM) const {
  unsigned End = Offset + Length;
  for (const Directive &D : Directives)
    if (std::optional<unsigned> At = offsetIn(D.Loc, Path, SM);
        At && *At >= Offset && *At < End)
      return D;
  return std::nullopt;
}

const std::vector<ConditionalCode::Arm> &
ConditionalCode::arms(const SourceManager &SM) {
  if (Arms)
    return *Arms;
  Arms.emplace();
  // The directives of each file in the order they were read.
  std::map<FileID, std::vector<const Directive *>> ByFile;
  for (const Directive &D : Directives)
    if (D.Loc.isFileID())
      ByFile[SM.getFileID(D.Loc)].push_back(&D);
  for (const auto &[File, List] : ByFile) {
    std::vector<Arm> Open; // The open arm of each enclosing conditional.
    for (const Directive *D : List) {
      unsigned At = SM.getFileOffset(D->Loc);
      if (opens(D->Name)) {
        Open.push_back(Arm{File, At, At, *D, Open.empty()});
        continue;
      }
      if (Open.empty())
        continue;
      Arm Done = Open.back();
      Open.pop_back();
      Done.End = At;
      Arms->push_back(Done);
      if (D->Name != "endif")
        Open.push_back(Arm{File, At, At, *D, Done.Outermost});
    }
  }
  return *Arms;
}

std::optional<ConditionalCode::Directive>
ConditionalCode::armApart(SourceLocation Definition, SourceLocation Use,
                          const Preprocessor &PP) {
  const SourceManager &SM = PP.getSourceManager();
  auto [DefFile, DefAt] = SM.getDecomposedLoc(SM.getExpansionLoc(Definition));
  auto [UseFile, UseAt] = SM.getDecomposedLoc(SM.getExpansionLoc(Use));
  for (const Arm &A : arms(SM)) {
    if (A.File != DefFile || DefAt < A.Begin || DefAt >= A.End)
      continue;
    if (UseFile == A.File && UseAt >= A.Begin && UseAt < A.End)
      continue; // The same build compiles both or neither.
    OptionalFileEntryRef Header = SM.getFileEntryRefForID(A.File);
    if (A.Outermost && A.At.Name == "ifndef" && Header &&
        PP.getHeaderSearchInfo().isFileMultipleIncludeGuarded(*Header))
      continue; // The include guard.
    return A.At;
  }
  return std::nullopt;
}

const std::vector<ConditionalCode::NameUse> &ConditionalCode::declarationUses(
    ASTContext &Context, llvm::function_ref<bool(SourceLocation)> Library) {
  if (DeclUses)
    return *DeclUses;
  DeclUses.emplace();
  std::vector<std::pair<SourceLocation, const NamedDecl *>> Found;
  ReferenceCollector Collector(Context.getSourceManager(), Found);
  for (Decl *D : Context.getTranslationUnitDecl()->decls())
    if (!Library(D->getLocation()))
      Collector.TraverseDecl(D);
  for (const auto &[Use, D] : Found)
    DeclUses->push_back({Use, D->getNameAsString(), D->getLocation()});
  return *DeclUses;
}

std::optional<ConditionalCode::ConfiguredUse> ConditionalCode::configuredWithin(
    llvm::StringRef Path, unsigned Offset, unsigned Length, ASTContext &Context,
    const Preprocessor &PP, llvm::function_ref<bool(SourceLocation)> Library) {
  const SourceManager &SM = PP.getSourceManager();
  unsigned End = Offset + Length;
  auto Judge = [&](const NameUse &U) -> std::optional<ConfiguredUse> {
    std::optional<unsigned> At = offsetIn(U.Use, Path, SM);
    if (!At || *At < Offset || *At >= End || U.Definition.isInvalid())
      return std::nullopt;
    if (SM.isWrittenInCommandLineFile(U.Definition))
      return ConfiguredUse{U.Use, U.Name, SourceLocation(), std::nullopt};
    if (Library(U.Definition))
      return std::nullopt;
    if (std::optional<Directive> Arm = armApart(U.Definition, U.Use, PP))
      return ConfiguredUse{U.Use, U.Name, U.Definition, Arm};
    return std::nullopt;
  };
  for (const NameUse &U : MacroUses)
    if (std::optional<ConfiguredUse> C = Judge(U))
      return C;
  for (const NameUse &U : declarationUses(Context, Library))
    if (std::optional<ConfiguredUse> C = Judge(U))
      return C;
  return std::nullopt;
}

} // namespace check
} // namespace mpilift
