//===- Symbolizer.h - Call sites to source locations ------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Maps a trace's call sites (module + return address) to file:line:column
/// with LLVM's symbolizer and the modules' DWARF (-g), caching each answer.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_SYMBOLIZER_H
#define MPILIFT_TRACE_SYMBOLIZER_H

#include "mpilift/Trace/Trace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
namespace symbolize {
class LLVMSymbolizer;
} // namespace symbolize
} // namespace llvm

namespace mpilift {
namespace trace {

/// A call site's place in the source.
struct SourceLocation {
  std::string File; ///< As the debug information names it.
  unsigned Line = 0;
  unsigned Column = 0;
  std::string Function;
};

class Symbolizer {
public:
  explicit Symbolizer(const Trace &T);
  ~Symbolizer();

  /// The source location of call site \p Site of the trace. Errors name the
  /// module: it cannot be read, or it has no line information for the call
  /// (built without -g).
  llvm::Expected<SourceLocation> symbolize(uint32_t Site);

private:
  const Trace &T;
  std::unique_ptr<llvm::symbolize::LLVMSymbolizer> Impl;
  llvm::DenseMap<uint32_t, SourceLocation> Cache;
};

} // namespace trace
} // namespace mpilift

#endif // MPILIFT_TRACE_SYMBOLIZER_H
