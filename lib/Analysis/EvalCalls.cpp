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
/// calls are EvalMPI.cpp's; std::vector keeps its elements in an
/// object of their own. Any other call stops the run in the region, and
/// before it makes what it could write unknown.
///
//===----------------------------------------------------------------------===//

#include "RankEvaluatorImpl.h"

#include "RankUniformity.h"
#include "StatementTree.h"

#include "clang/AST/RecordLayout.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Calls are followed this deep.
constexpr unsigned MaxCallDepth = 12;

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
  // Before the region, a broadcast of an input gives it the setting's
  // value on every rank (its value before is not computed).
  if (M == Mode::Prefix)
    if (auto It = UniformedBy.find(Call); It != UniformedBy.end())
      return uniformingCall(Call, It->second);
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
  if (F->isNoReturn() ||
      (TU.project() && TU.project()->neverReturns(functionKey(*F)))) {
    endProgram("the program may end here (" + F->getNameAsString() + ")",
               Call->getBeginLoc());
    return Value::unknown(0);
  }
  if (M == Mode::Region && !Probing && !Tolerant)
    if (std::optional<CombineCall> C = combineCallOf(Call, TU))
      return combineCall(Call, *C);
  if (M == Mode::Region && R.UnknownCallsEnd) {
    endProgram("the program is taken to end here (" + F->getNameAsString() +
                   ")",
               Call->getBeginLoc());
    if (Out.Stopped && Out.Stopped->ProgramEnds && !Out.Stopped->AssumedEnd)
      Out.Stopped->AssumedEnd = F;
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

namespace {

/// The operation MPI names \p Name ("MPI_SUM"); Other for none.
commgraph::ReduceOp reduceOpNamed(StringRef Name) {
  for (uint8_t I = 0; I < static_cast<uint8_t>(commgraph::ReduceOp::Other); ++I)
    if (Name == commgraph::name(static_cast<commgraph::ReduceOp>(I)))
      return static_cast<commgraph::ReduceOp>(I);
  return commgraph::ReduceOp::Other;
}

} // namespace

Value RankEvaluator::Impl::combineCall(const CallExpr *Call,
                                       const CombineCall &C) {
  std::string Name = C.Callee->getNameAsString();
  Value Count = eval(Call->getArg(C.Summary.Count));
  Value From = eval(Call->getArg(C.Summary.From));
  Value Into = eval(Call->getArg(C.Summary.Into));
  if (stopped())
    return Value::unknown(0);
  if (!Count.isInt()) {
    stop("cannot evaluate how many elements '" + Name + "' combines",
         Call->getBeginLoc());
    return Value::unknown(0);
  }
  if (!From.isPointer() || !Into.isPointer() || From.Obj == eval::NullObject ||
      Into.Obj == eval::NullObject) {
    stop("cannot follow the arrays '" + Name + "' combines",
         Call->getBeginLoc());
    return Value::unknown(0);
  }
  QualType Element = C.Element;
  if (Element.isNull() && C.Summary.TypeParam) {
    Value Type = eval(Call->getArg(*C.Summary.TypeParam));
    if (!Type.isInt()) {
      stop("cannot evaluate which type '" + Name + "' combines",
           Call->getBeginLoc());
      return Value::unknown(0);
    }
    std::string Picked = elementFor(C.Summary, Type.I);
    if (Picked.empty())
      return Value::unknown(0); // No arm for this type: nothing happens.
    Element = arithmeticTypeNamed(Picked, Ctx);
  }
  if (Element.isNull()) {
    stop("cannot tell which type '" + Name + "' combines", Call->getBeginLoc());
    return Value::unknown(0);
  }
  int64_t Bytes = sizeOf(Element);
  commgraph::ReduceOp Op = reduceOpNamed(C.Summary.Op);
  std::string Combined = "the elements '" + Name + "' combines";
  for (int64_t K = 0; K < Count.I; ++K) {
    if (!tick(Call))
      return Value::unknown(0);
    Place To{Into.Obj, Into.I + K * Bytes};
    Place Source{From.Obj, From.I + K * Bytes};
    // Neither side from a message: values the evaluation does not follow.
    if (!carried(To, Bytes) && !carried(Source, Bytes)) {
      store(To, Element,
            unknown(Combined + " from values no message carried",
                    Call->getBeginLoc()),
            nullptr);
      continue;
    }
    recordCombine(To, Source, Element, Op, PairTies::None, Combined, Call);
  }
  return Value::unknown(0);
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
                                         const std::string &Why,
                                         bool KeepConst) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    const Expr *Arg = Call->getArg(I);
    if (!Arg->getType()->isPointerType() && !Arg->isGLValue())
      continue;
    // MPI reads what it takes through a pointer to const (send buffers).
    if (KeepConst && Callee && I < Callee->getNumParams() &&
        Callee->getParamDecl(I)->getType()->isPointerType() &&
        Callee->getParamDecl(I)->getType()->getPointeeType().isConstQualified())
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
    ObjectId Block = newObject("the block allocated here", nullptr,
                               M == Mode::Region, Bytes);
    Objects[Block].Allocated = true;
    if (Name == "calloc")
      zeroFill(Block, Bytes, Call);
    return Value::pointer(Block, 0);
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
    endProgram("the program may end here (" + Name.str() + ")",
               Call->getBeginLoc());
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
  if ((Name == "front" || Name == "back") && Call->getNumArgs() == 0) {
    if (!Count.isInt()) {
      stopWith(Count, "the size of", ObjectExpr);
      return Value::unknown(0);
    }
    if (Count.I <= 0 || !Elements.isPointer()) {
      stop("std::vector::" + Name.str() + " of an empty vector",
           Call->getBeginLoc());
      return Value::unknown(0);
    }
    return Value::pointer(Elements.Obj,
                          Elements.I +
                              (Name == "back" ? (Count.I - 1) * ElemSize : 0));
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
        Construct->getArg(0)->getType()->isIntegerType()) {
      N = eval(Construct->getArg(0));
      // `std::vector<int> v(n)` holds n zeros, `v(n, x)` n copies of x.
      bool Filled = Construct->getNumArgs() >= 2 &&
                    !isa<CXXDefaultArgExpr>(Construct->getArg(1));
      if (N.isInt())
        fillElements(Elements, Elem, N.I,
                     Filled ? eval(Construct->getArg(1)) : Value::integer(0));
    }
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

void RankEvaluator::Impl::zeroFill(ObjectId Block, int64_t Bytes,
                                   const CallExpr *Call) {
  // The elements' type is the pointer's the block is converted to
  // (`int *counts = calloc(n, sizeof(int));`).
  const Stmt *Parent = parentStmt(*Call, Ctx);
  while (isa_and_nonnull<ParenExpr>(Parent))
    Parent = parentStmt(*Parent, Ctx);
  const auto *Cast = dyn_cast_or_null<CastExpr>(Parent);
  QualType Element = Cast && Cast->getType()->isPointerType()
                         ? Cast->getType()->getPointeeType()
                         : QualType();
  if (Element.isNull() || !Element->isIntegralOrEnumerationType())
    return;
  int64_t Size = sizeOf(Element);
  if (Size > 0 && Bytes >= 0 && Bytes % Size == 0)
    fillElements(Block, Element, Bytes / Size,
                 Value::integer(0, Ctx.getIntWidth(Element),
                                Element->isSignedIntegerOrEnumerationType()));
}

void RankEvaluator::Impl::fillElements(ObjectId Block, QualType Element,
                                       int64_t Count, const Value &V) {
  int64_t Size = sizeOf(Element);
  constexpr int64_t MaxFilledBytes = 1 << 20;
  if (!Element->isIntegralOrEnumerationType() || !V.isInt() || Size <= 0 ||
      Count < 0 || Count * Size > MaxFilledBytes)
    return;
  Value Stored = Value::integer(V.I, Ctx.getIntWidth(Element),
                                Element->isSignedIntegerOrEnumerationType());
  eval::Object &O = Objects[Block];
  for (int64_t Off = 0; Off < Count * Size; Off += Size)
    O.Cells[Off] = {Stored, static_cast<uint32_t>(Size)};
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

Value RankEvaluator::Impl::uniformingCall(const CallExpr *Call,
                                          const Uniforming &U) {
  Value Result = Value::integer(0, 32, true); // MPI_SUCCESS.
  if (const mpi::FunctionInfo *Info = mpiCallee(Call)) {
    Result = mpiCall(Call, *Info);
  } else {
    // The program's own broadcast: what else it writes is not followed; a
    // run without MPI errors gets MPI_SUCCESS where it returns MPI codes.
    havocArguments(Call, "written by " + spelled(Call->getCallee()),
                   /*KeepConst=*/true);
    const FunctionDecl *F = Call->getDirectCallee();
    if (!F || !RankUniformity(TU).returnsMPICode(*F))
      Result = unknown("the result of " + spelled(Call->getCallee()),
                       Call->getBeginLoc());
  }
  if (stopped())
    return Result;
  if (InputBit.count(U.Var)) {
    assignInput(U.Var);
    return Result;
  }
  // Not the same on every rank where the region reads it: no value, and
  // the reason why.
  ObjectId Obj = objectOfVar(U.Var, Call->getBeginLoc());
  eval::Object &O = Objects[Obj];
  O.Cells.clear();
  O.Cells[0] = {unknown(eval::quoted(*U.Var) + " is broadcast by " +
                            spelled(Call->getCallee()) +
                            ", but is not proven the same on every rank "
                            "where the region reads it: " +
                            U.NotSame.value_or("it is not an input"),
                        Call->getBeginLoc()),
                static_cast<uint32_t>(sizeOf(U.Var->getType()))};
  return Result;
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

} // namespace analysis
} // namespace mpilift
