//===- FunctionFacts.cpp - Def-use facts the safety checks need -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "FunctionFacts.h"
#include "ReachingWrites.h"
#include "SplitRanks.h"

#include "mpilift/Analysis/LibraryHeaders.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The nearest parent of \p E that is not a paren or an implicit cast, and
/// the child of it that leads to \p E.
std::pair<const Stmt *, const Expr *> meaningfulParent(ASTContext &Context,
                                                       const Expr *E) {
  const Expr *Child = E;
  while (true) {
    DynTypedNodeList Parents = Context.getParents(*Child);
    if (Parents.empty())
      return {nullptr, Child};
    const auto *P = Parents[0].get<Stmt>();
    if (!P)
      return {nullptr, Child};
    const auto *PE = dyn_cast<Expr>(P);
    if (PE &&
        (isa<ParenExpr>(PE) ||
         (isa<ImplicitCastExpr>(PE) &&
          cast<ImplicitCastExpr>(PE)->getCastKind() != CK_LValueToRValue &&
          cast<ImplicitCastExpr>(PE)->getCastKind() !=
              CK_ArrayToPointerDecay))) {
      Child = PE;
      continue;
    }
    return {P, Child};
  }
}

/// The call \p E is an argument of, if it is one (through parens and casts).
const CallExpr *callTakingArgument(ASTContext &Context, const Expr *E) {
  auto [Parent, Child] = meaningfulParent(Context, E);
  const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
  if (Call && Call->getCallee()->IgnoreParenImpCasts() != Child)
    return Call;
  if (const auto *Cast = dyn_cast_or_null<ExplicitCastExpr>(Parent))
    return callTakingArgument(Context, Cast);
  return nullptr;
}

class FactsCollector : public RecursiveASTVisitor<FactsCollector> {
public:
  FactsCollector(ASTContext &Context,
                 llvm::DenseMap<const VarDecl *, SmallVector<Write, 2>> &Writes,
                 llvm::DenseMap<const VarDecl *,
                                SmallVector<const DeclRefExpr *, 4>> &Refs)
      : Context(Context), Writes(Writes), Refs(Refs) {}

  bool VisitVarDecl(VarDecl *V) {
    if (V->hasInit())
      Writes[V].push_back({WriteKind::Init, V->getInit(), V->getInit()});
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
    if (!V)
      return true;
    Refs[V].push_back(Ref);
    classify(V, Ref);
    return true;
  }

private:
  void classify(const VarDecl *V, const DeclRefExpr *Ref) {
    auto [Parent, Child] = meaningfulParent(Context, Ref);
    if (!Parent) {
      // The initializer of a declaration: an lvalue there binds a reference.
      DynTypedNodeList Parents = Context.getParents(*Child);
      if (!Parents.empty() && Parents[0].get<VarDecl>() && Ref->isLValue())
        Writes[V].push_back({WriteKind::Escape, Ref});
      return;
    }
    if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent)) {
      if (Cast->getCastKind() == CK_LValueToRValue)
        return; // A read.
      // An array decays to a pointer: indexing it uses an element; any
      // other use hands out its address.
      DynTypedNodeList Up = Context.getParents(*Cast);
      const auto *Sub = Up.empty() ? nullptr : Up[0].get<ArraySubscriptExpr>();
      if (Sub && Sub->getBase()->IgnoreParens() == Cast) {
        elementUse(V, Sub);
        return;
      }
      addressUse(V, Cast);
      return;
    }
    if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
      if (Op->getLHS()->IgnoreParens() == Child ||
          Op->getLHS()->IgnoreParenImpCasts() == Child) {
        if (Op->getOpcode() == BO_Assign)
          Writes[V].push_back({WriteKind::Assign, Op, Op->getRHS()});
        else if (Op->isCompoundAssignmentOp())
          Writes[V].push_back({WriteKind::Compound, Op, Op->getRHS()});
        else if (!Op->isCommaOp())
          Writes[V].push_back({WriteKind::Escape, Op});
      }
      return;
    }
    if (const auto *Op = dyn_cast<UnaryOperator>(Parent)) {
      if (Op->isIncrementDecrementOp())
        Writes[V].push_back({WriteKind::IncDec, Op});
      else if (Op->getOpcode() == UO_AddrOf)
        addressUse(V, Op);
      return;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(Parent)) {
      // A field of a struct object: a part of V is used. Member calls
      // (C++) may keep its address.
      DynTypedNodeList Up = Context.getParents(*Member);
      bool Called = !Up.empty() && Up[0].get<CXXMemberCallExpr>();
      if (Member->isArrow() || Called)
        Writes[V].push_back({WriteKind::Escape, Parent});
      else
        elementUse(V, Member);
      return;
    }
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Parent)) {
      elementUse(V, Sub);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(Parent))
      if (bindsToOutReference(V, Call, Child)) {
        // Like its address passed: the callee's writes are its.
        Writes[V].push_back({WriteKind::AddressPass, Ref, nullptr, Call});
        return;
      }
    if (isa<CallExpr>(Parent) || isa<CXXConstructExpr>(Parent) ||
        isa<InitListExpr>(Parent) || isa<ReturnStmt>(Parent) ||
        isa<CXXMemberCallExpr>(Parent)) {
      // Passed by reference, bound to a reference, or its members called.
      if (!V->getType()->isScalarType() || V->getType()->isReferenceType() ||
          Ref->isLValue())
        Writes[V].push_back({WriteKind::Escape, Parent});
      return;
    }
    if (const auto *Cast = dyn_cast<CastExpr>(Parent))
      if (Cast->getCastKind() == CK_ToVoid)
        return; // `(void)ierr;`: not even a read.
    if (Ref->isLValue() && !isa<DeclStmt>(Parent))
      Writes[V].push_back({WriteKind::Escape, Parent});
  }

  /// Whether \p Arg, the scalar local \p V as an argument of \p Call, binds
  /// to a parameter of reference to non-const type of a function the call
  /// names (`read_size(argc, argv, n)` with `void read_size(int, char **,
  /// int &)`).
  static bool bindsToOutReference(const VarDecl *V, const CallExpr *Call,
                                  const Expr *Arg) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || isa<CXXOperatorCallExpr>(Call) ||
        !V->getType()->isScalarType() || V->getType()->isReferenceType())
      return false;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      if (Call->getArg(I)->IgnoreParenImpCasts() != Arg->IgnoreParenImpCasts())
        continue;
      if (I >= Callee->getNumParams())
        return false;
      QualType Type = Callee->getParamDecl(I)->getType();
      return Type->isLValueReferenceType() &&
             !Type->getPointeeType().isConstQualified();
    }
    return false;
  }

  /// A part of \p V (`v[i]`, `v.f`, nested): used in place it is an
  /// element; its address taken (`&v[i]`, a decaying sub-array) it is an
  /// address use of \p V; bound to a reference it escapes.
  void elementUse(const VarDecl *V, const Expr *Element) {
    const Expr *E = Element;
    while (true) {
      auto [Parent, Child] = meaningfulParent(Context, E);
      if (!Parent) {
        DynTypedNodeList Parents = Context.getParents(*Child);
        const auto *Decl =
            Parents.empty() ? nullptr : Parents[0].get<VarDecl>();
        Writes[V].push_back({Decl && Decl->getType()->isReferenceType()
                                 ? WriteKind::Escape
                                 : WriteKind::Element,
                             Element});
        return;
      }
      if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Parent)) {
        if (Sub->getBase()->IgnoreParenImpCasts() !=
            Child->IgnoreParenImpCasts())
          break; // E is the index: a read.
        E = Sub;
        continue;
      }
      if (const auto *Member = dyn_cast<MemberExpr>(Parent)) {
        if (Member->isArrow())
          break;
        E = Member;
        continue;
      }
      if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent)) {
        if (Cast->getCastKind() == CK_ArrayToPointerDecay) {
          // A sub-array: indexed, it is an element; otherwise its address.
          DynTypedNodeList Up = Context.getParents(*Cast);
          const auto *Sub =
              Up.empty() ? nullptr : Up[0].get<ArraySubscriptExpr>();
          if (Sub && Sub->getBase()->IgnoreParens() == Cast) {
            E = Sub;
            continue;
          }
          addressUse(V, Cast);
          return;
        }
        break;
      }
      if (const auto *Op = dyn_cast<UnaryOperator>(Parent))
        if (Op->getOpcode() == UO_AddrOf) {
          addressUse(V, Op);
          return;
        }
      if (isa<CXXMemberCallExpr>(Parent) || isa<CXXConstructExpr>(Parent)) {
        Writes[V].push_back({WriteKind::Escape, Parent});
        return;
      }
      if (isa<CallExpr>(Parent) && Child->isLValue()) {
        addressUse(V, Child); // Bound to a reference parameter.
        return;
      }
      break;
    }
    Writes[V].push_back({WriteKind::Element, Element});
  }

  void addressUse(const VarDecl *V, const Expr *Address) {
    if (const CallExpr *Call = callTakingArgument(Context, Address)) {
      Writes[V].push_back({WriteKind::AddressPass, Address, nullptr, Call});
      return;
    }
    Writes[V].push_back({WriteKind::Escape, Address});
  }

  ASTContext &Context;
  llvm::DenseMap<const VarDecl *, SmallVector<Write, 2>> &Writes;
  llvm::DenseMap<const VarDecl *, SmallVector<const DeclRefExpr *, 4>> &Refs;
};

class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  using Base = RecursiveASTVisitor<CallCollector>;
  CallCollector(
      ASTContext &Context,
      llvm::DenseMap<const FunctionDecl *, SmallVector<CallSite, 2>> &Callers,
      llvm::DenseMap<const FunctionDecl *, SourceLocation> &AddressTaken,
      llvm::DenseMap<const CXXConstructorDecl *,
                     SmallVector<const CXXConstructExpr *, 2>> &Constructions,
      llvm::DenseMap<const FieldDecl *, SmallVector<const MemberExpr *, 4>>
          &FieldUses,
      llvm::DenseMap<const VarDecl *, SmallVector<const FunctionDecl *, 2>>
          &GlobalUsers,
      llvm::DenseMap<const Decl *, RecordUses> &Records,
      llvm::DenseMap<const Expr *, const FunctionDecl *> &Enclosing,
      SmallVectorImpl<const FunctionDecl *> &Defined, bool &DefinesMain)
      : Context(Context), Callers(Callers), AddressTaken(AddressTaken),
        Constructions(Constructions), FieldUses(FieldUses),
        GlobalUsers(GlobalUsers), Records(Records), Enclosing(Enclosing),
        Defined(Defined), DefinesMain(DefinesMain) {}

  /// Implicit copy and move members touch fields too.
  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    Constructions[Construct->getConstructor()->getCanonicalDecl()].push_back(
        Construct);
    return true;
  }

  bool VisitMemberExpr(MemberExpr *Member) {
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl())) {
      FieldUses[Field].push_back(Member);
      Enclosing[Member] = Current;
    }
    return true;
  }

  bool VisitInitListExpr(InitListExpr *Init) {
    const auto *Record = Init->getType()->getAsRecordDecl();
    if (Record && Init->isSemanticForm()) {
      Records[Record->getCanonicalDecl()].InitLists.push_back(Init);
      Enclosing[Init] = Current;
    }
    return true;
  }

  /// The structure a pointer argument points into, looking through casts
  /// (`(void *)&cfg`, `(char *)p`), pointer arithmetic (`(char *)p + off`)
  /// and arrays of structures; nullptr if it points to no structure or to
  /// one the callee cannot write (constant as declared and as passed).
  static const RecordDecl *writableRecordBehind(const Expr *Arg) {
    QualType Passed = Arg->getType();
    bool PassedWritable =
        Passed->isPointerType() && !Passed->getPointeeType().isConstQualified();
    for (;;) {
      Arg = Arg->IgnoreParenCasts();
      const auto *Op = dyn_cast<BinaryOperator>(Arg);
      if (!Op || !Op->isAdditiveOp())
        break;
      Arg = Op->getLHS()->getType()->isPointerType() ? Op->getLHS()
                                                     : Op->getRHS();
    }
    QualType T = Arg->getType();
    QualType Object;
    if (T->isPointerType())
      Object = T->getPointeeType();
    else if (const ArrayType *Array = T->getAsArrayTypeUnsafe())
      Object = Array->getElementType();
    else
      return nullptr;
    const RecordDecl *Record = Object->getAsRecordDecl();
    return Record && (PassedWritable || !Object.isConstQualified()) ? Record
                                                                    : nullptr;
  }

  /// An object of a structure type whose address a call passes to code
  /// without a body here: that code may write any of its fields.
  void noteEscapes(const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (Callee && Callee->hasBody())
      return;
    const FunctionDecl *Known = Callee ? Callee->getCanonicalDecl() : nullptr;
    auto Note = [&](const RecordDecl *Record, const Expr *Where) {
      auto &Escapes = Records[Record->getCanonicalDecl()].Escapes;
      if (llvm::none_of(Escapes,
                        [&](const auto &E) { return E.second == Known; }))
        Escapes.push_back({Where, Known});
    };
    // An object the unknown code returns was built by it.
    QualType Returned = Call->getCallReturnType(Context);
    if (Returned->isPointerType() || Returned->isReferenceType())
      if (const RecordDecl *Record =
              Returned->getPointeeType()->getAsRecordDecl())
        Note(Record, Call);
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const Expr *Arg = Call->getArg(I)->IgnoreParenImpCasts();
      QualType T = Arg->getType();
      const RecordDecl *Record = nullptr;
      if (T->isPointerType() || T->isArrayType())
        Record = writableRecordBehind(Arg);
      else if (Callee && I < Callee->getNumParams() &&
               Callee->getParamDecl(I)->getType()->isReferenceType() &&
               !Callee->getParamDecl(I)
                    ->getType()
                    .getNonReferenceType()
                    .isConstQualified())
        Record = T->getAsRecordDecl();
      if (!Record)
        continue;
      Note(Record, Arg);
    }
  }

  /// Runs \p Traverse with \p F as the function whose body it is in.
  template <typename TraverseFn>
  bool inFunction(FunctionDecl *F, TraverseFn Traverse) {
    const FunctionDecl *Saved = Current;
    if (F->doesThisDeclarationHaveABody()) {
      Current = F;
      Defined.push_back(F);
      DefinesMain |= F->isMain();
    }
    bool Result = Traverse();
    Current = Saved;
    return Result;
  }

  // The visitor traverses each kind of function by its own method.
  bool TraverseFunctionDecl(FunctionDecl *F) {
    return inFunction(F, [&] { return Base::TraverseFunctionDecl(F); });
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXMethodDecl(F); });
  }
  bool TraverseCXXConstructorDecl(CXXConstructorDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXConstructorDecl(F); });
  }
  bool TraverseCXXDestructorDecl(CXXDestructorDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXDestructorDecl(F); });
  }
  bool TraverseCXXConversionDecl(CXXConversionDecl *F) {
    return inFunction(F, [&] { return Base::TraverseCXXConversionDecl(F); });
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      Callers[Callee->getCanonicalDecl()].push_back({Call, Current});
    noteEscapes(Call);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl())) {
      if (V->hasGlobalStorage() && !V->isStaticLocal() && Current &&
          !llvm::is_contained(GlobalUsers[V], Current))
        GlobalUsers[V].push_back(Current);
      return true;
    }
    const auto *F = dyn_cast<FunctionDecl>(Ref->getDecl());
    if (!F)
      return true;
    auto [Parent, Child] = meaningfulParent(Context, Ref);
    const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
    bool IsCallee = Call && Call->getCallee()->IgnoreParenImpCasts() == Ref;
    if (!IsCallee) {
      // `f` converted to a pointer and used as anything but the callee.
      DynTypedNodeList Parents = Context.getParents(*Ref);
      const auto *Cast =
          Parents.empty() ? nullptr : Parents[0].get<ImplicitCastExpr>();
      if (!Cast || Cast->getCastKind() != CK_FunctionToPointerDecay || !Call ||
          Call->getCallee() != Cast)
        AddressTaken.try_emplace(F->getCanonicalDecl(), Ref->getBeginLoc());
    }
    return true;
  }

private:
  ASTContext &Context;
  llvm::DenseMap<const FunctionDecl *, SmallVector<CallSite, 2>> &Callers;
  llvm::DenseMap<const FunctionDecl *, SourceLocation> &AddressTaken;
  llvm::DenseMap<const CXXConstructorDecl *,
                 SmallVector<const CXXConstructExpr *, 2>> &Constructions;
  llvm::DenseMap<const FieldDecl *, SmallVector<const MemberExpr *, 4>>
      &FieldUses;
  llvm::DenseMap<const VarDecl *, SmallVector<const FunctionDecl *, 2>>
      &GlobalUsers;
  llvm::DenseMap<const Decl *, RecordUses> &Records;
  llvm::DenseMap<const Expr *, const FunctionDecl *> &Enclosing;
  SmallVectorImpl<const FunctionDecl *> &Defined;
  bool &DefinesMain;
  const FunctionDecl *Current = nullptr;
};

} // namespace

FunctionFacts::FunctionFacts(ASTContext &Context, const FunctionDecl &F)
    : F(F) {
  FactsCollector Collector(Context, Writes, References);
  Collector.TraverseDecl(const_cast<FunctionDecl *>(&F));
  // The body's statements come in source order from the traversal.
}

ArrayRef<Write> FunctionFacts::writesOf(const VarDecl *V) const {
  auto It = Writes.find(V);
  if (It == Writes.end())
    return {};
  return It->second;
}

ArrayRef<const DeclRefExpr *>
FunctionFacts::referencesOf(const VarDecl *V) const {
  auto It = References.find(V);
  if (It == References.end())
    return {};
  return It->second;
}

namespace {

/// Sorts the uses of a pointer parameter into writes of what it points to.
class PointeeUses {
public:
  PointeeUses(ASTContext &Context, std::vector<Write> &Out)
      : Context(Context), Out(Out) {}

  /// \p Pointer, a value of the parameter (or an address of its object),
  /// used by its parent.
  void pointer(const Expr *Pointer) {
    auto [Parent, Child] = meaningfulParent(Context, Pointer);
    if (!Parent) {
      Out.push_back({WriteKind::Escape, Child}); // Copied into a variable.
      return;
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Parent)) {
      if (Cast->getCastKind() != CK_ToVoid)
        pointer(Cast);
      return;
    }
    if (const auto *Call = dyn_cast<CallExpr>(Parent)) {
      if (Call->getCallee()->IgnoreParenImpCasts() != Child)
        Out.push_back({WriteKind::AddressPass, Pointer, nullptr, Call});
      return;
    }
    if (const auto *Op = dyn_cast<UnaryOperator>(Parent)) {
      if (Op->getOpcode() == UO_Deref)
        object(Op);
      else if (Op->getOpcode() != UO_LNot)
        Out.push_back({WriteKind::Escape, Op});
      return;
    }
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Parent)) {
      if (Sub->getBase()->IgnoreParenImpCasts() != Child->IgnoreParenImpCasts())
        return; // The pointer is the index: a read.
      std::optional<llvm::APSInt> Index =
          Sub->getIdx()->getIntegerConstantExpr(Context);
      if (Index && *Index == 0)
        object(Sub);
      else if (!isLoaded(Sub))
        Out.push_back({WriteKind::Escape, Sub});
      return;
    }
    if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
      if (!Op->isComparisonOp() && !Op->isLogicalOp())
        Out.push_back({WriteKind::Escape, Op}); // Arithmetic, stored.
      return;
    }
    // Tested: `if (p)`, `while (p)`, `p ? a : b`.
    if (isa<IfStmt, WhileStmt, DoStmt, ForStmt>(Parent))
      return;
    if (const auto *Choice = dyn_cast<ConditionalOperator>(Parent))
      if (Choice->getCond()->IgnoreParenImpCasts() ==
          Child->IgnoreParenImpCasts())
        return;
    Out.push_back({WriteKind::Escape, Parent});
  }

private:
  /// \p Object, the object the parameter points to, used by its parent.
  void object(const Expr *Object) {
    auto [Parent, Child] = meaningfulParent(Context, Object);
    if (!Parent) {
      Out.push_back({WriteKind::Escape, Child}); // Bound to a reference.
      return;
    }
    if (const auto *Cast = dyn_cast<CastExpr>(Parent))
      if (Cast->getCastKind() == CK_LValueToRValue ||
          Cast->getCastKind() == CK_ToVoid)
        return; // A read.
    if (isa<UnaryExprOrTypeTraitExpr>(Parent))
      return; // sizeof *p.
    if (const auto *Op = dyn_cast<BinaryOperator>(Parent)) {
      if (Op->getLHS()->IgnoreParens() != Child)
        return; // An operand read by the operator.
      if (Op->getOpcode() == BO_Assign)
        Out.push_back({WriteKind::Assign, Op, Op->getRHS()});
      else if (Op->isCompoundAssignmentOp())
        Out.push_back({WriteKind::Compound, Op, Op->getRHS()});
      return;
    }
    if (const auto *Op = dyn_cast<UnaryOperator>(Parent)) {
      if (Op->isIncrementDecrementOp())
        Out.push_back({WriteKind::IncDec, Op});
      else if (Op->getOpcode() == UO_AddrOf)
        pointer(Op);
      return;
    }
    Out.push_back({WriteKind::Escape, Parent});
  }

  bool isLoaded(const Expr *E) {
    auto [Parent, Child] = meaningfulParent(Context, E);
    const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    return Cast && Cast->getCastKind() == CK_LValueToRValue;
  }

  ASTContext &Context;
  std::vector<Write> &Out;
};

} // namespace

std::vector<Write> pointeeWritesOf(const ParmVarDecl *P,
                                   const FunctionFacts &Facts,
                                   ASTContext &Context) {
  std::vector<Write> Out;
  PointeeUses Uses(Context, Out);
  for (const DeclRefExpr *Ref : Facts.referencesOf(P)) {
    auto [Parent, Child] = meaningfulParent(Context, Ref);
    const auto *Load = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    // Anything but a load of the pointer writes or hands out the
    // parameter itself, which FunctionFacts::writesOf holds.
    if (Load && Load->getCastKind() == CK_LValueToRValue)
      Uses.pointer(Load);
  }
  return Out;
}

TranslationUnitFacts::TranslationUnitFacts(ASTContext &Context)
    : Context(Context) {
  scopeToProgramCode(Context);
  CallCollector Collector(Context, Callers, AddressTaken, Constructions,
                          FieldUses, GlobalUsers, Records, Enclosing, Defined,
                          DefinesMain);
  Collector.TraverseAST(Context);
}

TranslationUnitFacts::~TranslationUnitFacts() = default;

std::unique_ptr<SplitProof> &
TranslationUnitFacts::splitProofSlot(const FunctionDecl &F) {
  return SplitProofs[&F];
}

const ReachingWrites &
TranslationUnitFacts::reachingWritesOf(const FunctionDecl &F) {
  std::unique_ptr<ReachingWrites> &Slot = Reaching[&F];
  if (!Slot)
    Slot = std::make_unique<ReachingWrites>(F, Context);
  return *Slot;
}

ArrayRef<const CXXConstructExpr *>
TranslationUnitFacts::constructionsOf(const CXXConstructorDecl *Ctor) const {
  auto It = Constructions.find(Ctor->getCanonicalDecl());
  if (It == Constructions.end())
    return {};
  return It->second;
}

ArrayRef<const FunctionDecl *>
TranslationUnitFacts::functionsUsing(const VarDecl *Global) const {
  auto It = GlobalUsers.find(Global);
  if (It == GlobalUsers.end())
    return {};
  return It->second;
}

ArrayRef<const MemberExpr *>
TranslationUnitFacts::usesOf(const FieldDecl *Field) const {
  auto It = FieldUses.find(Field);
  if (It == FieldUses.end())
    return {};
  return It->second;
}

const FunctionDecl *TranslationUnitFacts::functionOf(const Expr *E) const {
  return Enclosing.lookup(E);
}

ArrayRef<const InitListExpr *>
TranslationUnitFacts::initListsOf(const RecordDecl *Record) const {
  auto It = Records.find(Record->getCanonicalDecl());
  if (It == Records.end())
    return {};
  return It->second.InitLists;
}

const Expr *TranslationUnitFacts::escapeOf(const RecordDecl *Record) const {
  auto It = Records.find(Record->getCanonicalDecl());
  if (It == Records.end())
    return nullptr;
  for (const auto &[Arg, Callee] : It->second.Escapes)
    if (!Project || !Callee || !Project->defines(functionKey(*Callee)))
      return Arg;
  return nullptr;
}

std::vector<FieldValue>
TranslationUnitFacts::valuesElsewhere(const FieldDecl *Field) const {
  std::string Key = recordKey(*Field->getParent());
  if (!Project || Key.empty())
    return {};
  return Project->valuesElsewhere(
      Key + "::" + Field->getNameAsString(), mainFile(),
      [this](StringRef Path) { return readsFile(Path); });
}

const FunctionDecl *TranslationUnitFacts::functionNamed(StringRef Key) {
  if (!ByKey) {
    ByKey.emplace();
    auto Note = [&](const FunctionDecl *F) {
      std::string USR = functionKey(*F);
      if (!USR.empty())
        ByKey->try_emplace(USR, F->getCanonicalDecl());
    };
    for (const auto &[Callee, Sites] : Callers)
      Note(Callee);
    for (const FunctionDecl *F : Defined)
      Note(F);
  }
  return Key.empty() ? nullptr : ByKey->lookup(Key);
}

/// The field \p Name of the structure named \p Record defined in \p DC or
/// in a namespace, linkage block or structure within it; null when none is.
static const FieldDecl *definedField(const DeclContext &DC, StringRef Record,
                                     StringRef Name) {
  for (const Decl *D : DC.decls()) {
    if (const auto *RD = dyn_cast<RecordDecl>(D);
        RD && RD->isThisDeclarationADefinition() && recordKey(*RD) == Record)
      for (const FieldDecl *Field : RD->fields())
        if (Field->getName() == Name)
          return Field;
    if (isa<NamespaceDecl, LinkageSpecDecl, RecordDecl>(D))
      if (const FieldDecl *Field =
              definedField(*cast<DeclContext>(D), Record, Name))
        return Field;
  }
  return nullptr;
}

const FieldDecl *TranslationUnitFacts::fieldNamed(StringRef Key) const {
  const FieldDecl *Found = nullptr;
  for (const auto &[Field, Uses] : FieldUses) {
    std::string Record = recordKey(*Field->getParent());
    if (!Record.empty() && Key == Record + "::" + Field->getNameAsString())
      Found = Field;
  }
  if (Found)
    return Found;
  // A field of a structure this unit declares (in a shared header) but
  // does not use itself.
  auto [Record, Name] = Key.rsplit("::");
  if (Name.empty() || Record.empty())
    return nullptr;
  return definedField(*Context.getTranslationUnitDecl(), Record, Name);
}

std::optional<std::string>
TranslationUnitFacts::unknownWriters(const FieldDecl *Field) const {
  const RecordDecl *Record = Field->getParent();
  const SourceManager &SM = Context.getSourceManager();
  std::string Named = "'" + Field->getNameAsString() + "'";
  std::string Key = recordKey(*Record);
  if (LibraryHeaders(Context).contain(Record->getLocation()))
    return "'" + Key +
           "' is a library's structure, which code outside the project may "
           "write";
  if (!Project || Key.empty()) {
    if (!SM.isInMainFile(SM.getExpansionLoc(Record->getLocation())))
      return "'" + Key +
             "' is declared in a header, so other files may write " + Named +
             " (" + WithoutIndex + ")";
    if (!DefinesMain)
      return "this file has no main: its functions may be called with a '" +
             Key + "' whose " + Named + " other files set";
    return std::nullopt;
  }
  if (!programHasMain())
    return "no unit of the project defines main: its functions may be "
           "called with a '" +
           Key + "' whose " + Named + " code outside the project sets";
  if (std::optional<SourcePlace> Where =
          Project->escapeElsewhere(Key, mainFile()))
    return "the address of a '" + Key +
           "' goes to code outside the project at " + Where->str() +
           ", which may write " + Named;
  return std::nullopt;
}

ArrayRef<CallSite>
TranslationUnitFacts::callersOf(const FunctionDecl *F) const {
  auto It = Callers.find(F->getCanonicalDecl());
  if (It == Callers.end())
    return {};
  return It->second;
}

bool TranslationUnitFacts::mayBeCalledUnseen(const FunctionDecl *F) const {
  return unseenCallers(F).has_value();
}

std::optional<std::string>
TranslationUnitFacts::unseenCallers(const FunctionDecl *F) const {
  std::string Named = "'" + F->getNameAsString() + "'";
  if (AddressTaken.count(F->getCanonicalDecl()))
    return Named + " may be called through a pointer";
  if (!F->isExternallyVisible() || F->isMain())
    return std::nullopt;
  if (!Project)
    return Named + " has external linkage, so other files may call it (" +
           WithoutIndex + ")";
  if (!programHasMain())
    return "no unit of the project defines main: " + Named +
           " may be called from outside the project";
  std::string Key = functionKey(*F);
  if (std::optional<SourcePlace> Where = Project->callElsewhere(
          Key, mainFile(), [this](StringRef Path) { return readsFile(Path); }))
    return Named + " is also called in " + Where->str() +
           ", whose arguments and conditions this proof does not follow";
  if (std::optional<SourcePlace> Where =
          Project->addressTakenElsewhere(Key, mainFile()))
    return Named + " may be called through a pointer set in " + Where->str();
  return std::nullopt;
}

std::optional<std::string>
TranslationUnitFacts::unrecordedCallers(StringRef Key, StringRef Name) const {
  std::string Named = "'" + Name.str() + "'";
  if (Key.empty())
    return Named + " has no name that joins it across units";
  if (!Project)
    return Named + " is called in other files (" + WithoutIndex + ")";
  if (!programHasMain())
    return "no unit of the project defines main: " + Named +
           " may be called from outside the project";
  if (std::optional<SourcePlace> Where =
          Project->addressTakenElsewhere(Key, mainFile()))
    return Named + " may be called through a pointer set in " + Where->str();
  if (Project->implicitlyCalled(Key))
    return Named + " may run where no call names it (a virtual function, "
                   "a constructor or destructor, a lambda, or a function "
                   "whose address is taken)";
  return std::nullopt;
}

std::optional<std::vector<CallRecord>>
TranslationUnitFacts::callsElsewhere(StringRef Key) const {
  if (unrecordedCallers(Key, ""))
    return std::nullopt;
  return Project->callRecordsElsewhere(
      Key, mainFile(), [this](StringRef Path) { return readsFile(Path); });
}

std::optional<std::vector<CallRecord>>
TranslationUnitFacts::callsElsewhere(const FunctionDecl *F) const {
  if (AddressTaken.count(F->getCanonicalDecl()))
    return std::nullopt;
  if (!F->isExternallyVisible() || F->isMain())
    return std::vector<CallRecord>();
  return callsElsewhere(functionKey(*F));
}

std::string TranslationUnitFacts::mainFile() const {
  const SourceManager &SM = Context.getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  return Main ? Main->getFileEntry().tryGetRealPathName().str() : "";
}

bool TranslationUnitFacts::programHasMain() const {
  return DefinesMain || (Project && Project->definesMain());
}

bool TranslationUnitFacts::readsFile(StringRef Path) const {
  const SourceManager &SM = Context.getSourceManager();
  llvm::Expected<FileEntryRef> File = SM.getFileManager().getFileRef(Path);
  if (!File) {
    llvm::consumeError(File.takeError());
    return false;
  }
  return SM.translateFile(*File).isValid();
}

const FunctionFacts &TranslationUnitFacts::factsOf(const FunctionDecl &F) {
  std::unique_ptr<FunctionFacts> &Slot = Facts[&F];
  if (!Slot)
    Slot = std::make_unique<FunctionFacts>(Context, F);
  return *Slot;
}

} // namespace analysis
} // namespace mpilift
