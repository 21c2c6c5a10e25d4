//===- Preamble.h - A precompiled preamble per open document ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The headers a file includes are most of what parsing it costs, and an
/// edit seldom changes them. As clangd does, the server keeps, per open
/// document, the file's preamble (its leading includes and macros)
/// precompiled, and every parse of the document (the check's, and those
/// verifying its rewrites) starts from it while the preamble's text and the
/// files it read are unchanged.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_LSP_PREAMBLE_H
#define MPILIFT_LIB_LSP_PREAMBLE_H

#include "mpilift/Check/Session.h"

#include "clang/Frontend/PrecompiledPreamble.h"

#include <mutex>
#include <optional>

namespace mpilift {
namespace lsp {

/// One document's precompiled preamble, built on first use and rebuilt
/// when it no longer matches.
class PreambleCache : public check::InvocationHook {
public:
  void prepare(clang::CompilerInvocation &Invocation,
               llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
               const llvm::MemoryBuffer &Main) override;

private:
  std::mutex Mutex;
  std::optional<clang::PrecompiledPreamble> Preamble;
};

} // namespace lsp
} // namespace mpilift

#endif // MPILIFT_LIB_LSP_PREAMBLE_H
