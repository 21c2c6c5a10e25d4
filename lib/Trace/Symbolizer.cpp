//===- Symbolizer.cpp - Call sites to source locations --------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Trace/Symbolizer.h"

#include "llvm/DebugInfo/Symbolize/Symbolize.h"
#include "llvm/Support/FormatVariadic.h"

namespace mpilift {
namespace trace {

Symbolizer::Symbolizer(const Trace &T) : T(T) {
  llvm::symbolize::LLVMSymbolizer::Options Opts;
  Opts.Demangle = true;
  Opts.UseSymbolTable = true;
  Opts.RelativeAddresses = false;
  Impl = std::make_unique<llvm::symbolize::LLVMSymbolizer>(Opts);
}

Symbolizer::~Symbolizer() = default;

llvm::Expected<SourceLocation> Symbolizer::symbolize(uint32_t Site) {
  auto Cached = Cache.find(Site);
  if (Cached != Cache.end())
    return Cached->second;
  if (Site >= T.Sites.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the trace records no call site here");
  const CallSite &CS = T.Sites[Site];
  if (CS.Module == NoModule)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("call site {0:x} is in no known module", CS.Offset));
  const std::string &Module = T.Modules[CS.Module];
  // The return address points after the call instruction; one byte back is
  // inside it, on the line of the call.
  llvm::object::SectionedAddress Address{
      CS.Offset ? CS.Offset - 1 : 0,
      llvm::object::SectionedAddress::UndefSection};
  llvm::Expected<llvm::DIInliningInfo> Frames =
      Impl->symbolizeInlinedCode(Module, Address);
  if (!Frames)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("cannot read '{0}': {1}", Module,
                      llvm::toString(Frames.takeError())));
  if (Frames->getNumberOfFrames() == 0 ||
      Frames->getFrame(0).FileName == llvm::DILineInfo::BadString ||
      Frames->getFrame(0).Line == 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("no debug information for {0:x} in '{1}' (build it "
                      "with -g)",
                      CS.Offset, Module));
  // Frame 0 is the innermost: the call itself, even when it was inlined.
  const llvm::DILineInfo &Info = Frames->getFrame(0);
  SourceLocation L{Info.FileName, Info.Line, Info.Column, Info.FunctionName};
  Cache[Site] = L;
  return L;
}

} // namespace trace
} // namespace mpilift
