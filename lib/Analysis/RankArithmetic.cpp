//===- RankArithmetic.cpp - Evaluate rank expressions ---------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "RankArithmetic.h"

#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace mpilift {
namespace analysis {

const Expr *RankArithmetic::singleDefinition(const VarDecl *V) const {
  if (!V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return nullptr;
  ArrayRef<Write> Writes = Facts.writesOf(V);
  if (Writes.size() != 1 || Writes[0].Kind != WriteKind::Init)
    return nullptr;
  return Writes[0].Value;
}

std::optional<int64_t>
RankArithmetic::evaluate(const Expr *E, const RankEnvironment &Env) const {
  return evaluate(E, Env, 0);
}

std::optional<int64_t> RankArithmetic::evaluate(const Expr *E,
                                                const RankEnvironment &Env,
                                                unsigned Depth) const {
  if (!E || Depth > 16)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  if (const auto *Lit = dyn_cast<IntegerLiteral>(E))
    return Lit->getValue().getSExtValue();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Enum = dyn_cast<EnumConstantDecl>(Ref->getDecl()))
      return Enum->getInitVal().getSExtValue();
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      return std::nullopt;
    auto It = Env.find(V);
    if (It != Env.end())
      return It->second;
    if (const Expr *Def = singleDefinition(V))
      return evaluate(Def, Env, Depth + 1);
    return std::nullopt;
  }
  if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
    std::optional<int64_t> X = evaluate(Op->getSubExpr(), Env, Depth + 1);
    if (!X)
      return std::nullopt;
    switch (Op->getOpcode()) {
    case UO_Minus:
      return -*X;
    case UO_Plus:
      return *X;
    case UO_LNot:
      return int64_t(!*X);
    default:
      return std::nullopt;
    }
  }
  const auto *Op = dyn_cast<BinaryOperator>(E);
  if (!Op)
    return std::nullopt;
  std::optional<int64_t> L = evaluate(Op->getLHS(), Env, Depth + 1);
  std::optional<int64_t> R = evaluate(Op->getRHS(), Env, Depth + 1);
  if (!L || !R)
    return std::nullopt;
  switch (Op->getOpcode()) {
  case BO_Add:
    return *L + *R;
  case BO_Sub:
    return *L - *R;
  case BO_Mul:
    return *L * *R;
  case BO_Div:
    if (*R == 0)
      return std::nullopt;
    return *L / *R; // C truncates toward zero, as C++ does.
  case BO_Rem:
    if (*R == 0)
      return std::nullopt;
    return *L % *R; // Negative for a negative left side, as in C.
  case BO_LT:
    return int64_t(*L < *R);
  case BO_LE:
    return int64_t(*L <= *R);
  case BO_GT:
    return int64_t(*L > *R);
  case BO_GE:
    return int64_t(*L >= *R);
  case BO_EQ:
    return int64_t(*L == *R);
  case BO_NE:
    return int64_t(*L != *R);
  default:
    return std::nullopt;
  }
}

void RankArithmetic::freeVariables(
    const Expr *E, SmallVectorImpl<const VarDecl *> &Known,
    SmallVectorImpl<const VarDecl *> &Out) const {
  if (!E)
    return;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts())) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V || llvm::is_contained(Known, V))
      return;
    if (const Expr *Def = singleDefinition(V)) {
      Known.push_back(V); // Followed once.
      freeVariables(Def, Known, Out);
      return;
    }
    if (!llvm::is_contained(Out, V))
      Out.push_back(V);
    return;
  }
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      freeVariables(CE, Known, Out);
}

int64_t RankArithmetic::largestLiteral(const Expr *E, unsigned Depth) const {
  if (!E || Depth > 16)
    return 0;
  E = E->IgnoreParenImpCasts();
  if (const auto *Lit = dyn_cast<IntegerLiteral>(E))
    return std::abs(Lit->getValue().getSExtValue());
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      if (const Expr *Def = singleDefinition(V))
        return largestLiteral(Def, Depth + 1);
  int64_t Max = 0;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child))
      Max = std::max(Max, largestLiteral(CE, Depth + 1));
  return Max;
}

} // namespace analysis
} // namespace mpilift
