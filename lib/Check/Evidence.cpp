//===- Evidence.cpp - What a trace says about the source ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Check/Evidence.h"

#include "mpilift/MPI/Vocabulary.h"
#include "mpilift/Trace/Symbolizer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>

namespace mpilift {
namespace check {

namespace {

/// The real path of \p File, or \p File when it has none.
std::string realPath(llvm::StringRef File) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(File, Real))
    return File.str();
  return std::string(Real);
}

/// Whether \p Id blocks until its message or request is done.
bool isBlockingCompletion(mpi::FunctionId Id) {
  switch (Id) {
  case mpi::FunctionId::Send:
  case mpi::FunctionId::Ssend:
  case mpi::FunctionId::Bsend:
  case mpi::FunctionId::Rsend:
  case mpi::FunctionId::Recv:
  case mpi::FunctionId::Wait:
  case mpi::FunctionId::Waitall:
    return true;
  default:
    return false;
  }
}

} // namespace

std::optional<std::string>
TraceEvidence::kindAt(llvm::StringRef File, unsigned Line,
                      llvm::StringRef Function) const {
  auto Site = Sites.find({realPath(File), Line});
  if (Site != Sites.end())
    return Site->second;
  auto Name =
      Named.find({llvm::sys::path::filename(File).str(), Line, Function.str()});
  if (Name != Named.end())
    return Name->second;
  return std::nullopt;
}

const BlockedTime::Total *BlockedTime::at(llvm::StringRef File, unsigned Line,
                                          llvm::StringRef Function) const {
  auto It = ByPlace.find({realPath(File), Line});
  if (It != ByPlace.end())
    return &It->second;
  auto Named = ByName.find(
      {llvm::sys::path::filename(File).str(), Line, Function.str()});
  return Named == ByName.end() ? nullptr : &Named->second;
}

BlockedTime blockedTimeOf(const trace::Trace &T) {
  BlockedTime Out;
  Out.Present = true;
  std::map<uint32_t, BlockedTime::Total> BySite;
  for (const trace::RankTrace &R : T.Ranks)
    for (const trace::Event &E : R.Events)
      if (E.Site != trace::NoSite && isBlockingCompletion(E.Function) &&
          E.End >= E.Begin) {
        BlockedTime::Total &Sum = BySite[E.Site];
        Sum.Nanoseconds += E.End - E.Begin;
        ++Sum.Calls;
      }
  trace::Symbolizer Symbols(T);
  for (const auto &[Site, Sum] : BySite) {
    llvm::Expected<trace::SourceLocation> Where = Symbols.symbolize(Site);
    if (!Where) {
      llvm::consumeError(Where.takeError());
      continue;
    }
    auto Add = [&](BlockedTime::Total &Into) {
      Into.Nanoseconds += Sum.Nanoseconds;
      Into.Calls += Sum.Calls;
    };
    Add(Out.ByPlace[{realPath(Where->File), Where->Line}]);
    Add(Out.ByName[{llvm::sys::path::filename(Where->File).str(), Where->Line,
                    Where->Function}]);
  }
  return Out;
}

llvm::Error addPatternSites(const llvm::json::Value &Doc,
                            llvm::StringRef Origin, TraceEvidence &Evidence) {
  const llvm::json::Object *Root = Doc.getAsObject();
  if (!Root || Root->getString("format") != "mpilift-patterns")
    return llvm::createStringError("'" + Origin +
                                   "' is not an mpilift patterns file");
  if (Root->getInteger("version") != 1)
    return llvm::createStringError("'" + Origin +
                                   "' has an unsupported patterns version");
  const llvm::json::Array *Patterns = Root->getArray("patterns");
  if (!Patterns)
    return llvm::createStringError("'" + Origin + "' has no 'patterns' array");
  Evidence.Present = true;
  for (const llvm::json::Value &P : *Patterns) {
    const llvm::json::Object *PO = P.getAsObject();
    const llvm::json::Array *Sites = PO ? PO->getArray("sites") : nullptr;
    if (!Sites)
      continue;
    // The payload hashes showed this is no collective: no evidence.
    if (PO->getString("contents") == "differ")
      continue;
    for (const llvm::json::Value &S : *Sites) {
      const llvm::json::Object *SO = S.getAsObject();
      if (!SO)
        continue;
      std::optional<llvm::StringRef> File = SO->getString("file");
      std::optional<int64_t> Line = SO->getInteger("line");
      if (!File || !Line)
        continue;
      std::string Kind = PO->getString("collective").value_or("unknown").str();
      Evidence.Sites.try_emplace({realPath(*File), unsigned(*Line)}, Kind);
      if (std::optional<llvm::StringRef> Function = SO->getString("function"))
        Evidence.Named.try_emplace({llvm::sys::path::filename(*File).str(),
                                    unsigned(*Line), Function->str()},
                                   Kind);
    }
  }
  return llvm::Error::success();
}

std::vector<std::string> unitsWithSites(const std::vector<std::string> &Files,
                                        const TraceEvidence &Evidence,
                                        const BlockedTime &Blocked,
                                        std::string &Note) {
  std::set<std::string> SiteFiles, SiteNames;
  for (const auto &[Site, Kind] : Evidence.Sites) {
    SiteFiles.insert(Site.first);
    SiteNames.insert(llvm::sys::path::filename(Site.first).str());
  }
  for (const auto &[Place, Total] : Blocked.ByPlace) {
    SiteFiles.insert(Place.first);
    SiteNames.insert(llvm::sys::path::filename(Place.first).str());
  }
  if (SiteFiles.empty()) {
    Note = "the trace shows no pattern with a source location; checking all " +
           std::to_string(Files.size()) + " translation units without it";
    return Files;
  }
  std::vector<std::string> Kept;
  std::set<std::string> Covered;
  for (const std::string &File : Files) {
    std::string Name = llvm::sys::path::filename(File).str();
    if (SiteFiles.count(realPath(File)) || SiteNames.count(Name)) {
      Kept.push_back(File);
      Covered.insert(Name);
    }
  }
  if (Covered.size() < SiteNames.size()) {
    Note = "some pattern call sites are in no listed translation unit "
           "(headers?); checking all " +
           std::to_string(Files.size());
    return Files;
  }
  Note = "the trace's patterns are in " + std::to_string(Kept.size()) + " of " +
         std::to_string(Files.size()) + " translation units; checking those";
  return Kept;
}

} // namespace check
} // namespace mpilift
