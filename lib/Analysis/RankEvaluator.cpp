//===- RankEvaluator.cpp - Statements and memory -------------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The interpreter proper: statements (blocks, declarations, if, loops,
/// switch, jumps) and a byte-addressed memory of objects. Expressions are
/// in EvalExpr.cpp, calls in EvalCalls.cpp, what the region reads from
/// outside in EvalEntry.cpp.
///
//===----------------------------------------------------------------------===//

#include "RankEvaluatorImpl.h"

#include "CombineForms.h"

#include "StatementTree.h"

#include "mpilift/Analysis/MPICalls.h"

#include "clang/AST/RecordLayout.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// Runs are bounded: a region that loops this long is not a pattern we can
/// follow (or never ends without input).
constexpr uint64_t MaxSteps = 4'000'000;

} // namespace

bool Region::contains(const Stmt *S, const SourceManager &SM) const {
  SourceLocation Loc = SM.getExpansionLoc(S->getBeginLoc());
  return SM.isPointWithin(Loc, SM.getExpansionLoc(first()->getBeginLoc()),
                          SM.getExpansionLoc(last()->getEndLoc()));
}

bool Region::contains(const Decl *D, const SourceManager &SM) const {
  SourceLocation Loc = SM.getExpansionLoc(D->getLocation());
  return SM.isPointWithin(Loc, SM.getExpansionLoc(first()->getBeginLoc()),
                          SM.getExpansionLoc(last()->getEndLoc()));
}

RankEvaluator::RankEvaluator(TranslationUnitFacts &TU, const Region &R)
    : P(std::make_unique<Impl>(TU, R)) {}

RankEvaluator::~RankEvaluator() = default;

RankRun RankEvaluator::run(int64_t Rank, int64_t Size,
                           ArrayRef<int64_t> Setting) {
  RankRun Run;
  P->run(Rank, Size, Setting, Run);
  return Run;
}

void RankEvaluator::run(int64_t Rank, int64_t Size, ArrayRef<int64_t> Setting,
                        RankRun &Into) {
  P->run(Rank, Size, Setting, Into);
}

ArrayRef<RegionInput> RankEvaluator::inputs() const { return P->Inputs; }

const CommKey &RankEvaluator::regionComm() const { return P->regionComm(); }

eval::Reason RankEvaluator::reasonOf(uint32_t Why) const {
  return Why < P->reasons() ? P->reasonOf(Why) : eval::Reason();
}

std::vector<std::vector<int64_t>>
inputSettings(size_t NumInputs,
              llvm::function_ref<std::vector<int64_t>(unsigned)> ValuesOf) {
  std::vector<std::vector<int64_t>> Out = {
      std::vector<int64_t>(NumInputs, RankEvaluator::DefaultInput)};
  for (unsigned Bit = 0; Bit < NumInputs; ++Bit) {
    std::vector<int64_t> Values = ValuesOf(Bit);
    if (Values.empty())
      continue;
    std::vector<std::vector<int64_t>> Next;
    for (const std::vector<int64_t> &S : Out)
      for (int64_t X : Values) {
        Next.push_back(S);
        Next.back()[Bit] = X;
      }
    Out = std::move(Next);
  }
  return Out;
}

void RankEvaluator::setProbes(ArrayRef<Probe> Probes) {
  P->Probes.assign(Probes.begin(), Probes.end());
  P->AnchorProbesAreEntryProbes = P->AnchorProbes == P->Probes;
  P->LiveProbes.clear();
}

void RankEvaluator::setLiveProbes(std::vector<bool> Live) {
  P->LiveProbes = std::move(Live);
}

void RankEvaluator::setBufferedSends(bool Buffered) {
  P->BufferedSends = Buffered;
}

void RankEvaluator::setAnchors(ArrayRef<const Stmt *> Anchors,
                               ArrayRef<Probe> Probes, bool UntilFirstMessage) {
  P->Anchors.clear();
  P->Anchors.insert(Anchors.begin(), Anchors.end());
  P->AnchorProbes.assign(Probes.begin(), Probes.end());
  P->AnchorProbesAreEntryProbes = P->AnchorProbes == P->Probes;
  P->AnchorsUntilFirstMessage = UntilFirstMessage;
  P->LiveProbes.clear();
}

RankEvaluator::Impl::Impl(TranslationUnitFacts &TU, const Region &R)
    : TU(TU), Ctx(TU.context()), SM(Ctx.getSourceManager()), R(R) {
  findPath();
  findRegionComm();
  computeNeeded();
  findInputs();
}

/// Empties \p Run for another run, keeping the memory of its arrays.
static void recycle(RankRun &Run) {
  Run.Ops.clear();
  Run.Stopped.reset();
  Run.DecidingInputs = Run.CountInputs = Run.ReadInputs = 0;
  Run.Objects.clear();
  Run.Comm.reset();
  Run.Probes.clear();
  Run.Reached = false;
  Run.Steps = 0;
  Run.Reads.clear();
}

void RankEvaluator::Impl::run(int64_t TheRank, int64_t TheSize,
                              ArrayRef<int64_t> TheSetting, RankRun &Into) {
  Rank = TheRank;
  Size = TheSize;
  Setting.assign(TheSetting.begin(), TheSetting.end());
  while (Setting.size() < Inputs.size())
    Setting.push_back(RankEvaluator::DefaultInput);
  M = Mode::Prefix;
  Out = std::move(Into);
  recycle(Out);
  AnchorsPassed.clear();
  MessageSeen = false;
  Reasons.clear();
  Reasons.push_back({"", SourceLocation()}); // Reason 0: none.
  Objects.swap(Out.Objects);
  Objects.clear();
  Objects.emplace_back(); // The null object.
  Objects.back().Name = "null";
  Frames.clear();
  Globals.clear();
  Frontier.clear();
  LocalsSinceMessage.clear();
  UnfollowedCasts.clear();
  RequestOps.assign(1, UINT32_MAX);
  Sent.clear();
  Carried.clear();
  Steps = 0;
  Depth = 0;
  NextOpaque = 1;

  const FunctionDecl &F = *R.Function;
  Frames.emplace_back();
  Frames.back().F = &F;
  for (const ParmVarDecl *Param : F.parameters())
    objectOfVar(Param, Param->getLocation());
  exec(F.getBody());
  finishOps();
  Out.Steps = Steps;
  Out.Objects.swap(Objects);
  Into = std::move(Out);
}

//===-- Bookkeeping -------------------------------------------------------===//

uint32_t RankEvaluator::Impl::reason(std::string Text, SourceLocation Loc,
                                     const ValueDecl *Entry) {
  Reasons.push_back({std::move(Text), Loc, false, nullptr, Entry});
  return static_cast<uint32_t>(Reasons.size() - 1);
}

void RankEvaluator::Impl::stop(std::string Text, SourceLocation Loc,
                               bool MissingPeer, const ValueDecl *Entry) {
  if (Probing || Tolerant) {
    ProbeFailed = true;
    return;
  }
  // A reason found inside a system header (a std::vector's operator[])
  // is shown at the statement of the region's function that got there.
  if (Loc.isValid() && Outer && SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
    Loc = Outer->getBeginLoc();
  if (!Out.Stopped)
    Out.Stopped = eval::Reason{std::move(Text), Loc, MissingPeer, Outer, Entry};
}

void RankEvaluator::Impl::endProgram(std::string Text, SourceLocation Loc) {
  bool Before = Out.Stopped.has_value();
  stop(std::move(Text), Loc);
  if (!Before && Out.Stopped)
    Out.Stopped->ProgramEnds = true;
}

void RankEvaluator::Impl::stopWith(const Value &Why, StringRef What,
                                   const Expr *E) {
  const eval::Reason &Inner = Reasons[Why.Why];
  std::string Text = What.str() + " " + spelled(E) + " cannot be evaluated";
  if (!Inner.Text.empty())
    Text += ": " + Inner.Text;
  stop(Text, Inner.Loc.isValid() ? Inner.Loc : E->getBeginLoc(), false,
       Inner.Entry);
}

std::string RankEvaluator::Impl::spelled(const Expr *E) const {
  CharSourceRange Range = SM.getExpansionRange(E->getSourceRange());
  return "'" + Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str() + "'";
}

bool RankEvaluator::Impl::tick(const Stmt *S) {
  if (++Steps <= MaxSteps)
    return true;
  stop("the evaluation did not finish in " + std::to_string(MaxSteps) +
           " steps",
       S->getBeginLoc());
  return false;
}

ObjectId RankEvaluator::Impl::newObject(std::string Name, const ValueDecl *Decl,
                                        bool Temporary, int64_t Bytes) {
  Objects.emplace_back();
  eval::Object &O = Objects.back();
  O.Name = std::move(Name);
  O.Decl = Decl;
  O.Temporary = Temporary;
  O.Bytes = Bytes;
  return static_cast<ObjectId>(Objects.size() - 1);
}

int64_t RankEvaluator::Impl::sizeOf(QualType T) const {
  if (T.isNull())
    return 1;
  auto [It, New] =
      TypeSizes.try_emplace(T.getCanonicalType().getAsOpaquePtr(), int64_t(1));
  if (!New)
    return It->second;
  if (T->isIncompleteType() || T->isDependentType() || T->isVoidType() ||
      T->isFunctionType())
    It->second = 1;
  else if (T->isVariableArrayType())
    It->second = -1;
  else
    It->second = Ctx.getTypeSizeInChars(T).getQuantity();
  return It->second;
}

ObjectId RankEvaluator::Impl::objectOfVar(const VarDecl *V,
                                          SourceLocation Use) {
  if (V->hasGlobalStorage() && !V->isStaticLocal()) {
    auto [It, New] = Globals.try_emplace(V, eval::NullObject);
    if (New) {
      It->second = newObject(eval::quoted(*V), V, false, sizeOf(V->getType()));
      Place P{It->second, 0};
      if (!V->getType()->isArrayType() && !V->getType()->isRecordType())
        store(P, V->getType(), entryValue(V, V->getType(), Use), nullptr);
    }
    return It->second;
  }
  // Locals live in the frame that declared them; the innermost frame of
  // the function is searched first.
  for (auto F = Frames.rbegin(); F != Frames.rend(); ++F) {
    auto It = F->Vars.find(V);
    if (It != F->Vars.end())
      return It->second;
    if (F->F == V->getParentFunctionOrMethod())
      break;
  }
  Frame &Top = Frames.back();
  ObjectId Id =
      newObject(eval::quoted(*V), V, M == Mode::Region, sizeOf(V->getType()));
  Top.Vars[V] = Id;
  // A parameter of the region's function, or a variable the run did not
  // declare (static locals): its value at the region's entry.
  if (Frames.size() == 1 && V->getType()->isReferenceType() &&
      isa<ParmVarDecl>(V)) {
    // A reference parameter is bound to an object of the caller's.
    ObjectId Referent =
        newObject("what " + eval::quoted(*V) + " refers to", V, false);
    Objects[Referent].AtEntry = true;
    store(Place{Id, 0}, Ctx.getPointerType(V->getType().getNonReferenceType()),
          Value::pointer(Referent, 0), nullptr);
  } else if (Frames.size() == 1 && !V->getType()->isArrayType() &&
             !V->getType()->isRecordType()) {
    store(Place{Id, 0}, V->getType(), entryValue(V, V->getType(), Use),
          nullptr);
  }
  return Id;
}

ObjectId RankEvaluator::Impl::thisObject() {
  Frame &F = Frames.back();
  if (F.This == eval::NullObject) {
    const auto *Method = dyn_cast<CXXMethodDecl>(F.F);
    F.This = newObject("the object '" +
                           (Method ? Method->getParent()->getNameAsString()
                                   : std::string("?")) +
                           "' runs on",
                       nullptr, false);
  }
  return F.This;
}

//===-- Memory ------------------------------------------------------------===//

Value RankEvaluator::Impl::load(Place P, QualType T, const Expr *Where) {
  if (P.Obj == eval::NullObject)
    return unknown("a null pointer is read", Where->getBeginLoc());
  eval::Object &O = Objects[P.Obj];
  int64_t Bytes = sizeOf(T);
  if (M == Mode::Region && !Probing && Current) {
    const auto *Var = dyn_cast_or_null<VarDecl>(O.Decl);
    bool Scalar = Var && Var->getType()->isScalarType();
    if (!Scalar || carried(P, Bytes))
      Out.Reads.push_back({P.Obj, P.Off, static_cast<uint64_t>(Bytes),
                           static_cast<uint32_t>(Out.Ops.size()), Current,
                           Outer, Scalar});
  }
  auto It = O.Cells.find(P.Off);
  if (It != O.Cells.end() && It->second.Bytes == Bytes) {
    Value V = It->second.V;
    if (V.K == Value::Kind::Unknown || !V.FromObj) {
      V.FromObj = P.Obj;
      V.FromOff = P.Off;
    }
    return V;
  }
  // A field of the object a member function runs on, or of what a
  // parameter points to, read before the run wrote it: its value at the
  // region's entry.
  if ((P.Obj == Frames.front().This || O.AtEntry) && It == O.Cells.end())
    if (const auto *Member = dyn_cast<MemberExpr>(Where->IgnoreParenImpCasts()))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl())) {
        Value V = entryValue(Field, T, Where->getBeginLoc());
        store(P, T, V, nullptr);
        V.FromObj = P.Obj;
        V.FromOff = P.Off;
        return V;
      }
  Value V = O.ContentWhy
                ? Value::unknown(O.ContentWhy)
                : unknown("the content of " + O.Name + " is not followed here",
                          Where->getBeginLoc());
  V.FromObj = P.Obj;
  V.FromOff = P.Off;
  return V;
}

void RankEvaluator::Impl::store(Place P, QualType T, const Value &V,
                                const Stmt *Site) {
  if (P.Obj == eval::NullObject)
    return;
  eval::Object &O = Objects[P.Obj];
  int64_t Bytes = std::max<int64_t>(sizeOf(T), 1);
  // Drop the cells the store overlaps.
  int64_t Begin = P.Off;
  auto It = O.Cells.lower_bound(P.Off);
  if (It != O.Cells.begin()) {
    auto Prev = std::prev(It);
    if (Prev->first + Prev->second.Bytes > P.Off)
      Begin = Prev->first;
  }
  O.Cells.eraseStarting(Begin, P.Off + Bytes);
  Value Stored = V;
  Stored.FromObj = eval::NullObject;
  O.Cells[P.Off] = {Stored, static_cast<uint32_t>(Bytes)};
  if (M != Mode::Region || !Site)
    return;
  // In the region every store may change a message: a copy of loaded data
  // keeps where it came from, anything else is the rank's own data.
  // A scalar variable's value stored elsewhere is the rank's own data
  // (`buf[0] = value;` at a broadcast's root), unless it came from a
  // message (`passing = incoming;` in a ring that forwards it).
  const auto *FromVar =
      V.FromObj ? dyn_cast_or_null<VarDecl>(Objects[V.FromObj].Decl) : nullptr;
  bool FromBuffer = V.FromObj != eval::NullObject &&
                    (!(FromVar && FromVar->getType()->isScalarType()) ||
                     carried(Place{V.FromObj, V.FromOff}, Bytes));
  if (FromBuffer && V.FromObj != P.Obj) {
    copyLocally(Place{V.FromObj, V.FromOff}, P, Bytes, Site);
    return;
  }
  if (auto It = Carried.find(P.Obj); It != Carried.end())
    llvm::erase_if(It->second, [&](std::pair<int64_t, int64_t> R) {
      return P.Off <= R.first && R.second <= P.Off + Bytes;
    });
  // Bytes the rank sent before hold new data now: to the dataflow they
  // come from an object of their own, so a later send of them does not
  // look like the same message.
  if (wasSent(P.Obj, P.Off, Bytes)) {
    ObjectId Fresh = newObject("a new value of " + Objects[P.Obj].Name, nullptr,
                               false, Bytes);
    copyLocally(Place{Fresh, 0}, P, Bytes, Site);
    return;
  }
  // One scalar variable's value in another (`total = local;`): the rank's
  // own data, which a reduction reads as the first one's.
  const auto *ToVar = dyn_cast_or_null<VarDecl>(Objects[P.Obj].Decl);
  bool Elsewhere = V.FromObj != P.Obj || V.FromOff != P.Off;
  if (FromVar && FromVar->getType()->isScalarType() && ToVar &&
      ToVar->getType()->isScalarType() && !T->isPointerType() && Elsewhere &&
      V.FromObj != eval::NullObject)
    addLocalWrite(P, Bytes, Site, Place{V.FromObj, V.FromOff});
  else
    addLocalWrite(P, Bytes, Site);
}

void RankEvaluator::Impl::addLocalWrite(Place P, int64_t Bytes,
                                        const Stmt *Site,
                                        std::optional<Place> CopyOf) {
  // The same statement writing the same bytes again, with no message in
  // between, adds nothing the dataflow could tell apart (a compute loop's
  // `s += x` a million times is one write).
  if (!CopyOf &&
      !LocalsSinceMessage.insert({P.Obj, P.Off, Bytes, Site, Outer}).second)
    return;
  RankOp Op;
  Op.K = RankOp::Kind::Local;
  Op.Object = P.Obj;
  Op.Offset = P.Off;
  Op.Bytes = Bytes;
  Op.Site = Site;
  if (CopyOf) {
    Op.CopyOf = true;
    Op.FromObject = CopyOf->Obj;
    Op.FromOffset = CopyOf->Off;
  }
  addOp(std::move(Op), /*Blocking=*/true);
}

bool RankEvaluator::Impl::carried(Place P, int64_t Bytes) const {
  auto It = Carried.find(P.Obj);
  if (It == Carried.end())
    return false;
  for (auto [Begin, End] : It->second)
    if (Begin < P.Off + Bytes && P.Off < End)
      return true;
  return false;
}

void RankEvaluator::Impl::markCarried(Place P, int64_t Bytes) {
  if (P.Obj == eval::NullObject || Bytes <= 0 || carried(P, Bytes))
    return;
  Carried[P.Obj].push_back({P.Off, P.Off + Bytes});
}

bool RankEvaluator::Impl::combine(const Stmt *S) {
  if (M != Mode::Region || Probing || Tolerant)
    return false;
  const std::optional<CombineForm> &Form =
      combineFormOf(S, [&] { return combineForm(S, Ctx); });
  if (!Form)
    return false;
  // Where the accumulator is, as a probe: what cannot be followed here is
  // left to the statement's plain evaluation, which says why.
  bool WasProbing = std::exchange(Probing, true);
  ProbeFailed = false;
  std::optional<Place> Into = place(Form->Into);
  bool Failed = std::exchange(ProbeFailed, false);
  Probing = WasProbing;
  if (!Into || Failed || stopped())
    return false;
  return combineInto(*Form, *Into, combinedType(*Form), spelled(Form->Into), S);
}

bool RankEvaluator::Impl::combineDeclared(const VarDecl &V, Place At) {
  if (M != Mode::Region || Probing || Tolerant || !V.getInit())
    return false;
  const std::optional<CombineForm> &Form =
      combineFormOf(V.getInit(), [&] { return declaredCombine(V, Ctx); });
  return Form &&
         combineInto(*Form, At, V.getType(), eval::quoted(V), V.getInit());
}

const std::optional<CombineForm> &RankEvaluator::Impl::combineFormOf(
    const Stmt *S, llvm::function_ref<std::optional<CombineForm>()> Spelled) {
  auto [It, New] = CombineForms.try_emplace(S);
  if (New) {
    It->second = Spelled();
    // `v[i]` of a std::vector is a call, and no side effect.
    auto Effects = [&](const Expr *E) {
      return E && E->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false);
    };
    if (It->second && (Effects(It->second->Into) || Effects(It->second->From) ||
                       Effects(It->second->Base)))
      It->second.reset();
  }
  return It->second;
}

bool RankEvaluator::Impl::combineInto(const CombineForm &Form, Place Into,
                                      QualType T, const std::string &Name,
                                      const Stmt *S) {
  int64_t Bytes = sizeOf(T);
  bool WasProbing = std::exchange(Probing, true);
  ProbeFailed = false;
  std::optional<Place> From = place(Form.From);
  std::optional<Place> Base =
      From && Form.Base ? place(Form.Base) : std::nullopt;
  bool Failed = std::exchange(ProbeFailed, false);
  Probing = WasProbing;
  if (!From || (Form.Base && !Base) || Failed || stopped() || Bytes <= 0)
    return false;
  // A pair's value fields start the structures combined.
  bool SameType = !Form.PairType.isNull() ||
                  Ctx.hasSameUnqualifiedType(T, Form.From->getType());
  if (Form.Base && !Ctx.hasSameUnqualifiedType(T, Form.Base->getType()))
    return false;
  if (!carried(Base ? *Base : Into, Bytes) && !carried(*From, Bytes))
    return false;
  if (!Form.PairType.isNull())
    noteCombinedIndexes(Form.PairType, Base ? *Base : Into, *From);
  // `end = before + records`: the first operand copied, the second
  // combined into it.
  if (Base)
    copyLocally(*Base, Into, static_cast<uint64_t>(Bytes), S);
  // Values of another size (an int added to a double) are converted
  // first: no MPI operation does that.
  recordCombine(Into, *From, T, SameType ? Form.Op : commgraph::ReduceOp::Other,
                Form.Ties, Name, S);
  return true;
}

void RankEvaluator::Impl::recordCombine(Place Into, Place From, QualType T,
                                        commgraph::ReduceOp CombineOp,
                                        PairTies Ties, const std::string &Name,
                                        const Stmt *S) {
  int64_t Bytes = sizeOf(T);
  RankOp Op;
  Op.K = RankOp::Kind::Combine;
  Op.Object = Into.Obj;
  Op.Offset = Into.Off;
  Op.Bytes = static_cast<uint64_t>(Bytes);
  Op.FromObject = From.Obj;
  Op.FromOffset = From.Off;
  Op.CombineOp = CombineOp;
  Op.Element = T;
  Op.Ties = Ties;
  Op.FromCarried = carried(From, Bytes);
  Op.Site = S;
  addOp(std::move(Op), /*Blocking=*/true);
  store(Into, T,
        unknown("the value of " + Name + " combines data from messages",
                S->getBeginLoc()),
        nullptr);
  markCarried(Into, Bytes);
}

bool RankEvaluator::Impl::holdsRank(Place P) const {
  if (P.Obj == eval::NullObject)
    return false;
  const eval::Object &O = Objects[P.Obj];
  const auto *Cell = O.Cells.find(P.Off);
  return Cell != O.Cells.end() && Cell->second.Bytes == 4 &&
         Cell->second.V.isInt() && Cell->second.V.I == Rank;
}

void RankEvaluator::Impl::noteSentIndexes(const Expr *Type, Place Buffer,
                                          int64_t Count, int64_t Bytes) {
  if (Out.OwnIndexNotRank || Count <= 0)
    return;
  auto [Known, New] = PairTypes.try_emplace(Type, nullptr);
  if (New)
    Known->second = pairDatatype(mpiHandleName(Type, Ctx));
  const PairDatatype *Pair = Known->second;
  // Long messages of pairs are not checked element by element.
  constexpr int64_t MaxPairs = 4096;
  if (!Pair || Count > MaxPairs) {
    Out.OwnIndexNotRank = true;
    return;
  }
  int64_t Index = static_cast<int64_t>(pairIndexOffset(*Pair, Ctx));
  for (int64_t K = 0; K < Count && !Out.OwnIndexNotRank; ++K) {
    Place Element{Buffer.Obj, Buffer.Off + K * Bytes};
    if (!carried(Element, Bytes) &&
        !holdsRank(Place{Element.Obj, Element.Off + Index}))
      Out.OwnIndexNotRank = true;
  }
}

void RankEvaluator::Impl::noteCombinedIndexes(QualType Pair, Place Into,
                                              Place From) {
  const RecordDecl *Record = Pair->getAsRecordDecl();
  if (!Record || !Record->getDefinition()) {
    Out.OwnIndexNotRank = true;
    return;
  }
  const ASTRecordLayout &Layout = Ctx.getASTRecordLayout(Record);
  int64_t Bytes = sizeOf(Pair);
  int64_t Index =
      Ctx.toCharUnitsFromBits(Layout.getFieldOffset(1)).getQuantity();
  for (Place Side : {Into, From})
    if (!carried(Side, Bytes) && !holdsRank(Place{Side.Obj, Side.Off + Index}))
      Out.OwnIndexNotRank = true;
}

bool RankEvaluator::Impl::wasSent(ObjectId Obj, int64_t Off, int64_t Bytes) {
  auto It = Sent.find(Obj);
  if (It == Sent.end())
    return false;
  for (auto [Begin, End] : It->second)
    if (Begin < Off + Bytes && Off < End)
      return true;
  return false;
}

void RankEvaluator::Impl::initialize(Place P, QualType T, const Expr *Init) {
  if (!Init)
    return;
  // The value as written: stripping the implicit nodes would also strip
  // the load of an lvalue (`int me = w.me;` would be given its address).
  const Expr *Written = Init;
  Init = Init->IgnoreImplicit();
  if (const auto *List = dyn_cast<InitListExpr>(Init)) {
    if (const auto *Array = Ctx.getAsConstantArrayType(T)) {
      QualType Elem = Array->getElementType();
      int64_t Step = sizeOf(Elem);
      for (unsigned I = 0; I < List->getNumInits(); ++I)
        initialize(Place{P.Obj, P.Off + I * Step}, Elem, List->getInit(I));
      // The rest of the array is zero.
      for (uint64_t I = List->getNumInits();
           I < Array->getSize().getZExtValue() && I < 4096; ++I)
        if (Elem->isScalarType())
          store(Place{P.Obj, P.Off + int64_t(I) * Step}, Elem,
                Value::integer(0), List);
      return;
    }
    if (const auto *Record = T->getAsRecordDecl()) {
      const ASTRecordLayout &Layout = Ctx.getASTRecordLayout(Record);
      unsigned I = 0;
      for (const FieldDecl *Field : Record->fields()) {
        if (I >= List->getNumInits())
          break;
        int64_t Off = Ctx.toCharUnitsFromBits(
                             Layout.getFieldOffset(Field->getFieldIndex()))
                          .getQuantity();
        initialize(Place{P.Obj, P.Off + Off}, Field->getType(),
                   List->getInit(I++));
      }
      return;
    }
    if (List->getNumInits() == 1)
      initialize(P, T, List->getInit(0));
    return;
  }
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Init)) {
    construct(Construct, P);
    return;
  }
  if (isa<StringLiteral>(Init) || T->isArrayType() || T->isRecordType())
    return; // Contents not followed: loads of it say so.
  store(P, T, eval(Written), Init);
}

//===-- Statements --------------------------------------------------------===//

RankEvaluator::Impl::Flow RankEvaluator::Impl::runUniformExit(const Stmt *S) {
  const Stmt *SavedExit = std::exchange(ForcedExit, S);
  bool SavedTolerant = std::exchange(Tolerant, true);
  // What the exit tests decides only whether every rank reaches the region
  // or none does, not what the region does.
  uint32_t Deciding = Out.DecidingInputs;
  Flow F = exec(S);
  Out.DecidingInputs = Deciding;
  Tolerant = SavedTolerant;
  ForcedExit = SavedExit;
  ProbeFailed = false;
  // Undecided: every rank takes the same way, so the region is reached by
  // all of them or by none.
  if (F == Flow::Stop && !stopped())
    return Flow::Normal;
  return F;
}

RankEvaluator::Impl::Flow RankEvaluator::Impl::exec(const Stmt *S) {
  bool Init = std::exchange(LoopInit, false);
  if (!S || stopped())
    return Flow::Stop;
  if (!tick(S))
    return Flow::Stop;
  // Before the region only what leads to it or what the region needs runs,
  // and what may leave before it (`if (size <= 1) return;`). A function
  // called from there runs whole: its call is needed, and so is what it
  // returns (`int src = source(rank, size);`).
  if (M == Mode::Prefix && Depth == 0 && !Init && !onPath(S) &&
      !writesNeeded(S) && S != ForcedExit) {
    if (!leavingJump(S))
      return Flow::Normal;
    if (exitIsUniform(S))
      return runUniformExit(S);
  }
  // An assumed input takes its value at the region's entry.
  if (M == Mode::Prefix && Depth == 0 && R.assumes())
    if (const VarDecl *V = computedVariable(S))
      if (llvm::is_contained(R.Assumed, V) || V == R.AssumedSize)
        return Flow::Normal;
  // One computed inside the region, where its statement runs.
  if (M == Mode::Region && Depth == 0 && !R.Assumed.empty())
    if (const VarDecl *V = assignedVariable(S))
      if (llvm::is_contained(R.Assumed, V) && R.contains(V, SM) &&
          InputBit.count(V)) {
        assignInput(V);
        return Flow::Normal;
      }
  if (M == Mode::Region && Anchors.count(S)) {
    RankOp Marker;
    Marker.K = RankOp::Kind::Marker;
    Marker.Site = S;
    if (AnchorsPassed.insert(S).second &&
        !(AnchorsUntilFirstMessage && MessageSeen)) {
      // The region's first statement runs right after its entry, where
      // the same probes were just evaluated.
      bool AtEntry = S == R.first() && AnchorProbesAreEntryProbes;
      if (AtEntry)
        Marker.Values = Out.Probes;
      else
        probeValues(AnchorProbes, Marker.Values);
    }
    Out.Ops.push_back(std::move(Marker));
  }
  if (!isa<Expr>(S))
    Current = S;
  else if (!Current || S == BlockChild)
    Current = S;
  if (Frames.size() == 1)
    Outer = Current;
  switch (S->getStmtClass()) {
  case Stmt::CompoundStmtClass:
    return execBlock(cast<CompoundStmt>(S));
  case Stmt::DeclStmtClass:
    for (const Decl *D : cast<DeclStmt>(S)->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (execDecl(V) == Flow::Stop)
          return Flow::Stop;
    return Flow::Normal;
  case Stmt::IfStmtClass: {
    const auto *If = cast<IfStmt>(S);
    if (If->getInit() && exec(If->getInit()) == Flow::Stop)
      return Flow::Stop;
    if (If->getConditionVariable() &&
        execDecl(If->getConditionVariable()) == Flow::Stop)
      return Flow::Stop;
    // `if (x > max) max = x;` on data from messages: a combine.
    if (combine(If))
      return Flow::Normal;
    std::optional<bool> Taken = decide(If->getCond());
    if (!Taken)
      return Flow::Stop;
    if (*Taken)
      return exec(If->getThen());
    return If->getElse() ? exec(If->getElse()) : Flow::Normal;
  }
  case Stmt::ForStmtClass:
  case Stmt::WhileStmtClass:
  case Stmt::DoStmtClass:
    return execLoop(S);
  case Stmt::BreakStmtClass:
    return Flow::Break;
  case Stmt::ContinueStmtClass:
    return Flow::Continue;
  case Stmt::ReturnStmtClass: {
    const auto *Ret = cast<ReturnStmt>(S);
    if (const Expr *E = Ret->getRetValue()) {
      const FunctionDecl *Fn = Frames.back().F;
      if (Fn && Fn->getReturnType()->isReferenceType()) {
        // A reference is returned as the place it refers to.
        std::optional<Place> P = place(E);
        Frames.back().Ret =
            P ? Value::pointer(P->Obj, P->Off) : Value::unknown(0);
      } else {
        Frames.back().Ret = eval(E);
      }
    }
    return stopped() ? Flow::Stop : Flow::Return;
  }
  case Stmt::NullStmtClass:
    return Flow::Normal;
  case Stmt::SwitchStmtClass: {
    const auto *Switch = cast<SwitchStmt>(S);
    std::optional<int64_t> V =
        needInt(eval(Switch->getCond()), Switch->getCond(), "the switch on");
    if (!V)
      return Flow::Stop;
    // Find the case to enter; then run the body's statements from there.
    const auto *Body = dyn_cast<CompoundStmt>(Switch->getBody());
    if (!Body) {
      stop("a switch without a block is not followed", S->getBeginLoc());
      return Flow::Stop;
    }
    bool Running = false;
    for (const Stmt *Child : Body->body()) {
      const Stmt *Inner = Child;
      while (const auto *Case = dyn_cast<SwitchCase>(Inner)) {
        if (const auto *C = dyn_cast<CaseStmt>(Case)) {
          std::optional<llvm::APSInt> Label =
              C->getLHS()->getIntegerConstantExpr(Ctx);
          if (Label && Label->getExtValue() == *V)
            Running = true;
        } else if (!Running) {
          // `default:` is taken when no case label matched.
          bool Any = false;
          for (const SwitchCase *SC = Switch->getSwitchCaseList(); SC;
               SC = SC->getNextSwitchCase())
            if (const auto *C2 = dyn_cast<CaseStmt>(SC))
              if (auto L = C2->getLHS()->getIntegerConstantExpr(Ctx))
                Any |= L->getExtValue() == *V;
          Running = !Any;
        }
        Inner = Case->getSubStmt();
      }
      if (!Running)
        continue;
      Flow Result = exec(Inner);
      if (Result == Flow::Break)
        return Flow::Normal;
      if (Result != Flow::Normal)
        return Result;
    }
    return Flow::Normal;
  }
  case Stmt::CaseStmtClass:
  case Stmt::DefaultStmtClass:
    return exec(cast<SwitchCase>(S)->getSubStmt());
  case Stmt::LabelStmtClass:
    return exec(cast<LabelStmt>(S)->getSubStmt());
  case Stmt::AttributedStmtClass:
    return exec(cast<AttributedStmt>(S)->getSubStmt());
  case Stmt::GotoStmtClass:
    stop("a goto is not followed", S->getBeginLoc());
    return Flow::Stop;
  case Stmt::CXXForRangeStmtClass:
    stop("a range-based for loop is not followed", S->getBeginLoc());
    return Flow::Stop;
  default:
    break;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    eval(E);
    return stopped() ? Flow::Stop : Flow::Normal;
  }
  stop("a statement of this kind is not followed", S->getBeginLoc());
  return Flow::Stop;
}

RankEvaluator::Impl::Flow
RankEvaluator::Impl::execBlock(const CompoundStmt *B) {
  bool IsRegionBlock = B == R.Block;
  unsigned Index = 0;
  for (const Stmt *Child : B->body()) {
    if (IsRegionBlock && Index == R.First && M == Mode::Prefix)
      enterRegion();
    if (stopped())
      return Flow::Stop;
    BlockChild = Child;
    Flow Result = exec(Child);
    if (IsRegionBlock && Index == R.Last && M == Mode::Region) {
      M = Mode::Done;
      return Flow::Stop;
    }
    if (Result != Flow::Normal)
      return Result;
    ++Index;
  }
  return Flow::Normal;
}

RankEvaluator::Impl::Flow RankEvaluator::Impl::execLoop(const Stmt *Loop) {
  const Stmt *Body = loopBody(Loop);
  const Expr *Cond = loopCondition(Loop);
  const Expr *Inc = nullptr;
  if (const auto *For = dyn_cast<ForStmt>(Loop)) {
    if (const Stmt *Init = For->getInit()) {
      LoopInit = true;
      if (exec(Init) == Flow::Stop)
        return Flow::Stop;
    }
    Inc = For->getInc();
  }
  bool First = true;
  bool Sizes = combinesOnly(Loop);
  while (true) {
    if (!tick(Loop))
      return Flow::Stop;
    if (!(isa<DoStmt>(Loop) && First)) {
      if (const auto *For = dyn_cast<ForStmt>(Loop))
        if (For->getConditionVariable() &&
            execDecl(For->getConditionVariable()) == Flow::Stop)
          return Flow::Stop;
      if (Cond) {
        uint32_t Deciding = Out.DecidingInputs;
        std::optional<bool> Again = decide(Cond);
        if (Sizes) {
          Out.CountInputs |= Out.DecidingInputs & ~Deciding;
          Out.DecidingInputs = Deciding;
        }
        if (!Again)
          return Flow::Stop;
        if (!*Again)
          return Flow::Normal;
      }
    }
    First = false;
    Flow Result = exec(Body);
    if (Result == Flow::Break)
      return Flow::Normal;
    if (Result == Flow::Return || Result == Flow::Stop)
      return Result;
    if (Inc) {
      eval(Inc);
      if (stopped())
        return Flow::Stop;
    }
  }
}

bool RankEvaluator::Impl::combinesOnly(const Stmt *Loop) {
  const auto *For = dyn_cast<ForStmt>(Loop);
  if (M != Mode::Region || !For || !For->getBody())
    return false;
  const Stmt *Body = For->getBody();
  if (const auto *Block = dyn_cast<CompoundStmt>(Body)) {
    if (Block->size() != 1)
      return false;
    Body = Block->body_front();
  }
  return combineFormOf(Body, [&] { return combineForm(Body, Ctx); })
      .has_value();
}

RankEvaluator::Impl::Flow RankEvaluator::Impl::execDecl(const VarDecl *V) {
  if (V->isStaticLocal() || V->hasExternalStorage())
    return Flow::Normal; // Resolved like a global when read.
  Frame &Top = Frames.back();
  ObjectId Id =
      newObject(eval::quoted(*V), V, M == Mode::Region, sizeOf(V->getType()));
  Top.Vars[V] = Id;
  if (!combineDeclared(*V, Place{Id, 0}))
    initialize(Place{Id, 0}, V->getType(), V->getInit());
  return stopped() ? Flow::Stop : Flow::Normal;
}

} // namespace analysis
} // namespace mpilift
