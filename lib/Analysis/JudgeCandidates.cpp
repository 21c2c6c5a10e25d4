//===- JudgeCandidates.cpp - The expressions a rewrite can use ------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CombineForms.h"
#include "JudgeImpl.h"
#include "RankUniformity.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <functional>

using namespace clang;

namespace mpilift {
namespace analysis {
namespace judge {

bool usable(const Expr *E, const Region &R, const ASTContext &Ctx) {
  // Calls count apart: a container's accessors and functions that only
  // return a value without side effects are the only ones allowed.
  if (E->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false) ||
      E->isValueDependent() || E->isTypeDependent())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  return !findFirst(E, [&](const Stmt *S) {
    if (isa<CallExpr>(S) || isa<CXXThisExpr>(S))
      return isa<CallExpr>(S) && !isContainerAccessor(cast<Expr>(S)) &&
             !isPureAccessor(cast<CallExpr>(S));
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return V && R.contains(V, SM);
  });
}

namespace {

/// Whether \p V is a local declared before the region by a statement of
/// a block that holds the region (not in a `for` header or a nested
/// block, which end before the region starts).
bool declaredInBlockAround(const VarDecl &V, const Region &R, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (V.getParentFunctionOrMethod() != R.Function ||
      !SM.isBeforeInTranslationUnit(V.getLocation(), R.first()->getBeginLoc()))
    return false;
  DynTypedNodeList Parents = Ctx.getParents(V);
  const auto *Decl = Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
  const Stmt *Holder = Decl ? parentStmt(*Decl, Ctx) : nullptr;
  if (!Holder || !isa<CompoundStmt>(Holder))
    return false;
  for (const Stmt *B = R.Block; B; B = parentStmt(*B, Ctx)) {
    if (B == Holder)
      return true;
    if (B == R.Function->getBody())
      break;
  }
  return false;
}

} // namespace

std::vector<Candidate> candidatesOf(const Region &R, ASTContext &Ctx) {
  std::vector<Candidate> Out;
  llvm::SmallPtrSet<const Expr *, 32> Seen;
  llvm::SmallPtrSet<const VarDecl *, 16> SeenVars;
  auto Add = [&](const Expr *E) {
    if (!E)
      return;
    const Expr *Plain = E->IgnoreParenImpCasts();
    QualType T = Plain->getType();
    bool Int = T->isIntegralOrEnumerationType();
    bool Pointer = T->isPointerType() || T->isArrayType();
    if (!Int && !Pointer)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Plain))
      if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
        if (!SeenVars.insert(V).second)
          return;
    if (!usable(E, R, Ctx) || !writtenAsItself(E, Ctx) ||
        !Seen.insert(Plain).second)
      return;
    QualType Element =
        Pointer ? QualType(T->getPointeeOrArrayElementType(), 0) : QualType();
    bool IntArray = Pointer && Element->isSpecificBuiltinType(BuiltinType::Int);
    Out.push_back({E, Int, Pointer, IntArray});
  };
  // The address of a scalar lvalue (`&total` for an accumulator the region
  // spells as `total`): a reduction's buffer.
  llvm::SmallPtrSet<const ValueDecl *, 16> SeenAddresses;
  auto AddAddress = [&](const Expr *E, QualType Pair = QualType()) {
    if (!E || !E->isGLValue())
      return;
    const Expr *Plain = E->IgnoreParenImpCasts();
    QualType T = Plain->getType();
    bool IsPair = !Pair.isNull() && Ctx.hasSameUnqualifiedType(T, Pair);
    if ((!T->isArithmeticType() || T->isPointerType()) && !IsPair)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Plain))
      if (!SeenAddresses.insert(Ref->getDecl()).second)
        return;
    if (!usable(E, R, Ctx) || !writtenAsItself(E, Ctx) ||
        llvm::any_of(Out, [&](const Candidate &C) {
          return C.Spelling == BufferSpelling::AddressOf &&
                 sameExpression(C.E, E, Ctx);
        }))
      return;
    Candidate C{E, false, true, false};
    C.Spelling = BufferSpelling::AddressOf;
    Out.push_back(C);
  };
  // The elements of a std::vector the region names (`total.data()` for
  // an accumulator `total[b]`): a reduction's buffer.
  auto AddElements = [&](const Expr *E) {
    if (!E)
      return;
    E = E->IgnoreParenImpCasts();
    if (const auto *Subscript = dyn_cast<CXXOperatorCallExpr>(E))
      if (Subscript->getOperator() == OO_Subscript)
        E = Subscript->getArg(0)->IgnoreParenImpCasts();
    const auto *Class =
        E->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (!Class || !Class->isInStdNamespace() || !Class->getIdentifier() ||
        Class->getName() != "vector" || !E->isGLValue())
      return;
    if (!usable(E, R, Ctx) || !writtenAsItself(E, Ctx) ||
        llvm::any_of(Out, [&](const Candidate &C) {
          return C.Spelling == BufferSpelling::VectorData &&
                 sameExpression(C.E, E, Ctx);
        }))
      return;
    Candidate C{E, false, true, false};
    C.Spelling = BufferSpelling::VectorData;
    Out.push_back(C);
  };
  std::function<void(const Expr *)> AddParts = [&](const Expr *E) {
    if (!E)
      return;
    Add(E);
    for (const Stmt *Child : E->children())
      if (const auto *CE = dyn_cast_or_null<Expr>(Child)) {
        if (!isa<CallExpr>(CE))
          AddParts(CE);
        else if (isContainerAccessor(CE))
          Add(CE); // `v.data()` in `v.data() + k * n`.
      }
  };
  for (unsigned I = R.First; I <= R.Last; ++I)
    findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
      if (std::optional<CombineForm> Form = combineForm(S, Ctx)) {
        AddAddress(Form->Into);
        AddAddress(Form->From);
        // A pair's structure (`&mine` for `mine.value`), or the pointer to
        // it (`best` for `best->value`).
        if (!Form->PairType.isNull())
          for (const Expr *Field : {Form->Into, Form->From})
            if (const auto *Member = dyn_cast<MemberExpr>(Field)) {
              if (Member->isArrow())
                Add(Member->getBase());
              else
                AddAddress(Member->getBase(), Form->PairType);
            }
        AddElements(Form->Into);
        AddElements(Form->From);
      }
      if (const auto *Call = dyn_cast<CallExpr>(S)) {
        if (const mpi::FunctionInfo *Info = mpiCallee(Call))
          if (Info->TheFamily != mpi::Family::CommQuery)
            for (const Expr *Arg : Call->arguments())
              AddParts(Arg);
      } else if (const auto *If = dyn_cast<IfStmt>(S)) {
        AddParts(If->getCond());
      } else if (isLoop(S)) {
        AddParts(loopCondition(S));
      }
      return false;
    });
  // Variables in scope at the region's start (a root kept in a variable
  // the region does not name, the size for `size - 1`), named wherever the
  // function names them.
  const SourceManager &SM = Ctx.getSourceManager();
  std::set<std::string> Constants;
  findFirst(R.Function->getBody(), [&](const Stmt *S) {
    // A named constant (`TOTAL` of `#define TOTAL 24`) means the same
    // wherever it is written.
    if (const auto *E = dyn_cast<Expr>(S);
        E && E->getBeginLoc().isMacroID() && !E->isValueDependent() &&
        E->getType()->isIntegralOrEnumerationType() &&
        E->isIntegerConstantExpr(Ctx) && writtenAsItself(E, Ctx) &&
        Constants.insert(sourceText(E, Ctx)).second) {
      Add(E);
      return false;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!V || R.contains(V, SM) || SeenVars.count(V))
      return false;
    if (isa<ParmVarDecl>(V) || V->hasGlobalStorage() ||
        declaredInBlockAround(*V, R, Ctx)) {
      Add(Ref);
      AddAddress(Ref);
      AddElements(Ref);
    }
    return false;
  });
  return Out;
}

llvm::SmallVector<const eval::Value *, 4>
valuesBeforeMessages(const RankRun &Run, size_t I) {
  SmallVector<const eval::Value *, 4> Vals = {&Run.Probes[I]};
  for (const RankOp &Op : Run.Ops) {
    if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
        !Op.SelfCopy)
      break;
    if (Op.K == RankOp::Kind::Marker && I < Op.Values.size())
      Vals.push_back(&Op.Values[I]);
  }
  return Vals;
}

void Judge::noteFirstResult(size_t I, const RankRun &Run,
                            ArrayRef<const eval::Value *> Vals,
                            uint64_t Block) {
  // What rank 0 holds where the candidate points, after the region: one
  // element, the same constant wherever the candidate may point.
  std::optional<int64_t> Held;
  bool Constant = true;
  for (const eval::Value *V : Vals) {
    if (!V->isPointer() || V->Obj >= Run.Objects.size()) {
      Constant = false;
      break;
    }
    const eval::Object &O = Run.Objects[V->Obj];
    const auto *Cell = O.Cells.find(V->I);
    if (Cell == O.Cells.end() || Cell->second.Bytes != Block ||
        !Cell->second.V.isInt() || (Held && *Held != Cell->second.V.I)) {
      Constant = false;
      break;
    }
    Held = Cell->second.V.I;
  }
  if (!Held)
    Constant = false;
  if (FirstSeen[I] && FirstResult[I] != Held)
    Constant = false;
  FirstSeen[I] = true;
  FirstResult[I] = Constant ? Held : std::nullopt;
  FirstBlock = Block;
}

void Judge::filterCandidates(const Observation &O,
                             const std::vector<RankRun> &Runs) {
  int64_t P = static_cast<int64_t>(Runs.size());
  for (size_t I = 0; I < Candidates.size(); ++I) {
    for (int64_t Rank = 0; Rank < P; ++Rank) {
      const RankRun &Run = Runs[Rank];
      if (I >= Run.Probes.size()) {
        AsRoot[I] = AsCount[I] = AsBuffer[I] = AsSend[I] = AsRecv[I] = false;
        break;
      }
      // One of the values must be right (the placement then proves it
      // right where the call goes).
      SmallVector<const eval::Value *, 4> Vals = valuesBeforeMessages(Run, I);
      auto Any = [&](auto Right) {
        return llvm::any_of(Vals,
                            [&](const eval::Value *V) { return Right(*V); });
      };
      auto Is = [&](const std::optional<Where> &W) {
        return Any([&](const eval::Value &Val) {
          return W && Val.isPointer() && Val.Obj == W->Obj && Val.I == W->Off;
        });
      };
      bool Rooted = isRooted(O.Kind);
      if (AsRoot[I] && Rooted && !Any([&](const eval::Value &Val) {
            return Val.isInt() && Val.I == O.Root;
          }))
        AsRoot[I] = false;
      if (AsRank[I] && !Any([&](const eval::Value &Val) {
            return Val.isInt() && Val.I == Rank;
          }))
        AsRank[I] = false;
      if (O.Kind == ManualKind::Exscan && Rank == 0 && AsRecv[I])
        noteFirstResult(I, Run, Vals, O.Block);
      if (AsCount[I] && !Any([&](const eval::Value &Val) {
            return Val.isInt() && O.TypeSize &&
                   static_cast<uint64_t>(Val.I) * *O.TypeSize == O.Block;
          }))
        AsCount[I] = false;
      if (AsBuffer[I] && O.Buffer[Rank] && !Is(O.Buffer[Rank]))
        AsBuffer[I] = false;
      if (AsSend[I] && O.Send[Rank] && !Is(O.Send[Rank]))
        AsSend[I] = false;
      if (AsRecv[I] && O.Recv[Rank] && !Is(O.Recv[Rank]))
        AsRecv[I] = false;
    }
  }
  if (isRooted(O.Kind))
    RootValues.insert(O.Root);
  if (O.TypeSize && *O.TypeSize)
    CountValues.insert(O.Block / *O.TypeSize);
  for (bool In : O.InPlace) {
    AllInPlace &= In;
    NoneInPlace &= !In;
  }
  filterVectorCandidates(O, Runs);
}

void Judge::choose(RegionProof &Proof) {
  // Buffers spelled otherwise than as written (`&total`, `v.data()`) are
  // a reduction's; the other collectives take the expressions their calls
  // spell.
  bool Respell = isReduction(Proof.Kind);
  // A reduction's buffers: what points to the values it combines (`&c->local`
  // over `c`, which points there too).
  auto OfElements = [&](const Candidate &C) {
    if (Element.isNull() || C.Spelling == BufferSpelling::VectorData)
      return true;
    QualType T = C.E->IgnoreParenImpCasts()->getType();
    if (C.Spelling == BufferSpelling::AsWritten) {
      if (T->isPointerType())
        T = T->getPointeeType();
      else if (const ArrayType *A = Ctx.getAsArrayType(T))
        T = A->getElementType();
    }
    return Ctx.hasSameUnqualifiedType(T, Element);
  };
  // Buffers of a reduction prefer what points to its elements; a root, a
  // count or a rank is a value, whatever its type.
  auto FirstCandidate = [&](const std::vector<bool> &Alive, auto Prefer,
                            bool Buffer = true) -> const Candidate * {
    bool ByElements = Respell && Buffer;
    const Candidate *Best = nullptr;
    for (size_t I = 0; I < Candidates.size(); ++I) {
      if (!Alive[I] ||
          (!Respell && Candidates[I].Spelling != BufferSpelling::AsWritten))
        continue;
      if (!Best ||
          (ByElements && OfElements(Candidates[I]) && !OfElements(*Best)))
        Best = &Candidates[I];
      else if ((!ByElements ||
                OfElements(Candidates[I]) == OfElements(*Best)) &&
               Prefer(Candidates[I].E, Best->E))
        Best = &Candidates[I];
    }
    return Best;
  };
  auto First = [&](const std::vector<bool> &Alive, auto Prefer,
                   bool Buffer = true) -> const Expr * {
    const Candidate *Best = FirstCandidate(Alive, Prefer, Buffer);
    return Best ? Best->E : nullptr;
  };
  // Prefer what the calls spell over variables found elsewhere, and
  // simpler expressions over compound ones.
  auto Simpler = [](const Expr *A, const Expr *B) {
    bool RefA = isa<DeclRefExpr>(A->IgnoreParenImpCasts()) ||
                isa<IntegerLiteral>(A->IgnoreParenImpCasts());
    bool RefB = isa<DeclRefExpr>(B->IgnoreParenImpCasts()) ||
                isa<IntegerLiteral>(B->IgnoreParenImpCasts());
    return RefA && !RefB;
  };
  // A count or root the calls spell as one (`n`, the `0` a send goes to)
  // over an expression that has its value only by chance where the call
  // goes (a loop counter after its loop, a scratch variable still 0).
  auto SpelledFirst = [&](std::initializer_list<mpi::Role> Roles) {
    llvm::SmallVector<const Expr *, 8> Spelled;
    for (unsigned I = R.First; I <= R.Last; ++I)
      findFirst(R.Block->body_begin()[I], [&](const Stmt *S) {
        if (const auto *Call = dyn_cast<CallExpr>(S))
          for (mpi::Role Role : Roles)
            if (const Expr *Arg = mpiArgAsWritten(Call, Role))
              Spelled.push_back(Arg);
        return false;
      });
    return [this, Spelled, Simpler](const Expr *A, const Expr *B) {
      auto In = [&](const Expr *E) {
        return llvm::any_of(
            Spelled, [&](const Expr *C) { return sameExpression(C, E, Ctx); });
      };
      bool InA = In(A), InB = In(B);
      if (InA != InB)
        return InA;
      return Simpler(A, B);
    };
  };
  auto CountFirst = SpelledFirst(
      {mpi::Role::Count, mpi::Role::SendCount, mpi::Role::RecvCount});
  auto RootFirst =
      SpelledFirst({mpi::Role::Dest, mpi::Role::Source, mpi::Role::Root});
  Proof.Count = First(AsCount, CountFirst, /*Buffer=*/false);
  switch (Proof.Kind) {
  case ManualKind::Bcast:
    Proof.Root = First(AsRoot, RootFirst, /*Buffer=*/false);
    Proof.Buffer = First(AsBuffer, Simpler);
    break;
  case ManualKind::Scatter:
  case ManualKind::Gather:
    Proof.Root = First(AsRoot, RootFirst, /*Buffer=*/false);
    Proof.SendBuffer = First(AsSend, Simpler);
    Proof.RecvBuffer = First(AsRecv, Simpler);
    break;
  case ManualKind::Allgather:
  case ManualKind::Alltoall:
    Proof.SendBuffer = First(AsSend, Simpler);
    Proof.RecvBuffer = First(AsRecv, Simpler);
    break;
  case ManualKind::Reduce:
  case ManualKind::Allreduce:
  case ManualKind::Scan:
  case ManualKind::Exscan: {
    if (Proof.Kind == ManualKind::Reduce)
      Proof.Root = First(AsRoot, RootFirst, /*Buffer=*/false);
    const Candidate *Send = FirstCandidate(AsSend, Simpler);
    const Candidate *Recv = FirstCandidate(AsRecv, Simpler);
    Proof.SendBuffer = Send ? Send->E : nullptr;
    Proof.RecvBuffer = Recv ? Recv->E : nullptr;
    if (Proof.Kind == ManualKind::Exscan) {
      Proof.Rank = First(AsRank, Simpler, /*Buffer=*/false);
      if (Recv)
        Proof.FirstResult = FirstResult[Recv - Candidates.data()];
    }
    if (Send)
      Proof.SendSpelling = Send->Spelling;
    if (Recv)
      Proof.RecvSpelling = Recv->Spelling;
    break;
  }
  }
}

} // namespace judge
} // namespace analysis
} // namespace mpilift
