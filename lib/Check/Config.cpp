//===- Config.cpp - .mpilift.yaml -----------------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Check/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

namespace mpilift {
namespace check {

llvm::Expected<Config> parseConfig(llvm::StringRef Text, llvm::StringRef Path) {
  Config C;
  C.Path = Path.str();
  llvm::SourceMgr SM;
  std::string Problem;
  SM.setDiagHandler(
      [](const llvm::SMDiagnostic &D, void *Context) {
        *static_cast<std::string *>(Context) = D.getMessage().str();
      },
      &Problem);
  llvm::yaml::Stream Stream(Text, SM);
  auto Fail = [&](const std::string &Why) {
    return llvm::createStringError("'" + Path.str() + "': " + Why);
  };
  llvm::yaml::document_iterator Doc = Stream.begin();
  if (Doc == Stream.end() || !Doc->getRoot())
    return C; // An empty file sets nothing.
  if (llvm::isa<llvm::yaml::NullNode>(Doc->getRoot()))
    return C;
  auto *Map = llvm::dyn_cast<llvm::yaml::MappingNode>(Doc->getRoot());
  if (!Map)
    return Fail(Problem.empty() ? "expected a mapping of settings" : Problem);
  for (llvm::yaml::KeyValueNode &KV : *Map) {
    auto *Key = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(KV.getKey());
    auto *Value = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(KV.getValue());
    if (!Key || !Value)
      return Fail(Problem.empty() ? "every setting must be 'Key: value'"
                                  : Problem);
    llvm::SmallString<32> KeyStorage, ValueStorage;
    llvm::StringRef K = Key->getValue(KeyStorage);
    std::string V = Value->getValue(ValueStorage).str();
    if (K == "Checks")
      C.Checks = V;
    else if (K == "WarningsAsErrors")
      C.WarningsAsErrors = V;
    else if (K == "HeaderFilterRegex")
      C.HeaderFilterRegex = V;
    else if (K == "Collectives") {
      if (V != "blocking" && V != "nonblocking")
        return Fail("Collectives must be blocking or nonblocking, not '" + V +
                    "'");
      C.Collectives = V;
    } else if (K == "Fallback") {
      if (V != "none" && V != "cdag")
        return Fail("Fallback must be none or cdag, not '" + V + "'");
      C.Fallback = V;
    } else if (K == "QueryDriver") {
      C.QueryDriver = V;
    } else {
      return Fail("unknown setting '" + K.str() +
                  "' (known: Checks, WarningsAsErrors, HeaderFilterRegex, "
                  "Collectives, Fallback, QueryDriver)");
    }
  }
  if (!Problem.empty())
    return Fail(Problem);
  return C;
}

llvm::Expected<Config> findConfig(llvm::StringRef SourceFile) {
  llvm::SmallString<256> Dir(SourceFile);
  llvm::sys::fs::make_absolute(Dir);
  llvm::sys::path::remove_filename(Dir);
  while (!Dir.empty()) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, ".mpilift.yaml");
    if (llvm::sys::fs::exists(Candidate)) {
      auto Text = llvm::MemoryBuffer::getFile(Candidate);
      if (!Text)
        return llvm::createStringError("cannot read '" +
                                       std::string(Candidate) +
                                       "': " + Text.getError().message());
      return parseConfig((*Text)->getBuffer(), Candidate);
    }
    llvm::StringRef Parent = llvm::sys::path::parent_path(Dir);
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  return Config();
}

} // namespace check
} // namespace mpilift
