//===- Findings.cpp - Findings of mpilift check and their outputs ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Check/Findings.h"

#include "llvm/Support/Path.h"

namespace mpilift {
namespace check {

llvm::ArrayRef<RuleInfo> allRules() {
  static const RuleInfo Rules[] = {
      {"mpilift-manual-bcast",
       "point-to-point messages that implement a broadcast",
       "docs/checks/mpilift-manual-bcast.md"},
      {"mpilift-manual-scatter",
       "a loop of point-to-point sends that implements a scatter",
       "docs/checks/mpilift-manual-scatter.md"},
      {"mpilift-manual-gather",
       "a loop of point-to-point receives that implements a gather",
       "docs/checks/mpilift-manual-gather.md"},
      {"mpilift-manual-allgather",
       "a loop of point-to-point exchanges that implements an allgather",
       "docs/checks/mpilift-manual-allgather.md"},
      {"mpilift-manual-alltoall",
       "a loop of point-to-point exchanges that implements an alltoall",
       "docs/checks/mpilift-manual-alltoall.md"},
      {"mpilift-manual-reduce",
       "point-to-point messages whose values are combined on one rank: a "
       "reduction",
       "docs/checks/mpilift-manual-reduce.md"},
      {"mpilift-manual-allreduce",
       "point-to-point messages that leave every rank the combination of "
       "all values: an allreduce",
       "docs/checks/mpilift-manual-allreduce.md"},
      {"mpilift-manual-scan",
       "a chain of point-to-point messages passing a running combination: a "
       "scan",
       "docs/checks/mpilift-manual-scan.md"},
      {"mpilift-split-send",
       "a blocking send whose wait can move past independent statements",
       "docs/checks/mpilift-split-send.md"},
      {"mpilift-split-recv",
       "a blocking receive whose wait can move past independent statements",
       "docs/checks/mpilift-split-recv.md"},
      {"mpilift-sink-wait", "a wait that can move past independent statements",
       "docs/checks/mpilift-sink-wait.md"},
      {"mpilift-fuse-collectives",
       "a sequence of collective calls that one collective call replaces",
       "docs/checks/mpilift-fuse-collectives.md"},
  };
  return Rules;
}

namespace {

std::string fileUri(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (char C : Path) {
    if (isalnum(static_cast<unsigned char>(C)) || strchr("/-_.~", C)) {
      Uri += C;
      continue;
    }
    char Buffer[4];
    snprintf(Buffer, sizeof Buffer, "%%%02X", static_cast<unsigned char>(C));
    Uri += Buffer;
  }
  return Uri;
}

llvm::json::Object physical(const Place &P) {
  return llvm::json::Object{
      {"artifactLocation", llvm::json::Object{{"uri", fileUri(P.File)}}},
      {"region", llvm::json::Object{{"startLine", int64_t(P.Line)},
                                    {"startColumn", int64_t(P.Column)}}}};
}

} // namespace

llvm::json::Value toSarif(llvm::ArrayRef<Finding> Findings,
                          llvm::StringRef Version) {
  llvm::json::Array Rules;
  std::map<std::string, int64_t> RuleIndex;
  for (const RuleInfo &R : allRules()) {
    RuleIndex[R.Id] = int64_t(Rules.size());
    Rules.push_back(llvm::json::Object{
        {"id", R.Id},
        {"shortDescription", llvm::json::Object{{"text", R.ShortDescription}}},
        {"helpUri", R.HelpUri},
        {"defaultConfiguration", llvm::json::Object{{"level", "warning"}}}});
  }
  llvm::json::Array Results;
  for (const Finding &F : Findings) {
    llvm::json::Object Result{
        {"ruleId", F.Rule},
        {"level", F.Error    ? "error"
                  : F.Remark ? "note"
                             : "warning"},
        {"message", llvm::json::Object{{"text", F.Message}}},
        {"locations", llvm::json::Array{llvm::json::Object{
                          {"physicalLocation", physical(F.Where)}}}},
        {"partialFingerprints",
         llvm::json::Object{{"mpiliftPattern/v1", F.Fingerprint}}}};
    auto It = RuleIndex.find(F.Rule);
    if (It != RuleIndex.end())
      Result["ruleIndex"] = It->second;
    llvm::json::Array Related;
    for (const Note &N : F.Notes)
      Related.push_back(llvm::json::Object{
          {"id", int64_t(Related.size())},
          {"physicalLocation", physical(N.Where)},
          {"message", llvm::json::Object{{"text", N.Message}}}});
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    if (!F.Fix.empty()) {
      std::map<std::string, llvm::json::Array> PerFile;
      for (const Edit &E : F.Fix)
        PerFile[E.Begin.File].push_back(llvm::json::Object{
            {"deletedRegion",
             llvm::json::Object{{"startLine", int64_t(E.Begin.Line)},
                                {"startColumn", int64_t(E.Begin.Column)},
                                {"endLine", int64_t(E.End.Line)},
                                {"endColumn", int64_t(E.End.Column)}}},
            {"insertedContent", llvm::json::Object{{"text", E.Text}}}});
      llvm::json::Array Changes;
      for (auto &[File, Replacements] : PerFile)
        Changes.push_back(llvm::json::Object{
            {"artifactLocation", llvm::json::Object{{"uri", fileUri(File)}}},
            {"replacements", std::move(Replacements)}});
      Result["fixes"] = llvm::json::Array{llvm::json::Object{
          {"description",
           llvm::json::Object{{"text", "replace with the MPI collective"}}},
          {"artifactChanges", std::move(Changes)}}};
    }
    Results.push_back(std::move(Result));
  }
  return llvm::json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       llvm::json::Array{llvm::json::Object{
           {"tool",
            llvm::json::Object{
                {"driver",
                 llvm::json::Object{
                     {"name", "mpilift"},
                     {"version", Version},
                     {"informationUri", "https://example.invalid/mpilift"},
                     {"rules", std::move(Rules)}}}}},
           {"results", std::move(Results)}}}}};
}

void writeReplacementsYaml(
    const std::map<std::string, std::pair<std::string, std::string>> &Files,
    llvm::raw_ostream &OS) {
  // One replacement per file, spanning the bytes that differ: applying it
  // gives exactly what --fix writes, formatting included.
  std::string Body;
  llvm::raw_string_ostream Out(Body);
  for (const auto &[File, Contents] : Files) {
    const std::string &Before = Contents.first, &After = Contents.second;
    if (Before == After)
      continue;
    size_t Prefix = 0;
    while (Prefix < Before.size() && Prefix < After.size() &&
           Before[Prefix] == After[Prefix])
      ++Prefix;
    size_t Suffix = 0;
    while (Suffix < Before.size() - Prefix && Suffix < After.size() - Prefix &&
           Before[Before.size() - 1 - Suffix] ==
               After[After.size() - 1 - Suffix])
      ++Suffix;
    std::string Text = After.substr(Prefix, After.size() - Prefix - Suffix);
    // Double-quoted YAML with escapes keeps line breaks and quotes exact.
    std::string Escaped;
    for (char C : Text) {
      switch (C) {
      case '\\':
        Escaped += "\\\\";
        break;
      case '"':
        Escaped += "\\\"";
        break;
      case '\n':
        Escaped += "\\n";
        break;
      case '\t':
        Escaped += "\\t";
        break;
      default:
        Escaped += C;
      }
    }
    Out << "  - FilePath: \"" << File << "\"\n"
        << "    Offset: " << Prefix << "\n"
        << "    Length: " << (Before.size() - Prefix - Suffix) << "\n"
        << "    ReplacementText: \"" << Escaped << "\"\n";
  }
  Out.flush();
  OS << "---\nMainSourceFile: ''\n";
  if (Body.empty())
    OS << "Replacements: []\n";
  else
    OS << "Replacements:\n" << Body;
  OS << "...\n";
}

} // namespace check
} // namespace mpilift
