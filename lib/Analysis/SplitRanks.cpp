//===- SplitRanks.cpp - Rank and size fields set beside a split -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "SplitRanks.h"

#include "RankEvaluator.h"
#include "RankUniformity.h"
#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The object a field use is part of: a pointer or reference variable
/// (`g->mycol`, `g.mycol`), or `this`.
struct ObjectKey {
  const ValueDecl *Var = nullptr;
  bool This = false;
  bool valid() const { return Var || This; }
  bool operator==(const ObjectKey &O) const {
    return Var == O.Var && This == O.This;
  }
};

ObjectKey objectOf(const MemberExpr &Use) {
  const Expr *Base = Use.getBase()->IgnoreParenImpCasts();
  ObjectKey Key;
  if (isa<CXXThisExpr>(Base))
    Key.This = true;
  else if (const auto *Ref = dyn_cast<DeclRefExpr>(Base))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl());
        V && (V->getType()->isPointerType() || V->getType()->isReferenceType()))
      Key.Var = V;
  return Key;
}

/// The communicator field an `MPI_Comm_split` call \p S writes
/// (`&g->row`); null when \p S is no such call.
const MemberExpr *splitInto(const Stmt *S) {
  const auto *Call = dyn_cast<CallExpr>(S);
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  if (!Info || Info->Id != mpi::FunctionId::Comm_split)
    return nullptr;
  const auto *Addr =
      dyn_cast_or_null<UnaryOperator>(mpiArg(Call, mpi::Role::NewComm));
  if (!Addr || Addr->getOpcode() != UO_AddrOf)
    return nullptr;
  return dyn_cast<MemberExpr>(Addr->getSubExpr()->IgnoreParens());
}

/// Whether \p F splits a communicator into a field of \p Object.
bool splitsInto(const FunctionDecl &F, ObjectKey Object) {
  return Object.valid() && findFirst(F.getBody(), [&](const Stmt *S) {
           const MemberExpr *NewComm = splitInto(S);
           return NewComm && objectOf(*NewComm) == Object;
         });
}

/// Whether \p S runs more than once per call of \p F: it is inside a loop.
bool insideLoop(const Stmt &S, const FunctionDecl &F, ASTContext &Context) {
  for (const Stmt *Up = parentStmt(S, Context); Up && Up != F.getBody();
       Up = parentStmt(*Up, Context))
    if (isLoop(Up))
      return true;
  return false;
}

/// Whether nothing \p Up runs before its child \p Child changes state and
/// \p Child runs whenever \p Up does: it is not the second operand of
/// `&&`, `||` or `,`, nor a branch of `?:`, and its siblings have no side
/// effects.
bool runsFirstUnder(const Stmt &Child, const Stmt &Up, ASTContext &Context) {
  if (const auto *Op = dyn_cast<BinaryOperator>(&Up))
    if ((Op->isLogicalOp() || Op->isCommaOp()) && Op->getRHS() == &Child)
      return false;
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(&Up))
    if (Cond->getCond() != &Child)
      return false;
  if (const auto *Decls = dyn_cast<DeclStmt>(&Up)) {
    for (const Decl *D : Decls->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        if (Var->getInit() && Var->getInit() != &Child &&
            Var->getInit()->HasSideEffects(Context))
          return false;
    return true;
  }
  for (const Stmt *Sibling : Up.children())
    if (const auto *E = dyn_cast_or_null<Expr>(Sibling))
      if (Sibling != &Child && E->HasSideEffects(Context))
        return false;
  return true;
}

/// The statement that holds \p E where the evaluator passes an anchor
/// before running it: a statement of a block or a branch, or the `if` or
/// `switch` whose condition it is (`if (MPI_Comm_split(...) != 0)`). Null
/// when the anchor would not see the state \p E runs in: something in the
/// statement changes state first, or may skip \p E.
const Stmt *statementOf(const Stmt &E, ASTContext &Context) {
  const Stmt *Child = &E;
  for (const Stmt *Up = enclosingStmt(E, Context); Up;
       Child = Up, Up = enclosingStmt(*Up, Context)) {
    if (const auto *If = dyn_cast<IfStmt>(Up)) {
      if (If->getCond() != Child)
        return Child;
      return If->getInit() || If->getConditionVariable() ? nullptr : Up;
    }
    if (const auto *Switch = dyn_cast<SwitchStmt>(Up)) {
      if (Switch->getCond() != Child)
        return Child;
      return Switch->getInit() || Switch->getConditionVariable() ? nullptr : Up;
    }
    if (isa<CompoundStmt>(Up) || isLoop(Up) || isa<SwitchCase>(Up) ||
        isa<LabelStmt>(Up))
      return Child;
    if (!runsFirstUnder(*Child, *Up, Context))
      return nullptr;
  }
  return Child;
}

/// \p Value as a value of \p D's type: an enumerator's name, or the number.
std::string valueText(const ValueDecl &D, int64_t Value) {
  if (const auto *Enum = D.getType()->getAs<EnumType>())
    for (const EnumConstantDecl *E : Enum->getDecl()->enumerators())
      if (E->getInitVal().getExtValue() == Value)
        return E->getNameAsString();
  return std::to_string(Value);
}

/// The sizes of the parent communicator the proof simulates: every one up
/// to SplitProofMaxSize with every small value of each input, and a few
/// larger ones with the values that matter for a shape.
llvm::ArrayRef<int64_t> splitProofSizes() {
  static const std::vector<int64_t> Sizes = [] {
    std::vector<int64_t> S;
    for (int64_t N = 1; N <= 16; ++N)
      S.push_back(N);
    for (int64_t N : {24, 32, 64})
      S.push_back(N);
    return S;
  }();
  return Sizes;
}

/// One MPI_Comm_split into a field.
struct Split {
  const CallExpr *Call = nullptr;
  const MemberExpr *NewComm = nullptr;
  /// The split whose communicator it splits again (index into the list),
  /// or -1: the communicator the function's rank and size are of.
  int Parent = -1;
};

/// One field write beside the splits.
struct FieldWrite {
  const MemberExpr *Use = nullptr;
  const BinaryOperator *Assign = nullptr;
};

/// What one setting's runs show: per split, each process's colour and key
/// (nothing where it did not pass); per field write, each process's value.
struct SettingRuns {
  int64_t Size = 0;
  std::vector<std::vector<std::optional<std::pair<int64_t, int64_t>>>> Splits;
  std::vector<std::vector<std::optional<int64_t>>> Writes;
  /// Why each process's value of a split or write is missing, by process.
  std::vector<std::string> Stops;
};

class Prover {
public:
  Prover(const FunctionDecl &F, TranslationUnitFacts &TU)
      : F(F), TU(TU), Context(TU.context()) {}

  SplitProof run();

private:
  bool collect(SplitProof &Out);
  bool checkMPICalls(const Stmt *Body, unsigned Depth, std::string &Why);
  void evaluate(SplitProof &Out);
  std::vector<int64_t> valuesOf(const RegionInput &In, int64_t Size) const;
  /// Each process's rank in, and the size of, the communicator of split
  /// \p I (nothing for non-members); false with \p Why when a member's
  /// colour or key is missing.
  bool simulate(const SettingRuns &S, size_t I,
                std::vector<std::optional<std::pair<int64_t, int64_t>>> &Out,
                std::string &Why);
  std::string settingText(const SettingRuns &S,
                          llvm::ArrayRef<int64_t> Setting) const;

  const FunctionDecl &F;
  TranslationUnitFacts &TU;
  ASTContext &Context;
  CommKey Root;
  std::vector<Split> Splits;
  std::vector<FieldWrite> Writes;
  std::vector<const ParmVarDecl *> Params;
  std::vector<RegionInput> InputList;
};

bool Prover::checkMPICalls(const Stmt *Body, unsigned Depth, std::string &Why) {
  bool Ok = true;
  findFirst(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || !Ok)
      return !Ok;
    if (const mpi::FunctionInfo *Info = mpiCallee(Call)) {
      if (Info->TheFamily == mpi::Family::CommQuery) {
        const Expr *Comm = mpiArgAsWritten(Call, mpi::Role::Comm);
        if (Depth > 0 || !Comm || followedCommKey(Comm, F, TU) != Root) {
          Why = "it also queries a rank or size on another communicator";
          Ok = false;
        }
      } else if (Info->Id != mpi::FunctionId::Comm_split &&
                 Info->Id != mpi::FunctionId::Abort) {
        Why = "it also calls '" + std::string(Info->Name) + "'";
        Ok = false;
      }
      return !Ok;
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    if (Callee && Callee->hasBody(Def) && Def != &F) {
      if (Depth >= 3) {
        Why = "it calls functions nested too deep to follow";
        Ok = false;
      } else if (!checkMPICalls(Def->getBody(), Depth + 1, Why)) {
        Ok = false;
      }
    }
    return !Ok;
  });
  return Ok;
}

bool Prover::collect(SplitProof &Out) {
  auto Refuse = [&](std::string Why) {
    Out.Refused.push_back({nullptr, std::move(Why)});
    return false;
  };
  const Stmt *Body = F.getBody();
  findFirst(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
    if (!Info || Info->Id != mpi::FunctionId::Comm_split)
      return false;
    Split Sp;
    Sp.Call = Call;
    Sp.NewComm = splitInto(Call);
    Splits.push_back(Sp);
    return false;
  });
  if (Splits.empty())
    return false;
  Out.Splits = true;
  // A jump back may run a write or a split twice.
  if (findFirst(Body, [](const Stmt *S) {
        return isa<LabelStmt>(S) || isa<IndirectGotoStmt>(S);
      }))
    return Refuse("it has labels a jump may go back to");
  ObjectKey Object;
  for (size_t I = 0; I < Splits.size(); ++I) {
    Split &Sp = Splits[I];
    if (!Sp.NewComm || !isa<FieldDecl>(Sp.NewComm->getMemberDecl()) ||
        !objectOf(*Sp.NewComm).valid())
      return Refuse("a split's new communicator is not a field of a "
                    "structure the function is given");
    if (I == 0)
      Object = objectOf(*Sp.NewComm);
    else if (!(objectOf(*Sp.NewComm) == Object))
      return Refuse("its splits write fields of different objects");
    if (insideLoop(*Sp.Call, F, Context))
      return Refuse("a split is inside a loop");
    for (mpi::Role Arg : {mpi::Role::Color, mpi::Role::Key})
      if (const Expr *E = mpiArgAsWritten(Sp.Call, Arg);
          !E || E->HasSideEffects(Context))
        return Refuse("a split's colour or key changes state");
    for (size_t J = 0; J < I; ++J)
      if (Splits[J].NewComm->getMemberDecl() == Sp.NewComm->getMemberDecl())
        return Refuse("it splits into '" +
                      Sp.NewComm->getMemberDecl()->getNameAsString() +
                      "' twice");
    // The communicator split: one split before, or the function's own.
    const Expr *ParentE = mpiArgAsWritten(Sp.Call, mpi::Role::Comm);
    CommKey Parent = ParentE ? followedCommKey(ParentE, F, TU) : CommKey();
    for (size_t J = 0; J < I; ++J)
      if (Parent.Decl && Parent.Decl == Splits[J].NewComm->getMemberDecl())
        Sp.Parent = static_cast<int>(J);
    if (Sp.Parent >= 0)
      continue;
    if (!Parent.valid())
      return Refuse("a split's communicator cannot be followed");
    if (Root.valid() && Parent != Root)
      return Refuse("it splits two communicators");
    Root = Parent;
  }
  if (const auto *V = dyn_cast_or_null<VarDecl>(Object.Var))
    for (const Write &W : TU.factsOf(F).writesOf(V))
      if (W.Kind != WriteKind::Element)
        return Refuse("'" + V->getNameAsString() + "' is changed in it");
  std::string Why;
  if (!checkMPICalls(Body, 0, Why))
    return Refuse(Why);
  // The fields the function writes once in the same object.
  std::map<const FieldDecl *, unsigned> Count;
  findFirst(Body, [&](const Stmt *S) {
    const auto *Use = dyn_cast<MemberExpr>(S);
    const auto *Field =
        Use ? dyn_cast<FieldDecl>(Use->getMemberDecl()) : nullptr;
    if (!Field || !(objectOf(*Use) == Object) || isOnlyLoaded(*Use, Context))
      return false;
    ++Count[Field];
    const Stmt *Child = nullptr;
    const auto *Assign = dyn_cast_or_null<BinaryOperator>(
        parentPastParens(*Use, Context, &Child));
    if (Assign && Assign->getOpcode() == BO_Assign &&
        Assign->getLHS() == Child &&
        Field->getType()->isIntegralOrEnumerationType() &&
        !Assign->getRHS()->HasSideEffects(Context) &&
        !insideLoop(*Assign, F, Context))
      Writes.push_back({Use, Assign});
    return false;
  });
  llvm::erase_if(Writes, [&](const FieldWrite &W) {
    const auto *Field = cast<FieldDecl>(W.Use->getMemberDecl());
    if (Count[Field] == 1)
      return false;
    Out.Refused.push_back({W.Use, "'" + Field->getNameAsString() +
                                      "' is written more than once"});
    return true;
  });
  if (Writes.empty())
    return false;
  // Integer parameters are inputs; the function must not change them.
  for (const ParmVarDecl *P : F.parameters()) {
    QualType T = P->getType();
    if (!T->isIntegralOrEnumerationType())
      continue;
    if (!TU.factsOf(F).writesOf(P).empty())
      return Refuse("it changes its parameter '" + P->getNameAsString() + "'");
    Params.push_back(P);
  }
  return true;
}

std::vector<int64_t> Prover::valuesOf(const RegionInput &In,
                                      int64_t Size) const {
  std::vector<int64_t> Values;
  QualType T = In.Decl->getType();
  if (const auto *Enum = T->getAs<EnumType>()) {
    for (const EnumConstantDecl *E : Enum->getDecl()->enumerators())
      Values.push_back(E->getInitVal().getExtValue());
    return Values;
  }
  if (Size <= SplitProofMaxSize) {
    for (int64_t X = 0; X <= Size + 1; ++X)
      Values.push_back(X);
    return Values;
  }
  // Larger sizes: the edges, and every divisor (the shapes that fit).
  for (int64_t X :
       {int64_t(0), int64_t(1), int64_t(2), Size / 2, Size - 1, Size, Size + 1})
    Values.push_back(X);
  for (int64_t X = 3; X * X <= Size; ++X)
    if (Size % X == 0) {
      Values.push_back(X);
      Values.push_back(Size / X);
    }
  llvm::sort(Values);
  Values.erase(std::unique(Values.begin(), Values.end()), Values.end());
  return Values;
}

bool Prover::simulate(
    const SettingRuns &S, size_t I,
    std::vector<std::optional<std::pair<int64_t, int64_t>>> &Out,
    std::string &Why) {
  int64_t N = S.Size;
  // The members of the parent and their ranks in it.
  std::vector<std::optional<std::pair<int64_t, int64_t>>> Parent(N);
  if (Splits[I].Parent < 0) {
    for (int64_t R = 0; R < N; ++R)
      Parent[R] = std::make_pair(R, N);
  } else if (!simulate(S, Splits[I].Parent, Parent, Why)) {
    return false;
  }
  // (colour, key, rank in the parent, process) of every member.
  std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>> Members;
  for (int64_t R = 0; R < N; ++R) {
    if (!Parent[R])
      continue;
    const auto &CK = S.Splits[I][R];
    if (!CK) {
      Why = "process " + std::to_string(R) +
            " of the communicator it splits does not reach the split at "
            "line " +
            std::to_string(Context.getSourceManager().getExpansionLineNumber(
                Splits[I].Call->getBeginLoc())) +
            (S.Stops[R].empty() ? "" : " (" + S.Stops[R] + ")");
      return false;
    }
    if (CK->first >= 0) // MPI_UNDEFINED and other negative colours: none.
      Members.emplace_back(CK->first, CK->second, Parent[R]->first, R);
  }
  llvm::sort(Members);
  Out.assign(N, std::nullopt);
  for (size_t B = 0; B < Members.size();) {
    size_t E = B;
    while (E < Members.size() &&
           std::get<0>(Members[E]) == std::get<0>(Members[B]))
      ++E;
    for (size_t K = B; K < E; ++K)
      Out[std::get<3>(Members[K])] = std::make_pair(
          static_cast<int64_t>(K - B), static_cast<int64_t>(E - B));
    B = E;
  }
  return true;
}

std::string Prover::settingText(const SettingRuns &S,
                                llvm::ArrayRef<int64_t> Setting) const {
  std::string Text =
      "at " + std::to_string(S.Size) + " process" + (S.Size == 1 ? "" : "es");
  for (size_t I = 0; I < InputList.size() && I < Setting.size(); ++I)
    Text += (I == 0 ? " with " : ", ") + InputList[I].Name + " " +
            valueText(*InputList[I].Decl, Setting[I]);
  return Text;
}

void Prover::evaluate(SplitProof &Out) {
  Region R;
  R.Function = &F;
  R.Block = dyn_cast<CompoundStmt>(F.getBody());
  if (!R.Block || R.Block->size() == 0)
    return;
  R.First = 0;
  R.Last = R.Block->size() - 1;
  for (const ParmVarDecl *P : Params)
    R.Assumed.push_back(P);
  R.UnknownCallsEnd = true;
  RankEvaluator Eval(TU, R);
  std::vector<Probe> Probes;
  std::vector<const Stmt *> Anchors;
  for (const Split &Sp : Splits) {
    Probes.push_back(Probe(mpiArgAsWritten(Sp.Call, mpi::Role::Color),
                           BufferSpelling::AsWritten));
    Probes.push_back(Probe(mpiArgAsWritten(Sp.Call, mpi::Role::Key),
                           BufferSpelling::AsWritten));
    Anchors.push_back(statementOf(*Sp.Call, Context));
  }
  for (const FieldWrite &W : Writes) {
    Probes.push_back(Probe(W.Assign->getRHS(), BufferSpelling::AsWritten));
    Anchors.push_back(statementOf(*W.Assign, Context));
  }
  if (llvm::is_contained(Anchors, nullptr)) {
    Out.Refused.push_back({nullptr, "a split or a field write is not the "
                                    "first thing its statement does"});
    return;
  }
  Eval.setAnchors(Anchors, Probes);
  InputList.assign(Eval.inputs().begin(), Eval.inputs().end());

  // Which inputs the runs read at all: only those take every value.
  uint32_t Read = 0;
  for (int64_t Rank = 0; Rank < 4; ++Rank)
    Read |= Eval.run(Rank, 4, {}).ReadInputs;
  if (llvm::popcount(Read) > 3) {
    Out.Refused.push_back(
        {nullptr, "its splits depend on more than three parameters"});
    return;
  }

  // Per write, per split: whether it is still the rank, still the size.
  size_t NS = Splits.size(), NW = Writes.size();
  std::vector<std::vector<bool>> IsRank(NW, std::vector<bool>(NS, true));
  std::vector<std::vector<bool>> IsSize = IsRank;
  std::vector<std::string> Counter(NW);
  bool AnyMade = false;
  RankRun Run;
  for (int64_t N : splitProofSizes()) {
    std::vector<std::vector<int64_t>> Settings =
        inputSettings(InputList.size(), [&](unsigned Bit) {
          return (Read & (1u << Bit)) ? valuesOf(InputList[Bit], N)
                                      : std::vector<int64_t>();
        });
    for (const std::vector<int64_t> &Setting : Settings) {
      SettingRuns S;
      S.Size = N;
      S.Splits.assign(
          NS, std::vector<std::optional<std::pair<int64_t, int64_t>>>(N));
      S.Writes.assign(NW, std::vector<std::optional<int64_t>>(N));
      S.Stops.assign(N, "");
      bool Ends = false;
      for (int64_t Rank = 0; Rank < N && !Ends; ++Rank) {
        Eval.run(Rank, N, Setting, Run);
        if (Run.Stopped)
          S.Stops[Rank] = Run.Stopped->Text;
        for (const RankOp &Op : Run.Ops) {
          if (Op.K != RankOp::Kind::Marker || Op.Values.size() != Probes.size())
            continue;
          for (size_t I = 0; I < NS; ++I)
            if (Op.Site == Anchors[I] && Op.Values[2 * I].isInt() &&
                Op.Values[2 * I + 1].isInt())
              S.Splits[I][Rank] =
                  std::make_pair(Op.Values[2 * I].I, Op.Values[2 * I + 1].I);
          for (size_t J = 0; J < NW; ++J)
            if (Op.Site == Anchors[NS + J] && Op.Values[2 * NS + J].isInt())
              S.Writes[J][Rank] = Op.Values[2 * NS + J].I;
        }
        // A process that ends the program before the splits: they make
        // no communicator (after them, the others may go on).
        if (Run.Stopped && Run.Stopped->ProgramEnds)
          for (size_t I = 0; I < NS && !Ends; ++I)
            Ends = !llvm::any_of(Run.Ops, [&](const RankOp &Op) {
              return Op.K == RankOp::Kind::Marker && Op.Site == Anchors[I];
            });
        if (Ends && Run.Stopped->AssumedEnd &&
            !llvm::is_contained(Out.AssumedEnding, Run.Stopped->AssumedEnd))
          Out.AssumedEnding.push_back(Run.Stopped->AssumedEnd);
      }
      if (Ends)
        continue; // No communicator is made.
      for (size_t I = 0; I < NS; ++I) {
        std::vector<std::optional<std::pair<int64_t, int64_t>>> New;
        std::string Why;
        if (!simulate(S, I, New, Why)) {
          for (size_t J = 0; J < NW; ++J)
            if (IsRank[J][I] || IsSize[J][I]) {
              IsRank[J][I] = IsSize[J][I] = false;
              if (Counter[J].empty())
                Counter[J] = settingText(S, Setting) + ", " + Why;
            }
          continue;
        }
        for (int64_t Rank = 0; Rank < N; ++Rank) {
          if (!New[Rank])
            continue;
          AnyMade = true;
          for (size_t J = 0; J < NW; ++J) {
            std::optional<int64_t> V = S.Writes[J][Rank];
            bool Rk = V && *V == New[Rank]->first;
            bool Sz = V && *V == New[Rank]->second;
            bool Was = IsRank[J][I] || IsSize[J][I];
            bool Still = (IsRank[J][I] && Rk) || (IsSize[J][I] && Sz);
            if (Was && !Still && Counter[J].empty()) {
              std::string What =
                  !V ? "does not write it" + (S.Stops[Rank].empty()
                                                  ? ""
                                                  : " (" + S.Stops[Rank] + ")")
                     : "gives it " + std::to_string(*V) +
                           " where its rank in '" +
                           Splits[I]
                               .NewComm->getMemberDecl()
                               ->getNameAsString() +
                           "' is " + std::to_string(New[Rank]->first) + " of " +
                           std::to_string(New[Rank]->second);
              Counter[J] = settingText(S, Setting) + ", process " +
                           std::to_string(Rank) + " " + What;
            }
            IsRank[J][I] = IsRank[J][I] && Rk;
            IsSize[J][I] = IsSize[J][I] && Sz;
          }
        }
      }
    }
  }
  if (!AnyMade) {
    Out.Refused.push_back(
        {nullptr, "no setting tried makes a communicator (every one ends "
                  "the program)"});
    return;
  }
  for (size_t J = 0; J < NW; ++J) {
    bool Found = false;
    for (size_t I = 0; I < NS && !Found; ++I)
      if (IsRank[J][I] || IsSize[J][I]) {
        Out.Fields.push_back(
            {Writes[J].Use, Splits[I].NewComm,
             IsRank[J][I] ? CommQuery::Rank : CommQuery::Size});
        Found = true;
      }
    if (!Found)
      Out.Refused.push_back({Writes[J].Use, Counter[J]});
  }
  for (size_t Bit = 0; Bit < InputList.size(); ++Bit)
    if (Read & (1u << Bit))
      if (const auto *P = dyn_cast<ParmVarDecl>(InputList[Bit].Decl))
        Out.Inputs.push_back(P);
}

SplitProof Prover::run() {
  SplitProof Out;
  if (!F.hasBody() || !collect(Out))
    return Out;
  evaluate(Out);
  return Out;
}

} // namespace

const SplitProof &splitProofOf(const FunctionDecl &F,
                               TranslationUnitFacts &TU) {
  std::unique_ptr<SplitProof> &Slot = TU.splitProofSlot(F);
  if (Slot)
    return *Slot;
  // A proof asked for while it runs (through the uniformity of what it
  // reads) finds an empty one: nothing proven yet.
  Slot = std::make_unique<SplitProof>();
  SplitProof Proof = Prover(F, TU).run();
  *Slot = std::move(Proof);
  return *Slot;
}

const SplitField *splitFieldOf(const MemberExpr &Use, TranslationUnitFacts &TU,
                               const SplitProof **Proof) {
  const FunctionDecl *F = TU.functionOf(&Use);
  if (!F)
    return nullptr;
  const SplitProof &P = splitProofOf(*F, TU);
  for (const SplitField &Field : P.Fields)
    if (Field.Write == &Use) {
      if (Proof)
        *Proof = &P;
      return &Field;
    }
  return nullptr;
}

bool endsProgramInProject(StringRef Key, const TranslationUnitFacts &TU) {
  return !Key.empty() && TU.project() && TU.project()->neverReturns(Key);
}

const FunctionDecl *unprovenEnding(const SplitProof &Proof,
                                   const TranslationUnitFacts &TU) {
  for (const FunctionDecl *F : Proof.AssumedEnding)
    if (!F->isNoReturn() && !endsProgramInProject(functionKey(*F), TU))
      return F;
  return nullptr;
}

std::optional<QueryValue> provenSplitQuery(const MemberExpr &Use,
                                           TranslationUnitFacts &TU) {
  const SplitProof *Proof = nullptr;
  const SplitField *Field = splitFieldOf(Use, TU, &Proof);
  if (!Field || unprovenEnding(*Proof, TU))
    return std::nullopt;
  // Proving the inputs may come back to this field through its readers.
  static thread_local llvm::SmallPtrSet<const MemberExpr *, 4> InProgress;
  if (!InProgress.insert(&Use).second)
    return std::nullopt;
  auto Done = llvm::make_scope_exit([&] { InProgress.erase(&Use); });
  if (RankUniformity(TU).splitInputDivergence(*Proof, *TU.functionOf(&Use)))
    return std::nullopt;
  return splitQuery(*Field);
}

std::string splitRefusalOf(const MemberExpr &Use, TranslationUnitFacts &TU) {
  const FunctionDecl *F = TU.functionOf(&Use);
  if (!F)
    return "";
  const SplitProof &P = splitProofOf(*F, TU);
  for (const auto &[Write, Why] : P.Refused)
    if (Write == &Use || (!Write && P.Splits && splitsInto(*F, objectOf(Use))))
      return Why;
  return "";
}

} // namespace analysis
} // namespace mpilift
