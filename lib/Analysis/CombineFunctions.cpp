//===- CombineFunctions.cpp - Functions that fold arrays ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CombineFunctions.h"

#include "CombineForms.h"
#include "FunctionFacts.h"
#include "StatementTree.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The local variable \p E names, casts aside.
const VarDecl *localNamed(const Expr *E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) ? V : nullptr;
}

/// The parameter of \p F that \p E names, casts aside.
const ParmVarDecl *parameterNamed(const Expr *E, const FunctionDecl &F) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  return P && P->getDeclContext() == &F ? P : nullptr;
}

/// Whether \p E is the integer literal \p N.
bool isLiteral(const Expr *E, uint64_t N) {
  const auto *L = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
  return L && L->getValue() == N;
}

/// The counter `for (i = 0; ...)` or `for (int i = 0; ...)` starts at 0.
const VarDecl *counterFromZero(const Stmt *Init) {
  if (const auto *Decl = dyn_cast_or_null<DeclStmt>(Init)) {
    const auto *V = Decl->isSingleDecl()
                        ? dyn_cast<VarDecl>(Decl->getSingleDecl())
                        : nullptr;
    return V && V->getInit() && isLiteral(V->getInit(), 0) ? V : nullptr;
  }
  const auto *Assign = dyn_cast_or_null<BinaryOperator>(Init);
  if (!Assign || Assign->getOpcode() != BO_Assign ||
      !isLiteral(Assign->getRHS(), 0))
    return nullptr;
  return localNamed(Assign->getLHS());
}

/// `i++`, `++i`, `i += 1` or `i = i + 1` of \p Counter.
bool stepsByOne(const Expr *Inc, const VarDecl *Counter) {
  if (!Inc)
    return false;
  Inc = Inc->IgnoreParens();
  if (const auto *U = dyn_cast<UnaryOperator>(Inc))
    return U->isIncrementOp() && localNamed(U->getSubExpr()) == Counter;
  const auto *B = dyn_cast<BinaryOperator>(Inc);
  if (!B || localNamed(B->getLHS()) != Counter)
    return false;
  if (B->getOpcode() == BO_AddAssign)
    return isLiteral(B->getRHS(), 1);
  const auto *Sum = B->getOpcode() == BO_Assign
                        ? dyn_cast<BinaryOperator>(B->getRHS()->IgnoreParens())
                        : nullptr;
  return Sum && Sum->getOpcode() == BO_Add &&
         ((localNamed(Sum->getLHS()) == Counter &&
           isLiteral(Sum->getRHS(), 1)) ||
          (localNamed(Sum->getRHS()) == Counter &&
           isLiteral(Sum->getLHS(), 1)));
}

/// `P[i]` with P a pointer parameter of \p F and i \p Counter.
const ParmVarDecl *elementOfParameter(const Expr *E, const VarDecl *Counter,
                                      const FunctionDecl &F) {
  const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!Sub || localNamed(Sub->getIdx()) != Counter)
    return nullptr;
  const ParmVarDecl *P = parameterNamed(Sub->getBase(), F);
  return P && P->getType()->isPointerType() ? P : nullptr;
}

/// The loop of \p F's body: every other statement declares, without
/// initialising, the counter, or is a `return;` at the end.
const ForStmt *onlyLoop(const FunctionDecl &F) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F.getBody());
  if (!Body)
    return nullptr;
  const ForStmt *Loop = nullptr;
  for (const Stmt *S : Body->body()) {
    if (const auto *For = dyn_cast<ForStmt>(S)) {
      if (Loop)
        return nullptr;
      Loop = For;
      continue;
    }
    if (const auto *Ret = dyn_cast<ReturnStmt>(S)) {
      if (Ret->getRetValue() || S != Body->body_back())
        return nullptr;
      continue;
    }
    const auto *Decl = dyn_cast<DeclStmt>(S);
    if (!Decl)
      return nullptr;
    for (const clang::Decl *D : Decl->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->hasLocalStorage() || V->getInit() ||
          !V->getType()->isIntegerType())
        return nullptr;
    }
  }
  return Loop;
}

} // namespace

QualType arithmeticTypeNamed(StringRef Name, const ASTContext &Ctx) {
  for (QualType T :
       {Ctx.CharTy, Ctx.SignedCharTy, Ctx.UnsignedCharTy, Ctx.ShortTy,
        Ctx.UnsignedShortTy, Ctx.IntTy, Ctx.UnsignedIntTy, Ctx.LongTy,
        Ctx.UnsignedLongTy, Ctx.LongLongTy, Ctx.UnsignedLongLongTy, Ctx.FloatTy,
        Ctx.DoubleTy, Ctx.LongDoubleTy, Ctx.BoolTy})
    if (T.getAsString() == Name)
      return T;
  return QualType();
}

std::optional<CombineFunction> combineFunction(const FunctionDecl &F,
                                               const ASTContext &Ctx) {
  const ForStmt *Loop = onlyLoop(F);
  if (!Loop || !Loop->getCond() || Loop->getConditionVariable())
    return std::nullopt;
  const VarDecl *Counter = counterFromZero(Loop->getInit());
  if (!Counter || !Counter->getType()->isIntegerType() ||
      !stepsByOne(Loop->getInc(), Counter))
    return std::nullopt;
  const auto *Cond = dyn_cast<BinaryOperator>(Loop->getCond()->IgnoreParens());
  const ParmVarDecl *Count = Cond && Cond->getOpcode() == BO_LT &&
                                     localNamed(Cond->getLHS()) == Counter
                                 ? parameterNamed(Cond->getRHS(), F)
                                 : nullptr;
  if (!Count || !Count->getType()->isIntegerType())
    return std::nullopt;
  const Stmt *Step = soleStatement(Loop->getBody());
  std::optional<CombineForm> Form =
      Step ? combineForm(Step, Ctx) : std::nullopt;
  if (!Form || !Form->Into || !Form->From || Form->Base || Form->Declared ||
      !Form->PairType.isNull() || Form->Op == commgraph::ReduceOp::Other)
    return std::nullopt;
  const ParmVarDecl *Into = elementOfParameter(Form->Into, Counter, F);
  const ParmVarDecl *From = elementOfParameter(Form->From, Counter, F);
  if (!Into || !From || Into == From)
    return std::nullopt;
  QualType Element = Into->getType()->getPointeeType();
  QualType Read = From->getType()->getPointeeType();
  if (Element.isConstQualified() || !Element->isArithmeticType() ||
      !Ctx.hasSameUnqualifiedType(Element, Read))
    return std::nullopt;
  std::string Name =
      Element.getUnqualifiedType().getCanonicalType().getAsString();
  if (arithmeticTypeNamed(Name, Ctx).isNull())
    return std::nullopt;
  CombineFunction Out;
  Out.Count = Count->getFunctionScopeIndex();
  Out.From = From->getFunctionScopeIndex();
  Out.Into = Into->getFunctionScopeIndex();
  Out.Op = commgraph::name(Form->Op);
  Out.Element = std::move(Name);
  return Out;
}

std::optional<CombineCall> combineCallOf(const CallExpr *Call,
                                         TranslationUnitFacts &TU) {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call))
    return std::nullopt;
  const ASTContext &Ctx = TU.context();
  std::optional<CombineFunction> Summary;
  const FunctionDecl *Def = nullptr;
  if (Callee->hasBody(Def))
    Summary = combineFunction(*Def, Ctx);
  else if (TU.project())
    Summary = TU.project()->combineFunction(functionKey(*Callee));
  if (!Summary || Summary->Count >= Call->getNumArgs() ||
      Summary->From >= Call->getNumArgs() ||
      Summary->Into >= Call->getNumArgs())
    return std::nullopt;
  QualType Element = arithmeticTypeNamed(Summary->Element, Ctx);
  if (Element.isNull())
    return std::nullopt;
  return CombineCall{std::move(*Summary), Callee, Element};
}

bool isCombinedArgument(const CallExpr *Call, const Expr *Arg,
                        TranslationUnitFacts &TU) {
  std::optional<CombineCall> C = combineCallOf(Call, TU);
  if (!C)
    return false;
  const Expr *Bare = Arg->IgnoreParenImpCasts();
  return Bare == Call->getArg(C->Summary.From)->IgnoreParenImpCasts() ||
         Bare == Call->getArg(C->Summary.Into)->IgnoreParenImpCasts();
}

} // namespace analysis
} // namespace mpilift
