//===- ProjectFacts.cpp - What the other units of a program do ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/ProjectFacts.h"

#include "CollectiveFunctions.h"
#include "CombineFunctions.h"
#include "FieldWriteValues.h"
#include "FunctionFacts.h"
#include "StatementTree.h"
#include "VectorUses.h"

#include "mpilift/Analysis/LibraryHeaders.h"

#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace mpilift {
namespace analysis {

std::string SourcePlace::str() const {
  return File + ":" + std::to_string(Line) + ":" + std::to_string(Column);
}

namespace {

llvm::json::Value placeToJSON(const SourcePlace &P) {
  return llvm::json::Object{
      {"file", P.File}, {"line", P.Line}, {"column", P.Column}};
}

bool placeFromJSON(const llvm::json::Value &V, SourcePlace &P,
                   llvm::json::Path Path) {
  llvm::json::ObjectMapper O(V, Path);
  return O && O.map("file", P.File) && O.map("line", P.Line) &&
         O.map("column", P.Column);
}

/// Where \p Loc is spelled for a reader: its expansion's file and line.
SourcePlace placeOf(SourceLocation Loc, const SourceManager &SM) {
  SourcePlace P;
  Loc = SM.getExpansionLoc(Loc);
  if (OptionalFileEntryRef File = SM.getFileEntryRefForID(SM.getFileID(Loc))) {
    StringRef Real = File->getFileEntry().tryGetRealPathName();
    P.File = Real.empty() ? File->getName().str() : Real.str();
  }
  P.Line = SM.getExpansionLineNumber(Loc);
  P.Column = SM.getExpansionColumnNumber(Loc);
  return P;
}

/// Reads an object of place lists ("calls") into \p Out.
bool placeListsFromJSON(const llvm::json::Object *Lists,
                        std::map<std::string, std::vector<SourcePlace>> &Out,
                        llvm::json::Path P) {
  if (!Lists) {
    P.report("expected an object");
    return false;
  }
  for (const auto &[Key, Places] : *Lists) {
    llvm::json::Path At = P.field(Key);
    const llvm::json::Array *Items = Places.getAsArray();
    if (!Items) {
      At.report("expected an array");
      return false;
    }
    std::vector<SourcePlace> &List = Out[Key.str()];
    List.resize(Items->size());
    for (size_t I = 0; I < Items->size(); ++I)
      if (!placeFromJSON((*Items)[I], List[I], At.index(I)))
        return false;
  }
  return true;
}

constexpr std::pair<FieldValue::Kind, llvm::StringLiteral> KindNames[] = {
    {FieldValue::Kind::Other, "other"}, {FieldValue::Kind::Uniform, "uniform"},
    {FieldValue::Kind::Rank, "rank"},   {FieldValue::Kind::Size, "size"},
    {FieldValue::Kind::Freed, "freed"},
};

} // namespace

llvm::json::Value toJSON(const ParamKey &K) {
  return llvm::json::Object{{"function", K.Function}, {"index", K.Index}};
}

namespace {

/// Reads the parameter's position `index` of the object \p V.
/// The parameter position under \p Key of the object \p V, into \p Out
/// (left alone when the key is absent).
bool positionFromJSON(const llvm::json::Value &V, const char *Key,
                      std::optional<unsigned> &Out, llvm::json::Path P) {
  const llvm::json::Object *Object = V.getAsObject();
  if (!Object) {
    P.report("expected an object");
    return false;
  }
  const llvm::json::Value *Entry = Object->get(Key);
  if (!Entry)
    return true;
  std::optional<int64_t> Position = Entry->getAsInteger();
  if (!Position || *Position < 0 || *Position > INT32_MAX) {
    P.field(Key).report("expected a parameter's position");
    return false;
  }
  Out = static_cast<unsigned>(*Position);
  return true;
}

/// The same for a position that must be there.
bool positionFromJSON(const llvm::json::Value &V, const char *Key,
                      unsigned &Out, llvm::json::Path P) {
  std::optional<unsigned> Position;
  if (!positionFromJSON(V, Key, Position, P))
    return false;
  if (!Position) {
    P.field(Key).report("expected a parameter's position");
    return false;
  }
  Out = *Position;
  return true;
}

bool indexFromJSON(const llvm::json::Value &V, unsigned &Out,
                   llvm::json::Path P) {
  return positionFromJSON(V, "index", Out, P);
}

/// \p Names as `[[value, "name"], ...]`.
llvm::json::Array
namesByValueToJSON(const std::vector<std::pair<int64_t, std::string>> &Names) {
  llvm::json::Array Out;
  for (const auto &[Value, Name] : Names)
    Out.push_back(llvm::json::Array{Value, Name});
  return Out;
}

/// The `[[value, "name"], ...]` array \p Key of the object \p V.
bool namesByValueFromJSON(const llvm::json::Value &V, const char *Key,
                          std::vector<std::pair<int64_t, std::string>> &Out,
                          llvm::json::Path P) {
  const llvm::json::Array *Pairs = V.getAsObject()->getArray(Key);
  if (!Pairs) {
    P.field(Key).report("expected an array");
    return false;
  }
  for (const llvm::json::Value &Entry : *Pairs) {
    const llvm::json::Array *Pair = Entry.getAsArray();
    std::optional<int64_t> Value =
        Pair && Pair->size() == 2 ? (*Pair)[0].getAsInteger() : std::nullopt;
    std::optional<llvm::StringRef> Name =
        Value ? (*Pair)[1].getAsString() : std::nullopt;
    if (!Name) {
      P.field(Key).report("expected [value, name] pairs");
      return false;
    }
    Out.emplace_back(*Value, Name->str());
  }
  return true;
}

} // namespace

bool fromJSON(const llvm::json::Value &V, ParamKey &Out, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && O.map("function", Out.Function) &&
         indexFromJSON(V, Out.Index, P);
}

llvm::json::Value toJSON(const AssumedBroadcast &B) {
  llvm::json::Array Arguments;
  for (const AssumedBroadcast::Argument &A : B.Arguments) {
    llvm::json::Object Arg{{"uniform", A.Uniform}, {"rank_comm", A.RankComm}};
    if (A.Constant)
      Arg["constant"] = *A.Constant;
    if (!A.Datatype.empty())
      Arg["datatype"] = A.Datatype;
    Arguments.push_back(std::move(Arg));
  }
  return llvm::json::Object{{"function", B.Function},
                            {"buffer", B.Buffer},
                            {"arguments", std::move(Arguments)},
                            {"root", B.Root},
                            {"index", B.Index},
                            {"element", B.Element}};
}

bool fromJSON(const llvm::json::Value &V, AssumedBroadcast &Out,
              llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  if (!O || !O.map("function", Out.Function) ||
      !positionFromJSON(V, "buffer", Out.Buffer, P) ||
      !O.map("root", Out.Root) || !O.map("index", Out.Index) ||
      !O.map("element", Out.Element))
    return false;
  const llvm::json::Array *Arguments = V.getAsObject()->getArray("arguments");
  if (!Arguments) {
    P.field("arguments").report("expected an array");
    return false;
  }
  llvm::json::Path At = P.field("arguments");
  for (size_t I = 0; I < Arguments->size(); ++I) {
    llvm::json::ObjectMapper A((*Arguments)[I], At.index(I));
    AssumedBroadcast::Argument Arg;
    if (!A || !A.map("uniform", Arg.Uniform) ||
        !A.map("rank_comm", Arg.RankComm) ||
        !A.mapOptional("constant", Arg.Constant) ||
        !A.mapOptional("datatype", Arg.Datatype))
      return false;
    Out.Arguments.push_back(Arg);
  }
  return true;
}

llvm::json::Value toJSON(const SharedValue &V) {
  llvm::json::Object O{{"uniform", V.Uniform}};
  if (!V.Assumes.empty())
    O["assumes"] = V.Assumes;
  if (!V.Params.empty())
    O["params"] = V.Params;
  if (!V.Outs.empty())
    O["outs"] = V.Outs;
  if (!V.Broadcasts.empty())
    O["bcasts"] = V.Broadcasts;
  if (!V.Keeps.empty())
    O["keeps"] = V.Keeps;
  if (V.Constant)
    O["constant"] = *V.Constant;
  if (!V.Reason.empty())
    O["reason"] = V.Reason;
  if (!V.Query.empty())
    O["query"] = V.Query;
  if (!V.Comm.empty())
    O["comm"] = V.Comm;
  if (V.Size)
    O["size"] = true;
  return O;
}

bool fromJSON(const llvm::json::Value &V, SharedValue &Out,
              llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && O.map("uniform", Out.Uniform) &&
         O.mapOptional("assumes", Out.Assumes) &&
         O.mapOptional("params", Out.Params) &&
         O.mapOptional("outs", Out.Outs) &&
         O.mapOptional("bcasts", Out.Broadcasts) &&
         O.mapOptional("keeps", Out.Keeps) &&
         O.mapOptional("constant", Out.Constant) &&
         O.mapOptional("reason", Out.Reason) &&
         O.mapOptional("query", Out.Query) && O.mapOptional("comm", Out.Comm) &&
         O.mapOptional("size", Out.Size);
}

llvm::json::Value toJSON(const CallRecord &C) {
  llvm::json::Object O{{"where", placeToJSON(C.Where)},
                       {"caller", C.Caller},
                       {"control", C.Control},
                       {"arguments", C.Arguments}};
  if (C.CallerIsMain)
    O["caller_is_main"] = true;
  return O;
}

bool fromJSON(const llvm::json::Value &V, CallRecord &Out, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  if (!O || !O.map("caller", Out.Caller) ||
      !O.mapOptional("caller_is_main", Out.CallerIsMain) ||
      !O.map("control", Out.Control) || !O.map("arguments", Out.Arguments))
    return false;
  const llvm::json::Value *Where = V.getAsObject()->get("where");
  if (!Where) {
    P.field("where").report("expected a place");
    return false;
  }
  return placeFromJSON(*Where, Out.Where, P.field("where"));
}

llvm::json::Value toJSON(const FieldValue &V) {
  llvm::StringRef Kind;
  for (const auto &[K, Name] : KindNames)
    if (K == V.ValueKind)
      Kind = Name;
  return llvm::json::Object{
      {"kind", Kind},         {"where", placeToJSON(V.Where)},
      {"comm", V.Comm},       {"function", V.Function},
      {"assumes", V.Assumes}, {"params", V.Params},
      {"reason", V.Reason},   {"split", V.Split},
      {"ends_if", V.EndsIf},  {"outs", V.Outs}};
}

bool fromJSON(const llvm::json::Value &V, FieldValue &Out, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  std::string Kind;
  if (!O || !O.map("kind", Kind) || !O.map("comm", Out.Comm) ||
      !O.map("function", Out.Function) ||
      !O.mapOptional("assumes", Out.Assumes) ||
      !O.mapOptional("params", Out.Params) || !O.map("reason", Out.Reason) ||
      !O.mapOptional("split", Out.Split) ||
      !O.mapOptional("ends_if", Out.EndsIf) || !O.mapOptional("outs", Out.Outs))
    return false;
  const auto *Known = llvm::find_if(
      KindNames, [&](const auto &Entry) { return Entry.second == Kind; });
  if (Known == std::end(KindNames)) {
    P.field("kind").report("expected other, uniform, rank, size or freed");
    return false;
  }
  Out.ValueKind = Known->first;
  const llvm::json::Value *Where = V.getAsObject()->get("where");
  if (!Where) {
    P.field("where").report("expected a place");
    return false;
  }
  return placeFromJSON(*Where, Out.Where, P.field("where"));
}

llvm::json::Value toJSON(const OutValue &V) {
  return llvm::json::Object{{"index", V.Index}, {"value", V.Value}};
}

bool fromJSON(const llvm::json::Value &V, OutValue &Out, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && O.map("value", Out.Value) && indexFromJSON(V, Out.Index, P);
}

llvm::json::Value toJSON(const BroadcastFunction &B) {
  llvm::json::Object Out{
      {"buffer", B.Buffer}, {"comm", B.Comm}, {"uniform", B.Uniform}};
  auto Either = [&](const char *Name, std::optional<unsigned> Param,
                    int64_t Value) {
    if (Param)
      Out[std::string(Name) + "_param"] = *Param;
    else
      Out[Name] = Value;
  };
  Either("count", B.CountParam, B.Count);
  Either("root", B.RootParam, B.Root);
  if (B.TypeArg) {
    Out["datatype_arg"] = *B.TypeArg;
  } else if (B.TypeParam) {
    Out["datatype_param"] = *B.TypeParam;
    Out["datatypes"] = namesByValueToJSON(B.TypeByValue);
  } else {
    Out["datatype"] = B.Type;
  }
  return Out;
}

llvm::json::Value toJSON(const CombineFunction &C) {
  llvm::json::Object Out{{"count", C.Count},
                         {"from", C.From},
                         {"into", C.Into},
                         {"op", C.Op},
                         {"element", C.Element}};
  if (C.TypeParam) {
    Out["type_param"] = *C.TypeParam;
    Out["elements"] = namesByValueToJSON(C.ElementByValue);
  }
  return Out;
}

bool fromJSON(const llvm::json::Value &V, CombineFunction &Out,
              llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  return O && positionFromJSON(V, "count", Out.Count, P) &&
         positionFromJSON(V, "from", Out.From, P) &&
         positionFromJSON(V, "into", Out.Into, P) && O.map("op", Out.Op) &&
         O.map("element", Out.Element) &&
         positionFromJSON(V, "type_param", Out.TypeParam, P) &&
         (!Out.TypeParam ||
          namesByValueFromJSON(V, "elements", Out.ElementByValue, P));
}

bool fromJSON(const llvm::json::Value &V, BroadcastFunction &Out,
              llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  std::vector<int64_t> Uniform;
  if (!O || !positionFromJSON(V, "buffer", Out.Buffer, P) ||
      !positionFromJSON(V, "comm", Out.Comm, P) || !O.map("uniform", Uniform) ||
      !positionFromJSON(V, "count_param", Out.CountParam, P) ||
      !O.mapOptional("count", Out.Count) ||
      !positionFromJSON(V, "root_param", Out.RootParam, P) ||
      !O.mapOptional("root", Out.Root) ||
      !positionFromJSON(V, "datatype_param", Out.TypeParam, P) ||
      !positionFromJSON(V, "datatype_arg", Out.TypeArg, P) ||
      !O.mapOptional("datatype", Out.Type))
    return false;
  for (int64_t Position : Uniform) {
    if (Position < 0 || Position > INT32_MAX) {
      P.field("uniform").report("expected parameters' positions");
      return false;
    }
    Out.Uniform.push_back(static_cast<unsigned>(Position));
  }
  return !Out.TypeParam ||
         namesByValueFromJSON(V, "datatypes", Out.TypeByValue, P);
}

llvm::json::Value toJSON(const UnitSummary &S) {
  auto PlaceLists =
      [](const std::map<std::string, std::vector<SourcePlace>> &Lists) {
        llvm::json::Object Out;
        for (const auto &[Key, Places] : Lists) {
          llvm::json::Array Items;
          for (const SourcePlace &Where : Places)
            Items.push_back(placeToJSON(Where));
          Out[Key] = std::move(Items);
        }
        return Out;
      };
  llvm::json::Object Escapes;
  for (const auto &[Record, List] : S.RecordEscapes) {
    llvm::json::Array Items;
    for (const RecordEscape &E : List)
      Items.push_back(llvm::json::Object{{"where", placeToJSON(E.Where)},
                                         {"callee", E.Callee}});
    Escapes[Record] = std::move(Items);
  }
  llvm::json::Object Values;
  for (const auto &[Field, List] : S.FieldValues) {
    llvm::json::Array Items;
    for (const FieldValue &V : List)
      Items.push_back(toJSON(V));
    Values[Field] = std::move(Items);
  }
  llvm::json::Object Records;
  for (const auto &[Callee, List] : S.CallRecords)
    Records[Callee] = List;
  llvm::json::Array Defines;
  for (const std::string &F : S.Defines)
    Defines.push_back(F);
  llvm::json::Array Implicit;
  for (const std::string &F : S.ImplicitlyCalled)
    Implicit.push_back(F);
  llvm::json::Object Taken;
  for (const auto &[Function, Where] : S.AddressTaken)
    Taken[Function] = placeToJSON(Where);
  llvm::json::Array NeverReturn;
  for (const std::string &F : S.NeverReturn)
    NeverReturn.push_back(F);
  llvm::json::Array Codes;
  for (const std::string &F : S.ReturnsMPICode)
    Codes.push_back(F);
  llvm::json::Object OutValues;
  for (const auto &[Function, List] : S.OutValues)
    OutValues[Function] = List;
  llvm::json::Object Broadcasts;
  for (const auto &[Function, Broadcast] : S.Broadcasts)
    Broadcasts[Function] = Broadcast;
  llvm::json::Object Combines;
  for (const auto &[Function, Combine] : S.Combines)
    Combines[Function] = Combine;
  llvm::json::Object KeepsSize;
  for (const auto &[Function, Params] : S.KeepsSize) {
    llvm::json::Array Indices;
    for (unsigned I : Params)
      Indices.push_back(static_cast<int64_t>(I));
    KeepsSize[Function] = std::move(Indices);
  }
  return llvm::json::Object{{"file", S.File},
                            {"defines_main", S.DefinesMain},
                            {"field_values", std::move(Values)},
                            {"record_escapes", std::move(Escapes)},
                            {"defines", std::move(Defines)},
                            {"implicitly_called", std::move(Implicit)},
                            {"calls", PlaceLists(S.Calls)},
                            {"call_records", std::move(Records)},
                            {"address_taken", std::move(Taken)},
                            {"never_return", std::move(NeverReturn)},
                            {"out_values", std::move(OutValues)},
                            {"broadcasts", std::move(Broadcasts)},
                            {"combines", std::move(Combines)},
                            {"keeps_size", std::move(KeepsSize)},
                            {"returns_mpi_code", std::move(Codes)}};
}

bool fromJSON(const llvm::json::Value &V, UnitSummary &S, llvm::json::Path P) {
  llvm::json::ObjectMapper O(V, P);
  std::vector<std::string> Defines, Implicit, NeverReturn, Codes;
  std::map<std::string, std::vector<int64_t>> KeepsSize;
  if (!O || !O.map("file", S.File) || !O.map("defines_main", S.DefinesMain) ||
      !O.map("defines", Defines) || !O.map("field_values", S.FieldValues) ||
      !O.map("call_records", S.CallRecords) ||
      !O.map("implicitly_called", Implicit) ||
      !O.mapOptional("never_return", NeverReturn) ||
      !O.mapOptional("out_values", S.OutValues) ||
      !O.mapOptional("broadcasts", S.Broadcasts) ||
      !O.mapOptional("combines", S.Combines) ||
      !O.mapOptional("keeps_size", KeepsSize) ||
      !O.mapOptional("returns_mpi_code", Codes))
    return false;
  S.ReturnsMPICode.insert(Codes.begin(), Codes.end());
  for (const auto &[Function, Indices] : KeepsSize)
    for (int64_t I : Indices)
      if (I >= 0)
        S.KeepsSize[Function].push_back(static_cast<unsigned>(I));
  S.Defines.insert(Defines.begin(), Defines.end());
  S.ImplicitlyCalled.insert(Implicit.begin(), Implicit.end());
  S.NeverReturn.insert(NeverReturn.begin(), NeverReturn.end());
  const llvm::json::Object *Obj = V.getAsObject();
  // A path holds its parent by reference: each level is a variable.
  llvm::json::Path CallsAt = P.field("calls"),
                   TakenAt = P.field("address_taken"),
                   EscapesAt = P.field("record_escapes");
  if (!placeListsFromJSON(Obj->getObject("calls"), S.Calls, CallsAt))
    return false;
  const llvm::json::Object *Taken = Obj->getObject("address_taken");
  const llvm::json::Object *Escapes = Obj->getObject("record_escapes");
  if (!Taken || !Escapes) {
    P.report("expected address_taken and record_escapes objects");
    return false;
  }
  for (const auto &[Function, Where] : *Taken)
    if (!placeFromJSON(Where, S.AddressTaken[Function.str()],
                       TakenAt.field(Function)))
      return false;
  for (const auto &[Record, List] : *Escapes) {
    llvm::json::Path At = EscapesAt.field(Record);
    const llvm::json::Array *Items = List.getAsArray();
    if (!Items) {
      At.report("expected an array");
      return false;
    }
    std::vector<RecordEscape> &Out = S.RecordEscapes[Record.str()];
    for (size_t I = 0; I < Items->size(); ++I) {
      RecordEscape E;
      llvm::json::Path ItemAt = At.index(I);
      llvm::json::ObjectMapper Item((*Items)[I], ItemAt);
      const llvm::json::Value *Where =
          (*Items)[I].getAsObject() ? (*Items)[I].getAsObject()->get("where")
                                    : nullptr;
      if (!Item || !Item.map("callee", E.Callee) || !Where ||
          !placeFromJSON(*Where, E.Where, ItemAt.field("where")))
        return false;
      Out.push_back(std::move(E));
    }
  }
  return true;
}

std::string recordKey(const RecordDecl &Record) {
  if (!Record.getDeclName().isEmpty())
    return Record.getQualifiedNameAsString();
  if (const TypedefNameDecl *Typedef = Record.getTypedefNameForAnonDecl())
    return Typedef->getQualifiedNameAsString();
  return "";
}

std::string functionKey(const FunctionDecl &F) {
  llvm::SmallString<128> USR;
  if (index::generateUSRForDecl(&F, USR))
    return "";
  return USR.str().str();
}

namespace {

/// Whether \p Call ends the program.
bool callEndsProgram(const CallExpr &Call) {
  if (const mpi::FunctionInfo *Info = mpiCallee(&Call))
    return Info->Id == mpi::FunctionId::Abort;
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return false;
  if (Callee->isNoReturn())
    return true;
  const IdentifierInfo *Name = Callee->getIdentifier();
  return Name &&
         Callee->getDeclContext()->getRedeclContext()->isFileContext() &&
         llvm::is_contained({"exit", "abort", "_Exit", "quick_exit"},
                            Name->getName());
}

/// Whether \p F may run where no call expression names it: a virtual
/// function (called through the base), a constructor, destructor or
/// conversion (called implicitly), a lambda's body (called through
/// whatever holds it).
bool mayRunUnnamed(const FunctionDecl &F) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&F);
  if (!Method)
    return false;
  return Method->isVirtual() || isa<CXXConstructorDecl>(Method) ||
         isa<CXXDestructorDecl>(Method) || isa<CXXConversionDecl>(Method) ||
         Method->getParent()->isLambda();
}

} // namespace

bool endsProgram(const FunctionDecl &F) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F.getBody());
  if (!Body)
    return false;
  for (const Stmt *S : Body->body()) {
    if (const auto *E = dyn_cast<Expr>(S))
      if (const auto *Call = dyn_cast<CallExpr>(E->IgnoreParenCasts()))
        if (callEndsProgram(*Call))
          return true;
    // A way out before it: not every call ends the program.
    if (findFirst(S, [](const Stmt *X) {
          return isa<ReturnStmt>(X) || isa<GotoStmt>(X) ||
                 isa<IndirectGotoStmt>(X) || isa<LabelStmt>(X) ||
                 isa<CXXThrowExpr>(X) || isa<CXXTryStmt>(X);
        }))
      return false;
    if (findFirst(S, [](const Stmt *X) {
          const auto *Call = dyn_cast<CallExpr>(X);
          const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
          return Callee && Callee->getIdentifier() &&
                 Callee->getName().contains("longjmp");
        }))
      return false;
  }
  return false;
}

UnitSummary TranslationUnitFacts::summarize() {
  const SourceManager &SM = Context.getSourceManager();
  UnitSummary S;
  S.File = mainFile();
  S.DefinesMain = DefinesMain;
  // The first place in each file is enough to name it.
  auto NoteFirstInFile = [&](std::vector<SourcePlace> &Places,
                             SourceLocation Loc) {
    SourcePlace Where = placeOf(Loc, SM);
    if (llvm::none_of(
            Places, [&](const SourcePlace &P) { return P.File == Where.File; }))
      Places.push_back(std::move(Where));
  };
  auto ValuesOf = [&](const FieldDecl *Field) -> std::vector<FieldValue> * {
    std::string Key = recordKey(*Field->getParent());
    if (Key.empty())
      return nullptr;
    return &S.FieldValues[Key + "::" + Field->getNameAsString()];
  };
  auto NoteUnjudged = [&](const FieldDecl *Field, SourceLocation Loc,
                          const char *Why) {
    if (std::vector<FieldValue> *Values = ValuesOf(Field)) {
      FieldValue V;
      V.Where = placeOf(Loc, SM);
      V.Reason = Why;
      Values->push_back(std::move(V));
    }
  };
  // The writes are judged without the other units, as the summary is
  // kept for any project the unit may be part of.
  const ProjectFacts *Saved = Project;
  Project = nullptr;
  WithoutIndex = "the index judges each unit's writes alone";
  auto Restore = llvm::make_scope_exit([&] {
    Project = Saved;
    WithoutIndex = "no project index: check with a compile database";
  });
  RankUniformity Uniformity(*this);
  for (const auto &[Field, Uses] : FieldUses)
    for (const MemberExpr *Use : Uses)
      if (!isOnlyLoaded(*Use, Context))
        if (std::vector<FieldValue> *Values = ValuesOf(Field))
          Values->push_back(writtenValue(*Use, placeOf(Use->getBeginLoc(), SM),
                                         *this, Uniformity));
  for (const auto &[Decl, Uses] : Records) {
    const auto *Record = cast<RecordDecl>(Decl)->getDefinition();
    if (!Record)
      continue;
    for (const InitListExpr *Init : Uses.InitLists)
      for (const FieldDecl *Field : Record->fields())
        if (Field->getFieldIndex() < Init->getNumInits())
          NoteUnjudged(Field, Init->getBeginLoc(),
                       "an initializer list's values are not followed "
                       "across units");
    std::string Key = recordKey(*Record);
    for (const auto &[Arg, Callee] : Uses.Escapes)
      if (!Key.empty())
        S.RecordEscapes[Key].push_back(
            {placeOf(Arg->getBeginLoc(), SM),
             Callee ? functionKey(*Callee) : std::string()});
  }
  for (const FunctionDecl *F : Defined) {
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(F))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (const FieldDecl *Field = Init->getMember())
          NoteUnjudged(Field,
                       Init->getSourceLocation().isValid()
                           ? Init->getSourceLocation()
                           : Ctor->getLocation(),
                       "a constructor's values are not followed across "
                       "units");
    std::string Key = functionKey(*F);
    if (Key.empty())
      continue;
    if (mayRunUnnamed(*F) || AddressTaken.count(F->getCanonicalDecl()))
      S.ImplicitlyCalled.insert(Key);
    if (endsProgram(*F))
      S.NeverReturn.insert(Key);
    if (F->isExternallyVisible()) {
      if (std::vector<OutValue> Out = outValues(*F, Uniformity); !Out.empty())
        S.OutValues[Key] = std::move(Out);
      if (Uniformity.returnsMPICode(*F))
        S.ReturnsMPICode.insert(Key);
      if (std::optional<BroadcastFunction> B =
              analysis::broadcastFunction(*F, *this))
        S.Broadcasts[Key] = std::move(*B);
      if (std::optional<CombineFunction> C =
              analysis::combineFunction(*F, Context))
        S.Combines[Key] = std::move(*C);
      for (unsigned I = 0; I < F->getNumParams(); ++I)
        if (containerParameterKeepsSize(*F, I, Context))
          S.KeepsSize[Key].push_back(I);
    }
    S.Defines.insert(std::move(Key));
  }
  LibraryHeaders Library(Context);
  for (const auto &[Callee, Sites] : Callers) {
    if (Callee->isMain() || Library.contain(Callee->getLocation()) ||
        (!Sites.empty() && mpiCallee(Sites.front().Call)))
      continue;
    std::string Key = functionKey(*Callee);
    if (Key.empty())
      continue;
    // Every call, judged: the reading unit follows parameters and which
    // ranks run a function through them.
    std::vector<CallRecord> &Records = S.CallRecords[Key];
    for (const CallSite &Site : Sites)
      Records.push_back(calledWith(Site, placeOf(Site.Call->getBeginLoc(), SM),
                                   *this, Uniformity));
    if (!Callee->isExternallyVisible())
      continue;
    for (const CallSite &Site : Sites)
      NoteFirstInFile(S.Calls[Key], Site.Call->getBeginLoc());
  }
  for (const auto &[Function, Where] : AddressTaken)
    if (Function->isExternallyVisible())
      S.AddressTaken.try_emplace(functionKey(*Function), placeOf(Where, SM));
  return S;
}

UnitSummary summarizeUnit(ASTContext &Context) {
  return TranslationUnitFacts(Context).summarize();
}

void ProjectFacts::add(UnitSummary Unit) {
  Defined.insert(Unit.Defines.begin(), Unit.Defines.end());
  Units.push_back(std::move(Unit));
}

bool ProjectFacts::definesMain() const {
  return llvm::any_of(Units,
                      [](const UnitSummary &U) { return U.DefinesMain; });
}

bool ProjectFacts::defines(StringRef Key) const {
  return !Key.empty() && Defined.count(Key.str());
}

namespace {

const SourcePlace &placeOfItem(const SourcePlace &P) { return P; }
const SourcePlace &placeOfItem(const FieldValue &V) { return V.Where; }
const SourcePlace &placeOfItem(const CallRecord &C) { return C.Where; }

/// The items of \p Key in the lists \p Member of the units other than
/// \p Unit, outside the files \p Unit reads itself, in the order of the
/// units and their items.
template <typename Item>
std::vector<Item>
itemsElsewhere(const std::vector<UnitSummary> &Units,
               std::map<std::string, std::vector<Item>> UnitSummary::*Member,
               StringRef Key, StringRef Unit,
               llvm::function_ref<bool(StringRef)> SeenByUnit) {
  std::vector<Item> Items;
  for (const UnitSummary &U : Units) {
    if (U.File == Unit)
      continue;
    auto It = (U.*Member).find(Key.str());
    if (It == (U.*Member).end())
      continue;
    for (const Item &I : It->second)
      if (!SeenByUnit(placeOfItem(I).File))
        Items.push_back(I);
  }
  return Items;
}

} // namespace

std::vector<FieldValue> ProjectFacts::valuesElsewhere(
    StringRef Field, StringRef Unit,
    llvm::function_ref<bool(StringRef)> SeenByUnit) const {
  return itemsElsewhere(Units, &UnitSummary::FieldValues, Field, Unit,
                        SeenByUnit);
}

std::optional<SourcePlace> ProjectFacts::callElsewhere(
    StringRef Function, StringRef Unit,
    llvm::function_ref<bool(StringRef)> SeenByUnit) const {
  std::vector<SourcePlace> Calls =
      itemsElsewhere(Units, &UnitSummary::Calls, Function, Unit, SeenByUnit);
  if (Calls.empty())
    return std::nullopt;
  return Calls.front();
}

std::vector<CallRecord> ProjectFacts::callRecordsElsewhere(
    StringRef Function, StringRef Unit,
    llvm::function_ref<bool(StringRef)> SeenByUnit) const {
  std::vector<CallRecord> Records = itemsElsewhere(
      Units, &UnitSummary::CallRecords, Function, Unit, SeenByUnit);
  // A unit that lists a call it did not judge: the call still runs.
  for (const UnitSummary &U : Units) {
    if (U.File == Unit || U.CallRecords.count(Function.str()))
      continue;
    auto Listed = U.Calls.find(Function.str());
    if (Listed == U.Calls.end())
      continue;
    for (const SourcePlace &Where : Listed->second)
      if (!SeenByUnit(Where.File)) {
        CallRecord R;
        R.Where = Where;
        R.Control.Reason = "the unit's summary does not judge this call";
        Records.push_back(std::move(R));
      }
  }
  return Records;
}

bool ProjectFacts::neverReturns(StringRef Function) const {
  return llvm::any_of(Units, [&](const UnitSummary &U) {
    return U.NeverReturn.count(Function.str()) != 0;
  });
}

bool ProjectFacts::implicitlyCalled(StringRef Function) const {
  return llvm::any_of(Units, [&](const UnitSummary &U) {
    return U.ImplicitlyCalled.count(Function.str()) != 0;
  });
}

std::optional<SharedValue> ProjectFacts::outValue(StringRef Function,
                                                  unsigned Index) const {
  for (const UnitSummary &U : Units) {
    auto It = U.OutValues.find(Function.str());
    if (It == U.OutValues.end())
      continue;
    for (const OutValue &V : It->second)
      if (V.Index == Index)
        return V.Value;
  }
  return std::nullopt;
}

std::optional<BroadcastFunction>
ProjectFacts::broadcastFunction(StringRef Function) const {
  for (const UnitSummary &U : Units) {
    auto It = U.Broadcasts.find(Function.str());
    if (It != U.Broadcasts.end())
      return It->second;
  }
  return std::nullopt;
}

std::optional<CombineFunction>
ProjectFacts::combineFunction(StringRef Function) const {
  for (const UnitSummary &U : Units) {
    auto It = U.Combines.find(Function.str());
    if (It != U.Combines.end())
      return It->second;
  }
  return std::nullopt;
}

bool ProjectFacts::keepsSize(StringRef Function, unsigned Index) const {
  return llvm::any_of(Units, [&](const UnitSummary &U) {
    auto It = U.KeepsSize.find(Function.str());
    return It != U.KeepsSize.end() && llvm::is_contained(It->second, Index);
  });
}

bool ProjectFacts::returnsMPICode(StringRef Function) const {
  return llvm::any_of(Units, [&](const UnitSummary &U) {
    return U.ReturnsMPICode.count(Function.str()) != 0;
  });
}

std::optional<SourcePlace>
ProjectFacts::addressTakenElsewhere(StringRef Function, StringRef Unit) const {
  for (const UnitSummary &U : Units) {
    auto It = U.AddressTaken.find(Function.str());
    if (U.File != Unit && It != U.AddressTaken.end())
      return It->second;
  }
  return std::nullopt;
}

std::optional<SourcePlace> ProjectFacts::escapeElsewhere(StringRef Record,
                                                         StringRef Unit) const {
  for (const UnitSummary &U : Units) {
    if (U.File == Unit)
      continue;
    auto It = U.RecordEscapes.find(Record.str());
    if (It == U.RecordEscapes.end())
      continue;
    for (const RecordEscape &E : It->second)
      if (!defines(E.Callee))
        return E.Where;
  }
  return std::nullopt;
}

} // namespace analysis
} // namespace mpilift
