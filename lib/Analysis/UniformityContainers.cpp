//===- UniformityContainers.cpp - Container sizes every rank has alike ----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// RankUniformity's part for the sizes of C++ containers: a `size()` read
/// is the same on every rank when every way the container may change keeps
/// its size so (a parameter's, a local's, a member's, its construction).
///
//===----------------------------------------------------------------------===//

#include "RankUniformity.h"

#include "StatementTree.h"
#include "VectorUses.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Whether \p E initializes the range variable of a range-based `for`,
/// which the loop only reads through its iterators.
bool isRangeOfLoop(const Stmt &E, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(E);
  const auto *Range = Parents.empty() ? nullptr : Parents[0].get<VarDecl>();
  if (!Range)
    return false;
  Parents = Context.getParents(*Range);
  const auto *Decl = Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
  const auto *Loop =
      Decl ? dyn_cast_or_null<CXXForRangeStmt>(parentStmt(*Decl, Context))
           : nullptr;
  return Loop && Loop->getRangeStmt() == Decl;
}

bool keepsSize(const Expr *Use, ASTContext &Context,
               const ProjectFacts *Project, std::vector<ParamKey> *Assumed,
               unsigned Depth = 0);

/// Whether parameter \p Index of \p Callee, a reference to a container,
/// leaves the container's size alone in the body the translation unit
/// has for it, or, for a function of another unit, as the project index
/// records it (a helper outside the database may do anything). Without
/// the project's facts (a unit's summary being made), a function of
/// another unit is taken to keep the size and added to \p Assumed, when
/// given, for the reading unit to judge.
bool parameterKeepsSize(const FunctionDecl *Callee, unsigned Index,
                        ASTContext &Context, const ProjectFacts *Project,
                        std::vector<ParamKey> *Assumed, unsigned Depth) {
  const FunctionDecl *Definition = nullptr;
  if (Callee && !Callee->getBody(Definition)) {
    std::string Key = functionKey(*Callee);
    if (Project)
      return !Key.empty() && Project->keepsSize(Key, Index);
    if (!Assumed || Key.empty() || !Callee->isExternallyVisible())
      return false;
    ParamKey K{std::move(Key), Index};
    if (!llvm::is_contained(*Assumed, K))
      Assumed->push_back(std::move(K));
    return true;
  }
  if (!Callee || !Definition || Depth >= 3 ||
      Index >= Definition->getNumParams())
    return false;
  const ParmVarDecl *Param = Definition->getParamDecl(Index);
  return !findFirst(Definition->getBody(), [&](const Stmt *S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    return Ref && Ref->getDecl() == Param &&
           !keepsSize(Ref, Context, Project, Assumed, Depth + 1);
  });
}

/// Whether \p Use of a standard container leaves its size alone: a call of
/// an accessor, an element access, the range of a range-based loop, or
/// passing it to a function that does one of those with it.
bool keepsSize(const Expr *Use, ASTContext &Context,
               const ProjectFacts *Project, std::vector<ParamKey> *Assumed,
               unsigned Depth) {
  const Stmt *Child = Use;
  const Stmt *Parent = parentStmt(*Use, Context);
  while (Parent && (isa<ImplicitCastExpr>(Parent) || isa<ParenExpr>(Parent))) {
    Child = Parent;
    Parent = parentStmt(*Parent, Context);
  }
  if (!Parent)
    return isRangeOfLoop(*Child, Context);
  if (const auto *Member = dyn_cast<MemberExpr>(Parent)) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Member->getMemberDecl());
    return Method && Method->getIdentifier() &&
           llvm::StringSwitch<bool>(Method->getName())
               .Cases("size", "length", "empty", "capacity", "max_size", true)
               .Cases("data", "c_str", "at", "front", "back", true)
               .Cases("begin", "end", "cbegin", "cend", "rbegin", "rend", true)
               .Default(false);
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Parent))
    return Op->getOperator() == OO_Subscript && Op->getNumArgs() > 0 &&
           Op->getArg(0)->IgnoreParenImpCasts() == Use;
  // Passed to a function that takes it by value or by const reference.
  if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    for (unsigned I = 0; Callee && I < Call->getNumArgs(); ++I)
      if (Call->getArg(I) == Child && I < Callee->getNumParams()) {
        QualType T = Callee->getParamDecl(I)->getType();
        return !T->isReferenceType() ||
               T->getPointeeType().isConstQualified() ||
               parameterKeepsSize(Callee, I, Context, Project, Assumed, Depth);
      }
  }
  return false;
}

} // namespace

bool containerParameterKeepsSize(const FunctionDecl &F, unsigned Index,
                                 ASTContext &Context) {
  return Index < F.getNumParams() &&
         F.getParamDecl(Index)->getType()->isReferenceType() &&
         isStdVector(F.getParamDecl(Index)->getType()) &&
         parameterKeepsSize(&F, Index, Context, nullptr, nullptr, 0);
}

std::optional<Divergence>
RankUniformity::containerSize(const CXXMemberCallExpr *Call,
                              const FunctionDecl &Where, unsigned Depth) {
  return namedContainerSize(Call->getImplicitObjectArgument(), Where, Depth);
}

std::optional<Divergence>
RankUniformity::namedContainerSize(const Expr *E, const FunctionDecl &Where,
                                   unsigned Depth) {
  const Expr *Object = E->IgnoreParenImpCasts();
  if (const auto *Member = dyn_cast<MemberExpr>(Object))
    if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
        return memberContainerSize(Field, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Object)) {
    if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
      return parameterContainerSize(P, Where, Depth);
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      if (V->hasLocalStorage() && !V->getType()->isReferenceType())
        return localContainerSize(V, Where, Depth);
  }
  return Divergence{"cannot follow the size of " +
                        quotedSource(Object, TU.context()),
                    E->getBeginLoc()};
}

std::optional<Divergence> RankUniformity::parameterContainerSize(
    const ParmVarDecl *P, const FunctionDecl &Where, unsigned Depth) {
  QualType T = P->getType();
  bool Constant =
      T->isReferenceType() && T->getPointeeType().isConstQualified();
  if (!T->isReferenceType() ||
      (!Constant &&
       !parameterKeepsSize(&Where, P->getFunctionScopeIndex(), TU.context(),
                           TU.project(), AssumedKeeps, 0)))
    return Divergence{"cannot follow the size of " + named(P) +
                          ", which the function may change",
                      P->getLocation()};
  if (Depth >= MaxDepth)
    return Divergence{"gave up following " + named(P) + " through callers",
                      P->getLocation()};
  // A summary leaves the callers in other units to the unit that reads
  // it, which judges the sizes their calls record.
  if (AssumedParams && Where.isExternallyVisible()) {
    AssumedParams->push_back(P);
    return std::nullopt;
  }
  ArrayRef<CallSite> Callers = TU.callersOf(&Where);
  std::optional<std::vector<CallRecord>> Elsewhere = TU.callsElsewhere(&Where);
  if (!Elsewhere || (Callers.empty() && Elsewhere->empty()))
    return Divergence{named(P) + " is a parameter of " + named(&Where) +
                          " whose callers are not all visible" +
                          unseenCallersNote(Where),
                      P->getLocation()};
  unsigned Index = P->getFunctionScopeIndex();
  bool Several = Callers.size() + Elsewhere->size() > 1;
  for (const CallRecord &R : *Elsewhere) {
    if (Index < R.Arguments.size() && !R.Arguments[Index].Size)
      return Divergence{"the call of " + named(&Where) + " in " +
                            R.Where.str() + " passes no container",
                        P->getLocation()};
    if (auto Why = recordedArgument(Where.getNameAsString(), Index, R, Several,
                                    P->getLocation(), Depth + 1))
      return Divergence{
          named(P) + " is given a container in " + R.Where.str() +
              " whose size may differ between ranks: " + Why->Reason,
          P->getLocation()};
  }
  for (const CallSite &Site : Callers) {
    if (!Site.Caller || Index >= Site.Call->getNumArgs())
      return Divergence{"a call of " + named(&Where) + " cannot be followed",
                        Site.Call->getBeginLoc()};
    std::optional<Divergence> Why = inAnotherFunction([&] {
      std::optional<Divergence> Size =
          namedContainerSize(Site.Call->getArg(Index), *Site.Caller, Depth + 1);
      // Containers of different callers may differ in size: each call must
      // then run on every rank.
      if (!Size && Several)
        return controlOf(Site.Call, *Site.Caller, Depth + 1);
      return Size;
    });
    if (Why)
      return Divergence{named(P) +
                            " is given a container here whose size "
                            "may differ between ranks: " +
                            Why->Reason,
                        Site.Call->getBeginLoc()};
  }
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::localContainerSize(const VarDecl *V, const FunctionDecl &Where,
                                   unsigned Depth) {
  ASTContext &Context = TU.context();
  for (const DeclRefExpr *Ref : TU.factsOf(Where).referencesOf(V))
    if (!keepsSize(Ref, Context, TU.project(), AssumedKeeps))
      return Divergence{named(V) + " is used here in a way that may change "
                                   "its size",
                        Ref->getBeginLoc()};
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
          V->getInit() ? V->getInit()->IgnoreImplicit() : nullptr))
    return constructionArguments(Construct, Where, Depth);
  if (V->getInit())
    return Divergence{"cannot follow the size " + named(V) + " starts with",
                      V->getInit()->getBeginLoc()};
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::memberContainerSize(const FieldDecl *Field, unsigned Depth) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Class)
    return Divergence{"cannot follow the size of " + named(Field),
                      Field->getLocation()};
  // Every member function is here to be read: another file could resize it.
  for (const CXXMethodDecl *Method : Class->methods())
    if (!Method->isImplicit() && !Method->isDefined() && !Method->isDeleted())
      return Divergence{named(Method) + " of " + named(Class) +
                            " is defined in another file; it may change "
                            "the size of " +
                            named(Field),
                        Method->getLocation()};
  for (const MemberExpr *Use : TU.usesOf(Field))
    if (!keepsSize(Use, TU.context(), TU.project(), AssumedKeeps))
      return Divergence{named(Field) + " is used here in a way that may "
                                       "change its size",
                        Use->getBeginLoc()};
  if (Field->hasInClassInitializer())
    return Divergence{"cannot follow the size " + named(Field) + " starts with",
                      Field->getInClassInitializer()->getBeginLoc()};
  for (const CXXConstructorDecl *Ctor : Class->ctors()) {
    if (!Ctor->hasBody())
      continue;
    for (const CXXCtorInitializer *Init : Ctor->inits()) {
      if (Init->getMember() != Field)
        continue;
      const auto *Construct =
          dyn_cast<CXXConstructExpr>(Init->getInit()->IgnoreImplicit());
      if (!Construct)
        return Divergence{"cannot follow the size " + named(Field) +
                              " starts with",
                          Init->getSourceLocation()};
      if (auto Why = constructionArguments(Construct, *Ctor, Depth))
        return Why;
    }
  }
  return std::nullopt;
}

std::optional<Divergence>
RankUniformity::constructionArguments(const CXXConstructExpr *Construct,
                                      const FunctionDecl &Where,
                                      unsigned Depth) {
  // `std::vector<double> v(n, rank == 0 ? x : 0.0)`: a count first gives
  // the size, whatever the value the elements start with.
  const CXXConstructorDecl *Ctor = Construct->getConstructor();
  bool CountFirst = Ctor && Ctor->getNumParams() > 0 &&
                    Ctor->getParamDecl(0)->getType()->isIntegerType();
  for (const Expr *Arg : Construct->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    if (CountFirst && Arg != Construct->getArg(0))
      break;
    // `{a, b, c}`: as many elements as the list spells.
    if (isa<CXXStdInitializerListExpr>(Arg->IgnoreImplicit()))
      continue;
    if (auto Why = valueOf(Arg, Where, Depth))
      return Divergence{"the container is constructed from a value that may "
                        "differ between ranks: " +
                            Why->Reason,
                        Construct->getBeginLoc()};
  }
  return std::nullopt;
}

} // namespace analysis
} // namespace mpilift
