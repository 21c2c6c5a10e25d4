//===- FieldWriteValues.cpp - What a unit's field writes give -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "FieldWriteValues.h"

#include "CommQueries.h"
#include "StatementTree.h"

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
  // The fields the value reads are the reading unit's to judge: it sees
  // every unit's writes of them.
  std::vector<const FieldDecl *> Reads;
  Uniformity.assumeFields(&Reads);
  std::optional<Divergence> Why =
      Uniformity.writeInFunction(Assign, Assign->getRHS(), *F);
  Uniformity.assumeFields(nullptr);
  if (Why)
    return otherValue(std::move(Where), Why->Reason);
  FieldValue V;
  V.ValueKind = FieldValue::Kind::Uniform;
  V.Where = std::move(Where);
  for (const FieldDecl *Read : Reads) {
    std::string Key = recordKey(*Read->getParent());
    if (Key.empty())
      return otherValue(std::move(V.Where),
                        "it reads '" + Read->getNameAsString() +
                            "' of a structure without a name");
    Key += "::" + Read->getNameAsString();
    if (!llvm::is_contained(V.Assumes, Key))
      V.Assumes.push_back(std::move(Key));
  }
  return V;
}

} // namespace

FieldValue writtenValue(const MemberExpr &Use, SourcePlace Where,
                        TranslationUnitFacts &TU, RankUniformity &Uniformity) {
  FieldValue V = judgedValue(Use, std::move(Where), TU, Uniformity);
  if (const FunctionDecl *F = TU.functionOf(&Use))
    V.Function = functionKey(*F);
  return V;
}

} // namespace analysis
} // namespace mpilift
