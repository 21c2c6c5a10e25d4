//===- UniformityAcrossUnits.cpp - Values other units decide --------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The part of RankUniformity that reads the project's facts: a field
/// another unit writes, a parameter of a function other units call, and
/// whether every rank runs a function some other unit calls. Each unit's
/// summary judged its own code and left to this one the fields and
/// parameters its values read; those are judged here, with every unit's
/// writes and calls, as far as MaxDepth steps.
///
//===----------------------------------------------------------------------===//

#include "RankUniformity.h"
#include "SplitRanks.h"

#include "llvm/ADT/ScopeExit.h"

using namespace clang;

namespace mpilift {
namespace analysis {

std::string nameInUSR(StringRef Key) {
  StringRef Name = Key.rsplit('@').second;
  Name = Name.split('#').first;
  return Name.empty() ? Key.str() : Name.str();
}

namespace {

std::optional<llvm::APSInt> constantOf(const SharedValue &V) {
  if (!V.Constant)
    return std::nullopt;
  return llvm::APSInt(llvm::APInt(64, static_cast<uint64_t>(*V.Constant),
                                  /*isSigned=*/true),
                      /*isUnsigned=*/false);
}

/// Whether the values \p Next adds keep one constant in \p Constant.
bool stillOneConstant(std::optional<llvm::APSInt> &Constant,
                      std::optional<llvm::APSInt> Next) {
  bool Same =
      Next && (!Constant || llvm::APSInt::isSameValue(*Next, *Constant));
  Constant = std::move(Next);
  return Same;
}

/// Whether every call of \p Records passes the same integer constant as
/// its argument at \p Index as the calls before it (\p Constant).
bool recordsKeepOneConstant(std::optional<llvm::APSInt> &Constant,
                            ArrayRef<CallRecord> Records, unsigned Index) {
  bool One = true;
  for (const CallRecord &R : Records)
    One &= stillOneConstant(Constant, Index < R.Arguments.size()
                                          ? constantOf(R.Arguments[Index])
                                          : std::nullopt);
  return One;
}

} // namespace

std::optional<Divergence>
RankUniformity::recordedArguments(StringRef Callee, unsigned Index,
                                  ArrayRef<CallRecord> Records,
                                  bool CheckControl, StringRef Receiver,
                                  SourceLocation Near, unsigned Depth) {
  for (const CallRecord &R : Records)
    if (auto Why = inAnotherFunction([&] {
          return recordedArgument(Callee, Index, R, CheckControl, Near, Depth);
        }))
      return Divergence{Receiver.str() + " receives a value in " +
                            R.Where.str() +
                            " that may differ between ranks: " + Why->Reason,
                        Why->Loc};
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::argumentsAtSites(const ParmVarDecl *P,
                                 const FunctionDecl &Callee,
                                 ArrayRef<ArgumentSite> Sites,
                                 ArrayRef<CallRecord> Records, unsigned Depth) {
  unsigned Index = P->getFunctionScopeIndex();
  // One call site gives the parameter its value whenever it runs; with
  // several, each must pass one constant or run on every rank (its
  // conditions, and its function's callers).
  std::optional<llvm::APSInt> Constant;
  bool OneConstant = true;
  for (const ArgumentSite &Site : Sites)
    OneConstant &= stillOneConstant(
        Constant, Site.Arg && !Site.Arg->isValueDependent()
                      ? Site.Arg->getIntegerConstantExpr(TU.context())
                      : std::nullopt);
  OneConstant &= recordsKeepOneConstant(Constant, Records, Index);
  bool CheckControl = Sites.size() + Records.size() > 1 && !OneConstant;
  for (const ArgumentSite &Site : Sites) {
    if (!Site.Caller || !Site.Arg)
      return Divergence{"a call of " + named(&Callee) + " cannot be followed",
                        Site.At->getBeginLoc()};
    std::optional<Divergence> Why = inAnotherFunction([&] {
      std::optional<Divergence> Value =
          valueOf(Site.Arg, *Site.Caller, Depth + 1);
      if (!Value && CheckControl)
        Value = controlOf(Site.At, *Site.Caller, Depth + 1);
      if (!Value && CheckControl && Site.Caller != &Callee)
        Value = callersOf(*Site.Caller, Depth + 1);
      return Value;
    });
    if (Why)
      return Divergence{named(P) +
                            " receives a value here that may differ "
                            "between ranks: " +
                            Why->Reason,
                        Site.At->getBeginLoc()};
  }
  return recordedArguments(Callee.getNameAsString(), Index, Records,
                           CheckControl, named(P), P->getLocation(), Depth + 1);
}

std::optional<Divergence>
RankUniformity::recordedArgument(StringRef Callee, unsigned Index,
                                 const CallRecord &R, bool CheckControl,
                                 SourceLocation Near, unsigned Depth) {
  if (Index >= R.Arguments.size())
    return Divergence{"the call of '" + Callee.str() +
                          "' passes no such "
                          "argument",
                      Near};
  const SharedValue &Arg = R.Arguments[Index];
  if (!Arg.Uniform)
    return Divergence{Arg.Reason, Near};
  if (auto Why = sharedAssumptions(Arg, Near, Depth))
    return Why;
  if (CheckControl)
    return recordedCallRuns(Callee, R, Near, Depth);
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::recordedCallRuns(StringRef Callee,
                                                           const CallRecord &R,
                                                           SourceLocation Near,
                                                           unsigned Depth) {
  std::string Call = "'" + Callee.str() + "' is called in " + R.Where.str();
  if (!R.Control.Uniform)
    return Divergence{Call +
                          ", where some ranks may make the call and "
                          "others not: " +
                          R.Control.Reason,
                      Near};
  if (auto Why = sharedAssumptions(R.Control, Near, Depth))
    return Divergence{Call +
                          " under conditions that may differ between "
                          "ranks: " +
                          Why->Reason,
                      Why->Loc};
  if (R.CallerIsMain)
    return std::nullopt;
  if (R.Caller.empty())
    return Divergence{Call + ", outside a function", Near};
  std::string Caller = nameInUSR(R.Caller);
  if (auto Why = functionRuns(R.Caller, Caller, Near, Depth + 1))
    return Divergence{
        Call + " by '" + Caller +
            "', which some ranks may run and others not: " + Why->Reason,
        Why->Loc};
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::functionRuns(StringRef Key,
                                                       StringRef Name,
                                                       SourceLocation Near,
                                                       unsigned Depth) {
  if (Depth >= MaxDepth)
    return Divergence{"gave up following the callers of '" + Name.str() + "'",
                      Near};
  if (const FunctionDecl *F = TU.functionNamed(Key))
    return callersOf(*F, Depth);
  if (std::optional<std::string> Why = TU.unrecordedCallers(Key, Name))
    return Divergence{*Why, Near};
  if (!KeysInProgress.insert(Key.str()).second)
    return std::nullopt; // Recursion: the outer calls decide.
  auto Done = llvm::make_scope_exit([&] { KeysInProgress.erase(Key.str()); });
  // No calls at all: the function never runs, and nothing it does counts.
  std::vector<CallRecord> Records = *TU.callsElsewhere(Key);
  for (const CallRecord &R : Records)
    if (auto Why = recordedCallRuns(Name, R, Near, Depth))
      return Why;
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::sharedAssumptions(const SharedValue &V, SourceLocation Near,
                                  unsigned Depth) {
  for (const std::string &Key : V.Assumes)
    if (auto Why = assumedField(Key, nullptr, Near, Depth, "it reads "))
      return Why;
  for (const ParamKey &K : V.Params)
    if (auto Why = assumedParameter(K, Near, Depth))
      return Why;
  for (const ParamKey &K : V.Outs)
    if (auto Why = assumedOut(K, Near, Depth))
      return Why;
  for (const AssumedBroadcast &B : V.Broadcasts)
    if (auto Why = assumedBroadcast(B, Near))
      return Why;
  const ProjectFacts *Project = TU.project();
  for (const ParamKey &K : V.Keeps)
    if (!Project || !Project->keepsSize(K.Function, K.Index))
      return Divergence{"it hands a container to '" + nameInUSR(K.Function) +
                            "' of another unit, which may change its size",
                        Near};
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::assumedBroadcast(const AssumedBroadcast &B,
                                 SourceLocation Near) {
  std::string Name = "'" + nameInUSR(B.Function) + "'";
  const ProjectFacts *Project = TU.project();
  std::optional<BroadcastFunction> F =
      Project ? Project->broadcastFunction(B.Function) : std::nullopt;
  auto fails = [&](const std::string &What) {
    return Divergence{"it takes a call of " + Name +
                          " in another unit as a broadcast of element " +
                          std::to_string(B.Index) + " of an array, but " + What,
                      Near};
  };
  if (!F)
    return fails("its unit does not show it to be one");
  auto argument = [&](unsigned I) {
    return I < B.Arguments.size() ? &B.Arguments[I] : nullptr;
  };
  // A parameter's constant argument, or the function's own constant.
  auto constantFor = [&](std::optional<unsigned> Param,
                         int64_t Own) -> std::optional<int64_t> {
    if (!Param)
      return Own;
    const AssumedBroadcast::Argument *A = argument(*Param);
    return A ? A->Constant : std::nullopt;
  };
  if (F->Buffer != B.Buffer)
    return fails("it broadcasts another of its parameters");
  std::optional<int64_t> Count = constantFor(F->CountParam, F->Count);
  if (!Count || *Count <= B.Index)
    return fails("its count is no constant past that element");
  std::optional<int64_t> Root = constantFor(F->RootParam, F->Root);
  if (!Root || *Root != B.Root)
    return fails("its root may not be the process that packs the array");
  const AssumedBroadcast::Argument *Passed =
      F->TypeArg ? argument(*F->TypeArg) : nullptr;
  const PredefinedDatatype *Predefined = predefinedDatatype(
      F->typeFor(constantFor(F->TypeParam, 0),
                 Passed ? llvm::StringRef(Passed->Datatype) : ""));
  if (!Predefined || Predefined->CType != B.Element)
    return fails("its datatype may not be the array's element type '" +
                 B.Element + "'");
  const AssumedBroadcast::Argument *Comm = argument(F->Comm);
  if (!Comm || !Comm->RankComm)
    return fails("its communicator may not be the one the packing tests "
                 "the rank in, or spans fewer processes than the proof");
  for (unsigned I : F->Uniform)
    if (!argument(I) || !argument(I)->Uniform)
      return fails("it is one only where its argument " + std::to_string(I) +
                   " is the same on every rank, which it may not be");
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::openDivergence(const FieldValue &W,
                                                         SourceLocation Near) {
  for (const std::string &Key : W.Assumes)
    if (auto Why = assumedField(Key, nullptr, Near, 0, "it reads "))
      return Why;
  for (const ParamKey &K : W.Params)
    if (auto Why = assumedParameter(K, Near, 0))
      return Why;
  for (const ParamKey &K : W.Outs)
    if (auto Why = assumedOut(K, Near, 0))
      return Why;
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::assumedField(StringRef Key, const FunctionDecl *Where,
                             SourceLocation Near, unsigned Depth,
                             StringRef Reads) {
  const FieldDecl *Field = TU.fieldNamed(Key);
  if (!Field)
    return Divergence{Reads.str() + "'" + Key.str() +
                          "', a field this unit does not use",
                      Near};
  std::optional<Divergence> Why = Where ? memberDivergence(Field, *Where, Depth)
                                        : fieldDivergence(Field, Depth + 1);
  if (Why)
    return Divergence{Reads.str() + named(Field) +
                          ", which may differ between ranks: " + Why->Reason,
                      Why->Loc};
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::assumedParameter(const ParamKey &K,
                                                           SourceLocation Near,
                                                           unsigned Depth) {
  std::string Function = nameInUSR(K.Function);
  std::string Param =
      "parameter " + std::to_string(K.Index + 1) + " of '" + Function + "'";
  if (Depth >= MaxDepth)
    return Divergence{"gave up following " + Param + " through callers", Near};
  if (const FunctionDecl *F = TU.functionNamed(K.Function)) {
    if (K.Index >= F->getNumParams())
      return Divergence{"'" + Function + "' has no " + Param, Near};
    const ParmVarDecl *P = F->getParamDecl(K.Index);
    return inAnotherFunction(
        [&] { return parameter(P, P->getLocation(), *F, Depth + 1); });
  }
  if (std::optional<std::string> Why =
          TU.unrecordedCallers(K.Function, Function))
    return Divergence{"it reads " + Param +
                          ", whose callers are not all "
                          "visible (" +
                          *Why + ")",
                      Near};
  std::string InProgress = K.Function + "#" + std::to_string(K.Index);
  if (!KeysInProgress.insert(InProgress).second)
    return std::nullopt; // Its other callers decide.
  auto Done = llvm::make_scope_exit([&] { KeysInProgress.erase(InProgress); });
  std::vector<CallRecord> Records = *TU.callsElsewhere(K.Function);
  std::optional<llvm::APSInt> Constant;
  bool CheckControl =
      Records.size() > 1 && !recordsKeepOneConstant(Constant, Records, K.Index);
  return recordedArguments(Function, K.Index, Records, CheckControl,
                           "it reads " + Param + ", which", Near, Depth + 1);
}

std::optional<Divergence>
RankUniformity::writeInOtherUnit(const FieldDecl *Field, const FieldValue &W,
                                 unsigned Depth) {
  std::string Written = named(Field) + " is given a value in " + W.Where.str();
  SourceLocation Near = Field->getLocation();
  // A split proof holds where the functions it took to end the program
  // do, and the values given to its function are the same on every rank;
  // the writing unit left both to this one.
  if (W.Split) {
    std::string Proven =
        Written + ", the " +
        (W.ValueKind == FieldValue::Kind::Rank ? "rank" : "size") + " in '" +
        StringRef(W.Comm).rsplit("::").second.str() + "' (the split proof)";
    for (const std::string &Key : W.EndsIf)
      if (!endsProgramInProject(Key, TU))
        return Divergence{Proven + " only if '" + nameInUSR(Key) +
                              "' ends the program, which no unit's summary "
                              "shows",
                          Near};
    if (auto Why = openDivergence(W, Near))
      return Divergence{Proven + " where the values '" + nameInUSR(W.Function) +
                            "' is given are the same on every rank, which "
                            "they may not be: " +
                            Why->Reason,
                        Why->Loc};
  }
  switch (W.ValueKind) {
  case FieldValue::Kind::Rank:
    if (auto Why = replacedComm(Field, TU.fieldNamed(W.Comm),
                                "in " + W.Where.str(), Near))
      return Why;
    return Divergence{Written + ", the rank, which differs between ranks",
                      Near};
  case FieldValue::Kind::Size:
    // The size of the communicator the object keeps: the same on each of
    // its processes (as a size query this unit makes), as long as the
    // communicator is not replaced without a new query and every rank
    // runs the function that asks.
    if (auto Why = replacedComm(Field, TU.fieldNamed(W.Comm),
                                "in " + W.Where.str(), Near))
      return Why;
    break;
  case FieldValue::Kind::Other:
    return Divergence{Written + " that may differ between ranks: " + W.Reason,
                      Near};
  case FieldValue::Kind::Freed:
    return Divergence{named(Field) + " is freed as a communicator in " +
                          W.Where.str() + ", which this proof does not follow",
                      Near};
  case FieldValue::Kind::Uniform:
    break;
  }
  // The same on every rank where every rank runs the function: whether
  // they all do is for the calls of it, here and in other units, to say.
  const FunctionDecl *F = TU.functionNamed(W.Function);
  std::string Function = F ? F->getNameAsString() : nameInUSR(W.Function);
  if (!F && !TU.unrecordedCallers(W.Function, Function) &&
      TU.callsElsewhere(W.Function)->empty())
    return std::nullopt; // No code of the program calls it.
  if (auto Why = functionRuns(W.Function, Function, Near, Depth + 1))
    return Divergence{
        Written + " by '" + Function +
            "', which some ranks may run and others not: " + Why->Reason,
        Why->Loc};
  // The fields and parameters the value reads, which its unit left to
  // this one.
  for (const std::string &Key : W.Assumes)
    if (auto Why = assumedField(Key, F, Near, Depth + 1, Written + " from "))
      return Why;
  for (const ParamKey &K : W.Params)
    if (auto Why = assumedParameter(K, Near, Depth + 1))
      return Divergence{
          Written + " that may differ between ranks: " + Why->Reason, Why->Loc};
  for (const ParamKey &K : W.Outs)
    if (auto Why = assumedOut(K, Near, Depth + 1))
      return Divergence{
          Written + " that may differ between ranks: " + Why->Reason, Why->Loc};
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::assumedOut(const ParamKey &K,
                                                     SourceLocation Near,
                                                     unsigned Depth) {
  std::string What = "what '" + nameInUSR(K.Function) +
                     "' returns through parameter " +
                     std::to_string(K.Index + 1);
  if (Depth >= MaxDepth)
    return Divergence{"gave up following " + What, Near};
  // Defined here: its body, as this unit sees it.
  const FunctionDecl *F = TU.functionNamed(K.Function);
  const FunctionDecl *Definition = nullptr;
  if (F && F->getBody(Definition) && K.Index < Definition->getNumParams()) {
    const ParmVarDecl *P = Definition->getParamDecl(K.Index);
    std::optional<Divergence> Why = inAnotherFunction(
        [&] { return pointeeWrites(P, *Definition, Depth + 1); });
    if (!Why)
      return std::nullopt;
    return Divergence{"it reads " + What +
                          ", which may differ between ranks: " + Why->Reason,
                      Why->Loc};
  }
  const ProjectFacts *Project = TU.project();
  std::optional<SharedValue> Out =
      Project ? Project->outValue(K.Function, K.Index) : std::nullopt;
  if (!Out)
    return Divergence{"it reads " + What + ", which no unit's summary judges",
                      Near};
  if (!Out->Uniform)
    return Divergence{"it reads " + What +
                          ", which may differ between ranks: " + Out->Reason,
                      Near};
  if (auto Why = sharedAssumptions(*Out, Near, Depth + 1))
    return Divergence{"it reads " + What +
                          ", which reads what may differ "
                          "between ranks: " +
                          Why->Reason,
                      Why->Loc};
  return std::nullopt;
}

} // namespace analysis
} // namespace mpilift
