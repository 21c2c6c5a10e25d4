//===- DetectCommand.cpp - mpilift detect ---------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/Patterns/Detect.h"
#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/Trace/Trace.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

namespace mpilift {
namespace {

namespace cl = llvm::cl;

/// "0-3 5 7-8".
std::string rankList(const std::vector<int> &Ranks) {
  std::string S;
  for (size_t I = 0; I < Ranks.size();) {
    size_t J = I;
    while (J + 1 < Ranks.size() && Ranks[J + 1] == Ranks[J] + 1)
      ++J;
    S += (S.empty() ? "" : " ") + std::to_string(Ranks[I]);
    if (J > I)
      S += "-" + std::to_string(Ranks[J]);
    I = J + 1;
  }
  return S;
}

struct SiteText {
  std::string File, Function;
  unsigned Line = 0, Column = 0;
  bool Known = false;
};

class SiteNames {
public:
  SiteNames(const trace::Trace &T) : T(T), S(T) {}
  SiteText get(uint32_t Site) {
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
  std::string text(uint32_t Site) {
    SiteText X = get(Site);
    if (!X.Known) {
      if (Site == trace::NoSite)
        return "?";
      const trace::CallSite &CS = T.Sites[Site];
      std::string Module =
          CS.Module == trace::NoModule ? "?" : T.Modules[CS.Module];
      return Module + "+0x" + llvm::utohexstr(CS.Offset);
    }
    return X.File + ":" + std::to_string(X.Line) + ":" +
           std::to_string(X.Column);
  }
  std::set<std::string> Errors;

private:
  const trace::Trace &T;
  trace::Symbolizer S;
};

void printText(const trace::Trace &T, const patterns::DetectResult &R,
               SiteNames &Names, llvm::raw_ostream &OS) {
  OS << "patterns in '" << T.Directory << "' (" << T.WorldSize << " ranks"
     << (R.Partial ? ", incomplete trace: partial results" : "") << "):\n";
  if (R.Patterns.empty())
    OS << "  no collective patterns\n";
  for (const patterns::Pattern &P : R.Patterns) {
    OS << "  " << P.Collective << " " << P.Topology << " comm " << P.Comm;
    if (P.Root >= 0)
      OS << " root " << P.Root;
    if (!P.Roots.empty())
      OS << " roots " << rankList(P.Roots);
    OS << ", " << P.Bytes << " bytes, " << P.Occurrences << " occurrence"
       << (P.Occurrences == 1 ? "" : "s") << ", evidence " << P.Evidence;
    if (!P.Note.empty())
      OS << " (" << P.Note << ")";
    if (P.Contents == "same")
      OS << ", contents verified by hash";
    else if (P.Contents == "not recorded")
      OS << ", contents not verified (trace with --hash to verify)";
    OS << "\n";
    for (const patterns::PatternSite &S : P.Sites)
      OS << "    " << (S.Send ? "send" : "recv") << " " << Names.text(S.Site)
         << " ranks " << rankList(S.Ranks) << "\n";
  }
}

llvm::json::Value toJson(const trace::Trace &T, const patterns::DetectResult &R,
                         SiteNames &Names) {
  llvm::json::Array Comms, Patterns, Warnings;
  for (size_t C = 0; C < T.Comms.size(); ++C)
    Comms.push_back(
        llvm::json::Object{{"id", int64_t(C)},
                           {"name", T.Comms[C].Name},
                           {"members", llvm::json::Array(T.Comms[C].Members)}});
  for (const patterns::Pattern &P : R.Patterns) {
    llvm::json::Array Sites;
    for (const patterns::PatternSite &S : P.Sites) {
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
    Patterns.push_back(
        llvm::json::Object{{"collective", P.Collective},
                           {"topology", P.Topology},
                           {"comm", int64_t(P.Comm)},
                           {"root", P.Root},
                           {"roots", llvm::json::Array(P.Roots)},
                           {"bytes", int64_t(P.Bytes)},
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

} // namespace

llvm::json::Value detectPatternsAsJson(const trace::Trace &T) {
  patterns::DetectResult R = patterns::detectPatterns(T);
  SiteNames Names(T);
  return toJson(T, R, Names);
}

int runDetectCommand(int Argc, const char **Argv) {
  cl::OptionCategory Category("mpilift detect options");
  cl::opt<std::string> Dir(cl::Positional, cl::Required,
                           cl::desc("<trace directory>"), cl::cat(Category));
  cl::opt<std::string> Format("format", cl::desc("text or json"),
                              cl::init("text"), cl::cat(Category));
  cl::opt<std::string> Output("o", cl::desc("write to this file"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category));
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          Argc, Argv, "mpilift detect: collective patterns in a trace\n",
          &llvm::errs()))
    return ExitBadInput;
  if (Format != "text" && Format != "json") {
    error() << "--format must be text or json, not '" << Format << "'\n";
    return ExitBadInput;
  }
  std::optional<trace::Trace> T = readTraceForCommand(Dir);
  if (!T)
    return ExitBadInput;
  if (T->Sites.empty())
    warning() << "'" << Dir
              << "' records no call sites (a foreign archive?): patterns "
                 "name no source locations\n";
  patterns::DetectResult R = patterns::detectPatterns(*T);
  SiteNames Names(*T);
  std::error_code EC;
  llvm::ToolOutputFile Out(Output, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    error() << "cannot write '" << Output << "': " << EC.message() << "\n";
    return ExitBadInput;
  }
  if (Format == "json")
    Out.os() << llvm::formatv("{0:2}", toJson(*T, R, Names)) << "\n";
  else
    printText(*T, R, Names, Out.os());
  Out.keep();
  for (const std::string &W : R.Warnings)
    warning() << W << "\n";
  for (const std::string &E : Names.Errors)
    warning() << "call sites cannot be mapped to source: " << E << "\n";
  return ExitClean;
}

} // namespace mpilift
