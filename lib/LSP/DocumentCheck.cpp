//===- DocumentCheck.cpp - One check of one open document -----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "DocumentCheck.h"

#include "mpilift/Check/Edits.h"
#include "mpilift/LSP/Protocol.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;

namespace mpilift {
namespace lsp {

namespace {

/// Keeps the document's findings with their quick fixes; the changes of
/// all of them make the fix-all edits.
class DocumentSink : public check::FindingSink {
public:
  DocumentSink(llvm::StringRef Path, DocumentResult &Result)
      : Path(Path), Result(Result) {}

  void found(const check::Finding &F, const tooling::AtomicChange *Change,
             const SourceManager &SM, SourceLocation Loc,
             CompilerInstance &) override {
    Loc = SM.getExpansionLoc(Loc);
    // Findings in headers the document includes are those headers'.
    if (SM.getFileID(Loc) != SM.getMainFileID())
      return;
    Text = SM.getBufferData(SM.getMainFileID()).str();
    CheckedFinding C{inDocument(F), {}};
    if (Change && Change->getFilePath() == SM.getFilename(Loc)) {
      llvm::Expected<std::string> After =
          check::applyFormatted(Path, Text, {*Change});
      if (After)
        C.Edits = textEditsBetween(Text, *After);
      else
        llvm::consumeError(After.takeError());
      if (After)
        Changes.push_back(*Change);
    }
    Result.Findings.push_back(std::move(C));
  }

  /// The fix-all edits, once every unit ran.
  void finish() {
    if (Changes.empty())
      return;
    llvm::Expected<std::string> After =
        check::applyFormatted(Path, Text, Changes);
    if (!After) {
      llvm::consumeError(After.takeError());
      return;
    }
    Result.FixAll = textEditsBetween(Text, *After);
  }

private:
  /// \p F with the document's path for the finding's own file (the engine
  /// names the real path; the editor knows the document by its own).
  check::Finding inDocument(check::Finding F) const {
    std::string Own = F.Where.File;
    F.Where.File = Path;
    for (check::Note &N : F.Notes)
      if (N.Where.File == Own)
        N.Where.File = Path;
    return F;
  }

  std::string Path;
  DocumentResult &Result;
  std::string Text;
  std::vector<tooling::AtomicChange> Changes;
};

/// Records where the unit's first error is, in the document or not.
class FirstError : public DiagnosticConsumer {
public:
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < DiagnosticsEngine::Error || Found)
      return;
    Found = true;
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    Message = std::string(Text);
    if (!Info.hasSourceManager() || !Info.getLocation().isValid())
      return;
    const SourceManager &SM = Info.getSourceManager();
    SourceLocation Loc = SM.getExpansionLoc(Info.getLocation());
    PresumedLoc P = SM.getPresumedLoc(Loc);
    if (SM.getFileID(Loc) == SM.getMainFileID()) {
      Line = SM.getExpansionLineNumber(Loc);
      Column = SM.getExpansionColumnNumber(Loc);
    } else if (P.isValid()) {
      Message = std::string(P.getFilename()) + ":" +
                std::to_string(P.getLine()) + ": " + Message;
    }
  }

  bool Found = false;
  std::string Message;
  unsigned Line = 1, Column = 1;
};

/// The compile database for \p Path: the one in \p Dir, or the nearest
/// above the file; \p Why says why there is none.
std::unique_ptr<tooling::CompilationDatabase>
databaseFor(llvm::StringRef Dir, llvm::StringRef Path, std::string &Why) {
  std::string Detail;
  if (!Dir.empty()) {
    auto Database =
        tooling::CompilationDatabase::loadFromDirectory(Dir, Detail);
    if (!Database)
      Why = "cannot load a compile database from '" + Dir.str() + "'";
    return Database;
  }
  auto Database =
      tooling::CompilationDatabase::autoDetectFromSource(Path, Detail);
  if (!Database)
    Why = "no compile_commands.json in '" +
          llvm::sys::path::parent_path(Path).str() + "' or above it";
  return Database;
}

} // namespace

DocumentResult checkDocument(const DocumentCheckSettings &Settings,
                             llvm::StringRef Path, llvm::StringRef Text) {
  DocumentResult Result;
  std::string Why;
  std::unique_ptr<tooling::CompilationDatabase> Database =
      databaseFor(Settings.CompileCommandsDir, Path, Why);
  if (!Database || Database->getCompileCommands(Path).empty()) {
    Result.Problems.push_back(
        {"mpilift cannot check this file: no compile command for it (" +
             (Database ? std::string("the compile database has none") : Why) +
             "); build with CMAKE_EXPORT_COMPILE_COMMANDS=ON or bear, or "
             "set compileCommandsDir",
         1, 1});
    return Result;
  }
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  Overlay->pushOverlay(Memory);

  check::SessionOptions Options = Settings.Options;
  FirstError Errors;
  Options.Diagnostics = &Errors;
  Options.Jobs = 1;
  Options.Hook = Settings.Preamble;
  if (Options.IndexCacheDir.empty())
    Options.IndexCacheDir =
        check::indexCacheFor(Path, Settings.CompileCommandsDir);
  Options.OnMessage = [&Result](const check::SessionMessage &M) {
    Result.Messages.push_back(M);
  };
  check::CheckSession Session(Options);
  if (Settings.Patterns)
    if (llvm::Error E =
            Session.addPatterns(*Settings.Patterns, Settings.PatternsOrigin))
      Result.Messages.push_back(
          {check::SessionMessage::Error, llvm::toString(std::move(E))});
  DocumentSink Sink(Path, Result);
  int Status = Session.run(*Database, {Path.str()}, &Sink, Overlay);
  Sink.finish();
  if (Status != 0 || Errors.Found)
    Result.Problems.push_back(
        {"mpilift cannot check this file: it does not parse" +
             (Errors.Message.empty() ? std::string()
                                     : " (" + Errors.Message + ")"),
         Errors.Line, Errors.Column});
  return Result;
}

} // namespace lsp
} // namespace mpilift
