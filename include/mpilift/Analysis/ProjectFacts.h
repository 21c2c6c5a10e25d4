//===- ProjectFacts.h - What the other units of a program do ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The safety checks read one translation unit; a program is many. What a
/// proof needs from the others is summarised per unit (UnitSummary): where
/// it writes each structure field, where the address of a structure goes
/// to code the unit cannot see, which functions it defines, and whether it
/// defines `main`. The summaries of every unit of a compile database make
/// the project's facts (ProjectFacts), which a unit's checks consult
/// instead of refusing "another file may write it". Names join the units:
/// a structure by its (typedef) name, a function by its USR. Two
/// structures of one name in different units only make more refusals.
///
/// The summaries are JSON (docs/project-index.md) so that a run can keep
/// them on disk and the next reuse them.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_ANALYSIS_PROJECTFACTS_H
#define MPILIFT_ANALYSIS_PROJECTFACTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class RecordDecl;
} // namespace clang

namespace mpilift {
namespace analysis {

/// A place in a file, as notes print it.
struct SourcePlace {
  std::string File;
  int64_t Line = 0, Column = 0;
  /// "file:line:column".
  std::string str() const;
};

/// Where the address of a structure goes to code the unit does not show.
struct RecordEscape {
  SourcePlace Where;
  /// The USR of the function called (empty: an indirect call); when some
  /// unit of the project defines it, its writes are that unit's own.
  std::string Callee;
};

/// A parameter of a function, named across units: the function's USR and
/// the parameter's position (from 0).
struct ParamKey {
  std::string Function;
  unsigned Index = 0;
  bool operator==(const ParamKey &O) const {
    return Function == O.Function && Index == O.Index;
  }
};

/// A call of a function of another unit that a unit's proof takes as a
/// broadcast of one of its arrays (lib/Analysis/CollectiveFunctions.h),
/// left to the reading unit, which has that function's summary
/// (UnitSummary::Broadcasts): what the call passes, and what the proof
/// needs of the broadcast.
struct AssumedBroadcast {
  /// What the caller's code shows of one argument.
  struct Argument {
    std::optional<int64_t> Constant; ///< An integer constant's value.
    bool Uniform = false;            ///< The same on every rank.
    /// The communicator the proof's rank is the rank in, and one whose
    /// processes are all those the proof speaks of.
    bool RankComm = false;
    /// MPI's name of the predefined datatype it names, if any.
    std::string Datatype;
  };
  std::string Function; ///< USR.
  unsigned Buffer = 0;  ///< The argument that is the start of the array.
  std::vector<Argument> Arguments;
  int64_t Root = 0;    ///< The process that packs the array.
  int64_t Index = 0;   ///< The element the broadcast must carry.
  std::string Element; ///< Its C type ("int"), the datatype's to be.
};

/// What a unit's own code shows of a value its callers or other units
/// decide: an argument of a call, or whether a call runs (its conditions).
struct SharedValue {
  /// The same on every rank whenever every rank runs the function it is
  /// in, provided the fields in Assumes and the parameters in Params are.
  bool Uniform = false;
  /// The fields ("Record::field") it reads, left to the reading unit.
  std::vector<std::string> Assumes;
  /// Parameters of functions whose callers the unit may not show (external
  /// linkage), left to the reading unit, which sees every unit's calls.
  std::vector<ParamKey> Params;
  /// What functions of other units return through a pointer parameter
  /// (Function, Index) that it reads, left to the reading unit, which has
  /// their summaries (UnitSummary::OutValues).
  std::vector<ParamKey> Outs;
  /// Calls of other units' functions it takes as broadcasts, left to the
  /// reading unit.
  std::vector<AssumedBroadcast> Broadcasts;
  /// Parameters of other units' functions a container is handed to by
  /// reference, which must leave its size alone (UnitSummary::KeepsSize),
  /// left to the reading unit.
  std::vector<ParamKey> Keeps;
  /// An integer constant: the value (calls that all pass one constant
  /// need not each run on every rank).
  std::optional<int64_t> Constant;
  /// Not Uniform: why the unit could not judge it, for the notes.
  std::string Reason;
  /// Arguments: "rank" or "size" when the value is that query's result on
  /// the predefined communicator Comm (empty: neither, or not known).
  std::string Query;
  /// Arguments: the predefined communicator (`MPI_COMM_WORLD`) the value
  /// is, or the one Query was asked on; empty for any other.
  std::string Comm;
  /// Arguments: the argument is a standard container passed by reference,
  /// and the judgement is of its size (not of its elements).
  bool Size = false;
};

/// One call of a function of the program, as the calling unit judges it.
struct CallRecord {
  SourcePlace Where;
  /// The USR of the function making the call (empty: outside a function).
  std::string Caller;
  bool CallerIsMain = false;
  /// Whether every rank that runs the caller makes the call: its
  /// conditions (and earlier returns) as values.
  SharedValue Control;
  /// One per argument, in order.
  std::vector<SharedValue> Arguments;
};

/// What a function returns through one of its pointer parameters (`int
/// *n`), as the unit that defines it judges its writes of `*n`.
struct OutValue {
  unsigned Index = 0; ///< The parameter's position, from 0.
  /// Uniform: every write of what the parameter points to gives it the
  /// same value on every rank whenever every rank runs the function.
  SharedValue Value;
};

/// A function of the program that is a hand-written broadcast through and
/// through (lib/Analysis/CollectiveFunctions.h): when every process of the
/// communicator calls it with the parameters of \c Uniform the same on
/// each, it does what MPI_Bcast of these of its parameters would.
struct BroadcastFunction {
  unsigned Buffer = 0, Comm = 0;
  /// The count and the root: a parameter's index, or a constant.
  std::optional<unsigned> CountParam, RootParam;
  int64_t Count = 0, Root = 0;
  /// The datatype: MPI's name; or, when it depends on the parameter
  /// \c TypeParam, MPI's name for each value of that parameter's
  /// enumeration.
  std::string Type;
  std::optional<unsigned> TypeParam;
  std::vector<std::pair<int64_t, std::string>> TypeByValue;
  /// Or the datatype is the argument for this parameter itself, as
  /// MPI_Bcast's is (`MPI_Datatype type`).
  std::optional<unsigned> TypeArg;
  /// The parameters the proof took as the same on every process.
  std::vector<unsigned> Uniform;

  /// MPI's name for the datatype of a call whose argument for TypeParam
  /// is \p TypeArgument (an integer constant, if known), and whose
  /// argument for TypeArg names MPI's datatype \p Passed; empty when it
  /// names none.
  std::string typeFor(std::optional<int64_t> TypeArgument,
                      llvm::StringRef Passed) const {
    if (TypeArg)
      return Passed.str();
    if (!TypeParam)
      return Type;
    for (const auto &[Value, Name] : TypeByValue)
      if (TypeArgument && *TypeArgument == Value)
        return Name;
    return "";
  }
};

/// A function of the program that folds one array into another element by
/// element and does nothing else (lib/Analysis/CombineFunctions.h): a call
/// sets, for each i from 0 while below the argument for \c Count, element i
/// of \c Into to \c Op of itself and element i of \c From.
struct CombineFunction {
  unsigned Count = 0, From = 0, Into = 0;
  /// MPI's name of the operation ("MPI_SUM", "MPI_MAX", ...).
  std::string Op;
  /// The elements' arithmetic type, as C spells it ("int", "double"); with
  /// \c TypeParam, the type for the values ElementByValue does not name
  /// (empty: such calls combine nothing).
  std::string Element;
  /// When a parameter picks the elements' type (HPL's `DTYPE`: `if (DTYPE
  /// == HPL_INT) { ...int loop... } else { ...double loop... }`), its
  /// position, and the type for each value it is compared with.
  std::optional<unsigned> TypeParam;
  std::vector<std::pair<int64_t, std::string>> ElementByValue;
};

/// What one write of a structure field gives it, as the unit that makes
/// the write judges it with its own code alone.
struct FieldValue {
  enum class Kind {
    /// A value the unit could not show to be the same on every rank.
    Other,
    /// The same on every rank whenever every rank runs the function the
    /// write is in (the callers are for the unit that reads it to judge).
    Uniform,
    /// The result of MPI_Comm_rank or MPI_Comm_size on the communicator in
    /// a field of the same object (`MPI_Comm_rank(g->comm, &g->rank)`).
    Rank,
    Size,
    /// The communicator the field holds, freed (MPI_Comm_free): nothing
    /// may use it afterwards, nor a rank or size queried on it.
    Freed,
  };
  Kind ValueKind = Kind::Other;
  SourcePlace Where;
  /// Rank, Size: the communicator's field, "Record::field".
  std::string Comm;
  /// Rank, Size: shown by the split proof (a field set beside the
  /// MPI_Comm_split that makes Comm, in the same function, before or after
  /// it), not by a query that follows the communicator's write.
  bool Split = false;
  /// Split: the functions (USRs) the proof took to end the program, which
  /// the reading unit checks against every unit's summary.
  std::vector<std::string> EndsIf;
  /// The USR of the function the write is in (empty: none).
  std::string Function;
  /// Uniform: the fields ("Record::field") the value reads, which the
  /// writing unit leaves to the reading unit to judge with every unit's
  /// writes.
  std::vector<std::string> Assumes;
  /// Uniform: the parameters the value or the conditions read, of
  /// functions other units may call, left to the reading unit.
  std::vector<ParamKey> Params;
  /// Uniform: what functions of other units return through a pointer
  /// parameter that the value or the conditions read (SharedValue::Outs).
  std::vector<ParamKey> Outs;
  /// Other: why the writing unit could not judge it, for the notes.
  std::string Reason;
};

/// What one translation unit does that others' proofs need.
struct UnitSummary {
  /// The unit's main file (real path).
  std::string File;
  bool DefinesMain = false;
  /// "Record::field" -> every place the unit writes that field (an
  /// assignment, an increment, its address passed or stored, an initializer
  /// list or a constructor's member initializer), with what it gives it.
  std::map<std::string, std::vector<FieldValue>> FieldValues;
  /// "Record" -> every place the address of one goes to a function
  /// without a body in the unit (the first per callee).
  std::map<std::string, std::vector<RecordEscape>> RecordEscapes;
  /// The USRs of the functions the unit defines.
  std::set<std::string> Defines;
  /// USR of a function with external linkage -> the first place in each
  /// file where the unit calls it.
  std::map<std::string, std::vector<SourcePlace>> Calls;
  /// The USRs of the functions the unit defines that may run where no
  /// call names them: whose address it takes (of any linkage), virtual
  /// functions, constructors, destructors, conversions, lambdas' bodies.
  /// Their recorded calls are not all their calls.
  std::set<std::string> ImplicitlyCalled;
  /// USR of a function of the program (not a library's) -> every call
  /// the unit makes of it, with its arguments and conditions judged.
  std::map<std::string, std::vector<CallRecord>> CallRecords;
  /// USR of a function with external linkage -> the first place the unit
  /// takes its address (a call through a pointer may reach it).
  std::map<std::string, SourcePlace> AddressTaken;
  /// The USRs of the functions the unit defines that end the program
  /// whenever they are called (endsProgram).
  std::set<std::string> NeverReturn;
  /// The USRs of the functions with external linkage the unit defines
  /// whose every `return` gives an MPI error code or zero (in a run
  /// without MPI errors, MPI_SUCCESS).
  std::set<std::string> ReturnsMPICode;
  /// USR of a function with external linkage the unit defines -> what it
  /// returns through each parameter that points or refers to a scalar it
  /// may write (not to const).
  std::map<std::string, std::vector<OutValue>> OutValues;
  /// USR of a function with external linkage the unit defines -> the
  /// broadcast it is, when it is one.
  std::map<std::string, BroadcastFunction> Broadcasts;
  /// USR of a function with external linkage the unit defines -> the
  /// combine function it is, when it is one.
  std::map<std::string, CombineFunction> Combines;
  /// USR of a function with external linkage the unit defines -> the
  /// positions of its parameters that refer to a std::vector whose size
  /// it leaves alone.
  std::map<std::string, std::vector<unsigned>> KeepsSize;
};

/// Whether every call of \p F ends the program: a statement of its body
/// itself calls exit, abort, _Exit, quick_exit, MPI_Abort or a function
/// declared not to return, and no statement before it may return or jump
/// (HPL's HPL_pabort: it prints, then calls MPI_Abort and exit).
bool endsProgram(const clang::FunctionDecl &F);

llvm::json::Value toJSON(const FieldValue &V);
bool fromJSON(const llvm::json::Value &V, FieldValue &Out, llvm::json::Path P);
llvm::json::Value toJSON(const ParamKey &K);
bool fromJSON(const llvm::json::Value &V, ParamKey &Out, llvm::json::Path P);
llvm::json::Value toJSON(const AssumedBroadcast &B);
bool fromJSON(const llvm::json::Value &V, AssumedBroadcast &Out,
              llvm::json::Path P);
llvm::json::Value toJSON(const SharedValue &V);
bool fromJSON(const llvm::json::Value &V, SharedValue &Out, llvm::json::Path P);
llvm::json::Value toJSON(const CallRecord &C);
bool fromJSON(const llvm::json::Value &V, CallRecord &Out, llvm::json::Path P);
llvm::json::Value toJSON(const OutValue &V);
bool fromJSON(const llvm::json::Value &V, OutValue &Out, llvm::json::Path P);
llvm::json::Value toJSON(const BroadcastFunction &B);
bool fromJSON(const llvm::json::Value &V, BroadcastFunction &Out,
              llvm::json::Path P);
llvm::json::Value toJSON(const CombineFunction &C);
bool fromJSON(const llvm::json::Value &V, CombineFunction &Out,
              llvm::json::Path P);
llvm::json::Value toJSON(const UnitSummary &S);
bool fromJSON(const llvm::json::Value &V, UnitSummary &S, llvm::json::Path P);

/// The name that joins a structure across units: its qualified name, or
/// the typedef name of an anonymous one; empty when it has neither.
std::string recordKey(const clang::RecordDecl &Record);
/// The USR of \p F (empty if it has none).
std::string functionKey(const clang::FunctionDecl &F);

/// Summarises the unit of \p Context (its program code, as the safety
/// checks see it).
UnitSummary summarizeUnit(clang::ASTContext &Context);

/// The summaries of every unit of a compile database.
class ProjectFacts {
public:
  void add(UnitSummary Unit);
  size_t units() const { return Units.size(); }
  /// Whether some unit defines `main`: without one, the project is a
  /// library, called with objects its units never see written.
  bool definesMain() const;
  /// Whether some unit defines the function of USR \p Key.
  bool defines(llvm::StringRef Key) const;
  /// Every write of \p Field ("Record::field") by a unit whose main file
  /// is not \p Unit, outside the files \p SeenByUnit says \p Unit reads
  /// itself, in the order of the units and their writes.
  std::vector<FieldValue>
  valuesElsewhere(llvm::StringRef Field, llvm::StringRef Unit,
                  llvm::function_ref<bool(llvm::StringRef)> SeenByUnit) const;
  /// The first call of the function of USR \p Function by a unit whose
  /// main file is not \p Unit, outside the files \p SeenByUnit says
  /// \p Unit reads itself.
  std::optional<SourcePlace>
  callElsewhere(llvm::StringRef Function, llvm::StringRef Unit,
                llvm::function_ref<bool(llvm::StringRef)> SeenByUnit) const;
  /// Every call of the function of USR \p Function by a unit whose main
  /// file is not \p Unit, outside the files \p SeenByUnit says \p Unit
  /// reads itself, in the order of the units and their calls.
  std::vector<CallRecord> callRecordsElsewhere(
      llvm::StringRef Function, llvm::StringRef Unit,
      llvm::function_ref<bool(llvm::StringRef)> SeenByUnit) const;
  /// Whether a unit defines the function of USR \p Function as one that
  /// may run where no call names it (UnitSummary::ImplicitlyCalled).
  bool implicitlyCalled(llvm::StringRef Function) const;
  /// Whether a unit defines the function of USR \p Function as one that
  /// ends the program whenever it is called (UnitSummary::NeverReturn).
  bool neverReturns(llvm::StringRef Function) const;
  /// What the function of USR \p Function returns through its parameter
  /// \p Index, as the unit defining it judged; nothing when no unit says.
  std::optional<SharedValue> outValue(llvm::StringRef Function,
                                      unsigned Index) const;
  /// The broadcast the function of USR \p Function is, as the unit
  /// defining it judged; nothing when no unit says it is one.
  std::optional<BroadcastFunction>
  broadcastFunction(llvm::StringRef Function) const;
  /// The combine function the function of USR \p Function is, as the unit
  /// defining it judged; nothing when no unit says it is one.
  std::optional<CombineFunction>
  combineFunction(llvm::StringRef Function) const;
  /// Whether a unit defines the function of USR \p Function as one whose
  /// every return gives an MPI error code or zero.
  bool returnsMPICode(llvm::StringRef Function) const;
  /// Whether a unit defines the function of USR \p Function, and its
  /// parameter \p Index refers to a std::vector whose size it leaves alone.
  bool keepsSize(llvm::StringRef Function, unsigned Index) const;
  /// Where another unit than \p Unit takes the address of \p Function.
  std::optional<SourcePlace> addressTakenElsewhere(llvm::StringRef Function,
                                                   llvm::StringRef Unit) const;
  /// The first place another unit than \p Unit lets the address of a
  /// \p Record go to code outside the project.
  std::optional<SourcePlace> escapeElsewhere(llvm::StringRef Record,
                                             llvm::StringRef Unit) const;

private:
  std::vector<UnitSummary> Units;
  std::set<std::string> Defined;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_ANALYSIS_PROJECTFACTS_H
