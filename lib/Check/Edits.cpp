//===- Edits.cpp - Combining, formatting and verifying rewrites -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Check/Edits.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace clang;

namespace mpilift {
namespace check {

llvm::Expected<tooling::AtomicChange>
combineChanges(StringRef File, ArrayRef<tooling::AtomicChange> Changes) {
  tooling::AtomicChange Combined(File, "mpilift");
  for (const tooling::AtomicChange &Change : Changes) {
    for (const tooling::Replacement &R : Change.getReplacements()) {
      llvm::Error E = Combined.getReplacements().add(R);
      if (!E)
        continue;
      if (R.getLength() != 0) // Not an insertion: a real conflict.
        return E;
      llvm::consumeError(std::move(E));
      tooling::Replacements Merged;
      bool Joined = false;
      for (const tooling::Replacement &Old : Combined.getReplacements()) {
        bool Same = Old.getLength() == 0 && Old.getOffset() == R.getOffset();
        tooling::Replacement Next =
            Same ? tooling::Replacement(File, R.getOffset(), 0,
                                        Old.getReplacementText().str() +
                                            R.getReplacementText().str())
                 : Old;
        Joined |= Same;
        if (llvm::Error Again = Merged.add(Next))
          return Again;
      }
      if (!Joined)
        return llvm::createStringError("two rewrites insert at offset " +
                                       std::to_string(R.getOffset()));
      Combined.getReplacements() = std::move(Merged);
    }
    for (const std::string &Header : Change.getInsertedHeaders())
      if (!llvm::is_contained(Combined.getInsertedHeaders(), Header))
        Combined.addHeader(Header);
  }
  return Combined;
}

llvm::Expected<std::string>
applyFormatted(StringRef File, StringRef Code,
               ArrayRef<tooling::AtomicChange> Changes,
               std::string *StyleProblem) {
  tooling::ApplyChangesSpec Spec;
  llvm::Expected<format::FormatStyle> Style =
      format::getStyle("file", File, "LLVM", Code);
  if (Style) {
    Spec.Style = *Style;
  } else {
    std::string Why = llvm::toString(Style.takeError());
    if (StyleProblem)
      *StyleProblem = std::move(Why);
    Spec.Style = format::getLLVMStyle();
  }
  Spec.Format = tooling::ApplyChangesSpec::kAll;
  llvm::Expected<tooling::AtomicChange> Combined =
      combineChanges(File, Changes);
  if (!Combined)
    return Combined.takeError();
  return tooling::applyAtomicChanges(File, Code, {*Combined}, Spec);
}

namespace {

/// Keeps the first error of a parse, with its place.
class FirstError : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || Message)
      return;
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    std::string Where;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc P = Info.getSourceManager().getPresumedLoc(
          Info.getSourceManager().getExpansionLoc(Info.getLocation()));
      if (P.isValid())
        Where = std::string(P.getFilename()) + ":" +
                std::to_string(P.getLine()) + ":" +
                std::to_string(P.getColumn()) + ": error: ";
    }
    Message = Where + std::string(Text);
  }
  std::optional<std::string> Message;
};

} // namespace

std::optional<LineSpanEdit> changedLines(StringRef Before, StringRef After) {
  if (Before == After)
    return std::nullopt;
  // The common prefix back to a line start, the common suffix forward to
  // a line end.
  size_t Prefix = 0, Limit = std::min(Before.size(), After.size());
  while (Prefix < Limit && Before[Prefix] == After[Prefix])
    ++Prefix;
  size_t LineBegin = Before.take_front(Prefix).rfind('\n');
  Prefix = LineBegin == StringRef::npos ? 0 : LineBegin + 1;
  size_t Suffix = 0;
  while (Suffix < Limit - Prefix &&
         Before[Before.size() - 1 - Suffix] == After[After.size() - 1 - Suffix])
    ++Suffix;
  while (Suffix > 0 && Before[Before.size() - Suffix - 1] != '\n')
    --Suffix;
  return LineSpanEdit{
      Prefix, Before.size() - Suffix,
      After.substr(Prefix, After.size() - Suffix - Prefix).str()};
}

namespace {

/// Removes a precompiled preamble from \p Invocation (a copy): it was made
/// for the main file's old text, and its bytes would be skipped in the new
/// one. Its remapped buffers (the preamble's main file) belong to the
/// parse the copy was made from, so the copy lets them go.
void dropPreamble(CompilerInvocation &Invocation) {
  PreprocessorOptions &PP = Invocation.getPreprocessorOpts();
  PP.RemappedFileBuffers.clear();
  if (PP.PrecompiledPreambleBytes.first == 0)
    return;
  PP.PrecompiledPreambleBytes = {0, false};
  PP.ImplicitPCHInclude.clear();
  PP.DisablePCHOrModuleValidation = DisableValidationForModuleKind::None;
}

/// The text the main file of \p Invocation has in a parse with
/// \p Contents in place.
std::unique_ptr<llvm::MemoryBuffer>
mainText(const CompilerInvocation &Invocation, llvm::vfs::FileSystem &FS,
         const std::map<std::string, std::string> &Contents) {
  const auto &Inputs = Invocation.getFrontendOpts().Inputs;
  if (Inputs.size() != 1 || !Inputs[0].isFile())
    return nullptr;
  StringRef Main = Inputs[0].getFile();
  auto It = Contents.find(Main.str());
  if (It != Contents.end())
    return llvm::MemoryBuffer::getMemBufferCopy(It->second, Main);
  auto Buffer = FS.getBufferForFile(Main);
  return Buffer ? std::move(*Buffer) : nullptr;
}

} // namespace

std::optional<std::string>
compileErrorWith(const CompilerInvocation &Invocation,
                 llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                 const std::map<std::string, std::string> &Contents,
                 ArrayRef<std::string> IncludeDirs,
                 const PrepareInvocation &Prepare) {
  auto Copy = std::make_shared<CompilerInvocation>(Invocation);
  dropPreamble(*Copy);
  for (const std::string &Dir : IncludeDirs)
    Copy->getHeaderSearchOpts().AddPath(Dir, frontend::After,
                                        /*IsFramework=*/false,
                                        /*IgnoreSysRoot=*/true);
  // Quiet: the first error is the answer; no "N errors generated".
  Copy->getDiagnosticOpts().ShowCarets = false;
  PreprocessorOptions &PP = Copy->getPreprocessorOpts();
  PP.RetainRemappedFileBuffers = false;
  // A preamble reads the headers from FS: only when the rewrites change
  // the main file alone. Added before the remapped files, which building
  // a preamble would consume.
  std::unique_ptr<llvm::MemoryBuffer> Main;
  if (Prepare && (Main = mainText(*Copy, *FS, Contents)) &&
      llvm::all_of(Contents, [&](const auto &FileText) {
        return FileText.first == Main->getBufferIdentifier();
      }))
    Prepare(*Copy, FS, *Main);
  for (const auto &[File, Text] : Contents)
    PP.addRemappedFile(
        File, llvm::MemoryBuffer::getMemBufferCopy(Text, File).release());
  CompilerInstance Clang;
  Clang.setInvocation(std::move(Copy));
  FirstError Errors;
  Clang.createDiagnostics(&Errors, /*ShouldOwnClient=*/false);
  Clang.createFileManager(std::move(FS));
  SyntaxOnlyAction Action;
  bool Ran = Clang.ExecuteAction(Action);
  if (Errors.Message)
    return Errors.Message;
  if (!Ran || Errors.getNumErrors() > 0)
    return std::string("the rewritten unit does not parse");
  return std::nullopt;
}

} // namespace check
} // namespace mpilift
