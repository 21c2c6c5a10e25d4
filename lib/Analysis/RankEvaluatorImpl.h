//===- RankEvaluatorImpl.h - The rank-space evaluator's state ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The interpreter behind RankEvaluator, shared by its three files:
/// RankEvaluator.cpp (statements, expressions, memory), EvalCalls.cpp
/// (calls: the program's functions, the C library, MPI, std::vector) and
/// EvalEntry.cpp (what the region reads from outside: the slice of the
/// statements before it, its inputs, the values parameters, fields and
/// globals have at its entry).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_RANKEVALUATORIMPL_H
#define MPILIFT_LIB_ANALYSIS_RANKEVALUATORIMPL_H

#include "CombineForms.h"
#include "CombineFunctions.h"
#include "CommQueries.h"
#include "RankEvaluator.h"

#include "mpilift/MPI/Vocabulary.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <deque>
#include <map>
#include <tuple>

namespace mpilift {
namespace analysis {

class RankUniformity;

using eval::ObjectId;
using eval::Value;

namespace eval {
/// The name of \p D in quotes, as messages write it ("'buf'"). Plain
/// identifiers are taken as they are: printing a name builds a printing
/// policy, which costs more than a run of a small region.
inline std::string quoted(const clang::NamedDecl &D) {
  if (!D.getDeclName().isIdentifier())
    return "'" + D.getNameAsString() + "'";
  llvm::StringRef Name = D.getName();
  std::string Out;
  Out.reserve(Name.size() + 2);
  Out += '\'';
  Out.append(Name.data(), Name.size());
  Out += '\'';
  return Out;
}

/// The values the MPI library gives the special ranks and tags.
struct SpecialRanks {
  int64_t AnySource, ProcNull, AnyTag;
};
} // namespace eval

class RankEvaluator::Impl {
public:
  Impl(TranslationUnitFacts &TU, const Region &R);

  /// Runs into \p Into, whose arrays' memory it reuses.
  void run(int64_t Rank, int64_t Size, llvm::ArrayRef<int64_t> Setting,
           RankRun &Into);

  std::vector<RegionInput> Inputs;
  std::vector<Probe> Probes;
  llvm::SmallPtrSet<const clang::Stmt *, 8> Anchors;
  bool BufferedSends = false;
  std::vector<Probe> AnchorProbes;
  /// The anchors' probes are the probes of the region's entry.
  bool AnchorProbesAreEntryProbes = false;
  /// Anchors passed after the run's first message get no values.
  bool AnchorsUntilFirstMessage = false;
  /// Per probe: still evaluated (empty: all are).
  std::vector<bool> LiveProbes;

  /// The reason of an Unknown value of the last run (0: none).
  const eval::Reason &reasonOf(uint32_t Why) const { return Reasons[Why]; }
  size_t reasons() const { return Reasons.size(); }
  const CommKey &regionComm() const { return RegionComm; }

private:
  /// The anchors this run has passed (their probes are evaluated at the
  /// first pass only).
  llvm::SmallPtrSet<const clang::Stmt *, 8> AnchorsPassed;
  /// Whether the run has sent or received a message (not a local copy).
  bool MessageSeen = false;
  /// How a statement ended.
  enum class Flow { Normal, Break, Continue, Return, Stop };
  /// Before the region only the slice runs; in it everything runs; after
  /// it the run is over.
  enum class Mode { Prefix, Region, Done };

  /// A variable a call before the region broadcasts. Where it is proven
  /// the same at the region's entry, the call gives it the setting's
  /// value; else it has none, for the reason NotSame.
  struct Uniforming {
    const clang::VarDecl *Var = nullptr;
    std::optional<std::string> NotSame;
  };

  /// A place in memory: an lvalue.
  struct Place {
    ObjectId Obj = eval::NullObject;
    int64_t Off = 0;
  };

  struct Frame {
    const clang::FunctionDecl *F = nullptr;
    llvm::DenseMap<const clang::VarDecl *, ObjectId> Vars;
    ObjectId This = eval::NullObject;
    Value Ret;
  };

  /// An entry value kind of a variable the region reads from outside.
  struct EntryValue {
    enum class Kind : uint8_t {
      Rank,
      Size,
      Input,
      Object,
      Datatype,
      Unknown,
      Run,
      Constant
    };
    Kind K = Kind::Run;
    unsigned Input = 0; ///< Kind::Input: its bit.
    uint64_t Bytes = 0; ///< Kind::Datatype: the size of the type.
    int64_t Constant = 0; ///< Kind::Constant: the value.
    eval::Reason Why;   ///< Kind::Unknown.
  };

  // --- What is known before any run (EvalEntry.cpp).
  void findPath();
  void findRegionComm();
  void computeNeeded();
  void findInputs();
  bool isLoopCarried(const clang::VarDecl *V) const;
  std::optional<std::pair<const clang::CallExpr *, Uniforming>>
  uniformingCallOf(const clang::VarDecl *V, RankUniformity &Uniformity,
                   unsigned RegionBegin) const;
  bool writesNeeded(const clang::Stmt *S) const;
  bool onPath(const clang::Stmt *S) const { return Path.count(S) != 0; }
  /// Whether every condition that decides whether \p S (a statement
  /// before the region) leaves early is the same on every rank: then all
  /// ranks leave or none do, and where the run cannot decide it, none is
  /// assumed to (the collective is skipped alike).
  bool exitIsUniform(const clang::Stmt *S);
  EntryValue classify(const clang::ValueDecl *D);
  Value entryValue(const clang::ValueDecl *D, clang::QualType T,
                   clang::SourceLocation Use);
  void enterRegion();
  /// Stores the setting's value of input \p V in it.
  void assignInput(const clang::VarDecl *V);
  void evaluateProbes();
  /// The values of \p Exprs here into \p Values (Unknown where one cannot
  /// be evaluated).
  void probeValues(llvm::ArrayRef<Probe> Exprs, std::vector<Value> &Values);

  // --- Statements, expressions and memory (RankEvaluator.cpp).
  Flow exec(const clang::Stmt *S);
  /// Runs \p S, a statement before the region that may leave and whose
  /// conditions are the same on every rank, tolerating what it cannot
  /// decide.
  Flow runUniformExit(const clang::Stmt *S);
  Flow execBlock(const clang::CompoundStmt *B);
  Flow execLoop(const clang::Stmt *Loop);
  /// In the region: whether \p Loop's body is one combine step
  /// (`for (i = 0; i < n; i++) b[i] = max(a[i], b[i]);`), whose bound
  /// sizes the data combined as a message's count does, and decides
  /// nothing else.
  bool combinesOnly(const clang::Stmt *Loop);
  Flow execDecl(const clang::VarDecl *V);
  Value eval(const clang::Expr *E);
  Value evalBinary(const clang::BinaryOperator *Op);
  Value evalUnary(const clang::UnaryOperator *Op);
  Value evalCast(const clang::CastExpr *Cast);
  Value arithmetic(clang::BinaryOperatorKind Op, const Value &L, const Value &R,
                   clang::QualType Result, clang::QualType Operand,
                   const clang::Expr *Where);
  std::optional<Place> place(const clang::Expr *E);
  Value load(Place P, clang::QualType T, const clang::Expr *Where);
  void store(Place P, clang::QualType T, const Value &V,
             const clang::Stmt *Site);
  void initialize(Place P, clang::QualType T, const clang::Expr *Init);
  /// Whether a send of the run read any of the bytes.
  bool wasSent(ObjectId Obj, int64_t Off, int64_t Bytes);
  /// The truth of \p Cond, or nothing when the run stopped on it.
  std::optional<bool> decide(const clang::Expr *Cond);
  /// An integer the slice needs (peer, count, tag, offset): stops the run
  /// with \p What when it is not known.
  std::optional<int64_t> needInt(const Value &V, const clang::Expr *E,
                                 llvm::StringRef What);
  ObjectId newObject(std::string Name, const clang::ValueDecl *Decl,
                     bool Temporary, int64_t Bytes = -1);
  ObjectId objectOfVar(const clang::VarDecl *V, clang::SourceLocation Use);
  ObjectId thisObject();
  int64_t sizeOf(clang::QualType T) const;
  uint32_t reason(std::string Text, clang::SourceLocation Loc,
                  const clang::ValueDecl *Entry = nullptr);
  Value unknown(std::string Text, clang::SourceLocation Loc,
                const clang::ValueDecl *Entry = nullptr) {
    return Value::unknown(reason(std::move(Text), Loc, Entry));
  }
  /// Stops the run: what the slice needs cannot be followed.
  void stop(std::string Text, clang::SourceLocation Loc,
            bool MissingPeer = false, const clang::ValueDecl *Entry = nullptr);
  void stopWith(const Value &Why, llvm::StringRef What, const clang::Expr *E);
  /// Stops the run where the program ends (a call of exit, abort or
  /// MPI_Abort) or its behaviour is undefined (an integer division by
  /// zero): no process goes on from there.
  void endProgram(std::string Text, clang::SourceLocation Loc);
  bool stopped() const {
    return Out.Stopped.has_value() || M == Mode::Done || ProbeFailed;
  }
  std::string spelled(const clang::Expr *E) const;
  bool tick(const clang::Stmt *S);

  // --- Calls (EvalCalls.cpp).
  Value call(const clang::CallExpr *Call);
  /// `a = b` of a trivially copyable class (C++'s implicit operator=):
  /// the whole object copied; nothing for another operator.
  std::optional<Value> trivialAssignment(const clang::CallExpr *Call);
  Value callFunction(const clang::FunctionDecl *F, const clang::CallExpr *Call,
                     llvm::ArrayRef<Value> Args, ObjectId This);
  Value libraryCall(const clang::CallExpr *Call, const clang::FunctionDecl *F,
                    bool &Handled);
  Value vectorCall(const clang::CXXMemberCallExpr *Call, bool &Handled);
  /// The pointer to the elements of the std::vector at \p Vec, which
  /// \p VecExpr names (made at the first use, as the region's entry had
  /// them).
  Value vectorElements(Place Vec, const clang::Expr *VecExpr);
  Value construct(const clang::CXXConstructExpr *Construct, Place Into);
  Value mpiCall(const clang::CallExpr *Call, const mpi::FunctionInfo &Info);
  /// MPI_Iprobe: stops the run, or with Region::ProbesArrive finds the
  /// message.
  Value probe(const clang::CallExpr *Call);
  void havocArguments(const clang::CallExpr *Call, const std::string &Why,
                      bool KeepConst = false);
  /// A send or receive of the region; returns its op index.
  std::optional<uint32_t> message(const clang::CallExpr *Call, bool Send,
                                  mpi::Role Buffer, mpi::Role Count,
                                  mpi::Role Type, mpi::Role Peer, mpi::Role Tag,
                                  bool Blocking);
  /// In the region, reads the arguments of \p Call from \p First on as
  /// output reads them (what cannot be evaluated is no reason to stop).
  /// The block \p Block of \p Bytes that `calloc` \p Call made holds
  /// zeros: of the integer type of the pointer it is converted to (a
  /// block of another type, or too large, is left unknown).
  void zeroFill(eval::ObjectId Block, int64_t Bytes,
                const clang::CallExpr *Call);
  /// \p Block's first \p Count elements of the integer type \p Element
  /// hold \p V (nothing for other types, unknown values, or more than a
  /// MiB).
  void fillElements(eval::ObjectId Block, clang::QualType Element,
                    int64_t Count, const eval::Value &V);
  void readArguments(const clang::CallExpr *Call, unsigned First);
  /// Records a write of the rank's own data as an operation; with
  /// \p CopyOf, an unchanged copy of the scalar variable there.
  void addLocalWrite(Place P, int64_t Bytes, const clang::Stmt *Site,
                     std::optional<Place> CopyOf = std::nullopt);
  /// The rank writes \p Bytes of its own data at \p To (memset, a string).
  void writeLocally(Place To, int64_t Bytes, const clang::Stmt *Site);
  /// snprintf, sprintf, strcpy, strncpy, strcat into their first argument.
  Value writeString(const clang::CallExpr *Call, llvm::StringRef Name);
  /// A call of UniformedBy: it gives the variable the setting's value, or
  /// none.
  Value uniformingCall(const clang::CallExpr *Call, const Uniforming &U);
  void copyLocally(Place From, Place To, uint64_t Bytes,
                   const clang::Stmt *Site);
  /// Whether any of the bytes hold data that came from a message (received,
  /// or copied or combined from such data) in this run.
  bool carried(Place P, int64_t Bytes) const;
  void markCarried(Place P, int64_t Bytes);
  /// In the region: \p S folds a value into an accumulator (CombineForms.h)
  /// and either side holds data from a message; records the combine and
  /// returns true. The accumulator's new content is not followed.
  bool combine(const clang::Stmt *S);
  /// The same for a declaration's initializer (`long next = before +
  /// mine;`), \p V's object at \p At.
  bool combineDeclared(const clang::VarDecl &V, Place At);
  /// The combine step of \p S, spelled by \p Spelled the first time.
  const std::optional<CombineForm> &
  combineFormOf(const clang::Stmt *S,
                llvm::function_ref<std::optional<CombineForm>()> Spelled);
  /// Records \p Form's combine into \p Into (of type \p T, called
  /// \p Name in messages) if either side holds data from a message.
  bool combineInto(const CombineForm &Form, Place Into, clang::QualType T,
                   const std::string &Name, const clang::Stmt *S);
  /// Records a combine of \p From into \p Into, of type \p T, at \p S;
  /// the accumulator's new content is not followed.
  void recordCombine(Place Into, Place From, clang::QualType T,
                     commgraph::ReduceOp Op, PairTies Ties,
                     const std::string &Name, const clang::Stmt *S);
  /// In the region: \p Call of a combine function whose body this unit
  /// does not have (CombineFunctions.h), element by element.
  Value combineCall(const clang::CallExpr *Call, const CombineCall &C);
  /// Whether the int at \p P is known to hold the calling rank.
  bool holdsRank(Place P) const;
  /// Notes in the run when the rank's own data it sends from \p Buffer
  /// (\p Count elements of \p Bytes each, datatype \p Type) is not pairs
  /// of MPI_MINLOC or MPI_MAXLOC whose index is the rank.
  void noteSentIndexes(const clang::Expr *Type, Place Buffer, int64_t Count,
                       int64_t Bytes);
  /// The same for the pairs of type \p Pair at \p Into and \p From that a
  /// combine folds, where they are the rank's own data.
  void noteCombinedIndexes(clang::QualType Pair, Place Into, Place From);
  void completeRequest(const Value &Request, const clang::Expr *Where);
  std::optional<Value> datatypeOf(const clang::Expr *Type);
  /// The datatype a predefined handle's value stands for, if it is one.
  std::optional<Value> predefinedHandle(const Value &V);
  /// The datatype parameter of a function judged under a contract.
  std::optional<Value> contractDatatype(const clang::Expr *Type) const;
  void addOp(RankOp Op, bool Blocking);
  void finishOps();

  // --- Per evaluator.
  std::optional<eval::SpecialRanks> Specials;
  /// The combine step each statement spells, if any (CombineForms.h).
  llvm::DenseMap<const clang::Stmt *, std::optional<CombineForm>> CombineForms;
  /// The operations finishOps keeps, built here to reuse the memory.
  std::vector<RankOp> KeptOps;
  /// Datatype arguments spelled as a predefined datatype: its size in
  /// bytes (-1: spelled otherwise).
  llvm::DenseMap<const clang::Expr *, int64_t> PredefinedBytes;
  /// Datatype arguments and the pair datatype they name (null: none).
  llvm::DenseMap<const clang::Expr *, const PairDatatype *> PairTypes;
  /// Sizes of types, by canonical type.
  mutable llvm::DenseMap<const void *, int64_t> TypeSizes;
  TranslationUnitFacts &TU;
  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  Region R;
  /// Statements that hold the region (the path from the body down).
  llvm::SmallPtrSet<const clang::Stmt *, 16> Path;
  /// Loops of the region's function that hold the region.
  llvm::SmallVector<const clang::Stmt *, 4> EnclosingLoops;
  /// Variables of the function the region needs from before it.
  llvm::SmallPtrSet<const clang::VarDecl *, 32> Needed;
  /// File offsets of the writes of Needed variables before the region.
  std::vector<unsigned> NeededWrites;
  /// The last call before the region that broadcasts a Needed variable
  /// (MPI's or the program's own broadcast, an all-reduction): where it is
  /// proven the same at the region's entry, its writes before the call do
  /// not run (uniformingCallOf).
  llvm::DenseMap<const clang::CallExpr *, Uniforming> UniformedBy;
  llvm::DenseMap<const clang::ValueDecl *, EntryValue> Entries;
  /// The communicator the region's first message names.
  CommKey RegionComm;
  llvm::DenseMap<const clang::ValueDecl *, unsigned> InputBit;
  mutable llvm::DenseMap<const clang::VarDecl *, bool> LoopVariant;

  // --- Per run.
  int64_t Rank = 0, Size = 1;
  llvm::SmallVector<int64_t, 4> Setting;
  Mode M = Mode::Prefix;
  RankRun Out;
  std::deque<eval::Reason> Reasons;
  std::vector<eval::Object> Objects;
  std::vector<Frame> Frames;
  llvm::DenseMap<const clang::VarDecl *, ObjectId> Globals;
  std::vector<uint32_t> Frontier;
  /// The reason each cast the evaluator does not follow gave in this run.
  llvm::DenseMap<const clang::CastExpr *, uint32_t> UnfollowedCasts;
  /// The local writes recorded since the last other operation: object,
  /// offset, bytes, statement and the region's statement running it.
  llvm::DenseSet<std::tuple<ObjectId, int64_t, int64_t, const clang::Stmt *,
                            const clang::Stmt *>>
      LocalsSinceMessage;
  /// Requests: the op a request number stands for (0: MPI_REQUEST_NULL).
  std::vector<uint32_t> RequestOps;
  /// The byte ranges the run's sends read, by object.
  llvm::DenseMap<ObjectId, llvm::SmallVector<std::pair<int64_t, int64_t>, 2>>
      Sent;
  /// The byte ranges that hold data from messages, by object.
  llvm::DenseMap<ObjectId, llvm::SmallVector<std::pair<int64_t, int64_t>, 2>>
      Carried;
  uint64_t Steps = 0;
  unsigned Depth = 0;
  uint32_t NextOpaque = 1;
  /// Evaluating a probe: what cannot be evaluated gives Unknown and does
  /// not stop the run.
  bool Probing = false;
  /// Evaluating what output prints: as a probe, but its reads count.
  bool Tolerant = false;
  bool ProbeFailed = false;
  /// A statement before the region that may leave, run now whatever the
  /// prefix would skip; and what exitIsUniform found.
  const clang::Stmt *ForcedExit = nullptr;
  llvm::DenseMap<const clang::Stmt *, bool> UniformExits;
  /// The statement being run, for what reads memory, and the one of the
  /// region's own function.
  const clang::Stmt *Current = nullptr;
  /// The statement of a block execBlock is about to run (a statement of its
  /// own, not part of another).
  const clang::Stmt *BlockChild = nullptr;
  /// The next statement exec() runs is a loop's init, which runs whenever
  /// its loop does (before the region too).
  bool LoopInit = false;
  const clang::Stmt *Outer = nullptr;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_RANKEVALUATORIMPL_H
