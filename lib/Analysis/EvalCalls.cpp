//===- EvalCalls.cpp - Calls in the rank-space evaluator ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What a call does in a run: the program's own functions run with their
/// arguments; the C library's copies and allocations are modelled (a copy
/// is a send and a receive to the rank itself, so the dataflow follows
/// data a rank moves between its buffers); output does nothing; MPI's
/// point-to-point calls become operations with their dependencies, MPI's
/// derived datatypes are built; std::vector keeps its elements in an
/// object of their own. Any other call stops the run in the region, and
/// before it makes what it could write unknown.
///
//===----------------------------------------------------------------------===//

#include "RankEvaluatorImpl.h"

#include "RankUniformity.h"
#include "StatementTree.h"

#include "clang/AST/RecordLayout.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Calls are followed this deep.
constexpr unsigned MaxCallDepth = 12;

eval::SpecialRanks specialRanks(const ASTContext &Ctx) {
  // Open MPI declares its handles as globals named ompi_mpi_*.
  const IdentifierInfo &World = Ctx.Idents.get("ompi_mpi_comm_world");
  if (!Ctx.getTranslationUnitDecl()->lookup(&World).empty())
    return {-1, -2, -1};
  return {-2, -1, -1}; // MPICH and its derivatives.
}

/// What an iterator points to: a pointer's pointee, or the element of a
/// standard library's pointer wrapper (libstdc++'s __normal_iterator,
/// libc++'s __wrap_iter).
QualType iteratorElement(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isPointerType())
    return T->getPointeeType();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier() ||
      (Spec->getName() != "__normal_iterator" &&
       Spec->getName() != "__wrap_iter") ||
      Spec->getTemplateArgs().size() < 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return QualType();
  QualType Wrapped = Spec->getTemplateArgs()[0].getAsType();
  return Wrapped->isPointerType() ? Wrapped->getPointeeType() : QualType();
}

/// Output and other calls that change nothing a pattern depends on.
bool isHarmless(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("printf", "fprintf", "puts", "fputs", "putchar", "fflush", true)
      .Cases("fputc", "putc", "perror", "vprintf", "vfprintf", true)
      .Cases("free", "MPI_Wtime", "MPI_Wtick", "usleep", "sleep", true)
      .Cases("MPI_Barrier", "MPI_Pcontrol", true)
      .Default(false);
}

/// The C library's functions that write a string into their first
/// argument.
bool isStringWriter(StringRef Name, const FunctionDecl &F) {
  const DeclContext *Context = F.getDeclContext();
  if (F.hasBody() ||
      !(Context->isTranslationUnit() || Context->isExternCContext() ||
        Context->isStdNamespace()))
    return false;
  return llvm::StringSwitch<bool>(Name)
      .Cases("snprintf", "sprintf", "strcpy", "strncpy", "strcat", true)
      .Default(false);
}

} // namespace

//===-- Dispatch ----------------------------------------------------------===//

Value RankEvaluator::Impl::call(const CallExpr *Call) {
  if (stopped())
    return Value::unknown(0);
  if (const mpi::FunctionInfo *Info = mpiCallee(Call))
    return mpiCall(Call, *Info);
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    bool Handled = false;
    Value V = vectorCall(Member, Handled);
    if (Handled)
      return V;
  }
  const FunctionDecl *F = Call->getDirectCallee();
  if (!F) {
    if (M == Mode::Region) {
      stop("the region calls through a pointer", Call->getBeginLoc());
      return Value::unknown(0);
    }
    havocArguments(Call, "written by a call through a pointer");
    return unknown("the result of a call through a pointer",
                   Call->getBeginLoc());
  }
  bool Handled = false;
  Value V = libraryCall(Call, F, Handled);
  if (Handled)
    return V;
  const FunctionDecl *Def = nullptr;
  if (F->hasBody(Def) && Depth < MaxCallDepth) {
    SmallVector<Value, 6> Args;
    unsigned First = 0;
    ObjectId This = eval::NullObject;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      const Expr *ObjectArg = Member->getImplicitObjectArgument();
      std::optional<Place> Object;
      if (ObjectArg->getType()->isPointerType()) {
        Value P = eval(ObjectArg);
        if (P.isPointer())
          Object = Place{P.Obj, P.I};
      } else {
        Object = place(ObjectArg);
      }
      if (!Object || Object->Off != 0) {
        stop("cannot follow the object " + spelled(Call) + " runs on",
             Call->getBeginLoc());
        return Value::unknown(0);
      }
      This = Object->Obj;
    } else if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(F)) {
      if (std::optional<Value> Copied = trivialAssignment(Call))
        return *Copied;
      std::optional<Place> Object = place(Call->getArg(0));
      if (!Object)
        return Value::unknown(0);
      This = Object->Obj;
      First = 1;
    }
    for (unsigned I = First; I < Call->getNumArgs(); ++I) {
      const Expr *Arg = Call->getArg(I);
      unsigned ParamIndex = I - First;
      bool ByReference =
          ParamIndex < Def->getNumParams() &&
          Def->getParamDecl(ParamIndex)->getType()->isReferenceType();
      if (ByReference) {
        std::optional<Place> P = place(Arg);
        Args.push_back(P ? Value::pointer(P->Obj, P->Off) : Value::unknown(0));
      } else {
        Args.push_back(eval(Arg));
      }
    }
    if (stopped())
      return Value::unknown(0);
    return callFunction(Def, Call, Args, This);
  }
  if (F->isNoReturn()) {
    stop("the program may end here (" + F->getNameAsString() + ")",
         Call->getBeginLoc());
    return Value::unknown(0);
  }
  if (M == Mode::Region) {
    stop("the region calls '" + F->getNameAsString() +
             "', whose effects cannot be followed",
         Call->getBeginLoc());
    return Value::unknown(0);
  }
  havocArguments(Call, "written by a call of '" + F->getNameAsString() + "'");
  return unknown("the result of a call of '" + F->getNameAsString() + "'",
                 Call->getBeginLoc());
}

std::optional<Value>
RankEvaluator::Impl::trivialAssignment(const CallExpr *Call) {
  auto Assigned = structAssignment(Call);
  if (!Assigned)
    return std::nullopt;
  // What the compiler emits: a copy of the whole object, padding and all.
  std::optional<Place> To = place(Assigned->first);
  std::optional<Place> From = To ? place(Assigned->second) : std::nullopt;
  if (!To || !From)
    return Value::unknown(0);
  int64_t Bytes = sizeOf(Assigned->first->getType());
  if (Bytes > 0)
    copyLocally(*From, *To, static_cast<uint64_t>(Bytes), Call);
  return Value::pointer(To->Obj, To->Off);
}

Value RankEvaluator::Impl::callFunction(const FunctionDecl *F,
                                        const CallExpr *Call,
                                        ArrayRef<Value> Args, ObjectId This) {
  ++Depth;
  Frames.emplace_back();
  Frames.back().F = F;
  Frames.back().This = This;
  for (unsigned I = 0; I < F->getNumParams(); ++I) {
    const ParmVarDecl *Param = F->getParamDecl(I);
    ObjectId Id = newObject(eval::quoted(*Param), Param, M == Mode::Region,
                            sizeOf(Param->getType()));
    Frames.back().Vars[Param] = Id;
    Value Arg = I < Args.size()
                    ? Args[I]
                    : unknown("a missing argument", Call->getBeginLoc());
    QualType T = Param->getType();
    if (T->isReferenceType())
      T = Ctx.getPointerType(T.getNonReferenceType());
    if (!T->isRecordType())
      store(Place{Id, 0}, T, Arg, nullptr);
  }
  Flow Result = exec(F->getBody());
  Value Ret = Frames.back().Ret;
  Frames.pop_back();
  --Depth;
  if (Result == Flow::Stop)
    return Value::unknown(0);
  return Ret;
}

void RankEvaluator::Impl::havocArguments(const CallExpr *Call,
                                         const std::string &Why) {
  for (const Expr *Arg : Call->arguments()) {
    if (!Arg->getType()->isPointerType() && !Arg->isGLValue())
      continue;
    Value P = Arg->isGLValue() && !Arg->getType()->isPointerType() ? [&] {
      std::optional<Place> Pl = place(Arg);
      return Pl ? Value::pointer(Pl->Obj, Pl->Off) : Value::unknown(0);
    }()
                                                                   : eval(Arg);
    if (!P.isPointer() || P.Obj == eval::NullObject)
      continue;
    eval::Object &O = Objects[P.Obj];
    O.Cells.clear();
    O.ContentWhy = reason(O.Name + " is " + Why, Call->getBeginLoc());
  }
}

//===-- The C library -----------------------------------------------------===//

Value RankEvaluator::Impl::libraryCall(const CallExpr *Call,
                                       const FunctionDecl *F, bool &Handled) {
  Handled = true;
  StringRef Name = F->getIdentifier() ? F->getName() : StringRef();
  auto Arg = [&](unsigned I) { return eval(Call->getArg(I)); };
  if (isHarmless(Name)) {
    // Their arguments are read (output may print a message buffer).
    readArguments(Call, 0);
    return Value::integer(0, 32, true);
  }
  if ((Name == "memcpy" || Name == "memmove") && Call->getNumArgs() == 3) {
    Value To = Arg(0), From = Arg(1);
    std::optional<int64_t> N = needInt(Arg(2), Call->getArg(2), "the size");
    if (!N)
      return Value::unknown(0);
    if (!To.isPointer() || !From.isPointer()) {
      stopWith(To.isPointer() ? From : To, "the buffer of", Call);
      return Value::unknown(0);
    }
    copyLocally(Place{From.Obj, From.I}, Place{To.Obj, To.I}, *N, Call);
    return To;
  }
  if (Name == "memset" && Call->getNumArgs() == 3) {
    Value To = Arg(0);
    std::optional<int64_t> N = needInt(Arg(2), Call->getArg(2), "the size");
    if (!N || !To.isPointer())
      return Value::unknown(0);
    writeLocally(Place{To.Obj, To.I}, *N, Call);
    return To;
  }
  if (isStringWriter(Name, *F))
    return writeString(Call, Name);
  if ((Name == "copy" || Name == "copy_n") && F->isInStdNamespace() &&
      Call->getNumArgs() == 3) {
    Value First = Arg(0), Out2 = Arg(2);
    int64_t Count = 0;
    QualType Elem;
    if (Name == "copy") {
      Value Last = Arg(1);
      if (First.isPointer() && Last.isPointer() && First.Obj == Last.Obj) {
        Elem = iteratorElement(Call->getArg(0)->getType());
        Count = (Last.I - First.I) / std::max<int64_t>(sizeOf(Elem), 1);
      }
    } else {
      std::optional<int64_t> N = needInt(Arg(1), Call->getArg(1), "the count");
      if (!N)
        return Value::unknown(0);
      Elem = iteratorElement(Call->getArg(0)->getType());
      Count = *N;
    }
    if (Elem.isNull() || !First.isPointer() || !Out2.isPointer()) {
      stop("std::" + Name.str() + " of iterators is not followed",
           Call->getBeginLoc());
      return Value::unknown(0);
    }
    int64_t Bytes = Count * sizeOf(Elem);
    copyLocally(Place{First.Obj, First.I}, Place{Out2.Obj, Out2.I}, Bytes,
                Call);
    return Value::pointer(Out2.Obj, Out2.I + Bytes);
  }
  if (Name == "malloc" || Name == "calloc" || Name == "aligned_alloc") {
    int64_t Bytes = -1;
    if (Name == "malloc" && Call->getNumArgs() == 1) {
      Value N = Arg(0);
      Bytes = N.isInt() ? N.I : -1;
    } else if (Name == "calloc" && Call->getNumArgs() == 2) {
      Value A = Arg(0), B = Arg(1);
      Bytes = A.isInt() && B.isInt() ? A.I * B.I : -1;
    }
    return Value::pointer(newObject("the block allocated here", nullptr,
                                    M == Mode::Region, Bytes),
                          0);
  }
  if (isPureArithmeticCall(Call)) {
    SmallVector<Value, 2> Vals;
    for (const Expr *A : Call->arguments())
      Vals.push_back(eval(A));
    uint32_t Taint = 0;
    for (const Value &V : Vals) {
      if (!V.isInt())
        return V.isKnown()
                   ? unknown("a floating-point value", Call->getBeginLoc())
                   : V;
      Taint |= V.Taint;
    }
    int64_t R = 0;
    if ((Name == "abs" || Name == "labs" || Name == "llabs") &&
        Vals.size() == 1)
      R = Vals[0].I < 0 ? -Vals[0].I : Vals[0].I;
    else if (Name == "min" && Vals.size() == 2)
      R = std::min(Vals[0].I, Vals[1].I);
    else if (Name == "max" && Vals.size() == 2)
      R = std::max(Vals[0].I, Vals[1].I);
    else
      return unknown("the result of '" + Name.str() + "'", Call->getBeginLoc());
    Value Result = Value::integer(R, Ctx.getIntWidth(Call->getType()),
                                  Call->getType()->isSignedIntegerType());
    Result.Taint = Taint;
    if (Call->isGLValue()) {
      // std::min and std::max return a reference.
      ObjectId Temp = newObject("a temporary", nullptr, true, 8);
      store(Place{Temp, 0}, Call->getType(), Result, nullptr);
      return Value::pointer(Temp, 0);
    }
    return Result;
  }
  if (Name.starts_with("MPI_Type_")) {
    // Derived datatypes: the new type is the last argument.
    unsigned N = Call->getNumArgs();
    auto Store = [&](const Value &Type) {
      Value Out2 = Arg(N - 1);
      if (Out2.isPointer())
        store(Place{Out2.Obj, Out2.I},
              Call->getArg(N - 1)->getType()->getPointeeType(), Type, nullptr);
      return Value::integer(0, 32, true);
    };
    if (Name == "MPI_Type_commit" || Name == "MPI_Type_free")
      return Value::integer(0, 32, true);
    if (Name == "MPI_Type_contiguous" && N == 3) {
      std::optional<int64_t> Count =
          needInt(Arg(0), Call->getArg(0), "the count of");
      std::optional<Value> Old = datatypeOf(Call->getArg(1));
      if (!Count || !Old)
        return Value::unknown(0);
      return Store(Value::datatype(*Count * Old->Size, *Count * Old->Extent));
    }
    if (Name == "MPI_Type_vector" && N == 5) {
      std::optional<int64_t> Count =
          needInt(Arg(0), Call->getArg(0), "the count");
      std::optional<int64_t> Block =
          needInt(Arg(1), Call->getArg(1), "the block");
      std::optional<int64_t> Stride =
          needInt(Arg(2), Call->getArg(2), "the stride");
      std::optional<Value> Old = datatypeOf(Call->getArg(3));
      if (!Count || !Block || !Stride || !Old)
        return Value::unknown(0);
      return Store(Value::datatype(
          *Count * *Block * Old->Size,
          *Count ? ((*Count - 1) * *Stride + *Block) * Old->Extent : 0));
    }
    if (Name == "MPI_Type_create_struct" && N == 5) {
      std::optional<int64_t> Count =
          needInt(Arg(0), Call->getArg(0), "the count");
      Value Lens = Arg(1), Displs = Arg(2), Types = Arg(3);
      if (!Count || !Lens.isPointer() || !Displs.isPointer() ||
          !Types.isPointer()) {
        stop("the arguments of MPI_Type_create_struct cannot be followed",
             Call->getBeginLoc());
        return Value::unknown(0);
      }
      uint64_t Bytes = 0, Extent = 0;
      QualType IntT = Call->getArg(1)->getType()->getPointeeType();
      QualType AintT = Call->getArg(2)->getType()->getPointeeType();
      QualType TypeT = Call->getArg(3)->getType()->getPointeeType();
      for (int64_t I = 0; I < *Count; ++I) {
        Value Len = load(Place{Lens.Obj, Lens.I + I * sizeOf(IntT)}, IntT,
                         Call->getArg(1));
        Value Displ = load(Place{Displs.Obj, Displs.I + I * sizeOf(AintT)},
                           AintT, Call->getArg(2));
        Value Type = load(Place{Types.Obj, Types.I + I * sizeOf(TypeT)}, TypeT,
                          Call->getArg(3));
        // A predefined handle stored in the array: its C type's size.
        if (std::optional<Value> Predefined = predefinedHandle(Type))
          Type = *Predefined;
        if (!Len.isInt() || !Displ.isInt() || Type.K != Value::Kind::Datatype) {
          stop("the blocks of MPI_Type_create_struct cannot be followed",
               Call->getBeginLoc());
          return Value::unknown(0);
        }
        Bytes += Len.I * Type.Size;
        Extent = std::max<uint64_t>(Extent, Displ.I + Len.I * Type.Extent);
      }
      return Store(Value::datatype(Bytes, Extent));
    }
    stop("'" + Name.str() + "' is not followed", Call->getBeginLoc());
    return Value::unknown(0);
  }
  if (Name == "MPI_Abort" || Name == "exit" || Name == "abort") {
    stop("the program may end here (" + Name.str() + ")", Call->getBeginLoc());
    return Value::unknown(0);
  }
  Handled = false;
  return Value::unknown(0);
}

//===-- std::vector -------------------------------------------------------===//

/// The element type of \p T if it is a std::vector (or a reference to
/// one); null otherwise.
static QualType vectorElementType(QualType T) {
  const auto *Class = T.getNonReferenceType()->getAsCXXRecordDecl();
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(Class);
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier() ||
      Spec->getName() != "vector")
    return QualType();
  return Spec->getTemplateArgs()[0].getAsType();
}

Value RankEvaluator::Impl::vectorElements(Place Vec, const Expr *VecExpr) {
  QualType Elem = vectorElementType(VecExpr->getType());
  if (Elem.isNull())
    return unknown(spelled(VecExpr) + " is no std::vector",
                   VecExpr->getBeginLoc());
  // The model: the elements' object at offset 0, the size at offset 8.
  QualType SizeT = Ctx.getSizeType();
  QualType PtrT = Ctx.getPointerType(Elem);
  eval::Object &O = Objects[Vec.Obj];
  if (!O.Cells.count(Vec.Off)) {
    // A vector the region did not build: its elements are an object of
    // their own, its size what it was at the region's entry.
    const ValueDecl *Decl = nullptr;
    if (const auto *Member =
            dyn_cast<MemberExpr>(VecExpr->IgnoreParenImpCasts()))
      Decl = Member->getMemberDecl();
    else if (const auto *Ref =
                 dyn_cast<DeclRefExpr>(VecExpr->IgnoreParenImpCasts()))
      Decl = Ref->getDecl();
    std::string Name = Decl
                           ? "the elements of '" + Decl->getNameAsString() + "'"
                           : "the elements of a vector";
    ObjectId Elements = newObject(Name, Decl, false);
    store(Vec, PtrT, Value::pointer(Elements, 0), nullptr);
    Value Count = Decl
                      ? entryValue(Decl, SizeT, VecExpr->getBeginLoc())
                      : unknown("the size of a vector", VecExpr->getBeginLoc());
    store(Place{Vec.Obj, Vec.Off + 8}, SizeT, Count, nullptr);
  }
  return load(Vec, PtrT, VecExpr);
}

Value RankEvaluator::Impl::vectorCall(const CXXMemberCallExpr *Call,
                                      bool &Handled) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  const CXXRecordDecl *Class = Method ? Method->getParent() : nullptr;
  if (!Class || !Class->isInStdNamespace() || !Class->getIdentifier() ||
      Class->getName() != "vector" || !Method->getIdentifier())
    return Value::unknown(0);
  Handled = true;
  const Expr *ObjectExpr = Call->getImplicitObjectArgument();
  std::optional<Place> Vec = place(ObjectExpr);
  if (!Vec)
    return Value::unknown(0);
  QualType Elem = cast<ClassTemplateSpecializationDecl>(Class)
                      ->getTemplateArgs()[0]
                      .getAsType();
  int64_t ElemSize = sizeOf(Elem);
  QualType SizeT = Ctx.getSizeType();
  Value Elements = vectorElements(*Vec, ObjectExpr);
  Value Count = load(Place{Vec->Obj, Vec->Off + 8}, SizeT, Call);
  StringRef Name = Method->getName();
  if (Name == "data")
    return Elements;
  // Iterators are followed as the pointers they wrap.
  if (Name == "begin" || Name == "cbegin")
    return Elements;
  if ((Name == "end" || Name == "cend") && Elements.isPointer()) {
    if (!Count.isInt()) {
      stopWith(Count, "the size of", ObjectExpr);
      return Value::unknown(0);
    }
    return Value::pointer(Elements.Obj, Elements.I + Count.I * ElemSize);
  }
  if (Name == "size")
    return Count;
  if (Name == "empty")
    return Count.isInt() ? Value::integer(Count.I == 0, 1, false) : Count;
  if ((Name == "at" || Name == "operator[]") && Call->getNumArgs() == 1) {
    std::optional<int64_t> I =
        needInt(eval(Call->getArg(0)), Call->getArg(0), "the index");
    if (!I || !Elements.isPointer())
      return Value::unknown(0);
    return Value::pointer(Elements.Obj, Elements.I + *I * ElemSize);
  }
  if ((Name == "resize" || Name == "assign") && Call->getNumArgs() >= 1) {
    Value N = eval(Call->getArg(0));
    store(Place{Vec->Obj, Vec->Off + 8}, SizeT, N, Call);
    if (M == Mode::Region && Elements.isPointer()) {
      RankOp Op;
      Op.K = RankOp::Kind::Local;
      Op.Object = Elements.Obj;
      Op.Bytes = uint64_t(1) << 32;
      Op.Site = Call;
      addOp(std::move(Op), true);
    }
    return Value::integer(0);
  }
  stop("std::vector::" + Name.str() + " is not followed", Call->getBeginLoc());
  return Value::unknown(0);
}

Value RankEvaluator::Impl::construct(const CXXConstructExpr *Construct,
                                     Place Into) {
  const CXXRecordDecl *Class = Construct->getConstructor()->getParent();
  if (Class->isInStdNamespace() && Class->getIdentifier() &&
      Class->getName() == "vector") {
    QualType Elem = cast<ClassTemplateSpecializationDecl>(Class)
                        ->getTemplateArgs()[0]
                        .getAsType();
    // The elements belong to the vector's variable, if it is one.
    const ValueDecl *Owner = Into.Off == 0 ? Objects[Into.Obj].Decl : nullptr;
    ObjectId Elements =
        newObject(Owner ? "the elements of '" + Owner->getNameAsString() + "'"
                        : std::string("the elements of a vector"),
                  Owner, M == Mode::Region);
    Value N = Value::integer(0);
    if (Construct->getNumArgs() >= 1 &&
        !isa<CXXDefaultArgExpr>(Construct->getArg(0)) &&
        Construct->getArg(0)->getType()->isIntegerType())
      N = eval(Construct->getArg(0));
    store(Into, Ctx.getPointerType(Elem), Value::pointer(Elements, 0), nullptr);
    store(Place{Into.Obj, Into.Off + 8}, Ctx.getSizeType(), N, nullptr);
    return Value::pointer(Into.Obj, Into.Off);
  }
  const CXXConstructorDecl *Ctor = Construct->getConstructor();
  if (Ctor->isCopyOrMoveConstructor() && Construct->getNumArgs() >= 1) {
    // Copy the cells the evaluator knows.
    std::optional<Place> From = place(Construct->getArg(0));
    if (From) {
      std::vector<eval::Object::CellMap::Entry> Copied;
      for (const auto &[Off, Cell] : Objects[From->Obj].Cells)
        if (Off >= From->Off)
          Copied.push_back({Into.Off + (Off - From->Off), Cell});
      for (const auto &[Off, Cell] : Copied)
        Objects[Into.Obj].Cells[Off] = Cell;
    }
    return Value::pointer(Into.Obj, Into.Off);
  }
  const FunctionDecl *Def = nullptr;
  if (Ctor->hasBody(Def) && Depth < MaxCallDepth && Into.Off == 0) {
    SmallVector<Value, 4> Args;
    for (const Expr *Arg : Construct->arguments())
      Args.push_back(eval(Arg));
    // Member initializers first, then the body.
    ++Depth;
    Frames.emplace_back();
    Frames.back().F = Def;
    Frames.back().This = Into.Obj;
    for (unsigned I = 0; I < Def->getNumParams() && I < Args.size(); ++I) {
      const ParmVarDecl *Param = Def->getParamDecl(I);
      ObjectId Id = newObject(eval::quoted(*Param), Param, M == Mode::Region,
                              sizeOf(Param->getType()));
      Frames.back().Vars[Param] = Id;
      if (!Param->getType()->isRecordType() &&
          !Param->getType()->isReferenceType())
        store(Place{Id, 0}, Param->getType(), Args[I], nullptr);
    }
    for (const CXXCtorInitializer *Init :
         cast<CXXConstructorDecl>(Def)->inits()) {
      const FieldDecl *Field = Init->getMember();
      if (!Field || !Init->isWritten())
        continue;
      const ASTRecordLayout &Layout =
          Ctx.getASTRecordLayout(Field->getParent());
      int64_t Off =
          Ctx.toCharUnitsFromBits(Layout.getFieldOffset(Field->getFieldIndex()))
              .getQuantity();
      initialize(Place{Into.Obj, Off}, Field->getType(), Init->getInit());
    }
    exec(Def->getBody());
    Frames.pop_back();
    --Depth;
    return Value::pointer(Into.Obj, Into.Off);
  }
  if (Ctor->isTrivial())
    return Value::pointer(Into.Obj, Into.Off);
  if (M == Mode::Region) {
    stop("the constructor of '" + Class->getNameAsString() +
             "' is not followed",
         Construct->getBeginLoc());
    return Value::unknown(0);
  }
  Objects[Into.Obj].ContentWhy =
      reason("built by a constructor of '" + Class->getNameAsString() +
                 "' that is not followed",
             Construct->getBeginLoc());
  return Value::pointer(Into.Obj, Into.Off);
}

void RankEvaluator::Impl::readArguments(const CallExpr *Call, unsigned First) {
  if (M != Mode::Region)
    return;
  for (unsigned I = First; I < Call->getNumArgs(); ++I) {
    Tolerant = true;
    eval(Call->getArg(I));
    Tolerant = false;
    ProbeFailed = false;
  }
}

void RankEvaluator::Impl::writeLocally(Place To, int64_t Bytes,
                                       const Stmt *Site) {
  Objects[To.Obj].Cells.eraseStarting(To.Off, To.Off + Bytes);
  if (M == Mode::Region)
    addLocalWrite(To, Bytes, Site);
}

Value RankEvaluator::Impl::writeString(const CallExpr *Call, StringRef Name) {
  if (Call->getNumArgs() < 2)
    return unknown("a call of '" + Name.str() + "'", Call->getBeginLoc());
  // What it formats or copies is read, as printing reads it.
  readArguments(Call, 1);
  Value To = eval(Call->getArg(0));
  if (!To.isPointer() || To.Obj == eval::NullObject) {
    stopWith(To, "the buffer of", Call);
    return Value::unknown(0);
  }
  // How much it may write: the size it is given, or else the rest of the
  // object (the string's length is not followed).
  int64_t Bytes = -1;
  if (Name == "snprintf" || Name == "strncpy") {
    const Expr *SizeE = Call->getArg(Name == "snprintf" ? 1 : 2);
    std::optional<int64_t> N = needInt(eval(SizeE), SizeE, "the size");
    if (!N)
      return Value::unknown(0);
    Bytes = *N;
  } else if (Objects[To.Obj].Bytes >= To.I) {
    Bytes = Objects[To.Obj].Bytes - To.I;
  }
  if (Bytes < 0) {
    stop("how much '" + Name.str() + "' writes into " + Objects[To.Obj].Name +
             " is not known",
         Call->getBeginLoc());
    return Value::unknown(0);
  }
  writeLocally(Place{To.Obj, To.I}, Bytes, Call);
  if (Name == "snprintf" || Name == "sprintf")
    return unknown("the length '" + Name.str() + "' returns",
                   Call->getBeginLoc());
  return To;
}

//===-- MPI ---------------------------------------------------------------===//

std::optional<Value> RankEvaluator::Impl::datatypeOf(const Expr *Type) {
  // Whether the argument is spelled as a predefined datatype does not
  // change from one run to the next.
  auto [Known, New] = PredefinedBytes.try_emplace(Type, -1);
  if (New) {
    std::string Text = spelled(Type);
    Text = Text.substr(1, Text.size() - 2);
    if (std::optional<uint64_t> Bytes = predefinedTypeSize(Text, Ctx))
      Known->second = static_cast<int64_t>(*Bytes);
  }
  if (Known->second >= 0)
    return Value::datatype(Known->second, Known->second);
  Value V = eval(Type);
  if (V.K == Value::Kind::Datatype)
    return V;
  // A predefined datatype that reached the call through a variable or a
  // function (`MpiType<T>::get()` returning MPI_DOUBLE).
  if (std::optional<Value> Predefined = predefinedHandle(V))
    return Predefined;
  stopWith(V, "the datatype", Type);
  return std::nullopt;
}

std::optional<Value> RankEvaluator::Impl::predefinedHandle(const Value &V) {
  // Open MPI's MPI_DOUBLE is the address of its global ompi_mpi_double.
  if (!V.isPointer() || V.Obj == eval::NullObject || V.I != 0)
    return std::nullopt;
  const auto *Var = dyn_cast_or_null<VarDecl>(Objects[V.Obj].Decl);
  if (!Var || !Var->hasGlobalStorage() || !Var->getDeclName().isIdentifier())
    return std::nullopt;
  StringRef Name = Var->getName();
  if (!Name.consume_front("ompi_mpi_"))
    return std::nullopt;
  std::optional<uint64_t> Bytes =
      predefinedTypeSize("MPI_" + Name.upper(), Ctx);
  if (!Bytes)
    return std::nullopt;
  return Value::datatype(*Bytes, *Bytes);
}

void RankEvaluator::Impl::addOp(RankOp Op, bool Blocking) {
  if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
      !Op.SelfCopy)
    MessageSeen = true;
  Op.After = Frontier;
  Op.Origin = Outer;
  if (Op.K != RankOp::Kind::Local)
    LocalsSinceMessage.clear();
  if (Op.K == RankOp::Kind::Send) {
    auto &Ranges = Sent[Op.Object];
    std::pair<int64_t, int64_t> Range{
        Op.Offset, Op.Offset + static_cast<int64_t>(Op.Bytes)};
    if (Ranges.empty() || Ranges.back() != Range)
      Ranges.push_back(Range);
  }
  Out.Ops.push_back(std::move(Op));
  uint32_t Index = static_cast<uint32_t>(Out.Ops.size() - 1);
  if (Blocking)
    Frontier.assign(1, Index);
}

void RankEvaluator::Impl::copyLocally(Place From, Place To, uint64_t Bytes,
                                      const Stmt *Site) {
  // The values the evaluator knows move along.
  if (From.Obj != eval::NullObject && To.Obj != eval::NullObject) {
    std::vector<std::pair<int64_t, eval::Object::Cell>> Moved;
    for (auto It = Objects[From.Obj].Cells.lower_bound(From.Off);
         It != Objects[From.Obj].Cells.end() &&
         It->first < From.Off + static_cast<int64_t>(Bytes);
         ++It)
      Moved.push_back({To.Off + (It->first - From.Off), It->second});
    eval::Object &Dest = Objects[To.Obj];
    Dest.Cells.eraseStarting(To.Off, To.Off + static_cast<int64_t>(Bytes));
    for (auto &[Off, Cell] : Moved)
      Dest.Cells[Off] = Cell;
  }
  if (M != Mode::Region || Bytes == 0)
    return;
  if (carried(From, static_cast<int64_t>(Bytes)))
    markCarried(To, static_cast<int64_t>(Bytes));
  // A send to the rank itself and its receive, on a tag of their own.
  int32_t Tag = -1000 - static_cast<int32_t>(Out.Ops.size());
  RankOp Send;
  Send.K = RankOp::Kind::Send;
  Send.Object = From.Obj;
  Send.Offset = From.Off;
  Send.Bytes = Bytes;
  Send.Peer = static_cast<int32_t>(Rank);
  Send.Tag = Tag;
  Send.Site = Site;
  Send.SelfCopy = true;
  addOp(Send, /*Blocking=*/false);
  RankOp Recv = Send;
  Recv.K = RankOp::Kind::Recv;
  Recv.Object = To.Obj;
  Recv.Offset = To.Off;
  addOp(Recv, /*Blocking=*/true);
}

void RankEvaluator::Impl::completeRequest(const Value &Request,
                                          const Expr *Where) {
  if (Request.K != Value::Kind::Request) {
    stopWith(Request, "the request", Where);
    return;
  }
  if (Request.Obj == 0)
    return; // MPI_REQUEST_NULL.
  uint32_t Op = RequestOps[Request.Obj];
  if (!llvm::is_contained(Frontier, Op))
    Frontier.push_back(Op);
}

std::optional<uint32_t>
RankEvaluator::Impl::message(const CallExpr *Call, bool Send, mpi::Role Buffer,
                             mpi::Role Count, mpi::Role Type, mpi::Role Peer,
                             mpi::Role Tag, bool Blocking) {
  const mpi::FunctionInfo *Info = mpiCallee(Call);
  auto Arg = [&](mpi::Role R) {
    return Info ? mpiArgAsWritten(Call, *Info, R) : nullptr;
  };
  const Expr *BufE = Arg(Buffer);
  const Expr *CountE = Arg(Count);
  const Expr *TypeE = Arg(Type);
  const Expr *PeerE = Arg(Peer);
  const Expr *TagE = Arg(Tag);
  const Expr *CommE = Arg(mpi::Role::Comm);
  if (!BufE || !CountE || !TypeE || !PeerE || !TagE || !CommE) {
    stop("the call has arguments of roles the evaluator does not know",
         Call->getBeginLoc());
    return std::nullopt;
  }
  if (!Specials)
    Specials = specialRanks(Ctx);
  const eval::SpecialRanks &Special = *Specials;
  Value Comm = eval(CommE);
  // An input that only sizes the message decides nothing else: the judge
  // tries it with two values, not with every rank.
  Value CountValue = eval(CountE);
  uint32_t Deciding = Out.DecidingInputs;
  std::optional<int64_t> N = needInt(CountValue, CountE, "the count");
  Out.DecidingInputs = Deciding;
  Out.CountInputs |= CountValue.Taint;
  std::optional<Value> DT = datatypeOf(TypeE);
  std::optional<int64_t> PeerRank =
      needInt(eval(PeerE), PeerE, Send ? "the destination" : "the source");
  std::optional<int64_t> TagValue = needInt(eval(TagE), TagE, "the tag");
  Value Buf = eval(BufE);
  if (!N || !DT || !PeerRank || !TagValue || stopped())
    return std::nullopt;
  if (!Comm.isKnown()) {
    stopWith(Comm, "the communicator", CommE);
    return std::nullopt;
  }
  if (!Out.Comm)
    Out.Comm = Comm;
  else if (!Out.Comm->same(Comm)) {
    stop("the region's messages use more than one communicator",
         CommE->getBeginLoc());
    return std::nullopt;
  }
  // Rank arithmetic in the argument itself (`(rank - 1) % size`) that
  // lands on a special value names no rank: Open MPI's -1 and -2 are
  // MPI_PROC_NULL and MPI_ANY_SOURCE only by accident.
  const auto *Arith = dyn_cast<BinaryOperator>(PeerE->IgnoreParenImpCasts());
  bool Computed =
      Arith && (Arith->isAdditiveOp() || Arith->isMultiplicativeOp());
  if (*PeerRank == Special.ProcNull && !Computed)
    return std::nullopt; // A message to nobody.
  if (!Send && *PeerRank == Special.AnySource && !Computed) {
    stop("a receive from MPI_ANY_SOURCE: which message it gets depends on "
         "timing",
         PeerE->getBeginLoc());
    return std::nullopt;
  }
  if (!Send && *TagValue == Special.AnyTag) {
    stop("a receive with MPI_ANY_TAG may match another message",
         TagE->getBeginLoc());
    return std::nullopt;
  }
  if (*PeerRank < 0 || *PeerRank >= Size) {
    stop("rank " + std::to_string(Rank) +
             (Send ? " sends to" : " receives from") + " rank " +
             std::to_string(*PeerRank) + ", which does not exist",
         PeerE->getBeginLoc(), /*MissingPeer=*/true);
    return std::nullopt;
  }
  if (*N < 0) {
    stop("a negative count", CountE->getBeginLoc());
    return std::nullopt;
  }
  if (!Buf.isPointer() || (Buf.Obj == eval::NullObject && *N > 0)) {
    stopWith(Buf, "the buffer", BufE);
    return std::nullopt;
  }
  Out.DecidingInputs |= Buf.Taint;
  RankOp Op;
  Op.K = Send ? RankOp::Kind::Send : RankOp::Kind::Recv;
  Op.Object = Buf.Obj;
  Op.Offset = Buf.I;
  Op.Bytes = static_cast<uint64_t>(*N) * DT->Size;
  Op.Peer = static_cast<int32_t>(*PeerRank);
  Op.Tag = static_cast<int32_t>(*TagValue);
  Op.Site = Call;
  Op.Call = Call;
  Op.Count = static_cast<uint64_t>(*N);
  Op.TypeSize = DT->Size;
  // A receive overwrites what the evaluator knew of the buffer.
  if (!Send) {
    Objects[Buf.Obj].Cells.eraseStarting(
        Buf.I, Buf.I + static_cast<int64_t>(Op.Bytes));
    markCarried(Place{Buf.Obj, Buf.I}, static_cast<int64_t>(Op.Bytes));
  }
  if (Send)
    noteSentIndexes(TypeE, Place{Buf.Obj, Buf.I}, *N,
                    static_cast<int64_t>(DT->Size));
  if (Send && Blocking && BufferedSends) {
    // MPI copies the message and the send returns.
    ObjectId Copy = newObject("the copy MPI buffers", nullptr, true,
                              static_cast<int64_t>(Op.Bytes));
    copyLocally(Place{Buf.Obj, Buf.I}, Place{Copy, 0}, Op.Bytes, Call);
    Op.Object = Copy;
    Op.Offset = 0;
    Blocking = false;
  }
  addOp(std::move(Op), Blocking);
  return static_cast<uint32_t>(Out.Ops.size() - 1);
}

Value RankEvaluator::Impl::mpiCall(const CallExpr *Call,
                                   const mpi::FunctionInfo &Info) {
  using mpi::Family;
  using mpi::Role;
  Value Ok = Value::integer(0, 32, true);
  std::string Name = "'" + std::string(Info.Name) + "'";
  if (Info.TheFamily == Family::CommQuery) {
    const Expr *CommE = mpiArgAsWritten(Call, Role::Comm);
    bool Rank2 = Info.Id == mpi::FunctionId::Comm_rank;
    const Expr *OutE =
        mpiArgAsWritten(Call, Rank2 ? Role::RankOut : Role::SizeOut);
    if (!CommE || !OutE)
      return Ok;
    Value Where = eval(OutE);
    if (!Where.isPointer())
      return Ok;
    Value V;
    if (followedCommKey(CommE, *R.Function, TU) == RegionComm ||
        !RegionComm.valid())
      V = Value::integer(Rank2 ? Rank : Size, 32, true);
    else
      V = unknown(std::string(Rank2 ? "the rank" : "the size") + " in " +
                      spelled(CommE) +
                      ", not in the communicator of the "
                      "region's messages",
                  Call->getBeginLoc());
    store(Place{Where.Obj, Where.I}, OutE->getType()->getPointeeType(), V,
          Call);
    return Ok;
  }
  if (Info.TheFamily == Family::CommCreate) {
    // A new communicator (MPI_Comm_split, MPI_Cart_sub): a handle of its
    // own. The region runs on some communicator of each size; its rank and
    // size are what MPI_Comm_rank and MPI_Comm_size on it give.
    const Expr *OutE = mpiArgAsWritten(Call, Role::NewComm);
    Value Where = OutE ? eval(OutE) : Value::unknown(0);
    if (!Where.isPointer() || Where.Obj == eval::NullObject) {
      havocArguments(Call, "written by " + Name);
      return Ok;
    }
    // Named by its call, so that every rank's run calls it the same.
    unsigned Line = SM.getExpansionLineNumber(Call->getBeginLoc());
    ObjectId Handle = newObject("the communicator " + Name + " made at line " +
                                    std::to_string(Line),
                                nullptr, /*Temporary=*/false, 1);
    store(Place{Where.Obj, Where.I}, OutE->getType()->getPointeeType(),
          Value::pointer(Handle, 0), Call);
    return Ok;
  }
  if (M != Mode::Region) {
    // Before the region: what MPI writes is not followed, except that a
    // broadcast or an all-reduction leaves one value on every rank (the
    // region's inputs say which).
    if (Info.TheFamily == Family::Environment)
      return Ok;
    havocArguments(Call, "written by " + Name);
    return Ok;
  }
  switch (Info.TheFamily) {
  case Family::BlockingSend:
    message(Call, true, Role::SendBuffer, Role::Count, Role::Datatype,
            Role::Dest, Role::Tag, true);
    return Ok;
  case Family::BlockingRecv:
    if (Info.Id != mpi::FunctionId::Recv)
      break;
    message(Call, false, Role::RecvBuffer, Role::Count, Role::Datatype,
            Role::Source, Role::Tag, true);
    return Ok;
  case Family::NonblockingSend:
  case Family::NonblockingRecv: {
    bool Send = Info.TheFamily == Family::NonblockingSend;
    if (!Send && Info.Id != mpi::FunctionId::Irecv)
      break;
    std::optional<uint32_t> Op = message(
        Call, Send, Send ? Role::SendBuffer : Role::RecvBuffer, Role::Count,
        Role::Datatype, Send ? Role::Dest : Role::Source, Role::Tag, false);
    const Expr *ReqE = mpiArgAsWritten(Call, Role::Request);
    Value Where = ReqE ? eval(ReqE) : Value::unknown(0);
    if (stopped())
      return Ok;
    if (!Where.isPointer()) {
      stopWith(Where, "the request", ReqE);
      return Ok;
    }
    uint32_t Id = 0;
    if (Op) {
      RequestOps.push_back(*Op);
      Id = static_cast<uint32_t>(RequestOps.size() - 1);
    }
    store(Place{Where.Obj, Where.I}, ReqE->getType()->getPointeeType(),
          Value::request(Id), nullptr);
    return Ok;
  }
  case Family::SendRecv: {
    if (Info.Id != mpi::FunctionId::Sendrecv)
      break;
    size_t Before = Frontier.size();
    (void)Before;
    std::optional<uint32_t> S =
        message(Call, true, Role::SendBuffer, Role::SendCount, Role::SendType,
                Role::Dest, Role::SendTag, false);
    if (stopped())
      return Ok;
    std::optional<uint32_t> Rv =
        message(Call, false, Role::RecvBuffer, Role::RecvCount, Role::RecvType,
                Role::Source, Role::RecvTag, true);
    if (S && !llvm::is_contained(Frontier, *S))
      Frontier.push_back(*S);
    (void)Rv;
    return Ok;
  }
  case Family::Wait: {
    if (Info.Id == mpi::FunctionId::Wait) {
      const Expr *ReqE = mpiArgAsWritten(Call, Role::Request);
      Value Where = ReqE ? eval(ReqE) : Value::unknown(0);
      if (!Where.isPointer()) {
        stopWith(Where, "the request", ReqE);
        return Ok;
      }
      QualType ReqT = ReqE->getType()->getPointeeType();
      completeRequest(load(Place{Where.Obj, Where.I}, ReqT, ReqE), ReqE);
      store(Place{Where.Obj, Where.I}, ReqT, Value::request(0), nullptr);
      return Ok;
    }
    if (Info.Id == mpi::FunctionId::Waitall) {
      const Expr *NE = mpiArgAsWritten(Call, Role::ArrayLength);
      const Expr *ArrE = mpiArgAsWritten(Call, Role::RequestArray);
      std::optional<int64_t> N =
          NE ? needInt(eval(NE), NE, "the number of requests") : std::nullopt;
      Value Arr = ArrE ? eval(ArrE) : Value::unknown(0);
      if (!N)
        return Ok;
      if (!Arr.isPointer()) {
        stopWith(Arr, "the requests", ArrE);
        return Ok;
      }
      QualType ReqT = ArrE->getType()->getPointeeType();
      int64_t Step = sizeOf(ReqT);
      for (int64_t I = 0; I < *N && !stopped(); ++I) {
        Place P{Arr.Obj, Arr.I + I * Step};
        completeRequest(load(P, ReqT, ArrE), ArrE);
        store(P, ReqT, Value::request(0), nullptr);
      }
      return Ok;
    }
    break;
  }
  case Family::Environment:
    if (Info.Id == mpi::FunctionId::Pcontrol)
      return Ok;
    break;
  case Family::NonblockingProbe:
    if (Info.Id == mpi::FunctionId::Iprobe)
      return probe(Call);
    break;
  default:
    break;
  }
  stop("the region calls " + Name + ", which the evaluator does not follow",
       Call->getBeginLoc());
  return Ok;
}

Value RankEvaluator::Impl::probe(const CallExpr *Call) {
  if (!R.ProbesArrive) {
    bool Before = Out.Stopped.has_value();
    stop("MPI_Iprobe says whether a message has arrived, which depends on "
         "timing",
         Call->getBeginLoc());
    if (!Before && Out.Stopped)
      Out.Stopped->Probe = Call;
    return Value::integer(0, 32, true);
  }
  // Listing 7 run to the moment its message is there: the flag says so,
  // and the receive that follows gets it.
  const Expr *FlagE = mpiArgAsWritten(Call, mpi::Role::Flag);
  Value Where = FlagE ? eval(FlagE) : Value::unknown(0);
  if (!Where.isPointer() || Where.Obj == eval::NullObject) {
    stopWith(Where, "the probe's flag", FlagE ? FlagE : Call);
    return Value::integer(0, 32, true);
  }
  store(Place{Where.Obj, Where.I}, FlagE->getType()->getPointeeType(),
        Value::integer(1, 32, true), Call);
  return Value::integer(0, 32, true);
}

void RankEvaluator::Impl::finishOps() {
  // Local writes and copies matter only where messages are: keep those
  // that touch a message buffer, and let what waited for a dropped one
  // wait for what it waited for.
  std::vector<RankOp> &Ops = Out.Ops;
  // By object: a copy into a rank's own block of a message array touches
  // none of its messages' bytes, but the collective's result all the same.
  llvm::SmallDenseSet<ObjectId, 8> Messages;
  for (const RankOp &Op : Ops)
    if ((Op.K == RankOp::Kind::Send || Op.K == RankOp::Kind::Recv) &&
        !Op.SelfCopy)
      Messages.insert(Op.Object);
  auto Touches = [&](const RankOp &Op) { return Messages.count(Op.Object); };
  // Copies join the message buffers they touch, until nothing changes (a
  // chain of copies from a receive buffer to a send buffer).
  std::vector<bool> Keep(Ops.size(), true);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I < Ops.size(); ++I) {
      const RankOp &Op = Ops[I];
      if (Op.K == RankOp::Kind::Local) {
        Keep[I] = Touches(Op);
        continue;
      }
      if (Op.K == RankOp::Kind::Combine) {
        // A combine joins its two objects, as a copy does.
        Keep[I] = Touches(Op) || Messages.count(Op.FromObject);
        if (Keep[I])
          for (ObjectId Obj : {Op.Object, Op.FromObject})
            Changed |= Messages.insert(Obj).second;
        continue;
      }
      if (!Op.SelfCopy || Op.K != RankOp::Kind::Send || I + 1 >= Ops.size())
        continue;
      const RankOp &Into = Ops[I + 1];
      bool Both = Touches(Op) || Touches(Into);
      if (Both)
        for (const RankOp *Half : {&Op, &Into})
          Changed |= Messages.insert(Half->Object).second;
      Keep[I] = Keep[I + 1] = Both;
      ++I;
    }
  }
  std::vector<uint32_t> NewIndex(Ops.size(), UINT32_MAX);
  std::vector<std::vector<uint32_t>> Resolved(Ops.size());
  std::vector<RankOp> &Kept = KeptOps;
  Kept.clear();
  for (size_t I = 0; I < Ops.size(); ++I) {
    std::vector<uint32_t> After;
    for (uint32_t A : Ops[I].After) {
      if (Keep[A]) {
        After.push_back(NewIndex[A]);
        continue;
      }
      for (uint32_t B : Resolved[A])
        After.push_back(B);
    }
    llvm::sort(After);
    After.erase(std::unique(After.begin(), After.end()), After.end());
    if (!Keep[I]) {
      Resolved[I] = std::move(After);
      continue;
    }
    NewIndex[I] = static_cast<uint32_t>(Kept.size());
    Kept.push_back(std::move(Ops[I]));
    Kept.back().After = std::move(After);
  }
  // Reads keep their place among the operations that stay.
  std::vector<uint32_t> KeptBefore(Ops.size() + 1, 0);
  for (size_t I = 0; I < Ops.size(); ++I)
    KeptBefore[I + 1] = KeptBefore[I] + (Keep[I] ? 1 : 0);
  for (RankRead &Read : Out.Reads)
    Read.At = KeptBefore[std::min<size_t>(Read.At, Ops.size())];
  Ops.swap(Kept);
}

} // namespace analysis
} // namespace mpilift
