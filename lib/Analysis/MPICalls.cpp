//===- MPICalls.cpp - MPI calls in the AST --------------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/MPICalls.h"

#include "mpilift/Analysis/ManualCollective.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

const mpi::FunctionInfo *mpiCallee(const CallExpr *Call) {
  if (!Call)
    return nullptr;
  StringRef Name;
  if (const FunctionDecl *Callee = Call->getDirectCallee()) {
    if (!Callee->getIdentifier())
      return nullptr;
    Name = Callee->getName();
  } else if (const auto *Lookup = dyn_cast<UnresolvedLookupExpr>(
                 Call->getCallee()->IgnoreParenImpCasts())) {
    // A call in a template with dependent arguments: named, not resolved.
    if (!Lookup->getName().isIdentifier())
      return nullptr;
    Name = Lookup->getName().getAsIdentifierInfo()->getName();
  } else {
    return nullptr;
  }
  if (!Name.starts_with("MPI_"))
    return nullptr;
  return mpi::lookup(std::string_view(Name.data(), Name.size()));
}

bool isMessageCall(const CallExpr *Call) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  if (!Info)
    return false;
  switch (Info->TheFamily) {
  case mpi::Family::BlockingSend:
  case mpi::Family::NonblockingSend:
  case mpi::Family::BlockingRecv:
  case mpi::Family::NonblockingRecv:
  case mpi::Family::SendRecv:
    return true;
  default:
    return false;
  }
}

const Expr *mpiArgAsWritten(const CallExpr *Call, mpi::Role R) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  return Info ? mpiArgAsWritten(Call, *Info, R) : nullptr;
}

const Expr *mpiArgAsWritten(const CallExpr *Call, const mpi::FunctionInfo &Info,
                            mpi::Role R) {
  std::optional<unsigned> Index = Info.argIndex(R);
  if (!Index || *Index >= Call->getNumArgs())
    return nullptr;
  return Call->getArg(*Index);
}

const Expr *mpiArg(const CallExpr *Call, mpi::Role R) {
  const Expr *E = mpiArgAsWritten(Call, R);
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

bool isDatatypeHandle(QualType T) {
  const auto *Handle = T->getAs<TypedefType>();
  return Handle && Handle->getDecl()->getName() == "MPI_Datatype";
}

const VarDecl *namedVariable(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(Ref->getDecl());
  return nullptr;
}

bool mentions(const Stmt *S, const ValueDecl *D) {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (Ref->getDecl() == D)
      return true;
  if (const auto *Member = dyn_cast<MemberExpr>(S))
    if (Member->getMemberDecl() == D)
      return true;
  for (const Stmt *Child : S->children())
    if (mentions(Child, D))
      return true;
  return false;
}

/// Whether \p Text is one identifier.
static bool isIdentifier(StringRef Text) {
  return !Text.empty() && (isalpha(Text.front()) || Text.front() == '_') &&
         llvm::all_of(Text, [](char C) { return isalnum(C) || C == '_'; });
}

/// The replacement list of macro \p Name, whose definition holds \p Def:
/// the rest of its `#define` line without comments, spaces or enclosing
/// parentheses ("" when that is not what \p Def is in).
static StringRef replacementOf(StringRef Name, SourceLocation Def,
                               const SourceManager &SM) {
  if (!Def.isFileID())
    return "";
  std::pair<FileID, unsigned> At = SM.getDecomposedLoc(Def);
  StringRef Buffer = SM.getBufferData(At.first);
  size_t Start = Buffer.rfind('\n', At.second);
  Start = Start == StringRef::npos ? 0 : Start + 1;
  StringRef Line =
      Buffer.drop_front(Start).take_until([](char C) { return C == '\n'; });
  Line = Line.ltrim();
  if (!Line.consume_front("#"))
    return "";
  Line = Line.ltrim();
  if (!Line.consume_front("define"))
    return "";
  Line = Line.ltrim();
  if (!Line.consume_front(Name))
    return "";
  Line = Line.take_until([](char C) { return C == '/'; }).trim();
  while (Line.size() > 2 && Line.front() == '(' && Line.back() == ')')
    Line = Line.drop_front().drop_back().trim();
  return Line;
}

std::string mpiHandleName(const Expr *E, const ASTContext &Context) {
  std::string Text = sourceText(E, Context);
  if (!isIdentifier(Text) || StringRef(Text).starts_with("MPI_"))
    return Text;
  const SourceManager &SM = Context.getSourceManager();
  // The expansions at the expression's start, outermost first: the macro
  // written, the one it stands for, ... down to MPI's own.
  SmallVector<SourceLocation, 4> Chain;
  // Parentheses a macro adds (`#define INDEX_T (COUNT_T)`) start that
  // macro's expansion, not the next one's.
  for (SourceLocation L = E->IgnoreParens()->getBeginLoc(); L.isMacroID();
       L = SM.getImmediateMacroCallerLoc(L))
    Chain.push_back(L);
  std::reverse(Chain.begin(), Chain.end());
  for (SourceLocation At : Chain) {
    StringRef Name =
        Lexer::getImmediateMacroName(At, SM, Context.getLangOpts());
    if (Name.starts_with("MPI_"))
      return Name.str();
    // The program's macro must stand for one name, the next one.
    if (!isIdentifier(replacementOf(Name, SM.getImmediateSpellingLoc(At), SM)))
      return Text;
  }
  return Text;
}

const PredefinedDatatype *predefinedDatatype(StringRef Name) {
  static const PredefinedDatatype Table[] = {
      {"MPI_CHAR", "char", &ASTContext::CharTy},
      {"MPI_SIGNED_CHAR", "signed char", &ASTContext::SignedCharTy},
      {"MPI_UNSIGNED_CHAR", "unsigned char", &ASTContext::UnsignedCharTy},
      {"MPI_BYTE", "unsigned char", &ASTContext::UnsignedCharTy},
      {"MPI_SHORT", "short", &ASTContext::ShortTy},
      {"MPI_UNSIGNED_SHORT", "unsigned short", &ASTContext::UnsignedShortTy},
      {"MPI_INT", "int", &ASTContext::IntTy},
      {"MPI_UNSIGNED", "unsigned", &ASTContext::UnsignedIntTy},
      {"MPI_LONG", "long", &ASTContext::LongTy},
      {"MPI_UNSIGNED_LONG", "unsigned long", &ASTContext::UnsignedLongTy},
      {"MPI_LONG_LONG", "long long", &ASTContext::LongLongTy},
      {"MPI_LONG_LONG_INT", "long long", &ASTContext::LongLongTy},
      {"MPI_FLOAT", "float", &ASTContext::FloatTy},
      {"MPI_DOUBLE", "double", &ASTContext::DoubleTy},
      {"MPI_LONG_DOUBLE", "long double", &ASTContext::LongDoubleTy},
  };
  for (const PredefinedDatatype &D : Table)
    if (D.MPIName == Name)
      return &D;
  return nullptr;
}

const PairDatatype *pairDatatype(StringRef Name) {
  static const PairDatatype Table[] = {
      {"MPI_FLOAT_INT", &ASTContext::FloatTy},
      {"MPI_DOUBLE_INT", &ASTContext::DoubleTy},
      {"MPI_LONG_INT", &ASTContext::LongTy},
      {"MPI_2INT", &ASTContext::IntTy},
      {"MPI_SHORT_INT", &ASTContext::ShortTy},
      {"MPI_LONG_DOUBLE_INT", &ASTContext::LongDoubleTy},
  };
  for (const PairDatatype &D : Table)
    if (D.MPIName == Name)
      return &D;
  return nullptr;
}

const PairDatatype *pairDatatypeOf(QualType Value, const ASTContext &Context) {
  for (StringRef Name : {"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT",
                         "MPI_2INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT"}) {
    const PairDatatype *D = pairDatatype(Name);
    if (Context.hasSameUnqualifiedType(Context.*(D->Value), Value))
      return D;
  }
  return nullptr;
}

bool isPairRecord(const RecordDecl &Record, const PairDatatype &Pair,
                  const ASTContext &Context) {
  const RecordDecl *Def = Record.getDefinition();
  if (!Def || Def->isUnion() || Def->isInvalidDecl())
    return false;
  if (const auto *Class = dyn_cast<CXXRecordDecl>(Def))
    if (Class->getNumBases() != 0 || Class->isPolymorphic())
      return false;
  SmallVector<const FieldDecl *, 2> Fields(Def->fields());
  return Fields.size() == 2 && !Fields[0]->isBitField() &&
         !Fields[1]->isBitField() &&
         Context.hasSameUnqualifiedType(Fields[0]->getType(),
                                        Context.*(Pair.Value)) &&
         Context.hasSameUnqualifiedType(Fields[1]->getType(), Context.IntTy);
}

uint64_t pairIndexOffset(const PairDatatype &Pair, const ASTContext &Context) {
  return llvm::alignTo(
      Context.getTypeSizeInChars(Context.*(Pair.Value)).getQuantity(),
      Context.getTypeAlignInChars(Context.IntTy).getQuantity());
}

/// The size of `struct { Value v; int i; }` for \p Pair.
static uint64_t pairStructSize(const PairDatatype &Pair,
                               const ASTContext &Context) {
  auto Align = [&](QualType T) {
    return Context.getTypeAlignInChars(T).getQuantity();
  };
  uint64_t End = pairIndexOffset(Pair, Context) +
                 Context.getTypeSizeInChars(Context.IntTy).getQuantity();
  return llvm::alignTo(
      End, std::max(Align(Context.*(Pair.Value)), Align(Context.IntTy)));
}

std::optional<uint64_t> predefinedTypeSize(StringRef Name,
                                           const ASTContext &Context) {
  if (const PairDatatype *Pair = pairDatatype(Name))
    return pairStructSize(*Pair, Context);
  const PredefinedDatatype *D = predefinedDatatype(Name);
  if (!D)
    return std::nullopt;
  return Context.getTypeSizeInChars(Context.*(D->Type)).getQuantity();
}

/// The variable at the bottom of a buffer expression: `buf`, `&buf`,
/// `&buf[k]`, `buf + k`, `s.field`, `v.data()`, `&v[0]`, casts; a field
/// when the object is a member reached through `this`.
const ValueDecl *bufferBase(const Expr *E) {
  while (E) {
    E = E->IgnoreParenCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *Op = dyn_cast<UnaryOperator>(E)) {
      E = Op->getSubExpr();
      continue;
    }
    if (const auto *Op = dyn_cast<BinaryOperator>(E)) {
      if (!Op->isAdditiveOp())
        return nullptr;
      E = Op->getLHS()->getType()->isPointerType() ? Op->getLHS()
                                                   : Op->getRHS();
      continue;
    }
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Sub->getBase();
      continue;
    }
    if (const auto *Member = dyn_cast<MemberExpr>(E)) {
      if (isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()))
        return Member->getMemberDecl();
      E = Member->getBase();
      continue;
    }
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E)) {
      E = Call->getImplicitObjectArgument();
      continue;
    }
    if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Call->getOperator() != OO_Subscript || Call->getNumArgs() < 1)
        return nullptr;
      E = Call->getArg(0);
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

} // namespace analysis
} // namespace mpilift
