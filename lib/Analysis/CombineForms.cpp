//===- CombineForms.cpp - Statements that fold a value into another -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CombineForms.h"

#include "StatementTree.h"

#include "mpilift/Analysis/MPICalls.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;
using mpilift::commgraph::ReduceOp;

namespace mpilift {
namespace analysis {

namespace {

const Expr *bareExpr(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Full = dyn_cast<FullExpr>(E))
      E = Full->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else
      return E;
  }
}

/// A place in memory as the program spells it: a variable, an element, a
/// field, what a pointer points to.
bool isLvalueSpelling(const Expr *E) {
  E = bareExpr(E);
  if (isa<DeclRefExpr>(E) || isa<ArraySubscriptExpr>(E) || isa<MemberExpr>(E))
    return true;
  if (const auto *Op = dyn_cast<UnaryOperator>(E))
    return Op->getOpcode() == UO_Deref;
  if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(E))
    return Call->getOperator() == OO_Subscript; // std::vector's [].
  return false;
}

/// The first place \p E reads other than \p Into, for a combine of an
/// operation of its own.
const Expr *firstOtherPlace(const Expr *E, const Expr *Into,
                            const ASTContext &Context) {
  const Stmt *Found = findFirst(E, [&](const Stmt *S) {
    const auto *X = dyn_cast<Expr>(S);
    return X && isLvalueSpelling(X) && !isa<MemberExpr>(bareExpr(X)) &&
           X->getType()->isScalarType() && !X->getType()->isPointerType() &&
           !sameExpression(X, Into, Context);
  });
  if (!Found) // A field: `acc = acc * 31 + p->v`.
    Found = findFirst(E, [&](const Stmt *S) {
      const auto *X = dyn_cast<Expr>(S);
      return X && isLvalueSpelling(X) && X->getType()->isScalarType() &&
             !X->getType()->isPointerType() &&
             !sameExpression(X, Into, Context);
    });
  return Found ? cast<Expr>(Found) : nullptr;
}

bool mentionsPlace(const Expr *E, const Expr *Into, const ASTContext &Context) {
  return findFirst(E, [&](const Stmt *S) {
    const auto *X = dyn_cast<Expr>(S);
    return X && sameExpression(X, Into, Context);
  });
}

std::optional<ReduceOp> binaryOp(BinaryOperatorKind K) {
  switch (K) {
  case BO_Add:
  case BO_AddAssign:
    return ReduceOp::Sum;
  case BO_Mul:
  case BO_MulAssign:
    return ReduceOp::Prod;
  case BO_And:
  case BO_AndAssign:
    return ReduceOp::BAnd;
  case BO_Or:
  case BO_OrAssign:
    return ReduceOp::BOr;
  case BO_Xor:
  case BO_XorAssign:
    return ReduceOp::BXor;
  case BO_LAnd:
    return ReduceOp::LAnd;
  case BO_LOr:
    return ReduceOp::LOr;
  default:
    return std::nullopt;
  }
}

/// `a > b ? a : b` and its mirror images: Max or Min of a and b.
std::optional<ReduceOp> selection(const Expr *Cond, const Expr *Then,
                                  const Expr *Else, const Expr *&A,
                                  const Expr *&B, const ASTContext &Context) {
  const auto *Cmp = dyn_cast<BinaryOperator>(bareExpr(Cond));
  if (!Cmp || !Cmp->isRelationalOp())
    return std::nullopt;
  const Expr *L = Cmp->getLHS(), *R = Cmp->getRHS();
  bool Greater = Cmp->getOpcode() == BO_GT || Cmp->getOpcode() == BO_GE;
  // `L > R ? L : R` is the maximum; `L > R ? R : L` the minimum.
  if (sameExpression(Then, L, Context) && sameExpression(Else, R, Context)) {
    A = L;
    B = R;
    return Greater ? ReduceOp::Max : ReduceOp::Min;
  }
  if (sameExpression(Then, R, Context) && sameExpression(Else, L, Context)) {
    A = L;
    B = R;
    return Greater ? ReduceOp::Min : ReduceOp::Max;
  }
  return std::nullopt;
}

/// The other operand of a two-operand \p Value when one is \p Into.
const Expr *otherOperand(const Expr *First, const Expr *Second,
                         const Expr *Into, const ASTContext &Context) {
  if (sameExpression(First, Into, Context) && isLvalueSpelling(Second))
    return Second;
  if (sameExpression(Second, Into, Context) && isLvalueSpelling(First))
    return First;
  return nullptr;
}

/// `fmax(a, b)`, `std::min(a, b)`, `fmaxf`, `fminl`, ...
std::optional<ReduceOp> extremumCall(const CallExpr *Call) {
  const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
  if (!F || Call->getNumArgs() != 2 || !F->getIdentifier())
    return std::nullopt;
  StringRef Name = F->getName();
  bool Std = F->isInStdNamespace();
  if (Name == "fmax" || Name == "fmaxf" || Name == "fmaxl" ||
      (Std && Name == "max"))
    return ReduceOp::Max;
  if (Name == "fmin" || Name == "fminf" || Name == "fminl" ||
      (Std && Name == "min"))
    return ReduceOp::Min;
  return std::nullopt;
}

/// `Into = A op B` for two places A and B: the combine of both into a
/// third place.
std::optional<CombineForm> combinedInto(const Expr *Into, const Expr *Value,
                                        const ASTContext &Context) {
  CombineForm Form;
  Form.Into = Into;
  const Expr *A = nullptr, *B = nullptr;
  if (const auto *Op = dyn_cast<BinaryOperator>(Value)) {
    // `y = (a += b)` changes a too: no combine into y alone.
    if (Op->isAssignmentOp())
      return std::nullopt;
    A = Op->getLHS();
    B = Op->getRHS();
    std::optional<ReduceOp> K = binaryOp(Op->getOpcode());
    if (!K && !Op->isAdditiveOp() && !Op->isMultiplicativeOp() &&
        !Op->isShiftOp())
      return std::nullopt;
    // `end = before - records`: an operation of its own.
    Form.Op = K.value_or(ReduceOp::Other);
  } else if (const auto *Cond = dyn_cast<ConditionalOperator>(Value)) {
    std::optional<ReduceOp> K = selection(Cond->getCond(), Cond->getTrueExpr(),
                                          Cond->getFalseExpr(), A, B, Context);
    if (!K)
      return std::nullopt;
    Form.Op = *K;
  } else if (const auto *Call = dyn_cast<CallExpr>(Value)) {
    std::optional<ReduceOp> K = extremumCall(Call);
    if (!K)
      return std::nullopt;
    A = Call->getArg(0);
    B = Call->getArg(1);
    Form.Op = *K;
  }
  if (!A || !B || !isLvalueSpelling(A) || !isLvalueSpelling(B))
    return std::nullopt;
  Form.Base = A;
  Form.From = B;
  return Form;
}

/// `Into = Value`: the combine Value makes of Into, if it reads Into, or
/// of two other places.
std::optional<CombineForm> assignedCombine(const Expr *Into, const Expr *Value,
                                           const ASTContext &Context) {
  Value = bareExpr(Value);
  if (!mentionsPlace(Value, Into, Context))
    return combinedInto(Into, Value, Context);
  CombineForm Form;
  Form.Into = Into;
  if (const auto *Op = dyn_cast<BinaryOperator>(Value))
    if (std::optional<ReduceOp> K = binaryOp(Op->getOpcode()))
      if (const Expr *From =
              otherOperand(Op->getLHS(), Op->getRHS(), Into, Context)) {
        Form.From = From;
        Form.Op = *K;
        return Form;
      }
  if (const auto *Cond = dyn_cast<ConditionalOperator>(Value)) {
    const Expr *A = nullptr, *B = nullptr;
    if (std::optional<ReduceOp> K =
            selection(Cond->getCond(), Cond->getTrueExpr(),
                      Cond->getFalseExpr(), A, B, Context))
      if (const Expr *From = otherOperand(A, B, Into, Context)) {
        Form.From = From;
        Form.Op = *K;
        return Form;
      }
  }
  if (const auto *Call = dyn_cast<CallExpr>(Value))
    if (std::optional<ReduceOp> K = extremumCall(Call))
      if (const Expr *From =
              otherOperand(Call->getArg(0), Call->getArg(1), Into, Context)) {
        Form.From = From;
        Form.Op = *K;
        return Form;
      }
  Form.From = firstOtherPlace(Value, Into, Context);
  if (!Form.From)
    return std::nullopt; // `acc = acc * 2`: nothing else is read.
  Form.Op = ReduceOp::Other;
  return Form;
}

/// `if (x > acc) acc = x;`: the maximum (or minimum) of acc and x.
std::optional<CombineForm> guardedCombine(const IfStmt *If,
                                          const ASTContext &Context) {
  if (If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const Stmt *Then = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Then)) {
    if (Block->size() != 1)
      return std::nullopt;
    Then = Block->body_front();
  }
  const auto *Assign = dyn_cast<BinaryOperator>(Then);
  if (const auto *E = dyn_cast<Expr>(Then))
    Assign = dyn_cast<BinaryOperator>(bareExpr(E));
  if (!Assign || Assign->getOpcode() != BO_Assign)
    return std::nullopt;
  const Expr *Into = Assign->getLHS(), *Value = Assign->getRHS();
  const auto *Cmp = dyn_cast<BinaryOperator>(bareExpr(If->getCond()));
  if (!Cmp || !Cmp->isRelationalOp() || !isLvalueSpelling(Value))
    return std::nullopt;
  bool Greater = Cmp->getOpcode() == BO_GT || Cmp->getOpcode() == BO_GE;
  CombineForm Form;
  Form.Into = Into;
  Form.From = Value;
  // `x > acc`: acc takes x when x is larger, the maximum.
  if (sameExpression(Cmp->getLHS(), Value, Context) &&
      sameExpression(Cmp->getRHS(), Into, Context))
    Form.Op = Greater ? ReduceOp::Max : ReduceOp::Min;
  else if (sameExpression(Cmp->getLHS(), Into, Context) &&
           sameExpression(Cmp->getRHS(), Value, Context))
    Form.Op = Greater ? ReduceOp::Min : ReduceOp::Max;
  else
    return std::nullopt;
  return Form;
}

/// `x.f` or `p->f`, as the bare member expression.
const MemberExpr *memberOf(const Expr *E) {
  return dyn_cast<MemberExpr>(bareExpr(E));
}

/// Whether \p A and \p B are fields of the same object.
bool sameObject(const MemberExpr *A, const MemberExpr *B,
                const ASTContext &Context) {
  return A->isArrow() == B->isArrow() &&
         sameExpression(A->getBase(), B->getBase(), Context);
}

/// Whether \p Whole is the object \p M is a field of: `x` for `x.f`, `*p`
/// for `p->f`.
bool isObjectOf(const MemberExpr *M, const Expr *Whole,
                const ASTContext &Context) {
  Whole = bareExpr(Whole);
  if (!M->isArrow())
    return sameExpression(M->getBase(), Whole, Context);
  const auto *Deref = dyn_cast<UnaryOperator>(Whole);
  return Deref && Deref->getOpcode() == UO_Deref &&
         sameExpression(M->getBase(), Deref->getSubExpr(), Context);
}

/// Whether the statements \p Body make the object of \p Into a copy of the
/// object of \p From: `acc = in;`, or `acc.v = in.v; acc.i = in.i;`
/// for both fields of the structure.
bool copiesPair(ArrayRef<const Stmt *> Body, const MemberExpr *Into,
                const MemberExpr *From, const ASTContext &Context) {
  if (Body.size() == 1)
    if (auto Whole = structAssignment(Body.front()))
      return isObjectOf(Into, Whole->first, Context) &&
             isObjectOf(From, Whole->second, Context);
  const auto *Record = cast<FieldDecl>(Into->getMemberDecl())->getParent();
  llvm::SmallPtrSet<const FieldDecl *, 2> Copied;
  for (const Stmt *S : Body) {
    const auto *Assign = dyn_cast<BinaryOperator>(S);
    if (const auto *E = dyn_cast<Expr>(S))
      Assign = dyn_cast<BinaryOperator>(bareExpr(E));
    if (!Assign || Assign->getOpcode() != BO_Assign)
      return false;
    const MemberExpr *L = memberOf(Assign->getLHS());
    const MemberExpr *R = memberOf(Assign->getRHS());
    if (!L || !R || L->getMemberDecl() != R->getMemberDecl() ||
        !sameObject(L, Into, Context) || !sameObject(R, From, Context))
      return false;
    Copied.insert(cast<FieldDecl>(L->getMemberDecl()));
  }
  return Copied.size() == 2 &&
         static_cast<size_t>(
             std::distance(Record->field_begin(), Record->field_end())) == 2;
}

/// The statements of \p Then: itself, or those of its block.
SmallVector<const Stmt *, 2> statementsOf(const Stmt *Then) {
  SmallVector<const Stmt *, 2> Out;
  if (const auto *Block = dyn_cast<CompoundStmt>(Then))
    Out.append(Block->body_begin(), Block->body_end());
  else
    Out.push_back(Then);
  return Out;
}

/// `in.i < acc.i` (or `acc.i > in.i`) after `in.v == acc.v`: the tie goes
/// to the smaller index (LowerIndex), or the larger (nothing).
std::optional<PairTies> tieBreak(const BinaryOperator *Equal,
                                 const BinaryOperator *Indices,
                                 const MemberExpr *Into, const MemberExpr *From,
                                 const ASTContext &Context) {
  if (!Equal || !Indices || Equal->getOpcode() != BO_EQ ||
      !Indices->isRelationalOp())
    return std::nullopt;
  const MemberExpr *EL = memberOf(Equal->getLHS());
  const MemberExpr *ER = memberOf(Equal->getRHS());
  if (!EL || !ER || EL->getMemberDecl() != Into->getMemberDecl() ||
      ER->getMemberDecl() != Into->getMemberDecl() ||
      !((sameObject(EL, Into, Context) && sameObject(ER, From, Context)) ||
        (sameObject(EL, From, Context) && sameObject(ER, Into, Context))))
    return std::nullopt;
  const MemberExpr *IL = memberOf(Indices->getLHS());
  const MemberExpr *IR = memberOf(Indices->getRHS());
  if (!IL || !IR || IL->getMemberDecl() != IR->getMemberDecl() ||
      IL->getMemberDecl() == Into->getMemberDecl())
    return std::nullopt;
  bool Less = Indices->getOpcode() == BO_LT || Indices->getOpcode() == BO_LE;
  bool FromFirst =
      sameObject(IL, From, Context) && sameObject(IR, Into, Context);
  if (!FromFirst &&
      !(sameObject(IL, Into, Context) && sameObject(IR, From, Context)))
    return std::nullopt;
  // The other pair is taken when its index is the smaller one.
  return Less == FromFirst ? PairTies::LowerIndex : PairTies::None;
}

/// `if (in.v < acc.v) acc = in;` and the spellings CombineForms.h lists:
/// a combine of (value, index) pairs, MPI_MINLOC or MPI_MAXLOC when the
/// structure is the layout of one of MPI's pair datatypes (an operation
/// of its own otherwise).
std::optional<CombineForm> pairCombine(const IfStmt *If,
                                       const ASTContext &Context) {
  if (If->getElse() || If->getInit() || If->getConditionVariable())
    return std::nullopt;
  const Expr *Cond = bareExpr(If->getCond());
  const BinaryOperator *Values = dyn_cast<BinaryOperator>(Cond);
  const BinaryOperator *Equal = nullptr, *Indices = nullptr;
  if (Values && Values->getOpcode() == BO_LOr) {
    const auto *And = dyn_cast<BinaryOperator>(bareExpr(Values->getRHS()));
    if (!And || And->getOpcode() != BO_LAnd)
      return std::nullopt;
    Equal = dyn_cast<BinaryOperator>(bareExpr(And->getLHS()));
    Indices = dyn_cast<BinaryOperator>(bareExpr(And->getRHS()));
    Values = dyn_cast<BinaryOperator>(bareExpr(Values->getLHS()));
  }
  if (!Values || !Values->isRelationalOp())
    return std::nullopt;
  const MemberExpr *L = memberOf(Values->getLHS());
  const MemberExpr *R = memberOf(Values->getRHS());
  if (!L || !R || L->getMemberDecl() != R->getMemberDecl() ||
      sameObject(L, R, Context))
    return std::nullopt;
  SmallVector<const Stmt *, 2> Body = statementsOf(If->getThen());
  // Which side the body copies from.
  const MemberExpr *Into = R, *From = L;
  if (!copiesPair(Body, Into, From, Context)) {
    std::swap(Into, From);
    if (!copiesPair(Body, Into, From, Context))
      return std::nullopt;
  }
  bool Strict = Values->getOpcode() == BO_LT || Values->getOpcode() == BO_GT;
  bool Less = Values->getOpcode() == BO_LT || Values->getOpcode() == BO_LE;
  // `in.v < acc.v`: acc takes in's pair when its value is smaller.
  bool Minimum = Less == (From == L);
  CombineForm Form;
  Form.Into = Into;
  Form.From = From;
  Form.Ties = Strict ? PairTies::KeepOwn : PairTies::TakeOther;
  if (Equal || Indices) {
    std::optional<PairTies> Ties =
        Strict ? tieBreak(Equal, Indices, Into, From, Context) : std::nullopt;
    if (!Ties)
      return std::nullopt;
    Form.Ties = *Ties;
  }
  const auto *Field = cast<FieldDecl>(Into->getMemberDecl());
  const RecordDecl *Record = Field->getParent();
  Form.PairType = Context.getRecordType(Record);
  const PairDatatype *Pair = pairDatatypeOf(Field->getType(), Context);
  bool Layout = Pair && Field->getFieldIndex() == 0 &&
                isPairRecord(*Record, *Pair, Context);
  // A tie kept by the larger index, or a layout of MPI's pairs in another
  // order: an operation of its own.
  if (Layout && Form.Ties != PairTies::None)
    Form.Op = Minimum ? ReduceOp::MinLoc : ReduceOp::MaxLoc;
  else
    Form.Ties = PairTies::None;
  return Form;
}

/// \p Form with its places as the lvalues they are (no conversions).
std::optional<CombineForm> asPlaces(std::optional<CombineForm> Form) {
  if (Form) {
    if (Form->Into)
      Form->Into = Form->Into->IgnoreParenImpCasts();
    Form->From = Form->From->IgnoreParenImpCasts();
    if (Form->Base)
      Form->Base = Form->Base->IgnoreParenImpCasts();
  }
  return Form;
}

std::optional<CombineForm> spelledCombine(const Stmt *S,
                                          const ASTContext &Context) {
  if (!S)
    return std::nullopt;
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (std::optional<CombineForm> Form = guardedCombine(If, Context))
      return Form;
    return pairCombine(If, Context);
  }
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return std::nullopt;
  E = bareExpr(E);
  if (const auto *Compound = dyn_cast<CompoundAssignOperator>(E)) {
    CombineForm Form;
    Form.Into = Compound->getLHS();
    const Expr *Rhs = Compound->getRHS();
    std::optional<ReduceOp> K = binaryOp(Compound->getOpcode());
    if (K && isLvalueSpelling(Rhs)) {
      Form.From = Rhs;
      Form.Op = *K;
      return Form;
    }
    // `acc -= x`, `acc += 2 * x`: an operation of its own.
    Form.From =
        isLvalueSpelling(Rhs) ? Rhs : firstOtherPlace(Rhs, Form.Into, Context);
    if (!Form.From)
      return std::nullopt;
    Form.Op = ReduceOp::Other;
    return Form;
  }
  if (const auto *Assign = dyn_cast<BinaryOperator>(E))
    if (Assign->getOpcode() == BO_Assign)
      return assignedCombine(Assign->getLHS(), Assign->getRHS(), Context);
  return std::nullopt;
}

} // namespace

std::optional<CombineForm> combineForm(const Stmt *S,
                                       const ASTContext &Context) {
  return asPlaces(spelledCombine(S, Context));
}

std::optional<CombineForm> declaredCombine(const VarDecl &V,
                                           const ASTContext &Context) {
  const Expr *Init = V.getInit();
  if (!Init || V.getType()->isReferenceType() || !V.getType()->isScalarType())
    return std::nullopt;
  std::optional<CombineForm> Form =
      asPlaces(combinedInto(nullptr, bareExpr(Init), Context));
  if (Form)
    Form->Declared = &V;
  return Form;
}

std::optional<std::pair<const Expr *, const Expr *>>
structAssignment(const Stmt *S) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return std::nullopt;
  E = bareExpr(E);
  if (const auto *Assign = dyn_cast<BinaryOperator>(E))
    if (Assign->getOpcode() == BO_Assign && Assign->getType()->isRecordType())
      return std::make_pair(Assign->getLHS(), Assign->getRHS());
  if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(E)) {
    const auto *Method =
        dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee());
    if (Call->getOperator() == OO_Equal && Call->getNumArgs() == 2 && Method &&
        Method->isTrivial())
      return std::make_pair(Call->getArg(0), Call->getArg(1));
  }
  return std::nullopt;
}

QualType combinedType(const CombineForm &Form) {
  if (!Form.PairType.isNull())
    return Form.PairType;
  return Form.Declared ? Form.Declared->getType() : Form.Into->getType();
}

bool exactInAnyOrder(ReduceOp Op, QualType Type) {
  switch (Op) {
  case ReduceOp::Sum:
  case ReduceOp::Prod:
    return !Type->isRealFloatingType() && !Type->isAnyComplexType();
  case ReduceOp::Other:
    return false;
  default:
    return true;
  }
}

} // namespace analysis
} // namespace mpilift
