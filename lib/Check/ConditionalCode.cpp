//===- ConditionalCode.cpp - Preprocessor conditionals of a unit ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "ConditionalCode.h"

#include "clang/Basic/FileEntry.h"

using namespace clang;

namespace mpilift {
namespace check {

class ConditionalRecorder : public PPCallbacks {
public:
  explicit ConditionalRecorder(ConditionalCode &Out) : Out(Out) {}

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
};

std::unique_ptr<PPCallbacks> ConditionalCode::recorder() {
  return std::make_unique<ConditionalRecorder>(*this);
}

std::optional<ConditionalCode::Directive>
ConditionalCode::within(llvm::StringRef Path, unsigned Offset, unsigned Length,
                        const SourceManager &SM) const {
  // Where \p Loc stands in the file Path, if it stands there.
  auto OffsetIn = [&](SourceLocation Loc) -> std::optional<unsigned> {
    if (Loc.isInvalid() || Loc.isMacroID())
      return std::nullopt;
    auto [File, At] = SM.getDecomposedLoc(Loc);
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    if (!Entry || Entry->getName() != Path)
      return std::nullopt;
    return At;
  };
  unsigned End = Offset + Length;
  for (const Directive &D : Directives)
    if (std::optional<unsigned> At = OffsetIn(D.Loc);
        At && *At >= Offset && *At < End)
      return D;
  return std::nullopt;
}

} // namespace check
} // namespace mpilift
