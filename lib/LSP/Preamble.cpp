//===- Preamble.cpp - A precompiled preamble per open document ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Preamble.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Serialization/PCHContainerOperations.h"

using namespace clang;

namespace mpilift {
namespace lsp {

void PreambleCache::prepare(CompilerInvocation &Invocation,
                            llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                            const llvm::MemoryBuffer &Main) {
  std::lock_guard<std::mutex> Lock(Mutex);
  PreambleBounds Bounds = ComputePreambleBounds(
      Invocation.getLangOpts(), Main.getMemBufferRef(), /*MaxLines=*/0);
  if (Bounds.Size == 0)
    return;
  if (!Preamble ||
      !Preamble->CanReuse(Invocation, Main.getMemBufferRef(), Bounds, *FS)) {
    Preamble.reset();
    IgnoringDiagConsumer Ignore;
    IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
        CompilerInstance::createDiagnostics(new DiagnosticOptions, &Ignore,
                                            /*ShouldOwnClient=*/false);
    PreambleCallbacks Callbacks;
    llvm::ErrorOr<PrecompiledPreamble> Built = PrecompiledPreamble::Build(
        Invocation, &Main, Bounds, *Diags, FS,
        std::make_shared<PCHContainerOperations>(), /*StoreInMemory=*/false,
        /*StoragePath=*/"", Callbacks);
    // Without one (a header that does not parse), the parse reads the
    // headers itself, as the command line does.
    if (!Built)
      return;
    Preamble.emplace(std::move(*Built));
  }
  // The invocation remaps the main file to this buffer and owns it (unless
  // it retains remapped buffers, when the copy is left to the process).
  Preamble->AddImplicitPreamble(
      Invocation, FS,
      llvm::MemoryBuffer::getMemBufferCopy(Main.getBuffer(),
                                           Main.getBufferIdentifier())
          .release());
}

} // namespace lsp
} // namespace mpilift
