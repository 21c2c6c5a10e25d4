//===- CommQueries.cpp - Which values are the rank and the size -----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "CommQueries.h"

#include "RankUniformity.h"
#include "SplitRanks.h"
#include "StatementTree.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

constexpr unsigned MaxDepth = 4;

/// The query \p Call makes, if it is MPI_Comm_rank or MPI_Comm_size.
std::optional<CommQuery> queryOf(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = Call ? mpiCallee(Call) : nullptr;
  if (!Info)
    return std::nullopt;
  if (Info->Id == mpi::FunctionId::Comm_rank)
    return CommQuery::Rank;
  if (Info->Id == mpi::FunctionId::Comm_size)
    return CommQuery::Size;
  return std::nullopt;
}

/// The variable a member access starts from (`s` in `s.comm`, `p` in
/// `p->comm`, null for `this`); nothing for other expressions.
std::optional<const ValueDecl *> memberBase(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *Op = dyn_cast<UnaryOperator>(E))
    if (Op->getOpcode() == UO_AddrOf)
      E = Op->getSubExpr()->IgnoreParenCasts();
  const auto *Member = dyn_cast<MemberExpr>(E);
  if (!Member)
    return std::nullopt;
  const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
  if (isa<CXXThisExpr>(Base))
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Base))
    return Ref->getDecl();
  return std::nullopt;
}

/// A query that writes a field of one object must ask about the
/// communicator in a field of that same object (`MPI_Comm_rank(s.comm,
/// &s.rank)`), so the field names the pair for every object.
bool sameObject(const Expr *Comm, const Expr *Address) {
  std::optional<const ValueDecl *> CommBase = memberBase(Comm);
  std::optional<const ValueDecl *> OutBase = memberBase(Address);
  if (!CommBase || !OutBase)
    return true; // A handle or a variable: nothing to pair.
  return *CommBase == *OutBase;
}

/// The field of the object \p Address names a part of (`s` in `&s->rank`)
/// that the function of \p Call keeps the communicator \p Comm in, or a
/// duplicate of it, which has the same ranks: `s->comm = comm;` or
/// `MPI_Comm_dup(comm, &s->comm)`. Null unless exactly one field is so
/// written and \p Comm is a variable the function never writes.
const FieldDecl *fieldKeepingComm(const Expr *Comm, const Expr *Address,
                                  const CallExpr *Call, ASTContext &Context) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Comm->IgnoreParenImpCasts());
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  std::optional<const ValueDecl *> Object = memberBase(Address);
  const FunctionDecl *F = enclosingFunction(*Call, Context);
  if (!V || !V->hasLocalStorage() || !Object || !*Object || !F || !F->getBody())
    return nullptr;
  FunctionFacts Facts(Context, *F);
  if (llvm::any_of(Facts.writesOf(V), [](const Write &W) {
        return W.Kind != WriteKind::Init && W.Kind != WriteKind::Element;
      }))
    return nullptr;
  auto NamesV = [&](const Expr *E) {
    const auto *R =
        E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
    return R && R->getDecl() == V;
  };
  auto FieldOfObject = [&](const Expr *E) -> const FieldDecl * {
    std::optional<const ValueDecl *> Base = memberBase(E);
    if (!Base || *Base != *Object)
      return nullptr;
    const Expr *Inner = E->IgnoreParenCasts();
    if (const auto *Op = dyn_cast<UnaryOperator>(Inner))
      Inner = Op->getSubExpr()->IgnoreParenCasts();
    return dyn_cast<FieldDecl>(cast<MemberExpr>(Inner)->getMemberDecl());
  };
  const FieldDecl *Found = nullptr;
  bool Many = false;
  findFirst(F->getBody(), [&](const Stmt *S) {
    const FieldDecl *Kept = nullptr;
    if (const auto *Assign = dyn_cast<BinaryOperator>(S)) {
      if (Assign->getOpcode() == BO_Assign && NamesV(Assign->getRHS()))
        Kept = FieldOfObject(Assign->getLHS());
    } else if (const auto *Dup = dyn_cast<CallExpr>(S)) {
      const mpi::FunctionInfo *Info = mpiCallee(Dup);
      if (Info && Info->Id == mpi::FunctionId::Comm_dup &&
          NamesV(mpiArg(Dup, mpi::Role::Comm)))
        if (const Expr *Out = mpiArg(Dup, mpi::Role::NewComm))
          Kept = FieldOfObject(Out);
    }
    if (Kept && Found && Kept != Found)
      Many = true;
    if (Kept)
      Found = Kept;
    return Many;
  });
  return Many ? nullptr : Found;
}

/// Whether no read of \p V sees the value it is declared with (`int me =
/// 0; MPI_Comm_rank(comm, &me);`): a statement of the block that declares
/// it, after the declaration and with no branch, hands its address to a
/// query, every other reference comes after that statement, and no label
/// lies after the declaration (a jump could pass the query).
bool initializerUnread(const VarDecl *V, const FunctionFacts &Facts,
                       ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  auto Before = [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                        SM.getExpansionLoc(B));
  };
  const Stmt *Decl =
      V->getInit() ? enclosingStmt(*V->getInit(), Context) : nullptr;
  const auto *Block =
      Decl ? dyn_cast_or_null<CompoundStmt>(parentStmt(*Decl, Context))
           : nullptr;
  if (!Block || !isa<DeclStmt>(Decl))
    return false;
  // The first statement of the block after the declaration that queries.
  const Stmt *Query = nullptr;
  const Expr *QueryAddress = nullptr;
  for (const Stmt *S : Block->body()) {
    if (Query || !Before(Decl->getEndLoc(), S->getBeginLoc()))
      continue;
    // The query runs whenever its statement does: no branch in it.
    bool Branches = findFirst(S, [](const Stmt *X) {
      const auto *Op = dyn_cast<BinaryOperator>(X);
      return isa<IfStmt, ForStmt, WhileStmt, DoStmt, SwitchStmt,
                 AbstractConditionalOperator>(X) ||
             (Op && Op->isLogicalOp());
    });
    for (const Write &W : Facts.writesOf(V))
      if (!Branches && W.Kind == WriteKind::AddressPass && W.Call &&
          queryOf(W.Call) &&
          findFirst(S, [&](const Stmt *X) { return X == W.Call; })) {
        Query = S;
        QueryAddress = dyn_cast<Expr>(W.Where);
      }
  }
  if (!Query)
    return false;
  for (const DeclRefExpr *Ref : Facts.referencesOf(V))
    if (!findFirst(QueryAddress, [&](const Stmt *X) { return X == Ref; }) &&
        !Before(Query->getEndLoc(), Ref->getBeginLoc()))
      return false;
  return !findFirst(Facts.function().getBody(), [&](const Stmt *S) {
    return isa<LabelStmt>(S) && Before(Decl->getBeginLoc(), S->getBeginLoc());
  });
}

/// The query result \p Address (`&x`, `&this->f`) receives from the call
/// it is an argument of, with the communicator.
std::optional<QueryValue>
queryWriting(const Expr *Address, const CallExpr *Call, ASTContext &Context) {
  std::optional<CommQuery> Q = queryOf(Call);
  if (!Q)
    return std::nullopt;
  const Expr *Out = mpiArg(Call, Q == CommQuery::Rank ? mpi::Role::RankOut
                                                      : mpi::Role::SizeOut);
  if (!Out || Out->IgnoreParenCasts() != Address->IgnoreParenCasts())
    return std::nullopt;
  const Expr *Comm = mpiArg(Call, mpi::Role::Comm);
  CommKey Key = commKey(Comm, Context);
  if (!Key.valid() || !sameObject(Comm, Address))
    return std::nullopt;
  // The result goes to a field: name the communicator by the field of the
  // same object that keeps it, as every other function sees it.
  if (memberBase(Address) && !memberBase(Comm))
    if (const FieldDecl *Kept =
            fieldKeepingComm(Comm, Address, Call, Context)) {
      Key = CommKey();
      Key.Decl = Kept;
    }
  return QueryValue{*Q, Key};
}

/// All writes of a variable agree on one query and communicator.
std::optional<QueryValue> agree(std::optional<QueryValue> A,
                                const std::optional<QueryValue> &B) {
  if (!A || !B || A->Query != B->Query || A->Comm != B->Comm)
    return std::nullopt;
  return A;
}

std::optional<QueryValue>
localQuery(const VarDecl *V, const FunctionFacts &Facts, ASTContext &Context) {
  std::optional<QueryValue> Found;
  bool First = true;
  for (const Write &W : Facts.writesOf(V)) {
    const auto *Address = dyn_cast<Expr>(W.Where);
    if (W.Kind == WriteKind::Init && initializerUnread(V, Facts, Context))
      continue;
    if (W.Kind != WriteKind::AddressPass || !Address)
      return std::nullopt;
    std::optional<QueryValue> This = queryWriting(Address, W.Call, Context);
    Found = First ? This : agree(Found, This);
    First = false;
    if (!Found)
      return std::nullopt;
  }
  return Found;
}

/// The field use \p Use writes the field only by handing its address to a
/// query; nothing when it reads it; an invalid value when it may write it
/// otherwise.
enum class FieldUse { Read, Query, Other };

FieldUse classifyFieldUse(const MemberExpr *Use, ASTContext &Context,
                          std::optional<QueryValue> &Query) {
  const Stmt *Child = Use;
  const Stmt *Parent = parentStmt(*Use, Context);
  while (Parent && (isa<ParenExpr>(Parent) ||
                    (isa<ImplicitCastExpr>(Parent) &&
                     cast<ImplicitCastExpr>(Parent)->getCastKind() !=
                         CK_LValueToRValue))) {
    Child = Parent;
    Parent = parentStmt(*Parent, Context);
  }
  if (!Parent)
    return FieldUse::Other; // A member initializer or a reference binding.
  if (const auto *Cast = dyn_cast<ImplicitCastExpr>(Parent))
    if (Cast->getCastKind() == CK_LValueToRValue)
      return FieldUse::Read;
  if (const auto *Op = dyn_cast<UnaryOperator>(Parent)) {
    if (Op->getOpcode() != UO_AddrOf)
      return Op->isIncrementDecrementOp() ? FieldUse::Other : FieldUse::Read;
    const auto *Call = dyn_cast_or_null<CallExpr>(parentStmt(*Op, Context));
    Query = Call ? queryWriting(Op, Call, Context) : std::nullopt;
    return Query ? FieldUse::Query : FieldUse::Other;
  }
  if (const auto *Op = dyn_cast<BinaryOperator>(Parent))
    return Op->isAssignmentOp() && Op->getLHS()->IgnoreParens() == Child
               ? FieldUse::Other
               : FieldUse::Read;
  if (isa<MemberExpr>(Parent) || isa<ArraySubscriptExpr>(Parent))
    return FieldUse::Other; // A part of it: followed no further.
  return FieldUse::Other;
}

/// A field with a default value (`int rank_ = 0;`) still holds a query's
/// result in every member function when each constructor that does not
/// copy an object makes the query first thing in its body, before
/// anything could read the field.
bool everyConstructorQueries(const FieldDecl *Field, TranslationUnitFacts &TU) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Class || !Class->hasUserDeclaredConstructor() ||
      Class->needsImplicitDefaultConstructor())
    return false;
  for (const CXXConstructorDecl *Ctor : Class->ctors()) {
    if (Ctor->isCopyOrMoveConstructor() && !Ctor->isUserProvided())
      continue;
    if (Ctor->isDeleted())
      continue;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Ctor->getBody());
    if (!Body)
      return false;
    // Written once beside a split (SplitRanks.h), after the initializer.
    if (llvm::any_of(splitProofOf(*Ctor, TU).Fields, [&](const SplitField &S) {
          return S.Write->getMemberDecl() == Field;
        }))
      continue;
    bool Queries = false;
    for (const Stmt *S : Body->body()) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (!Call || !mpiCallee(Call))
        break; // Anything else might read the field first.
      for (const Expr *Arg : Call->arguments()) {
        const auto *Op = dyn_cast<UnaryOperator>(Arg->IgnoreParenImpCasts());
        const auto *Member =
            Op && Op->getOpcode() == UO_AddrOf
                ? dyn_cast<MemberExpr>(Op->getSubExpr()->IgnoreParens())
                : nullptr;
        if (Member && Member->getMemberDecl() == Field &&
            queryWriting(Op, Call, TU.context()))
          Queries = true;
      }
      if (Queries)
        break;
    }
    if (!Queries)
      return false;
  }
  return true;
}

/// The query another unit's write \p W gives \p Field: the rank or size
/// on the communicator in a field of the same structure.
std::optional<QueryValue> queryInOtherUnit(const FieldDecl *Field,
                                           const FieldValue &W) {
  if (W.ValueKind != FieldValue::Kind::Rank &&
      W.ValueKind != FieldValue::Kind::Size)
    return std::nullopt;
  const RecordDecl *Record = Field->getParent();
  StringRef Prefix = W.Comm;
  if (!Prefix.consume_front(recordKey(*Record)) || !Prefix.consume_front("::"))
    return std::nullopt;
  for (const FieldDecl *Comm : Record->fields())
    if (Comm->getName() == Prefix) {
      CommKey Key;
      Key.Decl = Comm;
      return QueryValue{W.ValueKind == FieldValue::Kind::Rank ? CommQuery::Rank
                                                              : CommQuery::Size,
                        Key};
    }
  return std::nullopt;
}

/// A constructor's parameter that initializes a field of its class and
/// that the body does not write (`Team(MPI_Comm Comm) : Comm(Comm) {
/// MPI_Comm_rank(Comm, &Rank); }`) names the communicator the field
/// holds: the key of that field; \p Key unchanged otherwise.
CommKey asInitializedField(CommKey Key, TranslationUnitFacts &TU) {
  const auto *Param = dyn_cast_or_null<ParmVarDecl>(Key.Decl);
  const auto *Ctor =
      Param ? dyn_cast<CXXConstructorDecl>(Param->getDeclContext()) : nullptr;
  if (!Ctor || !Ctor->hasBody() || !TU.factsOf(*Ctor).writesOf(Param).empty())
    return Key;
  for (const CXXCtorInitializer *Init : Ctor->inits()) {
    const FieldDecl *Field = Init->getMember();
    const auto *Ref =
        Field && Init->getInit()
            ? dyn_cast<DeclRefExpr>(Init->getInit()->IgnoreParenImpCasts())
            : nullptr;
    if (Ref && Ref->getDecl() == Param)
      return CommKey{"", Field};
  }
  return Key;
}

std::optional<QueryValue> fieldQuery(const FieldDecl *Field,
                                     TranslationUnitFacts &TU) {
  if (const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent()))
    for (const CXXMethodDecl *Method : Class->methods())
      if (!Method->isImplicit() && !Method->isDefined() && !Method->isDeleted())
        return std::nullopt; // Another file may write it.
  if (Field->hasInClassInitializer() && !everyConstructorQueries(Field, TU))
    return std::nullopt;
  if (TU.unknownWriters(Field))
    return std::nullopt;
  std::optional<QueryValue> Found;
  bool Any = false;
  for (const FieldValue &W : TU.valuesElsewhere(Field)) {
    std::optional<QueryValue> Query = queryInOtherUnit(Field, W);
    // A split proof's inputs, which the writing unit left to this one.
    if (Query && (!W.Assumes.empty() || !W.Params.empty() || !W.Outs.empty()) &&
        RankUniformity(TU).openDivergence(W, Field->getLocation()))
      Query.reset();
    if (Query && llvm::any_of(W.EndsIf, [&](const std::string &Key) {
          return !endsProgramInProject(Key, TU);
        }))
      Query.reset();
    Found = Any ? agree(Found, Query) : Query;
    Any = true;
    if (!Found)
      return std::nullopt;
  }
  for (const MemberExpr *Use : TU.usesOf(Field)) {
    std::optional<QueryValue> Query;
    switch (classifyFieldUse(Use, TU.context(), Query)) {
    case FieldUse::Read:
      continue;
    case FieldUse::Other:
      Query = provenSplitQuery(*Use, TU);
      if (!Query)
        return std::nullopt;
      Found = Any ? agree(Found, Query) : Query;
      Any = true;
      if (!Found)
        return std::nullopt;
      continue;
    case FieldUse::Query:
      Query->Comm = asInitializedField(Query->Comm, TU);
      Found = Any ? agree(Found, Query) : Query;
      Any = true;
      if (!Found)
        return std::nullopt;
    }
  }
  if (const auto *Comm =
          Found ? dyn_cast_or_null<FieldDecl>(Found->Comm.Decl) : nullptr)
    if (!queriedAfterCommWrites(Field, Comm, TU))
      return std::nullopt;
  return Found;
}

std::optional<QueryValue> globalQuery(const VarDecl *Global,
                                      TranslationUnitFacts &TU) {
  // Another unit may write a global with external linkage.
  if (Global->isExternallyVisible() || Global->hasInit())
    return std::nullopt;
  std::optional<QueryValue> Found;
  bool Any = false;
  for (const FunctionDecl *F : TU.functionsUsing(Global)) {
    if (TU.factsOf(*F).writesOf(Global).empty())
      continue;
    std::optional<QueryValue> Here =
        localQuery(Global, TU.factsOf(*F), TU.context());
    Found = Any ? agree(Found, Here) : Here;
    Any = true;
    if (!Found)
      return std::nullopt;
  }
  return Found;
}

} // namespace

/// Whether \p CommWrite is the split a write of \p Field in the same
/// function is proven against (SplitRanks.h).
static bool splitCovers(const MemberExpr &CommWrite, const FieldDecl *Field,
                        TranslationUnitFacts &TU) {
  const FunctionDecl *F = TU.functionOf(&CommWrite);
  if (!F)
    return false;
  return llvm::any_of(splitProofOf(*F, TU).Fields, [&](const SplitField &S) {
    return S.CommWrite == &CommWrite && S.Write->getMemberDecl() == Field;
  });
}

bool queriedAfterCommWrites(const FieldDecl *Field, const FieldDecl *Comm,
                            TranslationUnitFacts &TU) {
  ASTContext &Context = TU.context();
  const SourceManager &SM = Context.getSourceManager();
  llvm::SmallVector<const MemberExpr *, 4> Queries;
  for (const MemberExpr *Use : TU.usesOf(Field)) {
    std::optional<QueryValue> Query;
    if (classifyFieldUse(Use, Context, Query) == FieldUse::Query)
      Queries.push_back(Use);
  }
  for (const MemberExpr *Write : TU.usesOf(Comm)) {
    if (isOnlyLoaded(*Write, Context) || freesField(*Write, Context) ||
        splitCovers(*Write, Field, TU))
      continue;
    const FunctionDecl *In = enclosingFunction(*Write, Context);
    if (In && In->isImplicit())
      continue;
    if (!In || llvm::none_of(Queries, [&](const MemberExpr *Query) {
          return enclosingFunction(*Query, Context) == In &&
                 SM.isBeforeInTranslationUnit(Write->getBeginLoc(),
                                              Query->getBeginLoc());
        }))
      return false;
  }
  std::vector<FieldValue> QueriesElsewhere = TU.valuesElsewhere(Field);
  auto Before = [](const SourcePlace &A, const SourcePlace &B) {
    return A.File == B.File &&
           std::tie(A.Line, A.Column) < std::tie(B.Line, B.Column);
  };
  std::string CommKey =
      recordKey(*Comm->getParent()) + "::" + Comm->getNameAsString();
  for (const FieldValue &Write : TU.valuesElsewhere(Comm))
    if (Write.ValueKind != FieldValue::Kind::Freed &&
        (Write.Function.empty() ||
         llvm::none_of(QueriesElsewhere, [&](const FieldValue &Query) {
           return Query.ValueKind != FieldValue::Kind::Other &&
                  Query.Function == Write.Function &&
                  (Before(Write.Where, Query.Where) ||
                   (Query.Split && Query.Comm == CommKey));
         })))
      return false;
  return true;
}

bool freesField(const MemberExpr &Use, ASTContext &Context) {
  const Stmt *Child = nullptr;
  const auto *Op =
      dyn_cast_or_null<UnaryOperator>(parentPastParens(Use, Context, &Child));
  if (!Op || Op->getOpcode() != UO_AddrOf)
    return false;
  const auto *Call = dyn_cast_or_null<CallExpr>(parentPastParens(*Op, Context));
  const Expr *Freed =
      Call && mpiCallee(Call) ? mpiArg(Call, mpi::Role::FreedComm) : nullptr;
  return Freed && Freed->IgnoreParenCasts() == Op;
}

std::optional<QueryValue> queryWritingField(const MemberExpr &Use,
                                            ASTContext &Context) {
  std::optional<QueryValue> Query;
  if (classifyFieldUse(&Use, Context, Query) != FieldUse::Query)
    return std::nullopt;
  return Query;
}

const MemberExpr *getterField(const Expr *E) {
  const auto *Call =
      E ? dyn_cast<CXXMemberCallExpr>(E->IgnoreParenImpCasts()) : nullptr;
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || Call->getNumArgs() != 0)
    return nullptr;
  const Expr *Value = soleReturnValue(*Method);
  const auto *Member =
      Value ? dyn_cast<MemberExpr>(Value->IgnoreParenImpCasts()) : nullptr;
  if (!Member || !isa<FieldDecl>(Member->getMemberDecl()) ||
      !isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return Member;
}

CommKey commKey(const Expr *E, const ASTContext &Context) {
  CommKey Key;
  if (!E)
    return Key;
  const SourceManager &SM = Context.getSourceManager();
  if (E->getBeginLoc().isMacroID()) {
    StringRef Text = Lexer::getSourceText(
        SM.getExpansionRange(E->getSourceRange()), SM, Context.getLangOpts());
    if (Text.starts_with("MPI_COMM_") && llvm::all_of(Text, [](char C) {
          return llvm::isAlnum(C) || C == '_';
        })) {
      Key.Handle = Text.str();
      return Key;
    }
  }
  E = E->IgnoreParenCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (isa<VarDecl>(Ref->getDecl()))
      Key.Decl = Ref->getDecl();
    return Key;
  }
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    Key.Decl = Member->getMemberDecl();
  else if (const MemberExpr *Field = getterField(E))
    Key.Decl = Field->getMemberDecl();
  return Key;
}

CommKey followedCommKey(const Expr *E, const FunctionDecl &Where,
                        TranslationUnitFacts &TU) {
  CommKey Key = commKey(E, TU.context());
  // A chain of copies ends within a few steps; a cycle does not end.
  for (unsigned Step = 0; Step < 4; ++Step) {
    const auto *V = dyn_cast_or_null<VarDecl>(Key.Decl);
    if (!V || isa<ParmVarDecl>(V) || !V->hasLocalStorage() ||
        V->getParentFunctionOrMethod() != &Where)
      return Key;
    std::optional<CommKey> Copied;
    for (const Write &W : TU.factsOf(Where).writesOf(V)) {
      if ((W.Kind != WriteKind::Init && W.Kind != WriteKind::Assign) ||
          !W.Value)
        return Key;
      CommKey From = commKey(W.Value, TU.context());
      if (!From.valid() || (Copied && *Copied != From))
        return Key;
      Copied = From;
    }
    if (!Copied)
      return Key;
    Key = *Copied;
  }
  return Key;
}

const CallExpr *sizeQueryStatement(const Stmt *S, const VarDecl **Size) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *Assign = dyn_cast<BinaryOperator>(E))
    if (Assign->getOpcode() == BO_Assign)
      E = Assign->getRHS()->IgnoreParenImpCasts();
  const auto *Call = dyn_cast<CallExpr>(E);
  if (queryOf(Call) != CommQuery::Size)
    return nullptr;
  const auto *Out = dyn_cast_or_null<UnaryOperator>(
      mpiArgAsWritten(Call, mpi::Role::SizeOut));
  const VarDecl *V = Out && Out->getOpcode() == UO_AddrOf
                         ? namedVariable(Out->getSubExpr())
                         : nullptr;
  if (!V || !V->isLocalVarDecl())
    return nullptr;
  if (Size)
    *Size = V;
  return Call;
}

const VarDecl *computedVariable(const Stmt *S) {
  const VarDecl *Size = nullptr;
  if (sizeQueryStatement(S, &Size))
    return Size;
  return assignedVariable(S);
}

/// The query whose result the call \p R of \p Where (made in another
/// unit) passes as the parameter at \p Index, on a predefined
/// communicator, put in terms of \p Where's own communicator parameter
/// where the call passes that communicator to one.
static std::optional<QueryValue>
recordedQuery(const CallRecord &R, unsigned Index, const FunctionDecl &Where) {
  if (Index >= R.Arguments.size() || R.Arguments[Index].Query.empty())
    return std::nullopt;
  const SharedValue &Arg = R.Arguments[Index];
  QueryValue There{Arg.Query == "rank" ? CommQuery::Rank : CommQuery::Size,
                   CommKey{Arg.Comm, nullptr}};
  for (const ParmVarDecl *Own : Where.parameters()) {
    unsigned I = Own->getFunctionScopeIndex();
    if (I < R.Arguments.size() && R.Arguments[I].Query.empty() &&
        R.Arguments[I].Comm == Arg.Comm) {
      There.Comm = CommKey{"", Own};
      break;
    }
  }
  return There;
}

std::optional<QueryValue> queryValueOf(const ValueDecl *D,
                                       const FunctionDecl &Where,
                                       TranslationUnitFacts &TU,
                                       unsigned Depth) {
  if (const auto *Field = dyn_cast<FieldDecl>(D))
    return fieldQuery(Field, TU);
  const auto *V = dyn_cast<VarDecl>(D);
  if (!V)
    return std::nullopt;
  if (V->hasGlobalStorage() && !V->isStaticLocal())
    return globalQuery(V, TU);
  const FunctionFacts &Facts = TU.factsOf(Where);
  const auto *Param = dyn_cast<ParmVarDecl>(V);
  if (!Param || !Facts.writesOf(V).empty())
    return Param ? std::nullopt : localQuery(V, Facts, TU.context());
  if (Depth >= MaxDepth)
    return std::nullopt;
  // Calls other units make, as they recorded them (none when this unit
  // shows every call).
  std::optional<std::vector<CallRecord>> Elsewhere = TU.callsElsewhere(&Where);
  if (!Elsewhere)
    return std::nullopt;
  ArrayRef<CallSite> Callers = TU.callersOf(&Where);
  if (Callers.empty() && Elsewhere->empty())
    return std::nullopt;
  // Each caller's communicator, put in terms of this function's own
  // communicator parameters where the caller passes it to one of them.
  std::optional<QueryValue> Found;
  bool Any = false;
  unsigned Index = Param->getFunctionScopeIndex();
  for (const CallSite &Site : Callers) {
    if (!Site.Caller || Index >= Site.Call->getNumArgs())
      return std::nullopt;
    const Expr *Arg = Site.Call->getArg(Index)->IgnoreParenImpCasts();
    const ValueDecl *Passed = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Arg))
      Passed = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(Arg))
      Passed = Member->getMemberDecl();
    else if (const MemberExpr *Field = getterField(Arg))
      Passed = Field->getMemberDecl();
    if (!Passed)
      return std::nullopt;
    std::optional<QueryValue> There =
        queryValueOf(Passed, *Site.Caller, TU, Depth + 1);
    if (!There)
      return std::nullopt;
    for (const ParmVarDecl *Own : Where.parameters()) {
      unsigned I = Own->getFunctionScopeIndex();
      if (I < Site.Call->getNumArgs() &&
          commKey(Site.Call->getArg(I), TU.context()) == There->Comm) {
        There->Comm = CommKey{"", Own};
        break;
      }
    }
    Found = Any ? agree(Found, There) : There;
    Any = true;
    if (!Found)
      return std::nullopt;
  }
  for (const CallRecord &R : *Elsewhere) {
    std::optional<QueryValue> There = recordedQuery(R, Index, Where);
    Found = Any ? agree(Found, There) : There;
    Any = true;
    if (!Found)
      return std::nullopt;
  }
  return Found;
}

} // namespace analysis
} // namespace mpilift
