//===- FieldWriteValues.cpp - What a unit's field writes give -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "FieldWriteValues.h"

#include "CommQueries.h"
#include "SplitRanks.h"
#include "StatementTree.h"
#include "VectorUses.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

FieldValue otherValue(SourcePlace Where, std::string Reason) {
  FieldValue V;
  V.Where = std::move(Where);
  V.Reason = std::move(Reason);
  return V;
}

/// The rank or size query \p Use receives, on a communicator kept in a
/// field of the same object.
std::optional<FieldValue> queryValue(const MemberExpr &Use, SourcePlace Where,
                                     ASTContext &Context) {
  std::optional<QueryValue> Query = queryWritingField(Use, Context);
  if (!Query)
    return std::nullopt;
  const auto *Comm = dyn_cast_or_null<FieldDecl>(Query->Comm.Decl);
  std::string Key = Comm ? recordKey(*Comm->getParent()) : "";
  if (Key.empty())
    return otherValue(std::move(Where),
                      "the query is on a communicator the structure does not "
                      "keep");
  FieldValue V;
  V.ValueKind = Query->Query == CommQuery::Rank ? FieldValue::Kind::Rank
                                                : FieldValue::Kind::Size;
  V.Where = std::move(Where);
  V.Comm = Key + "::" + Comm->getNameAsString();
  return V;
}

/// Why a field's value that relies on a broadcast by a function of another
/// unit is not recorded as the same on every rank.
std::string broadcastsNotFollowed(const SharedValue &V) {
  return "it relies on a call of '" + nameInUSR(V.Broadcasts.front().Function) +
         "' in another unit being a broadcast, which a field's value does "
         "not follow yet";
}

/// What the proof \p Judge of \p Uniformity shows, with the fields and
/// the parameters of functions other units may call that it reads left
/// to the reading unit (which sees every unit's writes and calls).
template <typename JudgeFn>
SharedValue judgedShared(RankUniformity &Uniformity, JudgeFn Judge) {
  std::vector<const FieldDecl *> Fields;
  std::vector<const ParmVarDecl *> Params;
  std::vector<ParamKey> Outs;
  std::vector<AssumedBroadcast> Broadcasts;
  std::vector<ParamKey> Keeps;
  Uniformity.assumeFields(&Fields);
  Uniformity.assumeParameters(&Params);
  Uniformity.assumeOutValues(&Outs);
  Uniformity.assumeBroadcasts(&Broadcasts);
  Uniformity.assumeSizesKept(&Keeps);
  std::optional<Divergence> Why = Judge();
  Uniformity.assumeSizesKept(nullptr);
  Uniformity.assumeFields(nullptr);
  Uniformity.assumeParameters(nullptr);
  Uniformity.assumeOutValues(nullptr);
  Uniformity.assumeBroadcasts(nullptr);
  SharedValue V;
  if (Why) {
    V.Reason = Why->Reason;
    return V;
  }
  for (const FieldDecl *Read : Fields) {
    std::string Key = recordKey(*Read->getParent());
    if (Key.empty()) {
      V.Reason = "it reads '" + Read->getNameAsString() +
                 "' of a structure without a name";
      return V;
    }
    Key += "::" + Read->getNameAsString();
    if (!llvm::is_contained(V.Assumes, Key))
      V.Assumes.push_back(std::move(Key));
  }
  for (const ParmVarDecl *P : Params) {
    const auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
    std::string Key = F ? functionKey(*F) : "";
    if (Key.empty()) {
      V.Reason = "it reads '" + P->getNameAsString() +
                 "', a parameter of a function without a name";
      return V;
    }
    ParamKey K{std::move(Key), P->getFunctionScopeIndex()};
    if (!llvm::is_contained(V.Params, K))
      V.Params.push_back(std::move(K));
  }
  for (ParamKey &K : Outs)
    if (!llvm::is_contained(V.Outs, K))
      V.Outs.push_back(std::move(K));
  V.Broadcasts = std::move(Broadcasts);
  V.Keeps = std::move(Keeps);
  V.Uniform = true;
  return V;
}

/// The rank or size in a communicator split beside the write \p Use
/// (SplitRanks.h), with the parameters the split proof took as the same
/// on every rank left to the reading unit.
std::optional<FieldValue> splitValue(const MemberExpr &Use, SourcePlace Where,
                                     TranslationUnitFacts &TU,
                                     RankUniformity &Uniformity) {
  const SplitProof *Proof = nullptr;
  const SplitField *Split = splitFieldOf(Use, TU, &Proof);
  if (!Split)
    return std::nullopt;
  const FunctionDecl &F = *TU.functionOf(&Use);
  const auto *Comm = cast<FieldDecl>(Split->CommWrite->getMemberDecl());
  std::string Key = recordKey(*Comm->getParent());
  if (Key.empty())
    return otherValue(std::move(Where),
                      "it is split into a structure without a name");
  SharedValue Inputs = judgedShared(Uniformity, [&] {
    auto Input = Uniformity.splitInputDivergence(*Proof, F);
    return Input ? std::optional<Divergence>(Input->second) : std::nullopt;
  });
  if (!Inputs.Uniform)
    return otherValue(
        std::move(Where),
        "it is the " +
            std::string(Split->Query == CommQuery::Rank ? "rank" : "size") +
            " in '" + Comm->getNameAsString() +
            "' only where the shape given to '" + F.getNameAsString() +
            "' is the same on every rank, which it may not be: " +
            Inputs.Reason);
  if (!Inputs.Broadcasts.empty())
    return otherValue(std::move(Where), broadcastsNotFollowed(Inputs));
  FieldValue V;
  for (const FunctionDecl *Ends : Proof->AssumedEnding) {
    if (Ends->isNoReturn())
      continue;
    std::string EndsKey = functionKey(*Ends);
    if (EndsKey.empty())
      return otherValue(std::move(Where),
                        "the split proof takes '" + Ends->getNameAsString() +
                            "', a function without a name, to end the "
                            "program");
    V.EndsIf.push_back(std::move(EndsKey));
  }
  V.ValueKind = Split->Query == CommQuery::Rank ? FieldValue::Kind::Rank
                                                : FieldValue::Kind::Size;
  V.Where = std::move(Where);
  V.Comm = Key + "::" + Comm->getNameAsString();
  V.Split = true;
  V.Assumes = std::move(Inputs.Assumes);
  V.Params = std::move(Inputs.Params);
  V.Outs = std::move(Inputs.Outs);
  return V;
}

/// What the write \p Use gives its field; the function it is in is
/// writtenValue's to name.
FieldValue judgedValue(const MemberExpr &Use, SourcePlace Where,
                       TranslationUnitFacts &TU, RankUniformity &Uniformity) {
  ASTContext &Context = TU.context();
  if (std::optional<FieldValue> Query = queryValue(Use, Where, Context))
    return *Query;
  if (freesField(Use, Context)) {
    FieldValue V;
    V.ValueKind = FieldValue::Kind::Freed;
    V.Where = std::move(Where);
    return V;
  }
  if (std::optional<FieldValue> Split = splitValue(Use, Where, TU, Uniformity))
    return *Split;
  const Stmt *Child = nullptr;
  const auto *Assign =
      dyn_cast_or_null<BinaryOperator>(parentPastParens(Use, Context, &Child));
  if (!Assign || Assign->getOpcode() != BO_Assign || Assign->getLHS() != Child)
    return otherValue(std::move(Where),
                      "it is changed in a way that cannot be followed");
  const FunctionDecl *F = TU.functionOf(&Use);
  if (!F)
    return otherValue(std::move(Where), "it is written outside a function");
  // Which ranks run the function is for the reading unit to judge, which
  // finds it by its USR: a function of this unit alone it cannot name.
  if (!F->isExternallyVisible())
    return otherValue(std::move(Where),
                      "it is written in '" + F->getNameAsString() +
                          "', a function of that unit alone, whose callers "
                          "are not followed across units");
  SharedValue Shared = judgedShared(Uniformity, [&] {
    return Uniformity.writeInFunction(Assign, Assign->getRHS(), *F);
  });
  if (!Shared.Uniform) {
    std::string Split = splitRefusalOf(Use, TU);
    if (!Split.empty())
      Shared.Reason += "; nor is it the rank or the size in the communicator "
                       "split beside it: " +
                       Split;
    return otherValue(std::move(Where), std::move(Shared.Reason));
  }
  if (!Shared.Broadcasts.empty())
    return otherValue(std::move(Where), broadcastsNotFollowed(Shared));
  FieldValue V;
  V.ValueKind = FieldValue::Kind::Uniform;
  V.Where = std::move(Where);
  V.Assumes = std::move(Shared.Assumes);
  V.Params = std::move(Shared.Params);
  V.Outs = std::move(Shared.Outs);
  return V;
}

/// Notes in \p V the predefined communicator \p Arg is, or the rank or
/// size query on one whose result it holds (`MPI_COMM_WORLD`, `rank`
/// after `MPI_Comm_rank(MPI_COMM_WORLD, &rank)`).
void noteQuery(SharedValue &V, const Expr *Arg, const FunctionDecl &Caller,
               TranslationUnitFacts &TU) {
  CommKey Comm = commKey(Arg, TU.context());
  if (!Comm.Handle.empty()) {
    V.Comm = Comm.Handle;
    return;
  }
  // Variables only: a field's writes in other units are not this
  // summary's to know.
  if (!Arg->getType()->isIntegerType() || !isa_and_nonnull<VarDecl>(Comm.Decl))
    return;
  std::optional<QueryValue> Query = queryValueOf(Comm.Decl, Caller, TU);
  if (!Query || Query->Comm.Handle.empty())
    return;
  V.Query = Query->Query == CommQuery::Rank ? "rank" : "size";
  V.Comm = Query->Comm.Handle;
}

} // namespace

CallRecord calledWith(const CallSite &Site, SourcePlace Where,
                      TranslationUnitFacts &TU, RankUniformity &Uniformity) {
  CallRecord R;
  R.Where = std::move(Where);
  const FunctionDecl *Caller = Site.Caller;
  if (Caller) {
    R.Caller = functionKey(*Caller);
    R.CallerIsMain = Caller->isMain();
  }
  auto Unjudged = [](std::string Why) {
    SharedValue V;
    V.Reason = std::move(Why);
    return V;
  };
  if (!Caller) {
    R.Control = Unjudged("the call is outside a function");
    return R;
  }
  R.Control = judgedShared(Uniformity, [&] {
    return Uniformity.controlDivergence(Site.Call, *Caller);
  });
  // An operator's operands do not line up with its parameters (a member
  // operator's object is its first operand): none is followed.
  bool Operator = isa<CXXOperatorCallExpr>(Site.Call);
  for (const Expr *Arg : Site.Call->arguments()) {
    if (Operator) {
      R.Arguments.push_back(
          Unjudged("an operator's operands are not followed across units"));
      continue;
    }
    // A container passed by reference: its size is what a callee can read
    // of it on every rank (`n = v.size()`).
    if (isStdVector(Arg->getType()) && Arg->isGLValue()) {
      SharedValue Size = judgedShared(Uniformity, [&] {
        return Uniformity.namedContainerSize(Arg, *Caller, 0);
      });
      Size.Size = true;
      R.Arguments.push_back(std::move(Size));
      continue;
    }
    SharedValue V = judgedShared(
        Uniformity, [&] { return Uniformity.divergence(Arg, *Caller); });
    if (V.Uniform && !Arg->isValueDependent())
      if (std::optional<llvm::APSInt> C =
              Arg->getIntegerConstantExpr(TU.context()))
        if (C->getSignificantBits() <= 64)
          V.Constant = C->getExtValue();
    noteQuery(V, Arg, *Caller, TU);
    R.Arguments.push_back(std::move(V));
  }
  return R;
}

std::vector<OutValue> outValues(const FunctionDecl &F,
                                RankUniformity &Uniformity) {
  std::vector<OutValue> Out;
  for (unsigned I = 0; I < F.getNumParams(); ++I) {
    const ParmVarDecl *P = F.getParamDecl(I);
    QualType Type = P->getType();
    if (!Type->isPointerType() && !Type->isLValueReferenceType())
      continue;
    QualType Object = Type->getPointeeType();
    if (Object.isConstQualified() || !Object->isScalarType())
      continue;
    Out.push_back({I, judgedShared(Uniformity, [&] {
                     return Uniformity.outParameterDivergence(P, F);
                   })});
  }
  return Out;
}

FieldValue writtenValue(const MemberExpr &Use, SourcePlace Where,
                        TranslationUnitFacts &TU, RankUniformity &Uniformity) {
  FieldValue V = judgedValue(Use, std::move(Where), TU, Uniformity);
  if (const FunctionDecl *F = TU.functionOf(&Use))
    V.Function = functionKey(*F);
  return V;
}

} // namespace analysis
} // namespace mpilift
