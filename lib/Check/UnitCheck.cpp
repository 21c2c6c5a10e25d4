//===- UnitCheck.cpp - The rules on one translation unit ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a check session does with each translation unit: the settings of
/// the unit (options over .mpilift.yaml), the functions of the project in
/// it, the collective, fusion and overlap rules on them, a finding per
/// site with its message, notes and rewrite, the rewrites verified
/// together (the unit still compiles), and each finding handed to the
/// session's sink and kept.
///
//===----------------------------------------------------------------------===//

#include "ConditionalCode.h"
#include "SessionImpl.h"

#include "mpilift/Analysis/Fusion.h"
#include "mpilift/Analysis/LibraryHeaders.h"
#include "mpilift/Analysis/ManualCollective.h"
#include "mpilift/Analysis/Overlap.h"
#include "mpilift/Check/Config.h"
#include "mpilift/Check/Edits.h"
#include "mpilift/Check/GlobList.h"
#include "mpilift/Check/Suppression.h"
#include "mpilift/Transform/CollectiveRewrite.h"
#include "mpilift/Transform/FusionRewrite.h"
#include "mpilift/Transform/OverlapRewrite.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/xxhash.h"

#include <functional>

using namespace clang;

namespace mpilift {
namespace check {

namespace {

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
/// in that name: a v form goes with its regular one; "unknown" has none.
std::optional<analysis::ManualKind> manualKindNamed(StringRef Name) {
  Name.consume_back("v");
  using analysis::ManualKind;
  for (ManualKind K :
       {ManualKind::Bcast, ManualKind::Scatter, ManualKind::Gather,
        ManualKind::Allgather, ManualKind::Alltoall, ManualKind::Reduce})
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
  return Shape + " implements " +
         analysis::withArticle(analysis::collectiveNoun(C.Kind));
}

class CheckConsumer : public ASTConsumer {
public:
  CheckConsumer(CompilerInstance &CI, CheckSession::Impl &State,
                FindingSink *Sink)
      : CI(CI), State(State), Sink(Sink) {
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
    analysis::ManualCollectiveFinder Finder(
        Context, State.Options.AllowReassociation, State.Project.get());
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
      analysis::FusionFinder Fusions(Context, State.Options.AllowReassociation,
                                     State.Project.get(),
                                     State.Options.Profile.get());
      for (const FunctionDecl *F : Functions)
        for (const analysis::FusionSite &S : Fusions.find(*F))
          reportFusion(Context, S);
    }
    if (!anyOverlapRule(Settings.Checks))
      return;
    analysis::OverlapFinder Overlaps(Context, State.Options.OverlapAggressive,
                                     State.Project.get());
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

  /// Refuses the rewrite of Pending[I] when the text it replaces holds a
  /// preprocessor conditional: the proof saw one configuration, and what
  /// the others compile there would be lost.
  void refuseIfConditional(size_t I, const SourceManager &SM) {
    PendingFinding &P = Pending[I];
    for (const tooling::Replacement &R : P.Change->getReplacements()) {
      std::optional<check::ConditionalCode::Directive> D = Conditionals.within(
          R.getFilePath(), R.getOffset(), R.getLength(), SM);
      if (D) {
        dropRewrite(I, "source-form refused");
        P.F.Notes.push_back(
            {placeOf(SM, D->Loc),
             "source-form: the code the rewrite replaces holds this '#" +
                 D->Name +
                 "'; what other configurations compile here would be lost"});
        return;
      }
      analysis::LibraryHeaders Library(CI.getASTContext());
      std::optional<check::ConditionalCode::ConfiguredUse> Use =
          Conditionals.configuredWithin(
              R.getFilePath(), R.getOffset(), R.getLength(), CI.getASTContext(),
              CI.getPreprocessor(),
              [&](SourceLocation L) { return Library.contain(L); });
      if (!Use)
        continue;
      dropRewrite(I, "source-form refused");
      P.F.Notes.push_back(
          {placeOf(SM, Use->Use),
           "source-form: the code the rewrite replaces uses '" + Use->Name +
               "', which is defined " +
               (Use->Arm ? "inside a preprocessor conditional"
                         : "on the command line") +
               "; what it stands for in other configurations would be lost"});
      if (Use->Arm)
        P.F.Notes.push_back({placeOf(SM, Use->Definition),
                             "'" + Use->Name + "' is defined here"});
      return;
    }
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
    for (size_t I : Alive)
      refuseIfConditional(I, SM);
    llvm::erase_if(Alive, [&](size_t I) { return !Pending[I].Change; });
    if (Alive.empty())
      return;
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
      check::PrepareInvocation Prepare;
      if (InvocationHook *Hook = State.Options.Hook.get())
        Prepare = [Hook](CompilerInvocation &Invocation,
                         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                         const llvm::MemoryBuffer &Main) {
          Hook->prepare(Invocation, FS, Main);
        };
      return check::compileErrorWith(CI.getInvocation(), FS, New, Dirs,
                                     Prepare);
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
      if (Sink)
        Sink->found(P.F, P.Change ? &*P.Change : nullptr, SM, P.Loc, CI);
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
      State.message(SessionMessage::Error, llvm::toString(Found.takeError()));
      ++State.ConfigErrors;
      return;
    }
    if (Found->QueryDriver &&
        State.IgnoredQueryDrivers.insert(Found->Path).second)
      State.message(SessionMessage::Warning,
                    "QueryDriver in '" + Found->Path +
                        "' is ignored: the repository controls that file, "
                        "and the wrappers it names would be run; give "
                        "--query-driver instead");
    auto Pick = [](const std::optional<std::string> &Cli,
                   const std::optional<std::string> &File,
                   const char *Default) {
      return Cli ? *Cli : File ? *File : std::string(Default);
    };
    const SessionOptions &O = State.Options;
    Settings.Checks =
        check::GlobList(Pick(O.Checks, Found->Checks, DefaultChecks));
    Settings.Errors =
        check::GlobList(Pick(O.WarningsAsErrors, Found->WarningsAsErrors, ""));
    std::string Filter = Pick(O.HeaderFilter, Found->HeaderFilterRegex, "");
    if (!Filter.empty()) {
      llvm::Regex R(Filter);
      std::string Why;
      if (!R.isValid(Why)) {
        State.message(SessionMessage::Error,
                      "bad header filter '" + Filter + "': " + Why);
        ++State.ConfigErrors;
        return;
      }
      Settings.HeaderFilter = std::move(R);
    }
    Settings.Options.Nonblocking =
        Pick(O.Collectives, Found->Collectives, "blocking") == "nonblocking";
    Settings.FallbackCDag = Pick(O.Fallback, Found->Fallback, "none") == "cdag";
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
           S.Kind == analysis::FusionKind::Packed ? "packed with the first call"
           : S.Kind == analysis::FusionKind::ReduceBcast
               ? "the broadcast of the reduced value"
           : S.Kind == analysis::FusionKind::GatherBcast ||
                   S.Kind == analysis::FusionKind::GathervBcast
               ? "the broadcast of the gathered buffer"
           : analysis::isScanPair(S.Kind)
               ? "the combination of the scan's result"
           : analysis::isBcastScanTriple(S.Kind) && I == 1
               ? "the scan of the broadcast value"
           : analysis::isBcastScanTriple(S.Kind)
               ? "the combination of the scan's result"
               : "the combination of the broadcast value"});
    if (S.Cost)
      F.Notes.push_back({placeOf(SM, Loc), S.Cost->describe()});
    // The broadcast and scan fuse, but not with what combines the scan's
    // result: why not.
    for (const analysis::Refusal &R : S.Declined)
      F.Notes.push_back(
          {placeOf(SM, SM.getExpansionLoc(R.Loc)),
           "not fused with the " +
               S.DeclinedCall->getDirectCallee()->getName().str() +
               " of the scan's result: " + analysis::checkName(R.Check).str() +
               ": " + R.Reason});
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
        if (Ms < State.Options.OverlapThresholdMs)
          TraceRefuses = llvm::formatv("the trace shows less than "
                                       "--overlap-threshold-ms={0} blocked "
                                       "here",
                                       State.Options.OverlapThresholdMs);
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
        transform::OverlapOptions Options = State.Options.Overlap;
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

  /// The pattern at \p Loc, the same from every translation unit.
  static std::string siteOf(const SourceManager &SM, SourceLocation Loc) {
    Loc = SM.getExpansionLoc(Loc);
    return realFileOf(SM, Loc, SM.getFilename(Loc).str()) + ":" +
           std::to_string(SM.getFileOffset(Loc));
  }

  CompilerInstance &CI;
  CheckSession::Impl &State;
  FindingSink *Sink;
  /// Request names the rewrites of this translation unit declared, per file.
  std::map<FileID, llvm::StringSet<>> TakenNames;
  std::map<FileID, std::unique_ptr<check::Suppressions>> Suppressions;
  std::vector<PendingFinding> Pending;
  UnitSettings Settings;
  bool Configured = false;

public:
  /// The unit's conditional directives, recorded while it is parsed.
  check::ConditionalCode Conditionals;
};

class CheckAction : public ASTFrontendAction {
public:
  CheckAction(CheckSession::Impl &State, FindingSink *Sink)
      : State(State), Sink(Sink) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    auto Consumer = std::make_unique<CheckConsumer>(CI, State, Sink);
    CI.getPreprocessor().addPPCallbacks(
        Consumer->Conditionals.recorder(CI.getPreprocessor()));
    return Consumer;
  }

private:
  CheckSession::Impl &State;
  FindingSink *Sink;
};

class CheckActionFactory : public tooling::FrontendActionFactory {
public:
  CheckActionFactory(CheckSession::Impl &State, FindingSink *Sink)
      : State(State), Sink(Sink) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<CheckAction>(State, Sink);
  }

  /// Lets the session's hook see the invocation (a preamble) first.
  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    std::unique_ptr<llvm::MemoryBuffer> Main;
    const auto &Inputs = Invocation->getFrontendOpts().Inputs;
    if (State.Options.Hook && Inputs.size() == 1 && Inputs[0].isFile())
      if (auto Buffer = Files->getVirtualFileSystem().getBufferForFile(
              Inputs[0].getFile()))
        Main = std::move(*Buffer);
    if (Main)
      State.Options.Hook->prepare(*Invocation, Files->getVirtualFileSystemPtr(),
                                  *Main);
    return FrontendActionFactory::runInvocation(
        std::move(Invocation), Files, std::move(PCHContainerOps), DiagConsumer);
  }

private:
  CheckSession::Impl &State;
  FindingSink *Sink;
};

} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
newUnitCheckFactory(CheckSession::Impl &Session, FindingSink *Sink) {
  return std::make_unique<CheckActionFactory>(Session, Sink);
}

/// Whether \p Checks enables one of the overlap rules.
bool anyOverlapRule(const GlobList &Checks) {
  for (analysis::OverlapRule R :
       {analysis::OverlapRule::SplitSend, analysis::OverlapRule::SplitRecv,
        analysis::OverlapRule::SinkWait})
    if (Checks.contains(analysis::overlapRuleId(R)))
      return true;
  return false;
}

std::string realFileOf(const SourceManager &SM, SourceLocation Loc,
                       std::string Fallback) {
  if (OptionalFileEntryRef Entry =
          SM.getFileEntryRefForID(SM.getFileID(SM.getExpansionLoc(Loc))))
    if (!Entry->getFileEntry().tryGetRealPathName().empty())
      return Entry->getFileEntry().tryGetRealPathName().str();
  return Fallback;
}

std::string fingerprintOf(StringRef Rule, const FunctionDecl &Function,
                          const Stmt *Statement, const ASTContext &Context) {
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

} // namespace check
} // namespace mpilift
