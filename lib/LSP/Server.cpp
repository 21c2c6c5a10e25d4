//===- Server.cpp - mpilift's language server -----------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/LSP/Server.h"

#include "DocumentCheck.h"
#include "Preamble.h"

#include "mpilift/Analysis/CostModel.h"
#include "mpilift/LSP/Protocol.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace mpilift {
namespace lsp {

namespace json = llvm::json;
using Clock = std::chrono::steady_clock;

namespace {

/// An open document.
struct Document {
  std::string Path, Text;
  int64_t Version = 0;
  /// When it is due to be checked; none when it is up to date.
  std::optional<Clock::time_point> Due;
  /// The last check's result and the version it was of.
  std::optional<DocumentResult> Result;
  int64_t ResultVersion = -1;
  /// Its headers, precompiled: kept while it is open.
  std::shared_ptr<PreambleCache> Preamble = std::make_shared<PreambleCache>();
};

/// A code action's title from a finding's message: the part after "; "
/// ("replace it with MPI_Bcast"), else the rule.
std::string titleOf(const check::Finding &F) {
  llvm::StringRef M = F.Message;
  size_t Semi = M.rfind("; ");
  llvm::StringRef What =
      Semi == llvm::StringRef::npos ? "" : M.substr(Semi + 2);
  What = What.split(" [").first;
  if (What.empty())
    return "mpilift: apply the rewrite of " + F.Rule;
  return "mpilift: " + What.str();
}

/// Whether \p A and \p B share a line: an editor asks for the actions at
/// the cursor, anywhere on the finding's line.
bool sharesLine(const Range &A, const Range &B) {
  return A.Start.Line <= B.End.Line && B.Start.Line <= A.End.Line;
}

} // namespace

class LanguageServer::Impl {
public:
  Impl(ServerOptions Options, MessageReader &In, MessageWriter &Out)
      : Options(std::move(Options)), In(In), Out(Out) {}

  int run();

private:
  // Dispatch.
  void handle(const json::Value &Message);
  void handleRequest(const json::Value &Id, llvm::StringRef Method,
                     const json::Value *Params);
  void handleNotification(llvm::StringRef Method, const json::Value *Params);

  // Requests.
  json::Value initialize(const json::Object *Params);
  json::Value codeActions(const json::Object &Params);

  // Notifications.
  void didOpen(const json::Object &Params);
  void didChange(const json::Object &Params);
  void didSave(const json::Object &Params);
  void didClose(const json::Object &Params);
  void didChangeWatchedFiles(const json::Object &Params);

  // Checking.
  void schedule(const std::string &Uri, unsigned DelayMs);
  void worker();
  void publish(const std::string &Uri, const Document &D);
  void loadEvidence();
  void log(int Type, const std::string &Text);

  ServerOptions Options;
  MessageReader &In;
  MessageWriter &Out;
  bool Initialized = false, ShutDown = false;

  std::mutex Mutex;
  std::condition_variable Wake;
  std::map<std::string, Document> Docs;
  bool Stopping = false;
  /// The evidence: detect's JSON document, if a trace or patterns file is
  /// configured and could be read.
  /// Shared with the checks running on it, so a check takes no copy.
  std::shared_ptr<const json::Value> Patterns;
  std::string PatternsOrigin;
};

int LanguageServer::Impl::run() {
  std::thread Worker([this] { worker(); });
  int Status = 1;
  while (true) {
    std::string Body, Problem;
    ReadStatus S = In.read(Body, Problem);
    if (S == ReadStatus::EndOfInput)
      break;
    if (S == ReadStatus::BadHeader) {
      log(1, "mpilift lsp: cannot read the input: " + Problem + "; stopping");
      break;
    }
    llvm::Expected<json::Value> Message = json::parse(Body);
    if (!Message) {
      Out.replyError(nullptr, ParseError,
                     "not JSON: " + llvm::toString(Message.takeError()));
      continue;
    }
    const json::Object *O = Message->getAsObject();
    if (O && O->getString("method") == "exit") {
      Status = ShutDown ? 0 : 1;
      break;
    }
    handle(*Message);
  }
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  Wake.notify_all();
  Worker.join();
  return Status;
}

void LanguageServer::Impl::handle(const json::Value &Message) {
  const json::Object *O = Message.getAsObject();
  if (!O) {
    Out.replyError(nullptr, InvalidRequest, "a message must be an object");
    return;
  }
  const json::Value *Id = O->get("id");
  std::optional<llvm::StringRef> Method = O->getString("method");
  if (!Method) {
    // A response to a request of ours (client/registerCapability): nothing
    // waits for it.
    if (Id && (O->get("result") || O->get("error")))
      return;
    Out.replyError(Id ? *Id : json::Value(nullptr), InvalidRequest,
                   "a request needs a method");
    return;
  }
  const json::Value *Params = O->get("params");
  if (Id)
    handleRequest(*Id, *Method, Params);
  else
    handleNotification(*Method, Params);
}

void LanguageServer::Impl::handleRequest(const json::Value &Id,
                                         llvm::StringRef Method,
                                         const json::Value *Params) {
  const json::Object *P = Params ? Params->getAsObject() : nullptr;
  if (Method == "initialize") {
    if (Initialized) {
      Out.replyError(Id, InvalidRequest, "initialize was sent twice");
      return;
    }
    Out.reply(Id, initialize(P));
    Initialized = true;
    return;
  }
  if (!Initialized) {
    Out.replyError(Id, ServerNotInitialized,
                   "the server is not initialized yet");
    return;
  }
  if (ShutDown) {
    Out.replyError(Id, InvalidRequest, "the server is shutting down");
    return;
  }
  if (Method == "shutdown") {
    ShutDown = true;
    Out.reply(Id, nullptr);
    return;
  }
  if (Method == "textDocument/codeAction") {
    if (!P) {
      Out.replyError(Id, InvalidParams, "codeAction needs params");
      return;
    }
    Out.reply(Id, codeActions(*P));
    return;
  }
  Out.replyError(Id, MethodNotFound,
                 ("no method '" + Method + "' in mpilift lsp").str());
}

void LanguageServer::Impl::handleNotification(llvm::StringRef Method,
                                              const json::Value *Params) {
  // Before initialize, notifications other than exit are dropped.
  if (!Initialized || ShutDown)
    return;
  const json::Object *P = Params ? Params->getAsObject() : nullptr;
  if (!P)
    return;
  if (Method == "textDocument/didOpen")
    didOpen(*P);
  else if (Method == "textDocument/didChange")
    didChange(*P);
  else if (Method == "textDocument/didSave")
    didSave(*P);
  else if (Method == "textDocument/didClose")
    didClose(*P);
  else if (Method == "workspace/didChangeWatchedFiles")
    didChangeWatchedFiles(*P);
  else if (Method == "initialized" &&
           !(Options.TraceDir.empty() && Options.PatternsFile.empty())) {
    // Ask the client to tell us when a new trace is written.
    std::string Glob = Options.PatternsFile.empty() ? Options.TraceDir + "/**"
                                                    : Options.PatternsFile;
    json::Object Watcher{{"globPattern", Glob}};
    json::Object Registration{
        {"id", "mpilift-trace"},
        {"method", "workspace/didChangeWatchedFiles"},
        {"registerOptions",
         json::Object{{"watchers", json::Array{std::move(Watcher)}}}}};
    Out.send(json::Object{
        {"jsonrpc", "2.0"},
        {"id", "mpilift-watch-trace"},
        {"method", "client/registerCapability"},
        {"params", json::Object{{"registrations",
                                 json::Array{std::move(Registration)}}}}});
  }
  // $/cancelRequest: requests are answered in order as they come, so none
  // is pending when it arrives. Other notifications are not ours.
}

json::Value LanguageServer::Impl::initialize(const json::Object *Params) {
  if (const json::Object *Init =
          Params ? Params->getObject("initializationOptions") : nullptr) {
    auto Str = [&](llvm::StringRef Key) -> std::optional<std::string> {
      if (std::optional<llvm::StringRef> V = Init->getString(Key))
        return V->str();
      return std::nullopt;
    };
    if (auto V = Str("trace")) {
      Options.TraceDir = *V;
      Options.PatternsFile.clear();
    }
    if (auto V = Str("patterns")) {
      Options.PatternsFile = *V;
      Options.TraceDir.clear();
    }
    if (auto V = Str("checks"))
      Options.Check.Checks = *V;
    if (auto V = Str("collectives"))
      Options.Check.Collectives = *V;
    if (auto V = Str("warningsAsErrors"))
      Options.Check.WarningsAsErrors = *V;
    if (auto V = Str("queryDriver"))
      Options.Check.QueryDriver = *V;
    if (auto V = Str("compileCommandsDir"))
      Options.CompileCommandsDir = *V;
    if (std::optional<bool> V = Init->getBoolean("allowReassociation"))
      Options.Check.AllowReassociation = *V;
    if (auto V = Str("costProfile")) {
      llvm::Expected<analysis::MachineProfile> Profile =
          analysis::readMachineProfile(*V);
      if (Profile)
        Options.Check.Profile =
            std::make_shared<analysis::MachineProfile>(std::move(*Profile));
      else
        log(1,
            "cannot use the machine profile: " + toString(Profile.takeError()));
    }
  }
  for (std::string *Path : {&Options.TraceDir, &Options.PatternsFile})
    if (!Path->empty()) {
      llvm::SmallString<256> Absolute(*Path);
      llvm::sys::fs::make_absolute(Absolute);
      llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
      *Path = std::string(Absolute);
    }
  loadEvidence();
  return json::Object{
      {"capabilities",
       json::Object{
           {"textDocumentSync",
            json::Object{{"openClose", true},
                         {"change", 1}, // Full.
                         {"save", json::Object{{"includeText", false}}}}},
           {"codeActionProvider",
            json::Object{{"codeActionKinds",
                          json::Array{"quickfix", "source.fixAll.mpilift"}}}}}},
      {"serverInfo",
       json::Object{{"name", "mpilift"}, {"version", Options.Version}}}};
}

void LanguageServer::Impl::loadEvidence() {
  std::shared_ptr<const json::Value> Loaded;
  std::string Origin;
  if (!Options.PatternsFile.empty()) {
    Origin = Options.PatternsFile;
    auto Text = llvm::MemoryBuffer::getFile(Origin);
    if (!Text) {
      log(1, "cannot read '" + Origin + "': " + Text.getError().message());
    } else if (llvm::Expected<json::Value> Doc =
                   json::parse((*Text)->getBuffer())) {
      Loaded = std::make_shared<const json::Value>(std::move(*Doc));
    } else {
      log(1, "'" + Origin + "' is not JSON: " + toString(Doc.takeError()));
    }
  } else if (!Options.TraceDir.empty() && Options.LoadTrace) {
    Origin = Options.TraceDir;
    if (llvm::Expected<json::Value> Doc = Options.LoadTrace(Origin))
      Loaded = std::make_shared<const json::Value>(std::move(*Doc));
    else
      log(1, "cannot use the trace '" + Origin +
                 "': " + toString(Doc.takeError()));
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  Patterns = std::move(Loaded);
  PatternsOrigin = Origin;
}

void LanguageServer::Impl::log(int Type, const std::string &Text) {
  Out.notify("window/logMessage",
             json::Object{{"type", Type}, {"message", Text}});
}

namespace {

/// The document URI and, for a versioned identifier, its version.
std::optional<std::string> uriOf(const json::Object &Params,
                                 int64_t *Version = nullptr) {
  const json::Object *Doc = Params.getObject("textDocument");
  if (!Doc)
    return std::nullopt;
  if (Version)
    *Version = Doc->getInteger("version").value_or(0);
  std::optional<llvm::StringRef> Uri = Doc->getString("uri");
  if (!Uri)
    return std::nullopt;
  return Uri->str();
}

} // namespace

void LanguageServer::Impl::didOpen(const json::Object &Params) {
  const json::Object *Doc = Params.getObject("textDocument");
  if (!Doc)
    return;
  std::optional<llvm::StringRef> Uri = Doc->getString("uri");
  std::optional<llvm::StringRef> Text = Doc->getString("text");
  if (!Uri || !Text)
    return;
  llvm::Expected<std::string> Path = pathFromUri(*Uri);
  Document D;
  D.Text = Text->str();
  D.Version = Doc->getInteger("version").value_or(0);
  if (!Path) {
    // Not a file: nothing to check, but say why.
    D.Result.emplace();
    D.Result->Problems.push_back(
        {"mpilift cannot check this document: " + toString(Path.takeError()), 1,
         1});
    D.ResultVersion = D.Version;
    std::lock_guard<std::mutex> Lock(Mutex);
    publish(Uri->str(), D);
    Docs[Uri->str()] = std::move(D);
    return;
  }
  D.Path = *Path;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Docs[Uri->str()] = std::move(D);
  }
  schedule(Uri->str(), 0);
}

void LanguageServer::Impl::didChange(const json::Object &Params) {
  int64_t Version = 0;
  std::optional<std::string> Uri = uriOf(Params, &Version);
  const json::Array *Changes = Params.getArray("contentChanges");
  if (!Uri || !Changes)
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Docs.find(*Uri);
    if (It == Docs.end())
      return;
    Document &D = It->second;
    for (const json::Value &C : *Changes) {
      const json::Object *Change = C.getAsObject();
      if (!Change)
        continue;
      std::optional<llvm::StringRef> Text = Change->getString("text");
      if (!Text)
        continue;
      Range R;
      json::Path::Root Root;
      if (const json::Value *RV = Change->get("range");
          RV && fromJSON(*RV, R, Root)) {
        size_t Begin = offsetAt(D.Text, R.Start), End = offsetAt(D.Text, R.End);
        if (End < Begin)
          std::swap(Begin, End);
        D.Text.replace(Begin, End - Begin, Text->str());
      } else {
        D.Text = Text->str();
      }
    }
    D.Version = Version;
    if (D.Path.empty())
      return;
  }
  schedule(*Uri, Options.DebounceMs);
}

void LanguageServer::Impl::didSave(const json::Object &Params) {
  if (std::optional<std::string> Uri = uriOf(Params))
    schedule(*Uri, 0);
}

void LanguageServer::Impl::didClose(const json::Object &Params) {
  std::optional<std::string> Uri = uriOf(Params);
  if (!Uri)
    return;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Docs.erase(*Uri);
  }
  // Its diagnostics go with it.
  Out.notify("textDocument/publishDiagnostics",
             json::Object{{"uri", *Uri}, {"diagnostics", json::Array{}}});
}

void LanguageServer::Impl::didChangeWatchedFiles(const json::Object &Params) {
  const json::Array *Changes = Params.getArray("changes");
  if (!Changes)
    return;
  std::string Watched =
      !Options.PatternsFile.empty() ? Options.PatternsFile : Options.TraceDir;
  if (Watched.empty())
    return;
  llvm::StringRef Absolute = Watched;
  bool Relevant = false;
  for (const json::Value &C : *Changes) {
    const json::Object *Change = C.getAsObject();
    std::optional<llvm::StringRef> Uri =
        Change ? Change->getString("uri") : std::nullopt;
    if (!Uri)
      continue;
    llvm::Expected<std::string> Path = pathFromUri(*Uri);
    if (!Path) {
      llvm::consumeError(Path.takeError());
      continue;
    }
    llvm::StringRef P = *Path;
    if (P == Absolute || P.starts_with((Absolute + "/").str()))
      Relevant = true;
  }
  if (!Relevant)
    return;
  log(3, "mpilift: reading '" + Watched + "' again");
  loadEvidence();
  std::vector<std::string> Open;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const auto &[Uri, D] : Docs)
      if (!D.Path.empty())
        Open.push_back(Uri);
  }
  for (const std::string &Uri : Open)
    schedule(Uri, 0);
}

void LanguageServer::Impl::schedule(const std::string &Uri, unsigned DelayMs) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Docs.find(Uri);
    if (It == Docs.end() || It->second.Path.empty())
      return;
    It->second.Due = Clock::now() + std::chrono::milliseconds(DelayMs);
  }
  Wake.notify_all();
}

void LanguageServer::Impl::worker() {
  std::unique_lock<std::mutex> Lock(Mutex);
  while (!Stopping) {
    // The document due first.
    std::optional<Clock::time_point> First;
    std::string Uri;
    for (const auto &[U, D] : Docs)
      if (D.Due && (!First || *D.Due < *First)) {
        First = D.Due;
        Uri = U;
      }
    if (!First) {
      Wake.wait(Lock);
      continue;
    }
    if (*First > Clock::now()) {
      Wake.wait_until(Lock, *First);
      continue;
    }
    Document &D = Docs.at(Uri);
    D.Due.reset();
    std::string Path = D.Path, Text = D.Text;
    int64_t Version = D.Version;
    DocumentCheckSettings Settings;
    Settings.Options = Options.Check;
    Settings.CompileCommandsDir = Options.CompileCommandsDir;
    std::shared_ptr<const json::Value> Evidence = Patterns;
    Settings.Patterns = Evidence.get();
    Settings.PatternsOrigin = PatternsOrigin;
    Settings.Preamble = D.Preamble;
    Lock.unlock();
    DocumentResult Result = checkDocument(Settings, Path, Text);
    for (const check::SessionMessage &M : Result.Messages)
      log(M.TheKind == check::SessionMessage::Error     ? 1
          : M.TheKind == check::SessionMessage::Warning ? 2
                                                        : 3,
          M.Text);
    Lock.lock();
    auto It = Docs.find(Uri);
    // Closed, or edited since: a newer check is due; this one is stale.
    if (It == Docs.end() || It->second.Version != Version ||
        It->second.Text != Text)
      continue;
    It->second.Result = std::move(Result);
    It->second.ResultVersion = Version;
    publish(Uri, It->second);
  }
}

void LanguageServer::Impl::publish(const std::string &Uri, const Document &D) {
  json::Array Diagnostics;
  for (const DocumentResult::Problem &P : D.Result->Problems) {
    Range R;
    R.Start = positionOf(D.Text, P.Line, P.Column);
    R.End = R.Start;
    Diagnostics.push_back(json::Object{{"range", toJSON(R)},
                                       {"severity", 2},
                                       {"source", "mpilift"},
                                       {"message", P.Message}});
  }
  for (const CheckedFinding &C : D.Result->Findings)
    Diagnostics.push_back(diagnosticOf(C.F, D.Text, Options.DocsBase));
  Out.notify("textDocument/publishDiagnostics",
             json::Object{{"uri", Uri},
                          {"version", D.ResultVersion},
                          {"diagnostics", std::move(Diagnostics)}});
}

json::Value LanguageServer::Impl::codeActions(const json::Object &Params) {
  std::optional<std::string> Uri = uriOf(Params);
  Range Wanted;
  json::Path::Root Root;
  const json::Value *RV = Params.get("range");
  if (!Uri || !RV || !fromJSON(*RV, Wanted, Root))
    return json::Array{};
  // Which kinds the client wants: none named means all.
  bool WantQuickFix = true, WantFixAll = true;
  if (const json::Object *Context = Params.getObject("context"))
    if (const json::Array *Only = Context->getArray("only")) {
      WantQuickFix = WantFixAll = false;
      for (const json::Value &K : *Only) {
        llvm::StringRef Kind = K.getAsString().value_or("");
        WantQuickFix |= Kind == "quickfix";
        WantFixAll |= Kind == "source" || Kind == "source.fixAll" ||
                      Kind == "source.fixAll.mpilift";
      }
    }
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Docs.find(*Uri);
  // No result, or one of an older text: its edits would land wrong.
  if (It == Docs.end() || !It->second.Result ||
      It->second.ResultVersion != It->second.Version || It->second.Due)
    return json::Array{};
  const Document &D = It->second;
  auto EditOf = [&](const json::Array &Edits) {
    json::Object Changes;
    Changes[*Uri] = json::Array(Edits);
    return json::Object{{"changes", std::move(Changes)}};
  };
  json::Array Actions;
  if (WantQuickFix)
    for (const CheckedFinding &C : D.Result->Findings) {
      if (C.Edits.empty() || !sharesLine(rangeOf(D.Text, C.F.Where), Wanted))
        continue;
      Actions.push_back(json::Object{
          {"title", titleOf(C.F)},
          {"kind", "quickfix"},
          {"isPreferred", true},
          {"diagnostics",
           json::Array{diagnosticOf(C.F, D.Text, Options.DocsBase)}},
          {"edit", EditOf(C.Edits)}});
    }
  if (WantFixAll && !D.Result->FixAll.empty())
    Actions.push_back(
        json::Object{{"title", "mpilift: apply every rewrite in this file"},
                     {"kind", "source.fixAll.mpilift"},
                     {"edit", EditOf(D.Result->FixAll)}});
  return Actions;
}

LanguageServer::LanguageServer(ServerOptions Options, MessageReader &In,
                               MessageWriter &Out)
    : P(std::make_unique<Impl>(std::move(Options), In, Out)) {}

LanguageServer::~LanguageServer() = default;

int LanguageServer::run() { return P->run(); }

} // namespace lsp
} // namespace mpilift
