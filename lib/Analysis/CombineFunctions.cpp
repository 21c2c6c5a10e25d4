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

/// Local pointers that view a pointer parameter (`const int *a = (const
/// int *)(IN);`), each with the parameter.
using Views = llvm::SmallDenseMap<const VarDecl *, const ParmVarDecl *, 4>;

/// `P[i]` with P a pointer parameter of \p F, or a view of one, and i
/// \p Counter: the parameter, and the type of P's elements.
std::pair<const ParmVarDecl *, QualType>
elementOfParameter(const Expr *E, const VarDecl *Counter, const FunctionDecl &F,
                   const Views &Seen) {
  const auto *Sub = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!Sub || localNamed(Sub->getIdx()) != Counter)
    return {};
  const Expr *Base = Sub->getBase()->IgnoreParenImpCasts();
  QualType Type = Base->getType();
  if (!Type->isPointerType())
    return {};
  if (const ParmVarDecl *P = parameterNamed(Base, F))
    return {P, Type->getPointeeType()};
  auto It = Seen.find(localNamed(Base));
  if (It == Seen.end())
    return {};
  return {It->second, Type->getPointeeType()};
}

/// Whether \p Decl declares only loop counters (integers, not initialised)
/// and views of pointer parameters, which it adds to \p Seen.
bool declaresCountersOrViews(const DeclStmt *Decl, const FunctionDecl &F,
                             Views &Seen) {
  for (const clang::Decl *D : Decl->decls()) {
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V || !V->hasLocalStorage())
      return false;
    if (!V->getInit() && V->getType()->isIntegerType())
      continue;
    const ParmVarDecl *P =
        V->getInit() && V->getType()->isPointerType()
            ? parameterNamed(V->getInit()->IgnoreParenCasts(), F)
            : nullptr;
    if (!P || !P->getType()->isPointerType())
      return false;
    Seen[V] = P;
  }
  return true;
}

/// What the loop \p Loop combines, its pointers the parameters of \p F or
/// their views \p Seen.
std::optional<CombineFunction> loopCombine(const ForStmt *Loop,
                                           const FunctionDecl &F,
                                           const ASTContext &Ctx,
                                           const Views &Seen) {
  if (!Loop->getCond() || Loop->getConditionVariable())
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
  auto [Into, Element] = elementOfParameter(Form->Into, Counter, F, Seen);
  auto [From, Read] = elementOfParameter(Form->From, Counter, F, Seen);
  if (!Into || !From || Into == From || Into == Count || From == Count)
    return std::nullopt;
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

/// The combine of statements \p Body: declarations of counters and views,
/// then one loop.
std::optional<CombineFunction> armCombine(ArrayRef<const Stmt *> Body,
                                          const FunctionDecl &F,
                                          const ASTContext &Ctx, Views Seen) {
  if (Body.empty())
    return std::nullopt;
  for (const Stmt *S : Body.drop_back()) {
    const auto *Decl = dyn_cast<DeclStmt>(S);
    if (!Decl || !declaresCountersOrViews(Decl, F, Seen))
      return std::nullopt;
  }
  const auto *Loop = dyn_cast<ForStmt>(Body.back());
  return Loop ? loopCombine(Loop, F, Ctx, Seen) : std::nullopt;
}

/// The statements of \p S: a block's, or \p S alone.
ArrayRef<const Stmt *> statementsOf(const Stmt *&S) {
  if (const auto *Block = dyn_cast<CompoundStmt>(S))
    return ArrayRef<const Stmt *>(Block->body_begin(), Block->body_end());
  return ArrayRef<const Stmt *>(&S, 1);
}

/// Whether the arms \p A and \p B combine the same parameters alike.
bool sameParameters(const CombineFunction &A, const CombineFunction &B) {
  return A.Count == B.Count && A.From == B.From && A.Into == B.Into &&
         A.Op == B.Op;
}

/// `if (P == C) ARM else if (P == D) ARM ... else ARM`, P a parameter of
/// \p F and C, D integer constants, each ARM a combine of the same
/// parameters: the combine, with the element type for each value of P
/// (and for the others, when the last `else` is there).
std::optional<CombineFunction> typedCombine(const IfStmt *If,
                                            const FunctionDecl &F,
                                            const ASTContext &Ctx,
                                            const Views &Seen) {
  std::optional<CombineFunction> Out;
  const ParmVarDecl *Picker = nullptr;
  const Stmt *Rest = If;
  while (const auto *Arm = dyn_cast_or_null<IfStmt>(Rest)) {
    if (Arm->getInit() || Arm->getConditionVariable() || !Arm->getThen())
      return std::nullopt;
    const auto *Cmp = dyn_cast<BinaryOperator>(Arm->getCond()->IgnoreParens());
    if (!Cmp || Cmp->getOpcode() != BO_EQ)
      return std::nullopt;
    const Expr *Side = Cmp->getLHS(), *Value = Cmp->getRHS();
    if (!parameterNamed(Side, F))
      std::swap(Side, Value);
    const ParmVarDecl *P = parameterNamed(Side, F);
    Expr::EvalResult Constant;
    if (!P || (Picker && P != Picker) ||
        !P->getType()->isIntegralOrEnumerationType() ||
        !Value->EvaluateAsInt(Constant, Ctx))
      return std::nullopt;
    Picker = P;
    const Stmt *Then = Arm->getThen();
    std::optional<CombineFunction> C =
        armCombine(statementsOf(Then), F, Ctx, Seen);
    if (!C || (Out && !sameParameters(*Out, *C)))
      return std::nullopt;
    if (!Out) {
      Out = *C;
      Out->Element.clear();
      Out->TypeParam = P->getFunctionScopeIndex();
    }
    Out->ElementByValue.push_back(
        {Constant.Val.getInt().getExtValue(), C->Element});
    Rest = Arm->getElse();
  }
  if (Rest) {
    std::optional<CombineFunction> C =
        armCombine(statementsOf(Rest), F, Ctx, Seen);
    if (!C || !sameParameters(*Out, *C))
      return std::nullopt;
    Out->Element = C->Element;
  }
  return Out;
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
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F.getBody());
  if (!Body || Body->body_empty())
    return std::nullopt;
  ArrayRef<const Stmt *> Stmts(Body->body_begin(), Body->body_end());
  // A `return;` at the end changes nothing.
  if (const auto *Ret = dyn_cast<ReturnStmt>(Stmts.back())) {
    if (Ret->getRetValue())
      return std::nullopt;
    Stmts = Stmts.drop_back();
  }
  if (Stmts.empty())
    return std::nullopt;
  const auto *If = dyn_cast<IfStmt>(Stmts.back());
  if (!If)
    return armCombine(Stmts, F, Ctx, Views());
  // Counters declared before the arms that pick the type.
  Views Seen;
  for (const Stmt *S : Stmts.drop_back()) {
    const auto *Decl = dyn_cast<DeclStmt>(S);
    if (!Decl || !declaresCountersOrViews(Decl, F, Seen))
      return std::nullopt;
  }
  return typedCombine(If, F, Ctx, Seen);
}

std::string elementFor(const CombineFunction &C,
                       std::optional<int64_t> TypeValue) {
  if (!C.TypeParam)
    return C.Element;
  for (const auto &[Value, Element] : C.ElementByValue)
    if (TypeValue && *TypeValue == Value)
      return Element;
  return TypeValue ? C.Element : std::string();
}

std::optional<CombineCall> combineCallOf(const CallExpr *Call,
                                         TranslationUnitFacts &TU) {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call))
    return std::nullopt;
  const ASTContext &Ctx = TU.context();
  std::optional<std::optional<CombineFunction>> &Slot = TU.combineSlot(*Callee);
  if (!Slot) {
    const FunctionDecl *Def = nullptr;
    if (Callee->hasBody(Def))
      Slot = combineFunction(*Def, Ctx);
    else if (TU.project())
      Slot = TU.project()->combineFunction(functionKey(*Callee));
    else
      Slot.emplace();
  }
  std::optional<CombineFunction> Summary = *Slot;
  unsigned Args = Call->getNumArgs();
  if (!Summary || Summary->Count >= Args || Summary->From >= Args ||
      Summary->Into >= Args ||
      (Summary->TypeParam && *Summary->TypeParam >= Args))
    return std::nullopt;
  CombineCall Out{std::move(*Summary), Callee, QualType()};
  // The type a constant argument picks; else the evaluation's value does.
  std::optional<int64_t> TypeValue;
  Expr::EvalResult Constant;
  if (Out.Summary.TypeParam &&
      Call->getArg(*Out.Summary.TypeParam)->EvaluateAsInt(Constant, Ctx))
    TypeValue = Constant.Val.getInt().getExtValue();
  Out.Element = arithmeticTypeNamed(elementFor(Out.Summary, TypeValue), Ctx);
  return Out;
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
