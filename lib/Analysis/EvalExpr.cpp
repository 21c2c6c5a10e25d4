//===- EvalExpr.cpp - Expressions of the rank-space evaluator -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Expressions with C's integer semantics (the width and signedness of
/// each type, truncating division, no overflow checks), conditions, and
/// the places (object, offset) lvalues denote.
///
//===----------------------------------------------------------------------===//

#include "RankEvaluatorImpl.h"

#include "StatementTree.h"

#include "clang/AST/RecordLayout.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

std::optional<bool> RankEvaluator::Impl::decide(const Expr *Cond) {
  Value V = eval(Cond);
  if (stopped())
    return std::nullopt;
  Out.DecidingInputs |= V.Taint;
  if (V.isInt())
    return V.I != 0;
  if (V.isPointer())
    return V.Obj != eval::NullObject;
  stopWith(V, "the condition", Cond);
  return std::nullopt;
}

std::optional<int64_t>
RankEvaluator::Impl::needInt(const Value &V, const Expr *E, StringRef What) {
  if (stopped())
    return std::nullopt;
  Out.DecidingInputs |= V.Taint;
  if (V.isInt())
    return V.I;
  stopWith(V, What, E);
  return std::nullopt;
}

//===-- Expressions -------------------------------------------------------===//

Value RankEvaluator::Impl::eval(const Expr *E) {
  if (!E || stopped())
    return Value::unknown(0);
  Out.ReadInputs |= 0;
  switch (E->getStmtClass()) {
  case Stmt::IntegerLiteralClass: {
    const auto *L = cast<IntegerLiteral>(E);
    return Value::integer(L->getValue().getSExtValue(),
                          Ctx.getIntWidth(E->getType()),
                          E->getType()->isSignedIntegerType());
  }
  case Stmt::CharacterLiteralClass:
    return Value::integer(cast<CharacterLiteral>(E)->getValue(),
                          Ctx.getIntWidth(E->getType()),
                          E->getType()->isSignedIntegerType());
  case Stmt::CXXBoolLiteralExprClass:
    return Value::integer(cast<CXXBoolLiteralExpr>(E)->getValue(), 1, false);
  case Stmt::CXXNullPtrLiteralExprClass:
  case Stmt::GNUNullExprClass:
    return Value::pointer(eval::NullObject, 0);
  case Stmt::ParenExprClass:
    return eval(cast<ParenExpr>(E)->getSubExpr());
  case Stmt::ConstantExprClass:
  case Stmt::ExprWithCleanupsClass:
  case Stmt::MaterializeTemporaryExprClass:
  case Stmt::CXXBindTemporaryExprClass:
  case Stmt::CXXDefaultArgExprClass:
    break;
  case Stmt::UnaryExprOrTypeTraitExprClass: {
    const auto *T = cast<UnaryExprOrTypeTraitExpr>(E);
    if (std::optional<llvm::APSInt> V = T->getIntegerConstantExpr(Ctx))
      return Value::integer(V->getExtValue(), Ctx.getIntWidth(E->getType()),
                            false);
    return unknown("a sizeof that is not a constant", E->getBeginLoc());
  }
  case Stmt::OffsetOfExprClass:
    if (std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx))
      return Value::integer(V->getExtValue(), Ctx.getIntWidth(E->getType()),
                            false);
    return unknown("an offsetof that is not a constant", E->getBeginLoc());
  case Stmt::BinaryOperatorClass:
  case Stmt::CompoundAssignOperatorClass:
    return evalBinary(cast<BinaryOperator>(E));
  case Stmt::UnaryOperatorClass:
    return evalUnary(cast<UnaryOperator>(E));
  case Stmt::ConditionalOperatorClass: {
    const auto *C = cast<ConditionalOperator>(E);
    std::optional<bool> Taken = decide(C->getCond());
    if (!Taken)
      return Value::unknown(0);
    return eval(*Taken ? C->getTrueExpr() : C->getFalseExpr());
  }
  case Stmt::CallExprClass:
  case Stmt::CXXMemberCallExprClass:
  case Stmt::CXXOperatorCallExprClass:
    return call(cast<CallExpr>(E));
  case Stmt::CXXConstructExprClass: {
    // A temporary object.
    ObjectId Temp =
        newObject("a temporary", nullptr, true, sizeOf(E->getType()));
    return construct(cast<CXXConstructExpr>(E), Place{Temp, 0});
  }
  case Stmt::CXXThisExprClass:
    return Value::pointer(thisObject(), 0);
  case Stmt::DeclRefExprClass: {
    const ValueDecl *D = cast<DeclRefExpr>(E)->getDecl();
    if (const auto *Enum = dyn_cast<EnumConstantDecl>(D))
      return Value::integer(Enum->getInitVal().getExtValue(),
                            Ctx.getIntWidth(E->getType()),
                            E->getType()->isSignedIntegerOrEnumerationType());
    if (isa<FunctionDecl>(D))
      return Value::opaque(0x40000000u);
    break;
  }
  default:
    break;
  }
  if (isa<FullExpr>(E))
    return eval(cast<FullExpr>(E)->getSubExpr());
  if (const auto *M2 = dyn_cast<MaterializeTemporaryExpr>(E))
    return eval(M2->getSubExpr());
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return eval(B->getSubExpr());
  if (const auto *D = dyn_cast<CXXDefaultArgExpr>(E))
    return eval(D->getExpr());
  if (const auto *Cast = dyn_cast<CastExpr>(E))
    return evalCast(Cast);
  if (E->isGLValue()) {
    // An lvalue used as a value where clang put no conversion (a class
    // object): its place.
    std::optional<Place> P = place(E);
    if (!P)
      return Value::unknown(0);
    return Value::pointer(P->Obj, P->Off);
  }
  if (E->getType()->isRealFloatingType() || isa<FloatingLiteral>(E))
    return unknown("a floating-point value", E->getBeginLoc());
  if (isa<StringLiteral>(E)) {
    ObjectId S = newObject("a string literal", nullptr, false);
    return Value::pointer(S, 0);
  }
  return unknown("the expression " + spelled(E) + " is not followed",
                 E->getBeginLoc());
}

Value RankEvaluator::Impl::evalCast(const CastExpr *Cast) {
  const Expr *Sub = Cast->getSubExpr();
  QualType To = Cast->getType();
  switch (Cast->getCastKind()) {
  case CK_LValueToRValue: {
    // A constant (`constexpr int kTag = 42;`, `static const int n = 8;`):
    // its value, wherever it is declared.
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Sub->IgnoreParens()))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
          V && To->isIntegralOrEnumerationType() &&
          V->isUsableInConstantExpressions(Ctx))
        if (const APValue *Init = V->evaluateValue(); Init && Init->isInt())
          return Value::integer(Init->getInt().getExtValue(),
                                Ctx.getIntWidth(To),
                                To->isSignedIntegerOrEnumerationType());
    std::optional<Place> P = place(Sub);
    if (!P)
      return Value::unknown(0);
    return load(*P, To, Sub);
  }
  case CK_ArrayToPointerDecay: {
    std::optional<Place> P = place(Sub);
    if (!P)
      return Value::unknown(0);
    return Value::pointer(P->Obj, P->Off);
  }
  case CK_IntegralCast:
  case CK_IntegralToBoolean:
  case CK_BooleanToSignedIntegral: {
    Value V = eval(Sub);
    if (!V.isInt()) {
      if (V.isPointer() && Cast->getCastKind() == CK_IntegralToBoolean)
        return Value::integer(V.Obj != eval::NullObject, 1, false);
      return V;
    }
    if (Cast->getCastKind() == CK_IntegralToBoolean)
      V.I = V.I != 0;
    uint32_t Taint = V.Taint;
    V = Value::integer(V.I, Ctx.getIntWidth(To),
                       To->isSignedIntegerOrEnumerationType());
    V.Taint = Taint;
    return V;
  }
  case CK_PointerToBoolean: {
    Value V = eval(Sub);
    if (V.isPointer())
      return Value::integer(V.Obj != eval::NullObject, 1, false);
    return V;
  }
  case CK_NullToPointer:
    return Value::pointer(eval::NullObject, 0);
  case CK_IntegralToPointer: {
    Value V = eval(Sub);
    if (V.isInt() && V.I == 0)
      return Value::pointer(eval::NullObject, 0);
    if (V.isInt())
      return Value::opaque(0x20000000u + static_cast<uint32_t>(V.I));
    return V;
  }
  case CK_NoOp:
  case CK_BitCast:
  case CK_LValueBitCast:
  case CK_FunctionToPointerDecay:
  case CK_UncheckedDerivedToBase:
  case CK_DerivedToBase:
  case CK_AddressSpaceConversion:
  case CK_UserDefinedConversion:
  case CK_ConstructorConversion:
  case CK_ToVoid:
    return eval(Sub);
  case CK_PointerToIntegral: {
    Value V = eval(Sub);
    if (V.isPointer() && V.Obj == eval::NullObject)
      return Value::integer(V.I, Ctx.getIntWidth(To), false);
    return unknown("a pointer converted to an integer", Cast->getBeginLoc());
  }
  default: {
    eval(Sub);
    // One reason per cast and run: a loop may pass it a million times.
    auto [It, New] = UnfollowedCasts.try_emplace(Cast, 0);
    if (New)
      It->second =
          reason("a conversion to " + To.getAsString() + " is not followed",
                 Cast->getBeginLoc());
    return Value::unknown(It->second);
  }
  }
}

/// \p V as the result of an operation: not loaded from anywhere, so a
/// store of it is no copy (`next = header + mine;` with `mine` unknown is
/// not `mine`).
static Value computed(Value V) {
  V.FromObj = eval::NullObject;
  V.FromOff = 0;
  return V;
}

Value RankEvaluator::Impl::evalUnary(const UnaryOperator *Op) {
  const Expr *Sub = Op->getSubExpr();
  switch (Op->getOpcode()) {
  case UO_AddrOf: {
    std::optional<Place> P = place(Sub);
    if (!P)
      return Value::unknown(0);
    return Value::pointer(P->Obj, P->Off);
  }
  case UO_Deref: {
    std::optional<Place> P = place(Op);
    if (!P)
      return Value::unknown(0);
    return load(*P, Op->getType(), Op);
  }
  case UO_PreInc:
  case UO_PreDec:
  case UO_PostInc:
  case UO_PostDec: {
    std::optional<Place> P = place(Sub);
    if (!P)
      return Value::unknown(0);
    QualType T = Sub->getType();
    Value Old = load(*P, T, Sub);
    Value One = Value::integer(1);
    Value New =
        arithmetic(Op->isIncrementOp() ? BO_Add : BO_Sub, Old, One, T, T, Op);
    store(*P, T, New, Op);
    return Op->isPrefix() ? New : Old;
  }
  case UO_Plus:
    return eval(Sub);
  case UO_Minus:
  case UO_Not:
  case UO_LNot: {
    Value V = eval(Sub);
    if (V.isPointer() && Op->getOpcode() == UO_LNot)
      return Value::integer(V.Obj == eval::NullObject, 32, true);
    if (!V.isInt())
      return computed(V);
    int64_t R = Op->getOpcode() == UO_Minus
                    ? static_cast<int64_t>(0 - static_cast<uint64_t>(V.I))
                : Op->getOpcode() == UO_Not ? ~V.I
                                            : (V.I == 0);
    QualType T = Op->getType();
    Value Result = Value::integer(R, Ctx.getIntWidth(T),
                                  T->isSignedIntegerOrEnumerationType());
    Result.Taint = V.Taint;
    return Result;
  }
  case UO_Extension:
    return eval(Sub);
  default:
    return unknown("the operator in " + spelled(Op) + " is not followed",
                   Op->getBeginLoc());
  }
}

/// `0 + x`, `x - 0`, `1 * x`, `x | 0`, `x << 0` of an integer x of the
/// result's type whose value is not known: x as it was loaded, so that a
/// store of it is a copy of x (the first link of a chain that passes
/// `before + mine` on, where rank 0's `before` is 0, sends rank 0's own
/// value).
static const Value *unchangedOperand(const BinaryOperator *Op, const Value &L,
                                     const Value &Rhs) {
  QualType T = Op->getType();
  if (!T->isIntegerType())
    return nullptr;
  auto Identity = [&](const Value &V, bool OnTheLeft) {
    if (!V.isInt())
      return false;
    switch (Op->getOpcode()) {
    case BO_Add:
    case BO_Or:
    case BO_Xor:
      return V.I == 0;
    case BO_Mul:
      return V.I == 1;
    case BO_Sub:
    case BO_Shl:
    case BO_Shr:
      return !OnTheLeft && V.I == 0;
    default:
      return false;
    }
  };
  auto Loaded = [&](const Value &V, const Expr *E) {
    return !V.isKnown() && V.FromObj != eval::NullObject &&
           T.getCanonicalType().getUnqualifiedType() ==
               E->IgnoreParenImpCasts()
                   ->getType()
                   .getCanonicalType()
                   .getUnqualifiedType();
  };
  if (Identity(L, true) && Loaded(Rhs, Op->getRHS()))
    return &Rhs;
  if (Identity(Rhs, false) && Loaded(L, Op->getLHS()))
    return &L;
  return nullptr;
}

Value RankEvaluator::Impl::evalBinary(const BinaryOperator *Op) {
  BinaryOperatorKind K = Op->getOpcode();
  if (K == BO_Comma) {
    eval(Op->getLHS());
    return eval(Op->getRHS());
  }
  if (K == BO_LAnd || K == BO_LOr) {
    std::optional<bool> L = decide(Op->getLHS());
    if (!L)
      return Value::unknown(0);
    if (*L == (K == BO_LOr))
      return Value::integer(*L, 32, true);
    std::optional<bool> Rhs = decide(Op->getRHS());
    if (!Rhs)
      return Value::unknown(0);
    return Value::integer(*Rhs, 32, true);
  }
  if (Op->isAssignmentOp()) {
    if (combine(Op))
      return Value::unknown(0);
    std::optional<Place> P = place(Op->getLHS());
    if (!P)
      return Value::unknown(0);
    QualType T = Op->getLHS()->getType();
    Value V;
    if (K == BO_Assign) {
      V = eval(Op->getRHS());
    } else {
      const auto *Compound = cast<CompoundAssignOperator>(Op);
      Value Old = load(*P, T, Op->getLHS());
      Value Rhs = eval(Op->getRHS());
      V = arithmetic(BinaryOperator::getOpForCompoundAssignment(K), Old, Rhs,
                     Compound->getComputationResultType(),
                     Compound->getComputationLHSType(), Op);
      if (V.isInt()) {
        uint32_t Taint = V.Taint;
        V = Value::integer(V.I, Ctx.getIntWidth(T),
                           T->isSignedIntegerOrEnumerationType());
        V.Taint = Taint;
      }
    }
    if (stopped())
      return Value::unknown(0);
    store(*P, T, V, Op);
    return V;
  }
  Value L = eval(Op->getLHS());
  Value Rhs = eval(Op->getRHS());
  if (const Value *Same = unchangedOperand(Op, L, Rhs))
    return *Same;
  return arithmetic(K, L, Rhs, Op->getType(), Op->getLHS()->getType(), Op);
}

Value RankEvaluator::Impl::arithmetic(BinaryOperatorKind K, const Value &L,
                                      const Value &Rhs, QualType Result,
                                      QualType Operand, const Expr *Where) {
  uint32_t Taint = L.Taint | Rhs.Taint;
  if (!L.isKnown())
    return computed(L);
  if (!Rhs.isKnown())
    return computed(Rhs);
  auto Int = [&](int64_t V, QualType T) {
    Value R = Value::integer(V, Ctx.getIntWidth(T),
                             T->isSignedIntegerOrEnumerationType());
    R.Taint = Taint;
    return R;
  };
  // Pointer arithmetic and comparisons of pointers and handles.
  if (L.isPointer() || Rhs.isPointer() || L.K == Value::Kind::Opaque ||
      Rhs.K == Value::Kind::Opaque) {
    if (BinaryOperator::isEqualityOp(K)) {
      bool Same = L.same(Rhs);
      return Int(K == BO_EQ ? Same : !Same, Result);
    }
    if (L.isPointer() && Rhs.isInt() && (K == BO_Add || K == BO_Sub)) {
      int64_t Step = sizeOf(Operand->getPointeeType());
      Value P =
          Value::pointer(L.Obj, L.I + (K == BO_Add ? 1 : -1) * Rhs.I * Step);
      P.Taint = Taint;
      return P;
    }
    if (L.isInt() && Rhs.isPointer() && K == BO_Add) {
      QualType PT = Where->getType();
      Value P =
          Value::pointer(Rhs.Obj, Rhs.I + L.I * sizeOf(PT->getPointeeType()));
      P.Taint = Taint;
      return P;
    }
    if (L.isPointer() && Rhs.isPointer() && L.Obj == Rhs.Obj) {
      if (K == BO_Sub) {
        int64_t Step = std::max<int64_t>(sizeOf(Operand->getPointeeType()), 1);
        return Int((L.I - Rhs.I) / Step, Result);
      }
      if (BinaryOperator::isRelationalOp(K)) {
        bool V = K == BO_LT   ? L.I < Rhs.I
                 : K == BO_GT ? L.I > Rhs.I
                 : K == BO_LE ? L.I <= Rhs.I
                              : L.I >= Rhs.I;
        return Int(V, Result);
      }
    }
    return unknown("pointer arithmetic in " + spelled(Where) +
                       " is not followed",
                   Where->getBeginLoc());
  }
  if (!L.isInt() || !Rhs.isInt())
    return unknown(spelled(Where) + " computes with values that are not "
                                    "integers",
                   Where->getBeginLoc());
  bool Unsigned = Operand->isUnsignedIntegerOrEnumerationType();
  uint64_t UL = static_cast<uint64_t>(L.I), UR = static_cast<uint64_t>(Rhs.I);
  int64_t V = 0;
  switch (K) {
  case BO_Add:
    V = static_cast<int64_t>(UL + UR);
    break;
  case BO_Sub:
    V = static_cast<int64_t>(UL - UR);
    break;
  case BO_Mul:
    V = static_cast<int64_t>(UL * UR);
    break;
  case BO_Div:
  case BO_Rem:
    if (Rhs.I == 0) {
      endProgram("division by zero in " + spelled(Where), Where->getBeginLoc());
      return Value::unknown(0);
    }
    if (Unsigned) {
      uint64_t Mask = L.Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << L.Bits) - 1;
      V = static_cast<int64_t>(K == BO_Div ? (UL & Mask) / (UR & Mask)
                                           : (UL & Mask) % (UR & Mask));
    } else if (L.I == INT64_MIN && Rhs.I == -1) {
      V = K == BO_Div ? L.I : 0;
    } else {
      V = K == BO_Div ? L.I / Rhs.I : L.I % Rhs.I; // C truncates.
      if (K == BO_Rem && R.WrapRemainders && V < 0 && Rhs.I > 0)
        V += Rhs.I;
    }
    break;
  case BO_Shl:
  case BO_Shr: {
    unsigned Width = Ctx.getIntWidth(Result);
    if (Rhs.I < 0 || Rhs.I >= static_cast<int64_t>(Width)) {
      stop("a shift by " + std::to_string(Rhs.I) + " in " + spelled(Where),
           Where->getBeginLoc());
      return Value::unknown(0);
    }
    if (K == BO_Shl)
      V = static_cast<int64_t>(UL << Rhs.I);
    else if (Unsigned)
      V = static_cast<int64_t>(
          (UL & (Width >= 64 ? ~uint64_t(0) : (uint64_t(1) << Width) - 1)) >>
          Rhs.I);
    else
      V = L.I >> Rhs.I;
    break;
  }
  case BO_And:
    V = L.I & Rhs.I;
    break;
  case BO_Or:
    V = L.I | Rhs.I;
    break;
  case BO_Xor:
    V = L.I ^ Rhs.I;
    break;
  case BO_LT:
  case BO_GT:
  case BO_LE:
  case BO_GE:
  case BO_EQ:
  case BO_NE: {
    bool B;
    if (Unsigned) {
      uint64_t Mask = L.Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << L.Bits) - 1;
      UL &= Mask;
      UR &= Mask;
      B = K == BO_LT   ? UL < UR
          : K == BO_GT ? UL > UR
          : K == BO_LE ? UL <= UR
          : K == BO_GE ? UL >= UR
          : K == BO_EQ ? UL == UR
                       : UL != UR;
    } else {
      B = K == BO_LT   ? L.I < Rhs.I
          : K == BO_GT ? L.I > Rhs.I
          : K == BO_LE ? L.I <= Rhs.I
          : K == BO_GE ? L.I >= Rhs.I
          : K == BO_EQ ? L.I == Rhs.I
                       : L.I != Rhs.I;
    }
    return Int(B, Result);
  }
  default:
    return unknown("the operator of " + spelled(Where) + " is not followed",
                   Where->getBeginLoc());
  }
  return Int(V, Result);
}

std::optional<RankEvaluator::Impl::Place>
RankEvaluator::Impl::place(const Expr *E) {
  E = E->IgnoreParens();
  if (stopped())
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V) {
      stop("cannot follow " + spelled(E), E->getBeginLoc());
      return std::nullopt;
    }
    if (V->getType()->isReferenceType()) {
      // A reference: what it is bound to.
      Value Bound =
          load(Place{objectOfVar(V, E->getBeginLoc()), 0},
               Ctx.getPointerType(V->getType().getNonReferenceType()), E);
      if (!Bound.isPointer()) {
        stopWith(Bound, "the reference", E);
        return std::nullopt;
      }
      return Place{Bound.Obj, Bound.I};
    }
    return Place{objectOfVar(V, E->getBeginLoc()), 0};
  }
  if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
    if (Op->getOpcode() == UO_Deref) {
      Value P = eval(Op->getSubExpr());
      if (!P.isPointer()) {
        stopWith(P, "the pointer", Op->getSubExpr());
        return std::nullopt;
      }
      return Place{P.Obj, P.I};
    }
    if (Op->getOpcode() == UO_PreInc || Op->getOpcode() == UO_PreDec) {
      eval(Op);
      return place(Op->getSubExpr());
    }
  }
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
    Value Base = eval(Sub->getBase());
    Value Index = eval(Sub->getIdx());
    if (!Base.isPointer()) {
      stopWith(Base, "the array", Sub->getBase());
      return std::nullopt;
    }
    std::optional<int64_t> I = needInt(Index, Sub->getIdx(), "the index");
    if (!I)
      return std::nullopt;
    return Place{Base.Obj, Base.I + *I * sizeOf(Sub->getType())};
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
    if (!Field) {
      stop("cannot follow " + spelled(E), E->getBeginLoc());
      return std::nullopt;
    }
    Place Base;
    if (Member->isArrow()) {
      Value P = eval(Member->getBase());
      if (!P.isPointer()) {
        stopWith(P, "the pointer", Member->getBase());
        return std::nullopt;
      }
      Base = Place{P.Obj, P.I};
    } else {
      std::optional<Place> B = place(Member->getBase());
      if (!B)
        return std::nullopt;
      Base = *B;
    }
    const ASTRecordLayout &Layout = Ctx.getASTRecordLayout(Field->getParent());
    int64_t Off =
        Ctx.toCharUnitsFromBits(Layout.getFieldOffset(Field->getFieldIndex()))
            .getQuantity();
    return Place{Base.Obj, Base.Off + Off};
  }
  if (const auto *Cast = dyn_cast<CastExpr>(E))
    if (Cast->getCastKind() == CK_NoOp ||
        Cast->getCastKind() == CK_LValueBitCast ||
        Cast->getCastKind() == CK_UncheckedDerivedToBase ||
        Cast->getCastKind() == CK_DerivedToBase)
      return place(Cast->getSubExpr());
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E)) {
    ObjectId Obj =
        newObject("a temporary", nullptr, true, sizeOf(Temp->getType()));
    initialize(Place{Obj, 0}, Temp->getType(), Temp->getSubExpr());
    return Place{Obj, 0};
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    // A call returning a reference (operator[] of a vector).
    Value V = call(Call);
    if (V.isPointer())
      return Place{V.Obj, V.I};
    stopWith(V, "the reference", E);
    return std::nullopt;
  }
  if (const auto *Cond = dyn_cast<ConditionalOperator>(E)) {
    std::optional<bool> Taken = decide(Cond->getCond());
    if (!Taken)
      return std::nullopt;
    return place(*Taken ? Cond->getTrueExpr() : Cond->getFalseExpr());
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(E))
    if (Op->isAssignmentOp() || Op->getOpcode() == BO_Comma) {
      eval(Op);
      return place(Op->getOpcode() == BO_Comma ? Op->getRHS() : Op->getLHS());
    }
  if (isa<StringLiteral>(E))
    return Place{newObject("a string literal", nullptr, false), 0};
  if (isa<CompoundLiteralExpr>(E)) {
    ObjectId Obj =
        newObject("a compound literal", nullptr, true, sizeOf(E->getType()));
    initialize(Place{Obj, 0}, E->getType(),
               cast<CompoundLiteralExpr>(E)->getInitializer());
    return Place{Obj, 0};
  }
  stop("cannot follow where " + spelled(E) + " is", E->getBeginLoc());
  return std::nullopt;
}

} // namespace analysis
} // namespace mpilift
