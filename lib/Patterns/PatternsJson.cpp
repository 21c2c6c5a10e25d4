//===- PatternsJson.cpp - Patterns as mpilift detect writes them ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Patterns/PatternsJson.h"

#include "llvm/ADT/StringExtras.h"

namespace mpilift {
namespace patterns {

SiteText SiteNames::get(uint32_t Site) {
  SiteText Out;
  if (Site == trace::NoSite)
    return Out;
  llvm::Expected<trace::SourceLocation> L = S.symbolize(Site);
  if (!L) {
    Errors.insert(llvm::toString(L.takeError()));
    return Out;
  }
  Out = {L->File, L->Function, L->Line, L->Column, true};
  return Out;
}

std::string SiteNames::text(uint32_t Site) {
  SiteText X = get(Site);
  if (!X.Known) {
    if (Site == trace::NoSite)
      return "?";
    const trace::CallSite &CS = T.Sites[Site];
    std::string Module =
        CS.Module == trace::NoModule ? "?" : T.Modules[CS.Module];
    return Module + "+0x" + llvm::utohexstr(CS.Offset);
  }
  return X.File + ":" + std::to_string(X.Line) + ":" + std::to_string(X.Column);
}

llvm::json::Value toJson(const trace::Trace &T, const DetectResult &R,
                         SiteNames &Names) {
  llvm::json::Array Comms, Patterns, Warnings;
  for (size_t C = 0; C < T.Comms.size(); ++C)
    Comms.push_back(
        llvm::json::Object{{"id", int64_t(C)},
                           {"name", T.Comms[C].Name},
                           {"members", llvm::json::Array(T.Comms[C].Members)}});
  for (const Pattern &P : R.Patterns) {
    llvm::json::Array Sites;
    for (const PatternSite &S : P.Sites) {
      llvm::json::Object O{{"role", S.Send ? "send" : "recv"},
                           {"ranks", llvm::json::Array(S.Ranks)}};
      SiteText X = Names.get(S.Site);
      if (X.Known) {
        O["file"] = X.File;
        O["line"] = int64_t(X.Line);
        O["column"] = int64_t(X.Column);
        O["function"] = X.Function;
      }
      if (S.Site != trace::NoSite) {
        const trace::CallSite &CS = T.Sites[S.Site];
        if (CS.Module != trace::NoModule)
          O["module"] = T.Modules[CS.Module];
        O["offset"] = int64_t(CS.Offset);
      }
      Sites.push_back(std::move(O));
    }
    Patterns.push_back(llvm::json::Object{
        {"collective", P.Collective},
        {"topology", P.Topology},
        {"comm", int64_t(P.Comm)},
        {"root", P.Root},
        {"roots", llvm::json::Array(P.Roots)},
        {"bytes", int64_t(P.Bytes)},
        {"max_bytes", int64_t(std::max(P.Bytes, P.MaxBytes))},
        {"occurrences", int64_t(P.Occurrences)},
        {"segments", int64_t(P.Segments)},
        {"evidence", P.Evidence},
        {"contents", P.Contents},
        {"note", P.Note},
        {"sites", std::move(Sites)}});
  }
  for (const std::string &W : R.Warnings)
    Warnings.push_back(W);
  return llvm::json::Object{{"format", "mpilift-patterns"},
                            {"version", 1},
                            {"trace", T.Directory},
                            {"ranks", T.WorldSize},
                            {"complete", T.Complete},
                            {"partial", R.Partial},
                            {"communicators", std::move(Comms)},
                            {"patterns", std::move(Patterns)},
                            {"warnings", std::move(Warnings)}};
}

llvm::json::Value detectPatternsAsJson(const trace::Trace &T) {
  DetectResult R = detectPatterns(T);
  SiteNames Names(T);
  return toJson(T, R, Names);
}

} // namespace patterns
} // namespace mpilift
