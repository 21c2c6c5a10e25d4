//===- RankUniformity.h - Values the same on every rank ---------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A collective needs some arguments to be equal as values on every rank:
/// the count, the datatype, the tag of the messages it replaces, the
/// communicator and the root. Two calls that spell `chunk` alike do not
/// prove that, because one rank may have changed `chunk` first
/// (`if (rank == size - 1) chunk += n % size;`). This analysis follows the
/// variables an expression reads to every write of them and proves the
/// value the same on every rank, or says what may make it differ and where.
///
/// A value is the same on every rank when it is built from constants,
/// addresses of global objects (MPI's predefined handles), what
/// `MPI_Comm_size` wrote, what `MPI_Bcast` and `MPI_Allreduce` wrote, and
/// variables of the same kind written outside any condition that may
/// differ between ranks; parameters are followed into every caller. The
/// rank itself, a call's result, a global variable, data received by a
/// point-to-point call and anything written through a pointer are not
/// proven.
///
/// The same walk answers whether a value stays the same through every
/// iteration of a loop (a broadcast needs one buffer address for every
/// peer): none of the variables it reads is written inside the loop.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_RANKUNIFORMITY_H
#define MPILIFT_LIB_ANALYSIS_RANKUNIFORMITY_H

#include "CommQueries.h"
#include "FunctionFacts.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <set>
#include <string>

namespace mpilift {
namespace analysis {

/// Why a value may differ between ranks or between iterations, and the
/// place that makes it so.
struct Divergence {
  std::string Reason; ///< Lower case, no final period.
  clang::SourceLocation Loc;
};

/// The value a broadcast round trip carries (UniformityRoundTrip.cpp): a
/// local variable, a reference parameter's referent, or the object a
/// pointer parameter points to (\c Pointee: written `*p` or `p[0]`).
struct TripValue {
  const clang::VarDecl *Decl = nullptr;
  bool Pointee = false;
  /// Whether \p E (parentheses and implicit casts aside) is the value.
  bool isRead(const clang::Expr *E) const;
  clang::QualType type() const;
  /// `'n'` or `'*p'`, for the notes.
  std::string name() const;
};

/// Evaluates \p E, an integer expression of constants, \p V (worth
/// \p VValue) and the element \p El (worth \p ElValue); nothing when it
/// reads anything else or uses an operator this does not know.
std::optional<int64_t> evaluateWith(const clang::Expr *E,
                                    const clang::ASTContext &Ctx,
                                    const TripValue *V, int64_t VValue,
                                    const clang::ArraySubscriptExpr *El,
                                    int64_t ElValue);

/// Proves values equal on every rank of a communicator.
class RankUniformity {
public:
  explicit RankUniformity(TranslationUnitFacts &TU) : TU(TU) {}

  /// From now on, a broadcast or all-reduction on \p Comm (the
  /// communicator of the messages under proof), as one on MPI_COMM_WORLD,
  /// leaves one value on every rank the proof speaks of; one on another
  /// communicator does so only among that communicator's processes, which
  /// may be fewer.
  void setCommunicator(CommKey Comm) { Scope = std::move(Comm); }

  /// Nothing when \p E, evaluated in \p Where, has the same value on every
  /// rank; otherwise the first reason it may not.
  std::optional<Divergence> divergence(const clang::Expr *E,
                                       const clang::FunctionDecl &Where);

  /// Whether \p Call leaves the buffer \p Address one value on every rank
  /// the proof speaks of: a broadcast, all-reduction or allgather writes
  /// it, on MPI_COMM_WORLD or on the communicator setCommunicator named;
  /// or a function of the program that is a broadcast (broadcastCallOf)
  /// does, given arguments its proof needs the same on every rank.
  bool uniformingWrite(const clang::CallExpr *Call, const clang::Expr *Address,
                       const clang::FunctionDecl &Where, unsigned Depth);
  /// Nothing when the variable \p V of \p Where has the same value on
  /// every rank wherever it is read (\p Use: where, for the messages).
  std::optional<Divergence> variableDivergence(const clang::VarDecl *V,
                                               const clang::FunctionDecl &Where,
                                               clang::SourceLocation Use);

  /// Nothing when the size of the standard container \p D (a local of
  /// \p Where or a field) is the same on every rank.
  std::optional<Divergence>
  containerDivergence(const clang::ValueDecl *D,
                      const clang::FunctionDecl &Where);

  /// Nothing when the size of the standard container \p E names in
  /// \p Where (a local, a parameter, a member of `this`) is the same on
  /// every rank.
  std::optional<Divergence> namedContainerSize(const clang::Expr *E,
                                               const clang::FunctionDecl &Where,
                                               unsigned Depth);

  /// Nothing when the scalar field \p Field holds the same value on every
  /// rank in every object of its structure: every write of it in the unit
  /// (assignments, initializer lists) gives it such a value where every
  /// rank runs it, and no object's address goes to code the unit cannot
  /// see; every write another unit of the program makes is one the
  /// project's facts show to be such a value (writeInOtherUnit), and no
  /// other code may write it (TranslationUnitFacts::unknownWriters).
  std::optional<Divergence> fieldDivergence(const clang::FieldDecl *Field,
                                            unsigned Depth = 0);

  /// Nothing when the write at \p At in \p F gives the same value \p Value
  /// on every rank whenever every rank runs \p F: the value and the
  /// conditions around the write in \p F are judged, \p F's callers not
  /// (a unit's summary leaves them to the unit that reads the field).
  std::optional<Divergence> writeInFunction(const clang::Stmt *At,
                                            const clang::Expr *Value,
                                            const clang::FunctionDecl &F);
  /// From now on, a field a value reads is taken as the same on every rank
  /// and added to \p Out (null: judged as usual): a unit's summary leaves
  /// fields to the unit that reads it, which sees every unit's writes.
  void assumeFields(std::vector<const clang::FieldDecl *> *Out) {
    Assumed = Out;
  }
  /// From now on, a parameter of a function other units may call
  /// (external linkage) is taken as the same on every rank and added to
  /// \p Out (null: judged as usual): the unit that reads the summary
  /// sees every unit's calls.
  void assumeParameters(std::vector<const clang::ParmVarDecl *> *Out) {
    AssumedParams = Out;
  }
  /// From now on, what a function of another unit returns through a
  /// pointer parameter is taken as the same on every rank and added to
  /// \p Out (null: judged from the project's facts as usual): the unit
  /// that reads the summary has every unit's summary.
  void assumeOutValues(std::vector<ParamKey> *Out) { AssumedOuts = Out; }
  /// From now on, a container handed by reference to a function of
  /// another unit is taken as keeping its size there, and the parameter is
  /// added to \p Out (null: judged from the project's facts as usual).
  void assumeSizesKept(std::vector<ParamKey> *Out) { AssumedKeeps = Out; }
  /// From now on, a call of a function of another unit that a round trip
  /// takes as a broadcast (UniformityRoundTrip.cpp) is added to \p Out
  /// (null: judged from the project's facts as usual).
  void assumeBroadcasts(std::vector<AssumedBroadcast> *Out) {
    AssumedBroadcasts = Out;
  }
  /// Nothing when the fields and parameters another unit's write \p W of
  /// a field leaves to this unit are the same on every rank (\p Near:
  /// where notes point).
  std::optional<Divergence> openDivergence(const FieldValue &W,
                                           clang::SourceLocation Near);
  /// The first input of \p Proof (a parameter of \p F, the function it
  /// ran, that it took as the same on every rank) that may differ between
  /// ranks, and why; nothing when every input is the same everywhere.
  std::optional<std::pair<const clang::ParmVarDecl *, Divergence>>
  splitInputDivergence(const SplitProof &Proof, const clang::FunctionDecl &F);
  /// Nothing when every rank that runs \p Where runs \p S: no condition
  /// around it (nor an earlier return) may differ between ranks.
  std::optional<Divergence> controlDivergence(const clang::Stmt *S,
                                              const clang::FunctionDecl &Where);

  /// Nothing when every write \p F makes of what its pointer parameter
  /// \p P points to gives it the same value on every rank whenever every
  /// rank runs \p F (its callers are not judged): an assignment of such a
  /// value where every rank of \p F gets, a broadcast of it, a pass to a
  /// function that does the same, or a write on some ranks that such a
  /// broadcast later replaces (UniformityOutParams.cpp).
  std::optional<Divergence>
  outParameterDivergence(const clang::ParmVarDecl *P,
                         const clang::FunctionDecl &F);

  /// Nothing when no call of \p F that the unit shows may be made by some
  /// ranks and not others, or not as often: each call this unit makes is
  /// made where every rank of its caller gets, and so on through the
  /// callers it shows. Calls in other units and calls nobody shows (a
  /// library's function) are taken to be made alike, as its callers'
  /// contract.
  std::optional<Divergence>
  visibleCallersDivergence(const clang::FunctionDecl &F);

  /// Nothing when \p E has the same value in every iteration of \p Loop
  /// (a statement of \p Where): it reads no variable written inside the
  /// loop and calls nothing.
  std::optional<Divergence> loopVariance(const clang::Expr *E,
                                         const clang::Stmt *Loop,
                                         const clang::FunctionDecl &Where);

private:
  /// What a broadcast round trip (UniformityRoundTrip.cpp) shows of a
  /// variable's writes: none found; found, with the reason it does not
  /// hold; or found and holding, with the writes it accounts for.
  struct RoundTrip {
    bool Found = false;
    unsigned Unpack = 0; ///< Found: the unpacking write's index.
    std::optional<Divergence> Why;
    llvm::BitVector Covered;
    /// Found: the block holding the three statements, and where the
    /// unpacking ends.
    const clang::CompoundStmt *Block = nullptr;
    clang::SourceLocation End;
  };
  /// The round trip that may give \p V, read at \p Use in \p Where, the
  /// root's value on every rank: packed into an array element on the
  /// root, broadcast, unpacked on the others.
  RoundTrip roundTrip(const clang::VarDecl *V, clang::SourceLocation Use,
                      const clang::FunctionDecl &Where, unsigned Depth);
  /// The round trip that may give what \p P points to (or refers to),
  /// written by \p Writes, the root's value on every rank when \p F
  /// returns: it must run on every path to the caller.
  RoundTrip pointeeRoundTrip(const clang::ParmVarDecl *P,
                             llvm::ArrayRef<Write> Writes,
                             const clang::FunctionDecl &F, unsigned Depth);
  /// The round trip of \p V written by \p Writes, read at \p Use.
  RoundTrip roundTripOf(const TripValue &V, llvm::ArrayRef<Write> Writes,
                        clang::SourceLocation Use,
                        const clang::FunctionDecl &Where, unsigned Depth);
  /// The part of uniformingWrite for a function of the program.
  bool broadcastFunctionWrites(const clang::CallExpr *Call,
                               const clang::Expr *Address,
                               const clang::FunctionDecl &Where,
                               unsigned Depth);
  /// Whether the communicator \p Comm (an argument in \p Where) holds
  /// every rank the proof speaks of: MPI_COMM_WORLD (also behind the
  /// program's macros), or the one setCommunicator named.
  bool spansTheProof(const clang::Expr *Comm, const clang::FunctionDecl &Where);
  std::optional<Divergence> valueOf(const clang::Expr *E,
                                    const clang::FunctionDecl &Where,
                                    unsigned Depth);
  std::optional<Divergence> variable(const clang::VarDecl *V,
                                     clang::SourceLocation Use,
                                     const clang::FunctionDecl &Where,
                                     unsigned Depth);
  /// Which writes of \p V (by index in FunctionFacts::writesOf) may reach
  /// its read at \p Use in \p Where (ReachingWrites.h); nothing when all
  /// may: \p V is no local scalar of \p Where read there by a reference
  /// of its own, or the graph cannot tell.
  std::optional<llvm::BitVector>
  writesReaching(const clang::VarDecl *V, clang::SourceLocation Use,
                 const clang::FunctionDecl &Where);
  std::optional<Divergence> write(const clang::VarDecl *V, const Write &W,
                                  const clang::FunctionDecl &Where,
                                  unsigned Depth);
  std::optional<Divergence> parameter(const clang::ParmVarDecl *P,
                                      clang::SourceLocation Use,
                                      const clang::FunctionDecl &Where,
                                      unsigned Depth);
  std::optional<Divergence> datatypeArguments(const clang::VarDecl *V,
                                              const Write &W,
                                              const clang::FunctionDecl &Where,
                                              unsigned Depth);
  /// `v.size()` of a standard container: the same on every rank when every
  /// construction of the container has a size of that kind and nothing
  /// changes it afterwards.
  std::optional<Divergence> containerSize(const clang::CXXMemberCallExpr *Call,
                                          const clang::FunctionDecl &Where,
                                          unsigned Depth);
  std::optional<Divergence> localContainerSize(const clang::VarDecl *V,
                                               const clang::FunctionDecl &Where,
                                               unsigned Depth);
  std::optional<Divergence> memberContainerSize(const clang::FieldDecl *Field,
                                                unsigned Depth);
  /// A `const std::vector<T> &` parameter: every caller passes a container
  /// of such a size.
  std::optional<Divergence>
  parameterContainerSize(const clang::ParmVarDecl *P,
                         const clang::FunctionDecl &Where, unsigned Depth);
  std::optional<Divergence>
  constructionArguments(const clang::CXXConstructExpr *Construct,
                        const clang::FunctionDecl &Where, unsigned Depth);
  /// A call or construction that passes a parameter its value.
  struct ArgumentSite {
    const clang::Stmt *At;
    const clang::FunctionDecl *Caller;
    const clang::Expr *Arg; ///< Null when the call passes none.
  };
  std::optional<Divergence>
  constructorParameter(const clang::ParmVarDecl *P, clang::SourceLocation Use,
                       const clang::CXXConstructorDecl &Ctor, unsigned Depth);
  /// Runs \p Proof as a new proof in another function, whose variables
  /// under proof are its own.
  template <typename ProofFn>
  std::optional<Divergence> inAnotherFunction(ProofFn Proof) {
    llvm::SmallPtrSet<const clang::VarDecl *, 16> Saved = std::move(InProgress);
    InProgress.clear();
    std::optional<Divergence> Why = Proof();
    InProgress = std::move(Saved);
    return Why;
  }
  /// " (why)" when \p F may be called where the unit does not show.
  std::string unseenCallersNote(const clang::FunctionDecl &F) const;
  /// Why some ranks may run \p F and others not: a caller's condition, or
  /// callers the unit does not show.
  std::optional<Divergence> callersOf(const clang::FunctionDecl &F,
                                      unsigned Depth);
  std::optional<Divergence> visibleCallers(const clang::FunctionDecl &F,
                                           unsigned Depth);
  /// The walk of both: every caller, or (\p VisibleOnly) this unit's.
  std::optional<Divergence> callerWalk(const clang::FunctionDecl &F,
                                       unsigned Depth, bool VisibleOnly);
  /// Why the write \p At of \p Field (a use of it, or an initializer list)
  /// may give it a value that differs between ranks.
  std::optional<Divergence> fieldWrite(const clang::FieldDecl *Field,
                                       const clang::Expr *At,
                                       const clang::Expr *Value,
                                       unsigned Depth);
  /// Why \p Field, which \p Use hands to the query \p Query, is no value
  /// every rank shares, or is not the query's result everywhere.
  Divergence queryDivergence(const clang::FieldDecl *Field,
                             const QueryValue &Query,
                             const clang::MemberExpr *Use);
  /// Why \p Field, which the write \p Use gives the rank or the size in
  /// a communicator split beside it (SplitRanks.h), is no value every rank
  /// shares, or may not be that: the split proof's inputs may differ
  /// between ranks. Nothing when \p Use is no such write.
  std::optional<Divergence> splitDivergence(const clang::FieldDecl *Field,
                                            const clang::MemberExpr &Use);
  /// Why \p Field, which receives a query on the communicator field
  /// \p Comm at \p Where, may not be that query's result: nothing when
  /// every write of \p Comm is followed by the query again.
  std::optional<Divergence> replacedComm(const clang::FieldDecl *Field,
                                         const clang::FieldDecl *Comm,
                                         llvm::StringRef Where,
                                         clang::SourceLocation Loc);
  /// Why the write \p W of \p Field that another unit makes may give it a
  /// value that differs between ranks.
  std::optional<Divergence> writeInOtherUnit(const clang::FieldDecl *Field,
                                             const FieldValue &W,
                                             unsigned Depth);
  /// Whether \p E, in \p Where, is an MPI error code in a run without
  /// MPI errors MPI_SUCCESS: an MPI call, a call of a function whose every
  /// `return` gives such a code or 0 (returnsMPICode), a conditional whose
  /// both results are such codes, or a local whose
  /// every write is one of those, 0, a copy of such a local (`hplerr =
  /// mpierr;`), or `|=`/`+=` of one.
  bool givesMPICode(const clang::Expr *E, const clang::FunctionDecl &Where,
                    unsigned Depth);

public:
  /// Whether \p Cond only tests whether MPI calls succeeded (`ierr !=
  /// MPI_SUCCESS` where every value \p Where gives `ierr` is an MPI call's
  /// result or zero, or `MPI_X(...) != MPI_SUCCESS` itself). A proof speaks
  /// of runs without MPI errors (after one, MPI's state is undefined), in
  /// which such a condition has one value on every rank.
  bool testsMPISuccess(const clang::Expr *Cond,
                       const clang::FunctionDecl &Where);
  /// Whether \p Cond only tests a local pointer that every write reaching
  /// it sets to a fresh allocation against null (`if (!tmp) return
  /// MPI_ERR_NO_MEM;`). A proof speaks of runs in which allocations
  /// succeed, as of runs without MPI errors: the test is false on every
  /// rank.
  bool testsAllocation(const clang::Expr *Cond,
                       const clang::FunctionDecl &Where);
  /// Whether every `return` of \p F gives an MPI error code or 0 (HPL's
  /// `return( hplerr );`): its body in this unit, or its unit's summary.
  bool returnsMPICode(const clang::FunctionDecl &F, unsigned Depth = 0);

private:
  /// Why the condition \p Cond may differ between ranks: \p Judge's reason
  /// for the first operand of its `&&`s and `||`s that is neither the same
  /// on every rank nor a test of an MPI error code (testsMPISuccess) or of
  /// an allocation (testsAllocation).
  std::optional<Divergence> conditionParts(
      const clang::Expr *Cond, const clang::FunctionDecl &Where,
      llvm::function_ref<std::optional<Divergence>(const clang::Expr *)> Judge);
  /// Why the statements around \p S may let some ranks run it and others
  /// not (a condition that may differ between ranks).
  std::optional<Divergence> controlOf(const clang::Stmt *S,
                                      const clang::FunctionDecl &Where,
                                      unsigned Depth);

  /// Whether \p Field holds the same value on every rank wherever \p Where
  /// reads it: a communicator's size, or fieldDivergence.
  std::optional<Divergence> memberDivergence(const clang::FieldDecl *Field,
                                             const clang::FunctionDecl &Where,
                                             unsigned Depth);

  // Calls other units make (UniformityAcrossUnits.cpp).

  /// Why \p P, a parameter of \p Callee, may receive values that differ
  /// between ranks from the calls \p Sites this unit shows and \p Records
  /// other units made.
  std::optional<Divergence> argumentsAtSites(const clang::ParmVarDecl *P,
                                             const clang::FunctionDecl &Callee,
                                             llvm::ArrayRef<ArgumentSite> Sites,
                                             llvm::ArrayRef<CallRecord> Records,
                                             unsigned Depth);
  /// Why the argument at \p Index of the recorded call \p R (of the
  /// function \p Callee names) may differ between ranks; with
  /// \p CheckControl, also why some ranks may make the call and others
  /// not.
  std::optional<Divergence>
  recordedArgument(llvm::StringRef Callee, unsigned Index, const CallRecord &R,
                   bool CheckControl, clang::SourceLocation Near,
                   unsigned Depth);
  /// Why a call of \p Records may pass a value that differs between
  /// ranks as the argument at \p Index (recordedArgument); the reason
  /// names the call and starts with \p Receiver.
  std::optional<Divergence>
  recordedArguments(llvm::StringRef Callee, unsigned Index,
                    llvm::ArrayRef<CallRecord> Records, bool CheckControl,
                    llvm::StringRef Receiver, clang::SourceLocation Near,
                    unsigned Depth);
  /// Why some ranks may make the recorded call \p R of \p Callee and
  /// others not: its conditions, or its caller's callers.
  std::optional<Divergence> recordedCallRuns(llvm::StringRef Callee,
                                             const CallRecord &R,
                                             clang::SourceLocation Near,
                                             unsigned Depth);
  /// Why some ranks may run the function of USR \p Key and others not.
  std::optional<Divergence> functionRuns(llvm::StringRef Key,
                                         llvm::StringRef Name,
                                         clang::SourceLocation Near,
                                         unsigned Depth);
  /// Why the fields and parameters \p V (a value of another unit) leaves
  /// to this unit may differ between ranks; \p Near is where notes point.
  std::optional<Divergence> sharedAssumptions(const SharedValue &V,
                                              clang::SourceLocation Near,
                                              unsigned Depth);
  /// Why the field \p Key, which a value \p Where (null: a function of
  /// another unit) computes reads, may differ between ranks; the reason
  /// starts with \p Reads and the field's name.
  std::optional<Divergence> assumedField(llvm::StringRef Key,
                                         const clang::FunctionDecl *Where,
                                         clang::SourceLocation Near,
                                         unsigned Depth, llvm::StringRef Reads);
  /// Why the parameter \p K may receive values that differ between ranks,
  /// from the calls of every unit.
  std::optional<Divergence> assumedParameter(const ParamKey &K,
                                             clang::SourceLocation Near,
                                             unsigned Depth);

  // Values returned through pointer parameters (UniformityOutParams.cpp).

  /// Why a write of what \p P, a parameter of \p F, points to may leave
  /// it different between ranks (outParameterDivergence).
  std::optional<Divergence> pointeeWrites(const clang::ParmVarDecl *P,
                                          const clang::FunctionDecl &F,
                                          unsigned Depth);
  std::optional<Divergence> pointeeWrite(const clang::ParmVarDecl *P,
                                         const Write &W,
                                         const clang::FunctionDecl &F,
                                         unsigned Depth);
  /// Why the function \p Call calls, handed the address \p Address (one of
  /// its arguments), may write a value there that differs between ranks:
  /// its body in this unit, or its unit's summary, says so, or neither is
  /// at hand. The reason starts with a verb ("is written by ...").
  std::optional<Divergence> returnedThrough(const clang::CallExpr *Call,
                                            const clang::Expr *Address,
                                            unsigned Depth);
  /// Why the write \p W (of \p Writes, those of one object that \p Name
  /// names in \p F, read at \p Use) does not count though a collective
  /// replaces it: the collective carries the object only in part, or on
  /// a communicator that may hold fewer processes than the proof speaks
  /// of. Nothing when no collective replaces it.
  /// Why the collective write \p B of the object \p Name names in \p F
  /// leaves it different between ranks: it carries the object only in
  /// part, or on a communicator that may hold fewer processes than the
  /// proof speaks of. Nothing when it covers all of them, or \p B is no
  /// such collective.
  std::optional<Divergence> collectiveFallsShort(const std::string &Name,
                                                 const Write &B,
                                                 const clang::FunctionDecl &F);
  std::optional<Divergence> replacedTooLittle(const std::string &Name,
                                              const Write &W,
                                              llvm::ArrayRef<Write> Writes,
                                              clang::SourceLocation Use,
                                              const clang::FunctionDecl &F);
  /// Why what the function of USR \p K.Function returns through its
  /// parameter \p K.Index, which a value of another unit reads, may differ
  /// between ranks.
  std::optional<Divergence>
  assumedOut(const ParamKey &K, clang::SourceLocation Near, unsigned Depth);
  /// Why the call \p B, which a unit took as a broadcast, may be none: its
  /// function's summary says it is no broadcast, or not of these
  /// arguments.
  std::optional<Divergence> assumedBroadcast(const AssumedBroadcast &B,
                                             clang::SourceLocation Near);
  /// Whether a `return` of \p F lies between \p From and \p To.
  bool leavesBetween(clang::SourceLocation From, clang::SourceLocation To,
                     const clang::FunctionDecl &F);

  /// Calls and fields are followed through at most this many steps.
  static constexpr unsigned MaxDepth = 8;

  TranslationUnitFacts &TU;
  CommKey Scope;
  std::vector<const clang::FieldDecl *> *Assumed = nullptr;
  std::vector<const clang::ParmVarDecl *> *AssumedParams = nullptr;
  std::vector<ParamKey> *AssumedOuts = nullptr;
  std::vector<AssumedBroadcast> *AssumedBroadcasts = nullptr;
  std::vector<ParamKey> *AssumedKeeps = nullptr;
  /// Functions (USRs) whose callers and parameters are under proof.
  std::set<std::string> KeysInProgress;
  /// Variables under proof (a cycle through a loop counter is no reason).
  llvm::SmallPtrSet<const clang::VarDecl *, 16> InProgress;
  llvm::SmallPtrSet<const clang::FieldDecl *, 4> FieldsInProgress;
};

/// \p D's name in quotes, for the reasons.
std::string named(const clang::NamedDecl *D);

/// \p E's source text (its macros' expansion range) in quotes, for the
/// reasons.
std::string quotedSource(const clang::Expr *E,
                         const clang::ASTContext &Context);

/// The name a USR ends with (`c:@F@grid_init` -> `grid_init`), for notes
/// about a function this unit does not declare.
std::string nameInUSR(llvm::StringRef Key);

/// Whether every rank that runs \p F runs \p Call whenever it runs the
/// statement of \p F's body that holds it: no loop, branch or short
/// circuit lies between them (the condition of an `if` runs), except a
/// short circuit after a test of MPI error codes, which a run without MPI
/// errors passes (`MPI_Bcast(&n, ...) != MPI_SUCCESS || MPI_Bcast(&m,
/// ...) != MPI_SUCCESS`).
bool runsWithItsStatement(const clang::CallExpr *Call,
                          const clang::FunctionDecl &F, clang::ASTContext &Ctx);

/// The value \p E has in a run without MPI errors, when it tests only the
/// codes MPI calls return (MPI_SUCCESS is 0): `MPI_Bcast(...) !=
/// MPI_SUCCESS` is false, `(ierr = MPI_Send(...)) == MPI_SUCCESS` true,
/// and `&&`, `||` and `!` of such tests what they make of them.
std::optional<bool> valueWithoutMPIErrors(const clang::Expr *E,
                                          clang::ASTContext &Ctx);

/// How much of the object at \p Address (one of \p Call's arguments: `&n`,
/// a pointer to it, an array) a collective leaves holding one value on
/// every rank.
enum class Coverage {
  None,  ///< No such collective, or not that buffer.
  Whole, ///< Its count and predefined datatype carry all the object's bytes.
  Part,  ///< Fewer bytes, or a count or datatype that is no known constant.
};
/// The buffer of MPI_Bcast, the receive buffer of MPI_Allreduce and
/// MPI_Allgather; a send buffer keeps what each rank had.
Coverage uniformingCoverage(const clang::CallExpr *Call,
                            const clang::Expr *Address,
                            const clang::ASTContext &Ctx);
/// Whether \p Call leaves all of the object at \p Address holding one
/// value on every rank of its communicator (uniformingCoverage).
bool isUniformingCollective(const clang::CallExpr *Call,
                            const clang::Expr *Address,
                            const clang::ASTContext &Ctx);

/// Whether the write \p W (one of \p Writes, the writes of one object in
/// \p F) cannot reach \p Use: a call that \p Uniforming says leaves one
/// value on every rank (a broadcast of the object) is another of
/// \p Writes, lies between them in the body of \p F, in no loop or
/// branch, and no `goto` jumps around it (`if (rank == 0) n =
/// atoi(argv[1]); MPI_Bcast(&n, ...);` then reads of `n`). \p By, if
/// given, is set to that call's write.
bool overwrittenForAll(
    const Write &W, llvm::ArrayRef<Write> Writes, clang::SourceLocation Use,
    const clang::FunctionDecl &F, clang::ASTContext &Ctx,
    llvm::function_ref<bool(const clang::CallExpr *, const clang::Expr *)>
        Uniforming,
    const Write **By = nullptr);

/// Whether \p W hands the object's address to an MPI call that only reads
/// it (the send buffer of a send).
bool isReadOnlyPass(const Write &W);

/// Whether \p Call only computes with its arguments (abs, min, max, ...):
/// it reads no other state and writes nothing.
bool isPureArithmeticCall(const clang::CallExpr *Call);

/// `v.data()` or `v.size()` of a standard container: a call that only
/// reads.
bool isContainerAccessor(const clang::Expr *E);

/// Whether \p Call's callee is a function whose body is `return E;` with
/// no side effects in E nor in the call's arguments (a traits class's
/// `static MPI_Datatype get() { return MPI_DOUBLE; }`, a getter): calling
/// it once or many times is the same.
bool isPureAccessor(const clang::CallExpr *Call);

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_RANKUNIFORMITY_H
