//===- CheckCommand.cpp - mpilift check -----------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `mpilift check [-p DIR] [--patterns FILE | --trace DIR] [--fix] FILES...
/// [-- COMPILER ARGS]`: runs the collective finder and its safety checks
/// over translation units of a compile database, prints clang-style
/// diagnostics with fix-its, and applies the rewrites with --fix.
///
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mpilift/Analysis/Fusion.h"
#include "mpilift/Analysis/LibraryHeaders.h"
#include "mpilift/Analysis/ManualCollective.h"
#include "mpilift/Analysis/Overlap.h"
#include "mpilift/Check/Config.h"
#include "mpilift/Check/Edits.h"
#include "mpilift/Check/Findings.h"
#include "mpilift/Check/GlobList.h"
#include "mpilift/Check/Suppression.h"
#include "mpilift/Trace/Symbolizer.h"
#include "mpilift/Transform/CollectiveRewrite.h"
#include "mpilift/Transform/FusionRewrite.h"
#include "mpilift/Transform/OverlapRewrite.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Format/Format.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace clang;
namespace cl = llvm::cl;

namespace mpilift {

namespace {

/// The rules that run when neither --checks nor .mpilift.yaml says: the
/// collective rules. The overlap rules change where programs block, which
/// pays only sometimes (docs/performance.md), so they run when named.
constexpr const char *DefaultChecks =
    "mpilift-manual-*,mpilift-fuse-collectives";

/// Call sites of the patterns a trace shows, as (real path, line), and as
/// (file name, line, function) for sources checked somewhere else than
/// where the traced binary was built (a copy, another checkout).
/// Each site keeps the collective the trace names there ("bcast").
struct TraceEvidence {
  bool Present = false;
  std::map<std::pair<std::string, unsigned>, std::string> Sites;
  std::map<std::tuple<std::string, unsigned, std::string>, std::string> Named;

  /// The collective the trace shows with a call at \p Line of \p File.
  std::optional<std::string> kindAt(StringRef File, unsigned Line,
                                    StringRef Function) const {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(File, Real))
      Real = File;
    auto Site = Sites.find({std::string(Real), Line});
    if (Site != Sites.end())
      return Site->second;
    auto Name = Named.find(
        {llvm::sys::path::filename(File).str(), Line, Function.str()});
    if (Name != Named.end())
      return Name->second;
    return std::nullopt;
  }
  bool covers(StringRef File, unsigned Line, StringRef Function) const {
    return kindAt(File, Line, Function).has_value();
  }
};

/// How long the traced run spent in each blocking send, receive and wait,
/// by call site: what the overlap rules could win there.
struct BlockedTime {
  struct Total {
    uint64_t Nanoseconds = 0;
    unsigned Calls = 0;
  };
  bool Present = false;
  std::map<std::pair<std::string, unsigned>, Total> ByPlace;
  std::map<std::tuple<std::string, unsigned, std::string>, Total> ByName;

  /// The total at a call on \p Line of \p File (or of a file with the
  /// same name in the same function, for a copied tree); null if none.
  const Total *at(StringRef File, unsigned Line, StringRef Function) const {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(File, Real))
      Real = File;
    auto It = ByPlace.find({std::string(Real), Line});
    if (It != ByPlace.end())
      return &It->second;
    auto Named = ByName.find(
        {llvm::sys::path::filename(File).str(), Line, Function.str()});
    return Named == ByName.end() ? nullptr : &Named->second;
  }
};

/// Whether \p Checks enables one of the overlap rules.
bool anyOverlapRule(const check::GlobList &Checks) {
  for (analysis::OverlapRule R :
       {analysis::OverlapRule::SplitSend, analysis::OverlapRule::SplitRecv,
        analysis::OverlapRule::SinkWait})
    if (Checks.contains(analysis::overlapRuleId(R)))
      return true;
  return false;
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

/// Sums, over every rank, the time of the calls the overlap rules look at.
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
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(Where->File, Real))
      Real = Where->File;
    auto Add = [&](BlockedTime::Total &Into) {
      Into.Nanoseconds += Sum.Nanoseconds;
      Into.Calls += Sum.Calls;
    };
    Add(Out.ByPlace[{std::string(Real), Where->Line}]);
    Add(Out.ByName[{llvm::sys::path::filename(Where->File).str(), Where->Line,
                    Where->Function}]);
  }
  return Out;
}

/// Reads the call sites of every pattern in a detect JSON document.
llvm::Error addPatternSites(const llvm::json::Value &Doc, StringRef Origin,
                            TraceEvidence &Evidence) {
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
      std::optional<StringRef> File = SO->getString("file");
      std::optional<int64_t> Line = SO->getInteger("line");
      if (!File || !Line)
        continue;
      llvm::SmallString<256> Real;
      if (llvm::sys::fs::real_path(*File, Real))
        Real = *File;
      std::string Kind = PO->getString("collective").value_or("unknown").str();
      Evidence.Sites.try_emplace({std::string(Real), unsigned(*Line)}, Kind);
      if (std::optional<StringRef> Function = SO->getString("function"))
        Evidence.Named.try_emplace({llvm::sys::path::filename(*File).str(),
                                    unsigned(*Line), Function->str()},
                                   Kind);
    }
  }
  return llvm::Error::success();
}

/// What an MPI compiler wrapper adds (include paths, defines) and which
/// compiler it runs, so databases that name mpicc work like any other.
/// Cached per wrapper.
class MPIWrapperFlags {
public:
  struct Wrapper {
    std::vector<std::string> Flags;
    std::string Compiler; ///< What it runs ("gcc"); empty if unknown.
  };

  const Wrapper &wrapperFor(StringRef Compiler) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto [It, New] = Cache.try_emplace(Compiler);
    if (New)
      It->second = query(Compiler);
    return It->second;
  }

  static bool isWrapper(StringRef Compiler) {
    StringRef Name = llvm::sys::path::filename(Compiler);
    return Name.starts_with("mpicc") || Name.starts_with("mpicxx") ||
           Name.starts_with("mpic++") || Name.starts_with("mpiCC");
  }

private:
  /// What \p Path prints for \p Query, or nothing if it fails.
  static std::optional<std::string> ask(StringRef Path, StringRef Query) {
    llvm::SmallString<128> Out;
    if (llvm::sys::fs::createTemporaryFile("mpilift-wrapper", "txt", Out))
      return std::nullopt;
    std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Out),
                                            StringRef("")};
    int RC =
        llvm::sys::ExecuteAndWait(Path, {Path, Query}, std::nullopt, Redirects);
    auto Text = llvm::MemoryBuffer::getFile(Out);
    llvm::sys::fs::remove(Out);
    if (RC != 0 || !Text)
      return std::nullopt;
    return (*Text)->getBuffer().str();
  }

  static Wrapper query(StringRef Compiler) {
    llvm::ErrorOr<std::string> Path =
        llvm::sys::path::is_absolute(Compiler)
            ? std::string(Compiler)
            : llvm::sys::findProgramByName(Compiler);
    if (!Path)
      return {};
    // Open MPI: --showme:compile prints only the flags, --showme:command
    // the compiler. MPICH: -show prints the whole command, the compiler
    // first; its -I and -D words are the ones that matter.
    Wrapper W;
    std::optional<std::string> Text = ask(*Path, "--showme:compile");
    if (Text) {
      if (std::optional<std::string> Command = ask(*Path, "--showme:command"))
        W.Compiler = StringRef(*Command).trim().str();
    } else if ((Text = ask(*Path, "-show"))) {
      W.Compiler = StringRef(*Text).trim().split(' ').first.str();
    } else {
      return W;
    }
    SmallVector<StringRef, 16> Words;
    StringRef(*Text).split(Words, ' ', -1, false);
    for (StringRef Word : Words) {
      Word = Word.trim();
      if (Word.starts_with("-I") || Word.starts_with("-D") ||
          Word.starts_with("-isystem") || Word == "-pthread")
        W.Flags.push_back(Word.str());
    }
    return W;
  }

  llvm::StringMap<Wrapper> Cache;
  std::mutex Mutex;
};

/// Whether \p Compiler is GCC (`gcc`, `gcc-12`, `cc`, `x86_64-linux-gnu-gcc`,
/// and the C++ names), which accepts with a warning some old C that clang
/// 19 rejects.
bool isGCC(StringRef Compiler) {
  StringRef Name = llvm::sys::path::filename(Compiler);
  auto [Stem, Version] = Name.rsplit('-');
  if (!Version.empty() && llvm::all_of(Version, llvm::isDigit))
    Name = Stem; // gcc-12
  for (StringRef GCC : {"gcc", "g++", "cc", "c++", "c89", "c99"})
    if (Name == GCC || Name.ends_with(("-" + GCC).str()))
      return true;
  return false;
}

/// GCC 12 warns where clang 19 stops: implicit int, implicit function
/// declarations, int/pointer conversions. Units built with GCC are parsed
/// as it would build them.
const char *const GCCLegacyFlags[] = {
    "-Wno-error=implicit-int", "-Wno-error=implicit-function-declaration",
    "-Wno-error=int-conversion",
    "-Wno-error=incompatible-function-pointer-types"};

/// Everything the run collects over all translation units.
struct CheckState {
  /// Held while a translation unit is analysed (--jobs parses in parallel).
  std::mutex Mutex;
  TraceEvidence Evidence;
  BlockedTime Blocked;
  /// The overlap rules' options (command line only).
  transform::OverlapOptions Overlap;
  double OverlapThresholdMs = 1.0;
  bool OverlapAggressive = false;
  /// mpilift-fuse-collectives: floating-point sums and products may be
  /// combined in another order.
  bool AllowReassociation = false;
  bool Fix = false;
  /// Rewrites per file, deduplicated by their edits (a header pattern is
  /// reached from every translation unit that includes it).
  std::map<std::string,
           std::vector<std::pair<std::string, tooling::AtomicChange>>>
      Changes;
  std::set<std::string> SeenChanges;
  /// Patterns (real path:offset) some translation unit refused: a header
  /// pattern proven in one unit and refused in another is not rewritten,
  /// since one edit would serve both.
  std::set<std::string> RefusedSites;
  unsigned Findings = 0, Rewritable = 0, Suppressed = 0;
  unsigned Parsed = 0, ParseFailures = 0;
  bool AnyError = false;
  bool Sarif = false;
  /// Settings given on the command line; they win over .mpilift.yaml.
  std::optional<std::string> Checks, WarningsAsErrors, HeaderFilter,
      Collectives, Fallback;
  unsigned ConfigErrors = 0;
  std::vector<check::Finding> Results;
  /// For each rewritten file, a translation unit that includes it, to parse
  /// the rewrite again before writing it.
  std::map<std::string, std::string> Origin;
};

/// Where libcdag's header is (this build's source tree, or where it is
/// installed): a libcdag fallback asks the user to build with libcdag, so
/// its rewrite is compiled with these.
std::vector<std::string> cdagIncludeDirs() {
  std::vector<std::string> Dirs;
  for (const char *Dir : {MPILIFT_CDAG_INCLUDE_DIRS})
    if (llvm::sys::fs::exists(llvm::Twine(Dir) + "/cdag/cdag.h"))
      Dirs.push_back(Dir);
  return Dirs;
}

/// What supports a finding.
enum class Support { Static, StaticAndTrace, TraceMissesIt };

Support supportOf(const analysis::ManualCollective &C, const SourceManager &SM,
                  const TraceEvidence &E) {
  if (!E.Present)
    return Support::Static;
  std::vector<const CallExpr *> Calls = C.Calls;
  if (Calls.empty())
    Calls = {C.RootCall, C.PeerCall};
  for (const CallExpr *Call : Calls) {
    if (!Call)
      continue;
    PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Call->getBeginLoc()));
    if (P.isValid() &&
        E.covers(P.getFilename(), P.getLine(), C.Function->getName()))
      return Support::StaticAndTrace;
  }
  return Support::TraceMissesIt;
}

const char *supportText(Support S) {
  switch (S) {
  case Support::Static:
    return "static analysis";
  case Support::StaticAndTrace:
    return "static analysis and the trace";
  case Support::TraceMissesIt:
    return "static analysis; the trace does not show it";
  }
  llvm_unreachable("unknown support");
}

/// The collective `mpilift detect` names, as the kind whose rule id ends
/// in that name: a v form goes with its regular one; "unknown" and the
/// reductions have none.
std::optional<analysis::ManualKind> manualKindNamed(StringRef Name) {
  Name.consume_back("v");
  using analysis::ManualKind;
  for (ManualKind K :
       {ManualKind::Bcast, ManualKind::Scatter, ManualKind::Gather,
        ManualKind::Allgather, ManualKind::Alltoall})
    if (analysis::ruleId(K) == ("mpilift-manual-" + Name).str())
      return K;
  return std::nullopt;
}

/// "loop of point-to-point sends implements a broadcast", ...
std::string patternPhrase(const analysis::ManualCollective &C) {
  std::string Shape;
  switch (C.Topology) {
  case analysis::ManualTopology::Star:
    Shape = C.Kind == analysis::ManualKind::Allgather ||
                    C.Kind == analysis::ManualKind::Alltoall
                ? "loop of point-to-point exchanges"
            : C.Kind == analysis::ManualKind::Gather ||
                    C.Kind == analysis::ManualKind::Reduce
                ? "loop of point-to-point receives"
            : analysis::isReduction(C.Kind) ? "loop of point-to-point messages"
                                            : "loop of point-to-point sends";
    break;
  case analysis::ManualTopology::Ring:
    Shape = "ring of point-to-point messages";
    break;
  case analysis::ManualTopology::Chain:
    Shape = "chain of point-to-point messages";
    break;
  case analysis::ManualTopology::Tree:
    Shape = "tree of point-to-point messages";
    break;
  case analysis::ManualTopology::Exchange:
    Shape = "loop of point-to-point exchanges";
    break;
  }
  if (C.Polling)
    Shape = "polling " + Shape;
  StringRef Noun = analysis::collectiveNoun(C.Kind);
  return Shape +
         (Noun.starts_with("a") ? " implements an " : " implements a ") +
         Noun.str();
}

class CheckConsumer : public ASTConsumer {
public:
  CheckConsumer(CompilerInstance &CI, CheckState &State)
      : CI(CI), State(State) {
    configure(CI.getFrontendOpts().Inputs[0].getFile());
  }

  void HandleTranslationUnit(ASTContext &Context) override {
    std::lock_guard<std::mutex> Lock(State.Mutex);
    if (!Configured)
      return;
    if (CI.getDiagnostics().hasErrorOccurred()) {
      ++State.ParseFailures;
      return;
    }
    ++State.Parsed;
    analyze(Context);
    verifyPending(Context.getSourceManager());
    publishPending(Context.getSourceManager());
  }

private:
  /// A finding whose rewrite (if any) is not yet verified.
  struct PendingFinding {
    check::Finding F;
    std::optional<tooling::AtomicChange> Change;
    SourceLocation Loc;
    /// The message up to where it says what to do; what follows when the
    /// rewrite turns out not to apply.
    std::string Base;
  };

  /// Runs the rules on every function of the unit into Pending.
  void analyze(ASTContext &Context) {
    analysis::ManualCollectiveFinder Finder(Context, State.AllowReassociation);
    SmallVector<const FunctionDecl *, 32> Functions;
    collectFunctions(Context, Functions);
    // The calls of a hand-written collective the collective rules report
    // belong to it (its rewrite, or libcdag's, replaces them): the overlap
    // rules leave them alone.
    const SourceManager &SM = Context.getSourceManager();
    std::vector<SourceRange> Collectives;
    for (const FunctionDecl *F : Functions)
      for (const analysis::ManualCollective &C : Finder.find(*F)) {
        if (Settings.Checks.contains(analysis::ruleId(C.Kind)))
          Collectives.push_back(
              SM.getExpansionRange(C.PatternStmt->getSourceRange())
                  .getAsRange());
        report(Context, C);
      }
    if (State.Evidence.Present)
      for (const FunctionDecl *F : Functions)
        for (const analysis::UnjudgedCalls &U : Finder.unjudged(*F))
          reportUnjudged(Context, *F, U);
    if (Settings.Checks.contains(analysis::fusionRuleId())) {
      analysis::FusionFinder Fusions(Context, State.AllowReassociation);
      for (const FunctionDecl *F : Functions)
        for (const analysis::FusionSite &S : Fusions.find(*F))
          reportFusion(Context, S);
    }
    if (!anyOverlapRule(Settings.Checks))
      return;
    analysis::OverlapFinder Overlaps(Context, State.OverlapAggressive);
    for (const FunctionDecl *F : Functions)
      for (const analysis::OverlapSite &S : Overlaps.find(*F)) {
        SourceLocation Loc = SM.getExpansionLoc(S.Call->getBeginLoc());
        bool InCollective = llvm::any_of(Collectives, [&](SourceRange R) {
          return SM.isPointWithin(Loc, R.getBegin(), R.getEnd());
        });
        if (!InCollective)
          reportOverlap(Context, S);
      }
  }

  /// The new text of every file \p Indices of Pending change, by the path
  /// the compiler opened; for a file whose edits do not go together, the
  /// reason instead.
  std::map<std::string, std::string>
  newContents(const SourceManager &SM, ArrayRef<size_t> Indices,
              std::map<std::string, std::string> &Conflicts) {
    std::map<FileID, std::vector<tooling::AtomicChange>> ByFile;
    for (size_t I : Indices)
      ByFile[SM.getFileID(Pending[I].Loc)].push_back(*Pending[I].Change);
    std::map<std::string, std::string> Out;
    for (const auto &[File, Changes] : ByFile) {
      OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
      if (!Entry)
        continue;
      std::string Path = Entry->getName().str();
      llvm::Expected<std::string> Text =
          check::applyFormatted(Path, SM.getBufferData(File), Changes);
      if (Text)
        Out[Path] = std::move(*Text);
      else
        Conflicts[Path] = llvm::toString(Text.takeError());
    }
    return Out;
  }

  /// Drops the rewrite of Pending[I], saying why in its message.
  void dropRewrite(size_t I, const std::string &Why) {
    PendingFinding &P = Pending[I];
    P.Change.reset();
    std::string Flat = Why;
    std::replace(Flat.begin(), Flat.end(), '\n', ' ');
    P.F.Message = P.Base + "; not rewritten: " + StringRef(Flat).trim().str() +
                  " [" + P.F.Rule + "]";
    llvm::erase_if(P.F.Notes, [](const check::Note &N) {
      return StringRef(N.Message).starts_with("the wait is placed here");
    });
  }

  /// Runs on the pending rewrites what --fix runs before it writes: the
  /// edits of a file go together, and the unit compiles with them. A fix-it
  /// that fails is not shown, and --fix does not write it.
  void verifyPending(const SourceManager &SM) {
    SmallVector<size_t, 8> Alive;
    for (size_t I = 0; I < Pending.size(); ++I)
      if (Pending[I].Change)
        Alive.push_back(I);
    if (Alive.empty())
      return;
    auto FileOf = [&](size_t I) {
      OptionalFileEntryRef Entry =
          SM.getFileEntryRefForID(SM.getFileID(Pending[I].Loc));
      return Entry ? Entry->getName().str() : std::string();
    };
    std::map<std::string, std::string> Conflicts;
    std::map<std::string, std::string> Contents =
        newContents(SM, Alive, Conflicts);
    // As --fix: conflicting edits in a file mean none of them is applied.
    for (size_t I : Alive)
      if (Conflicts.count(FileOf(I)))
        dropRewrite(I, "its edits conflict with another rewrite of the "
                       "file: " +
                           Conflicts[FileOf(I)]);
    llvm::erase_if(Alive, [&](size_t I) { return !Pending[I].Change; });
    if (Alive.empty())
      return;
    auto FS = CI.getFileManager().getVirtualFileSystemPtr();
    std::vector<std::string> Dirs = cdagIncludeDirs();
    auto CompileError = [&](const std::map<std::string, std::string> &New) {
      return check::compileErrorWith(CI.getInvocation(), FS, New, Dirs);
    };
    if (!CompileError(Contents))
      return;
    // Find the rewrites that break the unit on their own.
    for (size_t I : Alive) {
      std::map<std::string, std::string> Unused;
      std::map<std::string, std::string> One = newContents(SM, {I}, Unused);
      if (auto Error = CompileError(One))
        dropRewrite(I, "the rewritten code does not compile (" + *Error + ")");
    }
    llvm::erase_if(Alive, [&](size_t I) { return !Pending[I].Change; });
    if (Alive.empty())
      return;
    Contents = newContents(SM, Alive, Conflicts);
    if (auto Error = CompileError(Contents))
      for (size_t I : Alive)
        dropRewrite(I, "with the other rewrites of this unit the code does "
                       "not compile (" +
                           *Error + ")");
  }

  /// Prints the findings of the unit with their verified fix-its, keeps the
  /// rewrites for --fix (or marks their sites refused), and records them.
  void publishPending(const SourceManager &SM) {
    for (PendingFinding &P : Pending) {
      if (P.Change)
        P.F.Fix = editsOf(*P.Change, SM, P.Loc);
      emit(P.F, P.Change ? &*P.Change : nullptr, SM, P.Loc);
      if (P.Change) {
        ++State.Rewritable;
        keepChange(std::move(*P.Change), SM, P.Loc);
      } else {
        State.RefusedSites.insert(siteOf(SM, P.Loc));
      }
      State.AnyError |= P.F.Error;
      State.Results.push_back(std::move(P.F));
    }
    Pending.clear();
  }

  /// The settings of this translation unit: the command line over the
  /// nearest .mpilift.yaml over the defaults.
  struct UnitSettings {
    check::GlobList Checks{DefaultChecks};
    check::GlobList Errors{""};
    std::optional<llvm::Regex> HeaderFilter;
    transform::RewriteOptions Options;
    bool FallbackCDag = false;
  };

  void configure(StringRef MainFile) {
    std::lock_guard<std::mutex> Lock(State.Mutex);
    llvm::Expected<check::Config> Found = check::findConfig(MainFile);
    if (!Found) {
      error() << llvm::toString(Found.takeError()) << "\n";
      ++State.ConfigErrors;
      return;
    }
    auto Pick = [](const std::optional<std::string> &Cli,
                   const std::optional<std::string> &File,
                   const char *Default) {
      return Cli ? *Cli : File ? *File : std::string(Default);
    };
    Settings.Checks =
        check::GlobList(Pick(State.Checks, Found->Checks, DefaultChecks));
    Settings.Errors = check::GlobList(
        Pick(State.WarningsAsErrors, Found->WarningsAsErrors, ""));
    std::string Filter = Pick(State.HeaderFilter, Found->HeaderFilterRegex, "");
    if (!Filter.empty()) {
      llvm::Regex R(Filter);
      std::string Why;
      if (!R.isValid(Why)) {
        error() << "bad header filter '" << Filter << "': " << Why << "\n";
        ++State.ConfigErrors;
        return;
      }
      Settings.HeaderFilter = std::move(R);
    }
    Settings.Options.Nonblocking = Pick(State.Collectives, Found->Collectives,
                                        "blocking") == "nonblocking";
    Settings.FallbackCDag =
        Pick(State.Fallback, Found->Fallback, "none") == "cdag";
    Configured = true;
  }

  /// Every function with a body in the main file or in a header of the
  /// project: not a system header, and not in the directory of the MPI
  /// library's own headers.
  void collectFunctions(ASTContext &Context,
                        SmallVectorImpl<const FunctionDecl *> &Out) {
    const SourceManager &SM = Context.getSourceManager();
    analysis::LibraryHeaders Library(Context);
    auto InProject = [&](SourceLocation Loc) {
      if (Library.contain(Loc))
        return false;
      if (SM.isInMainFile(SM.getExpansionLoc(Loc)) || !Settings.HeaderFilter)
        return true;
      PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
      return Settings.HeaderFilter->match(P.getFilename());
    };
    struct Visitor : RecursiveASTVisitor<Visitor> {
      std::function<bool(SourceLocation)> InProject;
      SmallVectorImpl<const FunctionDecl *> &Out;
      Visitor(std::function<bool(SourceLocation)> P,
              SmallVectorImpl<const FunctionDecl *> &O)
          : InProject(std::move(P)), Out(O) {}
      bool VisitFunctionDecl(FunctionDecl *F) {
        if (F->doesThisDeclarationHaveABody() && InProject(F->getLocation()))
          Out.push_back(F);
        return true;
      }
    } V(InProject, Out);
    V.TraverseAST(Context);
  }

  /// A new finding of \p Rule at \p Loc, or none when the rule is off or
  /// a NOLINT comment silences it there.
  std::optional<check::Finding> startFinding(const SourceManager &SM,
                                             const std::string &Rule,
                                             SourceLocation Loc) {
    if (!Settings.Checks.contains(Rule))
      return std::nullopt;
    if (suppressed(SM, Loc, Rule)) {
      ++State.Suppressed;
      return std::nullopt;
    }
    ++State.Findings;
    check::Finding F;
    F.Rule = Rule;
    F.Error = Settings.Errors.contains(Rule);
    F.Where = placeOf(SM, Loc);
    return F;
  }

  /// Keeps \p F with \p Change until the unit's rewrites are verified;
  /// \p Base is its message up to where it says what to do.
  void finishFinding(check::Finding F,
                     std::optional<tooling::AtomicChange> Change,
                     SourceLocation Loc, std::string Base) {
    Pending.push_back({std::move(F), std::move(Change), Loc, std::move(Base)});
  }

  void report(ASTContext &Context, const analysis::ManualCollective &C) {
    const SourceManager &SM = Context.getSourceManager();
    SourceLocation Loc = SM.getExpansionLoc(C.RootStmt->getBeginLoc());
    std::optional<check::Finding> Started =
        startFinding(SM, analysis::ruleId(C.Kind).str(), Loc);
    if (!Started)
      return;
    check::Finding &F = *Started;
    F.Fingerprint = fingerprint(C, Context);
    Support Evidence = supportOf(C, SM, State.Evidence);
    std::string Head = patternPhrase(C) + " (" + supportText(Evidence) + ")";
    std::optional<tooling::AtomicChange> Change;
    if (C.isSafe())
      Change = proven(Context, C, Head, F);
    else
      Change = refused(Context, C, Head, Evidence, F);
    finishFinding(std::move(F), std::move(Change), Loc, Head);
  }

  /// Calls the trace shows as a collective that no finding covers: the
  /// evaluation stopped before it could judge them. A warning says so
  /// rather than nothing, with the reason as a refusal's note.
  void reportUnjudged(ASTContext &Context, const FunctionDecl &Function,
                      const analysis::UnjudgedCalls &U) {
    const SourceManager &SM = Context.getSourceManager();
    for (const CallExpr *Call : U.Calls) {
      SourceLocation Loc = SM.getExpansionLoc(Call->getBeginLoc());
      PresumedLoc P = SM.getPresumedLoc(Loc);
      std::optional<std::string> Kind =
          P.isValid() ? State.Evidence.kindAt(P.getFilename(), P.getLine(),
                                              Function.getName())
                      : std::nullopt;
      std::optional<analysis::ManualKind> Manual =
          Kind ? manualKindNamed(*Kind) : std::nullopt;
      if (!Manual)
        continue;
      std::string Rule = analysis::ruleId(*Manual).str();
      std::optional<check::Finding> Started = startFinding(SM, Rule, Loc);
      if (!Started)
        return;
      check::Finding &F = *Started;
      F.Fingerprint = fingerprintOf(Rule, Function, Call, Context);
      std::string Check = analysis::checkName(U.Why.Check).str();
      std::string Noun = StringRef(*Kind).ends_with("v")
                             ? *Kind
                             : analysis::collectiveNoun(*Manual).str();
      std::string Head = "point-to-point messages the trace shows as " +
                         analysis::withArticle(Noun) +
                         " (the trace; static analysis could not judge "
                         "them)";
      F.Message =
          Head + "; not rewritten: " + Check + " refused [" + Rule + "]";
      F.Notes.push_back({placeOf(SM, SM.getExpansionLoc(U.Why.Loc)),
                         Check + ": " + U.Why.Reason});
      finishFinding(std::move(F), std::nullopt, Loc, Head);
      return; // One finding for the calls one reason stopped.
    }
  }

  /// A sequence of collectives one call replaces: the rewrite, or the
  /// checks that refused it.
  void reportFusion(ASTContext &Context, const analysis::FusionSite &S) {
    const SourceManager &SM = Context.getSourceManager();
    std::string Rule = analysis::fusionRuleId().str();
    SourceLocation Loc = SM.getExpansionLoc(S.Calls.front()->getBeginLoc());
    std::optional<check::Finding> Started = startFinding(SM, Rule, Loc);
    if (!Started)
      return;
    check::Finding &F = *Started;
    F.Fingerprint = fingerprintOf(Rule, *S.Function, S.Stmts.front(), Context);
    std::string Head = S.description();
    for (size_t I = 1; I < S.Calls.size(); ++I)
      F.Notes.push_back(
          {placeOf(SM, SM.getExpansionLoc(S.Calls[I]->getBeginLoc())),
           S.Kind == analysis::FusionKind::PackedAllreduce
               ? "packed with the first call"
           : S.Kind == analysis::FusionKind::ReduceBcast
               ? "the broadcast of the reduced value"
               : "the broadcast of the gathered buffer"});
    std::optional<tooling::AtomicChange> Change;
    if (S.isSafe()) {
      llvm::Expected<tooling::AtomicChange> Made =
          transform::rewriteFusion(S, Context);
      if (Made) {
        Change = std::move(*Made);
        F.Message = Head + "; " + S.replacement() + " [" + Rule + "]";
      } else {
        F.Message = Head +
                    "; not rewritten: " + llvm::toString(Made.takeError()) +
                    " [" + Rule + "]";
      }
    } else {
      std::string Checks;
      for (const analysis::Refusal &R : S.Refusals) {
        std::string Name = analysis::checkName(R.Check).str();
        if (Checks.find(Name) == std::string::npos)
          Checks += (Checks.empty() ? "" : ", ") + Name;
        F.Notes.push_back(
            {placeOf(SM, SM.getExpansionLoc(R.Loc)), Name + ": " + R.Reason});
      }
      F.Message =
          Head + "; not rewritten: " + Checks + " refused [" + Rule + "]";
    }
    finishFinding(std::move(F), std::move(Change), Loc, Head);
  }

  /// An overlap site: what the wait can cross, the rewrite, and what the
  /// trace says about the time blocked there.
  void reportOverlap(ASTContext &Context, const analysis::OverlapSite &S) {
    const SourceManager &SM = Context.getSourceManager();
    std::string Rule = analysis::overlapRuleId(S.Rule).str();
    SourceLocation Loc = SM.getExpansionLoc(S.Call->getBeginLoc());
    std::optional<check::Finding> Started = startFinding(SM, Rule, Loc);
    if (!Started)
      return;
    check::Finding &F = *Started;
    F.Fingerprint = fingerprintOf(Rule, *S.Function, S.CallStmt, Context);
    std::string Name = S.Call->getDirectCallee()->getName().str();
    std::string Head =
        S.Rule == analysis::OverlapRule::SinkWait ? Name : "blocking " + Name;
    std::string Timing, TraceRefuses;
    if (State.Blocked.Present) {
      PresumedLoc P = SM.getPresumedLoc(Loc);
      const BlockedTime::Total *T =
          P.isValid() ? State.Blocked.at(P.getFilename(), P.getLine(),
                                         S.Function->getName())
                      : nullptr;
      if (!T) {
        TraceRefuses = "the trace does not show this call";
      } else {
        double Ms = T->Nanoseconds / 1e6;
        Timing = llvm::formatv(" (the trace: {0:f3} ms blocked in {1} call{2})",
                               Ms, T->Calls, T->Calls == 1 ? "" : "s");
        if (Ms < State.OverlapThresholdMs)
          TraceRefuses = llvm::formatv("the trace shows less than "
                                       "--overlap-threshold-ms={0} blocked "
                                       "here",
                                       State.OverlapThresholdMs);
      }
    }
    std::optional<tooling::AtomicChange> Change;
    std::string Base = Head + Timing;
    if (!S.canTransform()) {
      F.Remark = true;
      F.Error = false;
      F.Message = Head + Timing + ": nothing to overlap [" + Rule + "]";
      F.Notes.push_back(
          {placeOf(SM, SM.getExpansionLoc(S.RefusedLoc)), S.Refused});
    } else {
      std::string Crossed =
          S.AggressiveLoop
              ? std::string("the rest of its loop iteration and the next ones "
                            "until the buffer is touched again")
              : "the next " + std::to_string(S.Crossed) + " statement" +
                    (S.Crossed == 1 ? "" : "s");
      bool Sink = S.Rule == analysis::OverlapRule::SinkWait;
      F.Message = Head + (Sink ? " can move past " : " can overlap ") +
                  Crossed + Timing;
      Base = F.Message;
      std::string Advice = Sink ? std::string()
                                : "; split it into " +
                                      transform::nonblockingName(Name).str() +
                                      " and MPI_Wait";
      if (TraceRefuses.empty()) {
        transform::OverlapOptions Options = State.Overlap;
        Options.TakenNames = &TakenNames[SM.getFileID(Loc)];
        llvm::Expected<tooling::AtomicChange> Made =
            transform::rewriteOverlap(S, Context, Options);
        if (Made) {
          Change = std::move(*Made);
          F.Message += Advice;
        } else {
          F.Message += "; not rewritten: " + llvm::toString(Made.takeError());
        }
      } else {
        F.Message += "; not rewritten: " + TraceRefuses;
      }
      F.Message += " [" + Rule + "]";
      F.Notes.push_back({placeOf(SM, SM.getExpansionLoc(S.StopLoc)),
                         "the wait is placed here: " + S.Stop});
    }
    finishFinding(std::move(F), std::move(Change), Loc, std::move(Base));
  }

  /// What a proof by evaluation covered when it left large sizes out.
  static std::string provenSizes(const analysis::ProvenRegion &R) {
    std::string Left;
    for (int64_t P : R.Skipped)
      Left += (Left.empty() ? "" : ", ") + std::to_string(P);
    return "evaluated at " + std::to_string(R.Sizes) +
           " process counts; not at " + Left +
           ", whose runs would take too many operations";
  }

  /// A proven pattern: its rewrite, and the message and notes that say so.
  std::optional<tooling::AtomicChange>
  proven(ASTContext &Context, const analysis::ManualCollective &C,
         const std::string &Head, check::Finding &F) {
    const SourceManager &SM = Context.getSourceManager();
    SourceLocation Loc = SM.getExpansionLoc(C.RootStmt->getBeginLoc());
    transform::RewriteOptions Options = Settings.Options;
    Options.TakenNames = &TakenNames[SM.getFileID(Loc)];
    llvm::Expected<tooling::AtomicChange> Change =
        transform::rewriteManualCollective(C, Context, Options);
    if (!Change) {
      F.Message = Head +
                  "; not rewritten: " + llvm::toString(Change.takeError()) +
                  " [" + F.Rule + "]";
      return std::nullopt;
    }
    // A polling broadcast keeps its overlap only as a nonblocking one.
    F.Message = Head + "; replace it with " +
                (C.Polling ? std::string("MPI_Ibcast polled by MPI_Test")
                           : transform::collectiveFunction(
                                 C.Kind, Settings.Options.Nonblocking,
                                 C.Region && C.Region->isVector())
                                 .str()) +
                " [" + F.Rule + "]";
    if (C.Region && !C.Region->Skipped.empty())
      F.Notes.push_back({placeOf(SM, Loc), provenSizes(*C.Region)});
    if (C.Region && C.Region->Reassociates)
      F.Notes.push_back(
          {placeOf(SM, Loc),
           "reduction-order: allowed by --allow-reassociation; " +
               C.Region->Op +
               " may combine the values in another order "
               "than this code, and the result may differ in the last bits"});
    if (Settings.Options.Nonblocking && C.Wait && !C.Polling) {
      SourceLocation WaitLoc = C.Wait->Before ? C.Wait->Before->getBeginLoc()
                                              : C.Wait->Block->getRBracLoc();
      F.Notes.push_back({placeOf(SM, SM.getExpansionLoc(WaitLoc)),
                         "the wait is placed here: " + C.Wait->Reason});
    }
    return std::move(*Change);
  }

  /// A pattern that failed a safety check: a note per reason, and with
  /// --fallback cdag the libcdag rewrite where it is possible.
  std::optional<tooling::AtomicChange>
  refused(ASTContext &Context, const analysis::ManualCollective &C,
          const std::string &Head, Support Evidence, check::Finding &F) {
    const SourceManager &SM = Context.getSourceManager();
    SourceLocation Loc = SM.getExpansionLoc(C.RootStmt->getBeginLoc());
    SmallVector<analysis::SafetyCheck, 4> Refusing;
    std::string Checks;
    for (const analysis::Refusal &R : C.Refusals) {
      if (llvm::is_contained(Refusing, R.Check))
        continue;
      Refusing.push_back(R.Check);
      Checks +=
          (Checks.empty() ? "" : ", ") + analysis::checkName(R.Check).str();
    }
    for (const analysis::Refusal &R : C.Refusals)
      F.Notes.push_back({placeOf(SM, SM.getExpansionLoc(R.Loc)),
                         analysis::checkName(R.Check).str() + ": " + R.Reason});
    std::optional<tooling::AtomicChange> Change;
    if (Settings.FallbackCDag && C.Fallback) {
      bool Confirmed = Evidence == Support::StaticAndTrace;
      std::string Why;
      if (!C.Fallback->Blocker.empty()) {
        Why = C.Fallback->Blocker;
      } else if (!Confirmed) {
        Why = "it needs a trace (--trace or --patterns) that shows the "
              "pattern as a collective";
      } else {
        llvm::Expected<tooling::AtomicChange> Rewrite =
            transform::rewriteToCDag(C, Context,
                                     &TakenNames[SM.getFileID(Loc)]);
        if (Rewrite)
          Change = std::move(*Rewrite);
        else
          Why = llvm::toString(Rewrite.takeError());
      }
      if (!Change)
        F.Notes.push_back({placeOf(SM, Loc), "no libcdag fallback: " + Why});
    }
    F.Message = Change ? Head + "; not proven: " + Checks +
                             " refused; run it through libcdag instead (build "
                             "with `pkg-config --cflags --libs cdag`) [" +
                             F.Rule + "]"
                       : Head + "; not rewritten: " + Checks + " refused [" +
                             F.Rule + "]";
    return Change;
  }

  /// Prints \p F through clang's diagnostics (text format), with the
  /// fix-its of \p Change; SARIF is written at the end instead.
  void emit(const check::Finding &F, const tooling::AtomicChange *Change,
            const SourceManager &SM, SourceLocation Loc) {
    if (State.Sarif)
      return;
    DiagnosticsEngine &Diags = CI.getDiagnostics();
    DiagnosticsEngine::Level Level = F.Error    ? DiagnosticsEngine::Error
                                     : F.Remark ? DiagnosticsEngine::Remark
                                                : DiagnosticsEngine::Warning;
    unsigned ID = Diags.getCustomDiagID(Level, "%0");
    {
      DiagnosticBuilder B = Diags.Report(Loc, ID);
      B << F.Message;
      if (Change)
        addFixIts(B, *Change, SM, Loc);
    } // Emitted here, before its notes.
    unsigned NoteID = Diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
    for (const check::Note &N : F.Notes)
      Diags.Report(locationOf(SM, N.Where, Loc), NoteID) << N.Message;
  }

  /// The source location of a place this consumer made.
  static SourceLocation locationOf(const SourceManager &SM,
                                   const check::Place &P,
                                   SourceLocation SameFile) {
    FileID File = SM.getFileID(SameFile);
    if (realFileOf(SM, SameFile, "") != P.File) {
      for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
        if (It->first.getFileEntry().tryGetRealPathName() == P.File) {
          File = SM.translateFile(It->first);
          break;
        }
    }
    return SM.translateLineCol(File, P.Line, P.Column);
  }

  /// Whether a NOLINT comment silences \p Rule at \p Loc.
  bool suppressed(const SourceManager &SM, SourceLocation Loc, StringRef Rule) {
    FileID File = SM.getFileID(Loc);
    auto It = Suppressions.find(File);
    if (It == Suppressions.end())
      It = Suppressions
               .try_emplace(File, std::make_unique<check::Suppressions>(
                                      SM.getBufferData(File)))
               .first;
    return It->second->suppresses(SM.getExpansionLineNumber(Loc), Rule);
  }

  static check::Place placeOf(const SourceManager &SM, SourceLocation Loc) {
    Loc = SM.getExpansionLoc(Loc);
    return {realFileOf(SM, Loc, SM.getFilename(Loc).str()),
            SM.getExpansionLineNumber(Loc), SM.getExpansionColumnNumber(Loc)};
  }

  /// The edits of \p Change as places, for SARIF.
  static std::vector<check::Edit> editsOf(const tooling::AtomicChange &Change,
                                          const SourceManager &SM,
                                          SourceLocation Loc) {
    std::vector<check::Edit> Edits;
    SourceLocation Start = SM.getLocForStartOfFile(SM.getFileID(Loc));
    for (const tooling::Replacement &R : Change.getReplacements()) {
      SourceLocation B = Start.getLocWithOffset(R.getOffset());
      SourceLocation E = B.getLocWithOffset(R.getLength());
      Edits.push_back(
          {placeOf(SM, B), placeOf(SM, E), R.getReplacementText().str()});
    }
    return Edits;
  }

  /// Rule, function and the pattern's text without white space: survives
  /// edits elsewhere in the file, and moves with the code.
  static std::string fingerprint(const analysis::ManualCollective &C,
                                 const ASTContext &Context) {
    return fingerprintOf(analysis::ruleId(C.Kind), *C.Function, C.PatternStmt,
                         Context);
  }

  static std::string fingerprintOf(StringRef Rule, const FunctionDecl &Function,
                                   const Stmt *Statement,
                                   const ASTContext &Context) {
    const SourceManager &SM = Context.getSourceManager();
    CharSourceRange Range = SM.getExpansionRange(Statement->getSourceRange());
    std::string Text =
        Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
    std::string Key =
        Rule.str() + "\n" + Function.getQualifiedNameAsString() + "\n";
    for (char Ch : Text)
      if (!isspace(static_cast<unsigned char>(Ch)))
        Key += Ch;
    return llvm::utohexstr(llvm::xxh3_64bits(Key), /*LowerCase=*/true);
  }

  static void addFixIts(DiagnosticBuilder &B,
                        const tooling::AtomicChange &Change,
                        const SourceManager &SM, SourceLocation Loc) {
    for (const tooling::Replacement &R : Change.getReplacements()) {
      SourceLocation Start = SM.getLocForStartOfFile(SM.getFileID(Loc))
                                 .getLocWithOffset(R.getOffset());
      B << FixItHint::CreateReplacement(
          CharSourceRange::getCharRange(Start,
                                        Start.getLocWithOffset(R.getLength())),
          R.getReplacementText());
    }
  }

  /// Keeps \p Change for --fix, once per file and content.
  void keepChange(tooling::AtomicChange Change, const SourceManager &SM,
                  SourceLocation Loc) {
    std::string File = realFileOf(SM, Loc, Change.getFilePath());
    std::string Key = File + '\0' + Change.toYAMLString();
    // The unit as an absolute path: the database may name it relative to
    // its directory, which is not where this process runs.
    std::string Unit = CI.getFrontendOpts().Inputs[0].getFile().str();
    State.Origin.try_emplace(
        File,
        realFileOf(SM, SM.getLocForStartOfFile(SM.getMainFileID()), Unit));
    if (State.SeenChanges.insert(Key).second)
      State.Changes[File].push_back({siteOf(SM, Loc), std::move(Change)});
  }

  static std::string realFileOf(const SourceManager &SM, SourceLocation Loc,
                                std::string Fallback) {
    if (OptionalFileEntryRef Entry =
            SM.getFileEntryRefForID(SM.getFileID(SM.getExpansionLoc(Loc))))
      if (!Entry->getFileEntry().tryGetRealPathName().empty())
        return Entry->getFileEntry().tryGetRealPathName().str();
    return Fallback;
  }

  /// The pattern at \p Loc, the same from every translation unit.
  static std::string siteOf(const SourceManager &SM, SourceLocation Loc) {
    Loc = SM.getExpansionLoc(Loc);
    return realFileOf(SM, Loc, SM.getFilename(Loc).str()) + ":" +
           std::to_string(SM.getFileOffset(Loc));
  }

  CompilerInstance &CI;
  CheckState &State;
  /// Request names the rewrites of this translation unit declared, per file.
  std::map<FileID, llvm::StringSet<>> TakenNames;
  std::map<FileID, std::unique_ptr<check::Suppressions>> Suppressions;
  std::vector<PendingFinding> Pending;
  UnitSettings Settings;
  bool Configured = false;
};

class CheckAction : public ASTFrontendAction {
public:
  explicit CheckAction(CheckState &State) : State(State) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<CheckConsumer>(CI, State);
  }

private:
  CheckState &State;
};

class CheckActionFactory : public tooling::FrontendActionFactory {
public:
  explicit CheckActionFactory(CheckState &State) : State(State) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<CheckAction>(State);
  }

private:
  CheckState &State;
};

/// The argument adjusters every ClangTool of the command uses: the MPI
/// wrapper's flags and clang's resource directory.
void addAdjusters(tooling::ClangTool &Tool,
                  std::shared_ptr<MPIWrapperFlags> Wrappers) {
  Tool.appendArgumentsAdjuster(
      [Wrappers](const tooling::CommandLineArguments &Args, StringRef) {
        tooling::CommandLineArguments Out = Args;
        if (Args.empty())
          return Out;
        std::string Compiler = Args[0];
        if (MPIWrapperFlags::isWrapper(Args[0])) {
          const MPIWrapperFlags::Wrapper &W = Wrappers->wrapperFor(Args[0]);
          Out.insert(Out.begin() + 1, W.Flags.begin(), W.Flags.end());
          Compiler = W.Compiler;
        }
        if (isGCC(Compiler))
          Out.insert(Out.begin() + 1, std::begin(GCCLegacyFlags),
                     std::end(GCCLegacyFlags));
        bool HasResourceDir = llvm::any_of(Args, [](const std::string &A) {
          return StringRef(A).starts_with("-resource-dir");
        });
        if (!HasResourceDir &&
            llvm::sys::fs::is_directory(MPILIFT_CLANG_RESOURCE_DIR))
          Out.insert(Out.begin() + 1,
                     "-resource-dir=" MPILIFT_CLANG_RESOURCE_DIR);
        return Out;
      });
}

/// Trace-guided mode parses only the units that hold pattern call sites
/// (matched by real path, or by file name for a copied tree). When a site
/// is in none of them (a header), every unit is kept.
std::vector<std::string> unitsWithSites(const std::vector<std::string> &Files,
                                        const TraceEvidence &Evidence,
                                        const BlockedTime &Blocked) {
  std::set<std::string> SiteFiles, SiteNames;
  for (const auto &[Site, Kind] : Evidence.Sites) {
    const std::string &File = Site.first;
    SiteFiles.insert(File);
    SiteNames.insert(llvm::sys::path::filename(File).str());
  }
  for (const auto &[Place, Total] : Blocked.ByPlace) {
    SiteFiles.insert(Place.first);
    SiteNames.insert(llvm::sys::path::filename(Place.first).str());
  }
  if (SiteFiles.empty()) {
    llvm::errs() << "mpilift: the trace shows no pattern with a source "
                    "location; checking all "
                 << Files.size() << " translation units without it\n";
    return Files;
  }
  std::vector<std::string> Kept;
  std::set<std::string> Covered;
  for (const std::string &File : Files) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(File, Real))
      Real = File;
    std::string Name = llvm::sys::path::filename(File).str();
    if (SiteFiles.count(std::string(Real)) || SiteNames.count(Name)) {
      Kept.push_back(File);
      Covered.insert(Name);
    }
  }
  if (Covered.size() < SiteNames.size()) {
    llvm::errs() << "mpilift: some pattern call sites are in no listed "
                    "translation unit (headers?); checking all "
                 << Files.size() << "\n";
    return Files;
  }
  llvm::errs() << "mpilift: the trace's patterns are in " << Kept.size()
               << " of " << Files.size()
               << " translation units; checking those\n";
  return Kept;
}

/// Runs the check over \p Files, \p Jobs units at a time. With several
/// jobs each unit's diagnostics are printed whole and in file order, and a
/// progress line counts the units on a terminal.
int runUnits(const tooling::CompilationDatabase &Compilations,
             const std::vector<std::string> &Files, unsigned Jobs,
             CheckState &State, std::shared_ptr<MPIWrapperFlags> Wrappers) {
  if (Jobs <= 1 || Files.size() <= 1) {
    tooling::ClangTool Tool(Compilations, Files);
    addAdjusters(Tool, Wrappers);
    CheckActionFactory Factory(State);
    return Tool.run(&Factory);
  }
  size_t N = Files.size();
  std::vector<std::string> Output(N);
  std::vector<bool> Done(N, false);
  size_t NextToPrint = 0, Finished = 0;
  std::mutex PrintMutex;
  std::atomic<size_t> Next{0};
  std::atomic<int> Status{0};
  bool Terminal = llvm::errs().is_displayed();
  auto Worker = [&] {
    for (size_t I = Next++; I < N; I = Next++) {
      std::string Buffer;
      llvm::raw_string_ostream OS(Buffer);
      llvm::IntrusiveRefCntPtr<DiagnosticOptions> Options(
          new DiagnosticOptions());
      Options->ShowColors = llvm::errs().has_colors();
      TextDiagnosticPrinter Printer(OS, Options.get());
      tooling::ClangTool Tool(Compilations, {Files[I]});
      addAdjusters(Tool, Wrappers);
      Tool.setDiagnosticConsumer(&Printer);
      CheckActionFactory Factory(State);
      if (Tool.run(&Factory) != 0)
        Status = 1;
      OS.flush();
      std::lock_guard<std::mutex> Lock(PrintMutex);
      Output[I] = std::move(Buffer);
      Done[I] = true;
      ++Finished;
      if (Terminal)
        llvm::errs() << "\r\x1b[K";
      while (NextToPrint < N && Done[NextToPrint])
        llvm::errs() << Output[NextToPrint++];
      if (Terminal)
        llvm::errs() << "[" << Finished << "/" << N << "] checked";
    }
  };
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T < std::min<size_t>(Jobs, N); ++T)
    Threads.emplace_back(Worker);
  for (std::thread &T : Threads)
    T.join();
  if (Terminal)
    llvm::errs() << "\r\x1b[K";
  return Status;
}

/// The new content of every file the proven rewrites touch, formatted in
/// the file's clang-format style: file -> (before, after).
using NewContents = std::map<std::string, std::pair<std::string, std::string>>;

bool computeChanges(const CheckState &State, NewContents &Out) {
  bool OK = true;
  for (const auto &[File, Sited] : State.Changes) {
    std::vector<tooling::AtomicChange> Changes;
    for (const auto &[Site, Change] : Sited) {
      if (!State.RefusedSites.count(Site)) {
        Changes.push_back(Change);
        continue;
      }
      warning() << "not rewriting the pattern at " << File << " (offset "
                << StringRef(Site).rsplit(':').second
                << "): one translation unit proves it but another refuses "
                   "it, and one edit would serve both\n";
    }
    if (Changes.empty())
      continue;
    auto Code = llvm::MemoryBuffer::getFile(File);
    if (!Code) {
      error() << "cannot read '" << File << "': " << Code.getError().message()
              << "\n";
      OK = false;
      continue;
    }
    std::string StyleProblem;
    llvm::Expected<std::string> NewCode = check::applyFormatted(
        File, (*Code)->getBuffer(), Changes, &StyleProblem);
    if (!StyleProblem.empty())
      warning() << "no usable clang-format style for '" << File
                << "', using LLVM: " << StyleProblem << "\n";
    if (!NewCode) {
      // Conflicting edits: none of this file's rewrites is applied.
      std::string Why = llvm::toString(NewCode.takeError());
      std::replace(Why.begin(), Why.end(), '\n', ' ');
      error() << "cannot apply the rewrites to '" << File
              << "' together: " << StringRef(Why).trim()
              << "; none of them is applied\n";
      OK = false;
      continue;
    }
    Out[File] = {(*Code)->getBuffer().str(), std::move(*NewCode)};
  }
  return OK;
}

/// Counts the errors of a parse without printing anything twice.
class ErrorCounter : public DiagnosticConsumer {};

/// Parses, in memory, the translation unit each rewritten file came from
/// with every rewritten file in place; drops the files of a unit that no
/// longer compiles (that would be our bug: say so, write nothing for it).
bool verifyChanges(const tooling::CompilationDatabase &Compilations,
                   const CheckState &State,
                   std::shared_ptr<MPIWrapperFlags> Wrappers,
                   NewContents &Contents) {
  bool OK = true;
  std::set<std::string> Units;
  for (const auto &[File, Content] : Contents)
    Units.insert(State.Origin.at(File));
  for (const std::string &Unit : Units) {
    tooling::ClangTool Tool(Compilations, {Unit});
    addAdjusters(Tool, Wrappers);
    for (const std::string &Dir : cdagIncludeDirs())
      Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
          ("-I" + Dir).c_str(), tooling::ArgumentInsertPosition::END));
    for (const auto &[File, Content] : Contents)
      Tool.mapVirtualFile(File, Content.second);
    ErrorCounter Errors;
    Tool.setDiagnosticConsumer(&Errors);
    std::unique_ptr<tooling::FrontendActionFactory> Factory =
        tooling::newFrontendActionFactory<SyntaxOnlyAction>();
    if (Tool.run(Factory.get()) == 0 && Errors.getNumErrors() == 0)
      continue;
    for (auto It = Contents.begin(); It != Contents.end();) {
      if (State.Origin.at(It->first) != Unit) {
        ++It;
        continue;
      }
      error() << "the rewritten '" << It->first << "' does not compile (as "
              << "part of '" << Unit << "'); nothing is written to it\n";
      It = Contents.erase(It);
      OK = false;
    }
  }
  return OK;
}

/// Writes each file atomically (a temporary file renamed over it); a
/// read-only file is left alone with a message.
bool writeChanges(const NewContents &Contents, const CheckState &State) {
  bool OK = true;
  for (const auto &[File, Content] : Contents) {
    llvm::ErrorOr<llvm::sys::fs::perms> Perms =
        llvm::sys::fs::getPermissions(File);
    if (Perms && !(*Perms & llvm::sys::fs::owner_write)) {
      error() << "cannot write '" << File
              << "': it is read-only; its rewrites are not applied\n";
      OK = false;
      continue;
    }
    if (llvm::Error E = llvm::writeToOutput(File, [&](llvm::raw_ostream &OS) {
          OS << Content.second;
          return llvm::Error::success();
        })) {
      error() << "cannot write '" << File
              << "': " << llvm::toString(std::move(E)) << "\n";
      OK = false;
      continue;
    }
    if (Perms)
      llvm::sys::fs::setPermissions(File, *Perms);
    size_t N = 0;
    for (const auto &Sited : State.Changes.at(File))
      N += !State.RefusedSites.count(Sited.first);
    llvm::errs() << "mpilift: applied " << N << (N == 1 ? " fix" : " fixes")
                 << " in " << File << "\n";
  }
  return OK;
}

/// After --fix wrote \p Written: the rewrites may have made sequences of
/// collectives that mpilift-fuse-collectives fuses (a hand-written
/// reduction, now MPI_Reduce, before the program's MPI_Bcast of its
/// result). One more pass of that rule over the units of the rewritten
/// files fuses them, so that --fix reaches the fused form in one go.
bool fuseAfterRewrites(const tooling::CompilationDatabase &Compilations,
                       const NewContents &Written, const CheckState &State,
                       std::shared_ptr<MPIWrapperFlags> Wrappers) {
  std::string Rule = analysis::fusionRuleId().str();
  if (!check::GlobList(State.Checks.value_or(DefaultChecks)).contains(Rule))
    return true;
  std::set<std::string> Units;
  for (const auto &[File, Content] : Written) {
    auto It = State.Origin.find(File);
    Units.insert(It != State.Origin.end() ? It->second : File);
  }
  CheckState Again;
  Again.Fix = true;
  Again.AllowReassociation = State.AllowReassociation;
  Again.Checks = Rule;
  Again.WarningsAsErrors = State.WarningsAsErrors;
  Again.HeaderFilter = State.HeaderFilter;
  std::vector<std::string> Files(Units.begin(), Units.end());
  runUnits(Compilations, Files, /*Jobs=*/1, Again, Wrappers);
  if (Again.Changes.empty())
    return true;
  NewContents Contents;
  bool OK = computeChanges(Again, Contents);
  OK &= verifyChanges(Compilations, Again, Wrappers, Contents);
  return OK && writeChanges(Contents, Again);
}

/// Writes \p Text to \p Path ("-": standard output).
bool writeOutput(StringRef Path,
                 llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  std::error_code EC;
  llvm::ToolOutputFile Out(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    error() << "cannot write '" << Path << "': " << EC.message() << "\n";
    return false;
  }
  Write(Out.os());
  Out.keep();
  return true;
}

} // namespace

int runCheckCommand(int Argc, const char **Argv) {
  static cl::OptionCategory Category("mpilift check options");
  cl::opt<bool> Fix("fix", cl::desc("apply the rewrites in place"),
                    cl::cat(Category));
  cl::opt<std::string> ExportFixes(
      "export-fixes",
      cl::desc("write the rewrites as YAML for clang-apply-replacements"),
      cl::value_desc("file"), cl::cat(Category));
  cl::opt<std::string> Format("format", cl::desc("text or sarif"),
                              cl::init("text"), cl::cat(Category));
  cl::opt<std::string> Output("o", cl::desc("where --format sarif writes"),
                              cl::value_desc("file"), cl::init("-"),
                              cl::cat(Category));
  cl::opt<unsigned> Jobs("jobs",
                         cl::desc("translation units checked in parallel"),
                         cl::init(1), cl::cat(Category));
  cl::alias JobsShort("j", cl::desc("alias for --jobs"), cl::aliasopt(Jobs),
                      cl::cat(Category));
  cl::opt<std::string> HeaderFilter(
      "header-filter",
      cl::desc("only headers whose path matches this regular expression "
               "are checked (default: every project header)"),
      cl::init(""), cl::cat(Category));
  cl::opt<std::string> ChecksGlob(
      "checks",
      cl::desc("which checks run (clang-tidy glob list; the overlap rules "
               "mpilift-split-send, mpilift-split-recv and mpilift-sink-wait "
               "run only when named)"),
      cl::init(DefaultChecks), cl::cat(Category));
  cl::opt<bool> ProgressPolling(
      "progress-polling",
      cl::desc("overlap rules: test the request in the loops between a "
               "split call and its wait, so MPI progresses"),
      cl::cat(Category));
  cl::opt<bool> AllowReassociation(
      "allow-reassociation",
      cl::desc("mpilift-fuse-collectives: fuse floating-point sums and "
               "products too, whose results may then differ in the last "
               "bits (the reduction-order check)"),
      cl::cat(Category));
  cl::opt<bool> OverlapAggressive(
      "overlap-aggressive",
      cl::desc("overlap rules: a split call's wait may leave its loop "
               "(Algorithm 2: a ring of requests completed where the loop "
               "touches the buffer again, and after the loop)"),
      cl::cat(Category));
  cl::opt<unsigned> PollInterval(
      "poll-interval",
      cl::desc("with --progress-polling, test every N loop iterations"),
      cl::init(64), cl::cat(Category));
  cl::opt<double> OverlapThreshold(
      "overlap-threshold-ms",
      cl::desc("with a trace, rewrite overlap sites only where the run spent "
               "at least this long blocked (all ranks together)"),
      cl::init(1.0), cl::cat(Category));
  cl::opt<std::string> ErrorsGlob(
      "warnings-as-errors",
      cl::desc("findings of these checks are errors (exit status 1)"),
      cl::init(""), cl::cat(Category));
  cl::opt<std::string> PatternsFile(
      "patterns", cl::desc("patterns from 'mpilift detect --format json'"),
      cl::value_desc("file"), cl::cat(Category));
  cl::opt<std::string> TraceDir(
      "trace", cl::desc("a trace directory; detect its patterns first"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::opt<std::string> Fallback(
      "fallback",
      cl::desc("none, or cdag: run patterns the trace shows as collectives "
               "but that fail only input or scale independence through "
               "libcdag"),
      cl::init("none"), cl::cat(Category));
  cl::opt<std::string> Collectives(
      "collectives",
      cl::desc("blocking (MPI_Bcast, ...) or nonblocking (MPI_Ibcast + "
               "MPI_Wait as late as is safe)"),
      cl::init("blocking"), cl::cat(Category));

  cl::opt<std::string> BuildPath(
      "p", cl::desc("build directory with compile_commands.json"),
      cl::value_desc("dir"), cl::cat(Category));
  cl::list<std::string> Sources(cl::Positional, cl::desc("[files...]"),
                                cl::cat(Category));
  // Flags after `--` make a fixed database for every file.
  std::string FixedError;
  int ToolArgc = Argc;
  std::unique_ptr<tooling::CompilationDatabase> Compilations =
      tooling::FixedCompilationDatabase::loadFromCommandLine(ToolArgc, Argv,
                                                             FixedError);
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(
          ToolArgc, Argv,
          "mpilift check: find hand-written collectives and rewrite them\n",
          &llvm::errs()))
    return ExitBadInput;
  if (!Compilations) {
    std::string Error;
    if (!BuildPath.empty())
      Compilations = tooling::CompilationDatabase::autoDetectFromDirectory(
          BuildPath, Error);
    else if (!Sources.empty())
      Compilations =
          tooling::CompilationDatabase::autoDetectFromSource(Sources[0], Error);
    else
      Compilations =
          tooling::CompilationDatabase::autoDetectFromDirectory(".", Error);
    if (!Compilations) {
      error() << "no compilation database: " << Error
              << "\n(give -p BUILD_DIR, or compile flags after '--')\n";
      return ExitBadInput;
    }
  }
  if (Collectives != "blocking" && Collectives != "nonblocking") {
    error() << "--collectives must be blocking or nonblocking, not '"
            << Collectives << "'\n";
    return ExitBadInput;
  }
  if (Format != "text" && Format != "sarif") {
    error() << "--format must be text or sarif, not '" << Format << "'\n";
    return ExitBadInput;
  }
  if (Fallback != "none" && Fallback != "cdag") {
    error() << "--fallback must be none or cdag, not '" << Fallback << "'\n";
    return ExitBadInput;
  }
  if (!PatternsFile.empty() && !TraceDir.empty()) {
    error() << "give --patterns or --trace, not both\n";
    return ExitBadInput;
  }

  if (PollInterval == 0) {
    error() << "--poll-interval must be at least 1\n";
    return ExitBadInput;
  }
  CheckState State;
  State.Fix = Fix;
  State.Overlap.Polling = ProgressPolling;
  State.Overlap.PollInterval = PollInterval;
  State.OverlapThresholdMs = OverlapThreshold;
  State.OverlapAggressive = OverlapAggressive;
  State.AllowReassociation = AllowReassociation;
  State.Sarif = Format == "sarif";
  auto Given =
      [](const cl::opt<std::string> &Opt) -> std::optional<std::string> {
    if (Opt.getNumOccurrences() == 0)
      return std::nullopt;
    return Opt.getValue();
  };
  State.Checks = Given(ChecksGlob);
  State.WarningsAsErrors = Given(ErrorsGlob);
  State.HeaderFilter = Given(HeaderFilter);
  State.Collectives = Given(Collectives);
  State.Fallback = Given(Fallback);
  if (!PatternsFile.empty()) {
    auto Text = llvm::MemoryBuffer::getFile(PatternsFile);
    if (!Text) {
      error() << "cannot read '" << PatternsFile
              << "': " << Text.getError().message() << "\n";
      return ExitBadInput;
    }
    llvm::Expected<llvm::json::Value> Doc =
        llvm::json::parse((*Text)->getBuffer());
    if (!Doc) {
      error() << "'" << PatternsFile
              << "' is not JSON: " << llvm::toString(Doc.takeError()) << "\n";
      return ExitBadInput;
    }
    if (llvm::Error E = addPatternSites(*Doc, PatternsFile, State.Evidence)) {
      error() << llvm::toString(std::move(E)) << "\n";
      return ExitBadInput;
    }
  }
  if (!TraceDir.empty()) {
    std::optional<trace::Trace> T = readTraceForCommand(TraceDir);
    if (!T)
      return ExitBadInput;
    if (llvm::Error E = addPatternSites(detectPatternsAsJson(*T), TraceDir,
                                        State.Evidence)) {
      error() << llvm::toString(std::move(E)) << "\n";
      return ExitBadInput;
    }
    // The overlap rules named on the command line weigh each site by the
    // time the run blocked there.
    if (anyOverlapRule(check::GlobList(State.Checks.value_or(DefaultChecks))))
      State.Blocked = blockedTimeOf(*T);
  }

  std::vector<std::string> Files(Sources.begin(), Sources.end());
  if (Files.empty()) {
    Files = Compilations->getAllFiles();
    llvm::sort(Files); // The database's order is a hash order.
  }
  if (Files.empty()) {
    error() << "no source files: name them or give a compile database "
               "with -p\n";
    return ExitBadInput;
  }
  if (State.Evidence.Present)
    Files = unitsWithSites(Files, State.Evidence, State.Blocked);
  auto Wrappers = std::make_shared<MPIWrapperFlags>();
  int ToolStatus = runUnits(*Compilations, Files, Jobs, State, Wrappers);
  // Findings in a deterministic order, whatever order the units ran in.
  llvm::stable_sort(
      State.Results, [](const check::Finding &A, const check::Finding &B) {
        return std::tie(A.Where.File, A.Where.Line, A.Where.Column) <
               std::tie(B.Where.File, B.Where.Line, B.Where.Column);
      });
  // A unit that does not parse makes the tool fail; so does one whose
  // findings were promoted to errors, which is not bad input.
  bool ParseProblem =
      State.ParseFailures > 0 || (ToolStatus != 0 && !State.AnyError);
  if (State.ConfigErrors)
    return ExitBadInput;

  bool OK = true;
  if (Fix || !ExportFixes.empty()) {
    NewContents Contents;
    OK &= computeChanges(State, Contents);
    OK &= verifyChanges(*Compilations, State, Wrappers, Contents);
    if (!ExportFixes.empty())
      OK &= writeOutput(ExportFixes, [&](llvm::raw_ostream &OS) {
        check::writeReplacementsYaml(Contents, OS);
      });
    if (Fix)
      OK &= writeChanges(Contents, State);
    if (Fix && OK && !Contents.empty())
      OK &= fuseAfterRewrites(*Compilations, Contents, State, Wrappers);
  }
  if (State.Sarif)
    OK &= writeOutput(Output, [&](llvm::raw_ostream &OS) {
      OS << llvm::formatv("{0:2}",
                          check::toSarif(State.Results, MPILIFT_VERSION))
         << "\n";
    });
  if (ParseProblem) {
    error() << "some translation units could not be parsed; they were not "
               "checked\n";
    return ExitBadInput;
  }
  if (!OK)
    return ExitBadInput;
  return State.AnyError ? ExitFindingsAsErrors : ExitClean;
}

} // namespace mpilift
