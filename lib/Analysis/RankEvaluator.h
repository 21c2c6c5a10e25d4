//===- RankEvaluator.h - A region's communication at one rank ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rank-space evaluator: it runs a region of a function (a range of
/// statements of one block) as the rank \c Rank of a communicator of size
/// \c Size would, with C's integer semantics, and records what the region
/// communicates: sends and receives on (object, byte offset) buffers,
/// their peers, tags and sizes, the dependencies between them, and the
/// local writes and copies that touch message buffers. The result goes to
/// CommGraph, which matches, follows the data and names the collective
/// (CollectiveJudge.h).
///
/// Only the communication slice is run. The statements of the function
/// before the region run when they write a variable the region's slice
/// reads (a neighbour computed from the rank, a count); anything else
/// (filling data, printing) is skipped. What the region reads from outside
/// is resolved at its entry: the rank and the size (variables, parameters,
/// fields or globals that only MPI_Comm_rank and MPI_Comm_size write),
/// values proven the same on every rank (RankUniformity.h), which become
/// the region's inputs and are given each value of a setting, and the
/// objects pointers point to. A value the evaluator cannot follow stops
/// the run where the slice needs it, with the reason: "the peer depends on
/// 'x', read from input at line 12".
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_RANKEVALUATOR_H
#define MPILIFT_LIB_ANALYSIS_RANKEVALUATOR_H

#include "CombineForms.h"
#include "CommQueries.h"
#include "EvalValue.h"
#include "FunctionFacts.h"

#include "mpilift/Analysis/ManualCollective.h"
#include "mpilift/CommGraph/CommGraph.h"

#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PointerIntPair.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <vector>

namespace mpilift {
namespace analysis {

/// A contiguous range of statements of one block of a function.
struct Region {
  const clang::FunctionDecl *Function = nullptr;
  const clang::CompoundStmt *Block = nullptr;
  unsigned First = 0, Last = 0; ///< Indices into Block->body(), inclusive.
  /// Integer variables computed before the region from something the
  /// evaluation cannot follow (program input), taken as inputs anyway: an
  /// evaluation under this assumption says what the region would be if
  /// they were the same on every rank. Nothing proven with it is a proof.
  llvm::SmallVector<const clang::VarDecl *, 2> Assumed;
  /// An integer read at the region's entry that the evaluation cannot
  /// follow (a parameter whose callers are not visible, a global), taken
  /// as the rank or the size of the region's communicator: to say what
  /// the region would be if it were. The size may also be a local set by
  /// MPI_Comm_size on another communicator than the messages use. Nothing
  /// proven with either is a proof.
  const clang::ValueDecl *AssumedRank = nullptr;
  const clang::ValueDecl *AssumedSize = nullptr;
  /// A negative remainder wraps into the divisor's range (what `(rank - 1)
  /// % size` was meant to be), to say what a region that sends to rank -1
  /// would be. Nothing proven with it is a proof.
  bool WrapRemainders = false;
  /// Each MPI_Iprobe finds its message (Listing 7's polling form, run to
  /// the moment the message is there). Only the polling proof
  /// (PollingProof.h), which shows that every caller polls until then,
  /// makes a finding evaluated this way a proof.
  bool ProbesArrive = false;
  /// A call of a function the unit has no body of (another unit's) ends
  /// the program, as the caller of the evaluation assumes and must check
  /// (eval::Reason::AssumedEnd names the function).
  bool UnknownCallsEnd = false;

  /// Whether the region is evaluated under one of the assumptions above.
  bool assumes() const {
    return !Assumed.empty() || AssumedRank || AssumedSize || WrapRemainders;
  }

  const clang::Stmt *first() const { return Block->body_begin()[First]; }
  const clang::Stmt *last() const { return Block->body_begin()[Last]; }
  /// Whether \p S is one of the region's statements or inside one.
  bool contains(const clang::Stmt *S, const clang::SourceManager &SM) const;
  /// Whether \p D is declared in one of the region's statements.
  bool contains(const clang::Decl *D, const clang::SourceManager &SM) const;
  clang::SourceRange range() const {
    return {first()->getBeginLoc(), last()->getEndLoc()};
  }
};

/// An input of a region: a value proven the same on every rank that the
/// region reads (a parameter, an enclosing loop's counter, a broadcast
/// count), given a value by each setting.
struct RegionInput {
  std::string Name;             ///< "'root'".
  const clang::ValueDecl *Decl; ///< The variable, parameter or field.
  clang::SourceLocation Loc;
};

/// One operation of one rank.
struct RankOp {
  /// Marker: the run passed an anchor (Site), with the values of the
  /// anchor probes there (Values; at the first pass of each anchor only).
  /// Combine: the statement folds the data at (FromObject, FromOffset)
  /// into the Bytes at (Object, Offset) with CombineOp (CombineForms.h).
  enum class Kind : uint8_t { Send, Recv, Local, Marker, Combine };
  Kind K = Kind::Local;
  eval::ObjectId Object = eval::NullObject;
  int64_t Offset = 0;
  uint64_t Bytes = 0;
  int32_t Peer = -1;
  int32_t Tag = 0;
  /// The MPI call (sends and receives) or the statement (local writes and
  /// copies, which are a send and a receive to the rank itself).
  const clang::Stmt *Site = nullptr;
  const clang::CallExpr *Call = nullptr;
  bool SelfCopy = false; ///< Half of a local copy.
  /// The statement of the region's own function that was running (the
  /// call of a helper whose statement wrote the buffer).
  const clang::Stmt *Origin = nullptr;
  /// Earlier operations of the same rank it waits for.
  std::vector<uint32_t> After;
  /// The datatype and element count the call gave, for its arguments.
  uint64_t Count = 0;
  uint64_t TypeSize = 0;
  std::vector<eval::Value> Values;
  /// Local: the rank's own data it writes is an unchanged copy of a scalar
  /// variable's at (FromObject, FromOffset) (`total = local;`), which a
  /// reduction reads as that variable's.
  bool CopyOf = false;
  /// Combine: what is folded in, how, and the elements' type.
  eval::ObjectId FromObject = eval::NullObject;
  int64_t FromOffset = 0;
  commgraph::ReduceOp CombineOp = commgraph::ReduceOp::Other;
  clang::QualType Element;
  /// Combine of pairs: how equal values are settled.
  PairTies Ties = PairTies::None;
  /// Combine: what it folds in came from a message.
  bool FromCarried = false;
};

/// A read of memory by the region's own statements (not by MPI).
struct RankRead {
  eval::ObjectId Object = eval::NullObject;
  int64_t Offset = 0;
  uint64_t Bytes = 0;
  /// How many operations came before it.
  uint32_t At = 0;
  const clang::Stmt *Site = nullptr;
  const clang::Stmt *Origin = nullptr; ///< As RankOp::Origin.
  /// A read of a scalar variable that holds data from a message (a
  /// reduction's partial result); other reads are of arrays, fields and
  /// what pointers point to.
  bool Scalar = false;
};

/// What one rank did in the region.
struct RankRun {
  std::vector<RankOp> Ops;
  /// Why the run could not be completed; the run is useless then.
  std::optional<eval::Reason> Stopped;
  /// Inputs whose value decided control flow, a peer, a tag or a size.
  uint32_t DecidingInputs = 0;
  /// Inputs whose value gave a message's count.
  uint32_t CountInputs = 0;
  /// Every input the run read.
  uint32_t ReadInputs = 0;
  /// The objects the ops use, by id (names, declarations, temporaries).
  std::vector<eval::Object> Objects;
  /// The communicator of its messages (every message must be on it).
  std::optional<eval::Value> Comm;
  /// The values of the probes at the region's entry (Unknown where a
  /// probe could not be evaluated there).
  std::vector<eval::Value> Probes;
  /// Whether the run reached the region.
  bool Reached = false;
  /// How many statements and loop iterations the run took.
  uint64_t Steps = 0;
  /// What the region's statements read from memory objects (not from
  /// plain scalar variables).
  std::vector<RankRead> Reads;
  /// Some of the rank's own data entered a message or a combine other
  /// than as MPI_MINLOC or MPI_MAXLOC pairs whose index is known to be the
  /// rank (what proves that combines keeping the first of equal values
  /// keep the smallest index).
  bool OwnIndexNotRank = false;
};

/// An expression to evaluate in every run, and what of it: its value, its
/// address (`&total` for an accumulator the region spells only as a
/// value), or a std::vector's elements (`v.data()`).
using Probe = llvm::PointerIntPair<const clang::Expr *, 2, BufferSpelling>;

/// Evaluates one region for many ranks, sizes and settings.
class RankEvaluator {
public:
  RankEvaluator(TranslationUnitFacts &TU, const Region &R);
  ~RankEvaluator();

  /// Runs the region as rank \p Rank of \p Size with the inputs set to
  /// \p Setting (missing ones take their default value).
  RankRun run(int64_t Rank, int64_t Size, llvm::ArrayRef<int64_t> Setting);
  /// The same into \p Into, reusing the memory of the run it held (the
  /// judge evaluates thousands of ranks a size).
  void run(int64_t Rank, int64_t Size, llvm::ArrayRef<int64_t> Setting,
           RankRun &Into);

  /// Expressions to evaluate at the region's entry in every run (the
  /// candidates for a rewrite's arguments); they must not write anything.
  void setProbes(llvm::ArrayRef<Probe> Probes);

  /// Statements whose passing the runs record as markers, with the
  /// values of \p Probes there. With \p UntilFirstMessage, only the
  /// markers a rank passes before its first message carry values (what
  /// a candidate for an argument needs); the others carry none.
  void setAnchors(llvm::ArrayRef<const clang::Stmt *> Anchors,
                  llvm::ArrayRef<Probe> Probes, bool UntilFirstMessage = false);

  /// Whether a blocking send returns before its receive is posted (MPI
  /// buffers the message): it copies the data and sends the copy.
  void setBufferedSends(bool Buffered);

  /// Which probes (of setProbes, and the anchors' when they are the same
  /// list) still matter: the others read as Unknown without being
  /// evaluated. setProbes and setAnchors make every probe live again.
  void setLiveProbes(std::vector<bool> Live);

  /// The region's inputs, in the order of their bits.
  llvm::ArrayRef<RegionInput> inputs() const;
  /// The communicator of the region's messages (invalid when they use
  /// several or none can be named).
  const CommKey &regionComm() const;

  /// Why the last run could not follow a value: \p Why is an Unknown
  /// value's eval::Value::Why or an object's eval::Object::ContentWhy
  /// (empty text for 0). Valid until the next run.
  eval::Reason reasonOf(uint32_t Why) const;

  /// The value an input takes when a setting does not give one.
  static constexpr int64_t DefaultInput = 3;

private:
  class Impl;
  std::unique_ptr<Impl> P;
};

/// The settings of a region's \p NumInputs inputs that the proofs run:
/// every combination of one of \p ValuesOf(input) for each input
/// (RankEvaluator::DefaultInput alone where that is empty), the first
/// input varying slowest.
std::vector<std::vector<int64_t>>
inputSettings(size_t NumInputs,
              llvm::function_ref<std::vector<int64_t>(unsigned)> ValuesOf);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_RANKEVALUATOR_H
