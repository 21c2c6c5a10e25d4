//===- FunctionFacts.h - Def-use facts the safety checks need ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the safety checks ask about variables: every place a variable is
/// written (initializer, assignment, increment, address taken, or bound to
/// a reference), and every call of a function in the translation unit. The
/// facts are syntactic and conservative: a use we cannot classify counts as
/// an escape, and an escape stops every proof that depends on the variable.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_FUNCTIONFACTS_H
#define MPILIFT_LIB_ANALYSIS_FUNCTIONFACTS_H

#include "mpilift/Analysis/MPICalls.h"
#include "mpilift/Analysis/ProjectFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mpilift {
namespace analysis {

/// How a statement changes (or may change) a variable.
enum class WriteKind {
  Init,        ///< `int x = Value;`
  Assign,      ///< `x = Value;`
  Compound,    ///< `x += Value;` and friends.
  IncDec,      ///< `x++`, `--x`.
  AddressPass, ///< `&x` passed to a call, or `x` bound to a parameter of
               ///< reference to non-const type (Call is set).
  Element,     ///< `x[i]` or `x.f` of an array or struct: a part is used.
  Escape,      ///< Anything else: `&x` stored, bound to a reference, ...
};

/// One write of a variable.
struct Write {
  WriteKind Kind;
  const clang::Stmt *Where;              ///< The statement or expression.
  const clang::Expr *Value = nullptr;    ///< The assigned value, if any.
  const clang::CallExpr *Call = nullptr; ///< For AddressPass.
};

/// The writes of every variable in one function body.
class FunctionFacts {
public:
  FunctionFacts(clang::ASTContext &Context, const clang::FunctionDecl &F);

  const clang::FunctionDecl &function() const { return F; }
  /// Every write of \p V in the body, in source order.
  llvm::ArrayRef<Write> writesOf(const clang::VarDecl *V) const;
  /// Every reference to \p V in the body.
  llvm::ArrayRef<const clang::DeclRefExpr *>
  referencesOf(const clang::VarDecl *V) const;

private:
  const clang::FunctionDecl &F;
  llvm::DenseMap<const clang::VarDecl *, llvm::SmallVector<Write, 2>> Writes;
  llvm::DenseMap<const clang::VarDecl *,
                 llvm::SmallVector<const clang::DeclRefExpr *, 4>>
      References;
};

/// Every write of the object the pointer parameter \p P of \p F points
/// to, in source order: `*P = v` and `P[0] = v` (Assign, Compound,
/// IncDec, with Where the assignment); \p P handed to a call, also behind
/// a cast (AddressPass, with Where the argument); any other use that may
/// write it or let it go (stored, copied, indexed by anything but 0,
/// pointer arithmetic: Escape). Reads are left out. \p P written itself
/// is in FunctionFacts::writesOf.
std::vector<Write> pointeeWritesOf(const clang::ParmVarDecl *P,
                                   const FunctionFacts &Facts,
                                   clang::ASTContext &Context);

/// A call of a function, with the function that makes it.
struct CallSite {
  const clang::CallExpr *Call;
  const clang::FunctionDecl *Caller;
};

/// Translation-unit facts: calls of each function, and per-function facts
/// computed on demand and kept. Only the program's code is indexed: the
/// constructor restricts the context's traversal scope (and so its parent
/// map) to it (scopeToProgramCode).
/// What a translation unit does with objects of one structure type: the
/// initializer lists that build them, and the places the address of one
/// goes to code the unit cannot see (with the function called; null when
/// the call is indirect).
struct RecordUses {
  llvm::SmallVector<const clang::InitListExpr *, 2> InitLists;
  llvm::SmallVector<std::pair<const clang::Expr *, const clang::FunctionDecl *>,
                    1>
      Escapes;
};

struct SplitProof;
class ReachingWrites;

class TranslationUnitFacts {
public:
  explicit TranslationUnitFacts(clang::ASTContext &Context);
  ~TranslationUnitFacts();

  clang::ASTContext &context() const { return Context; }
  /// Every direct call of \p F (its canonical declaration) in the unit.
  llvm::ArrayRef<CallSite> callersOf(const clang::FunctionDecl *F) const;
  /// Whether calls of \p F this unit does not show may exist, so the
  /// calls above may not be all (unseenCallers says why).
  bool mayBeCalledUnseen(const clang::FunctionDecl *F) const;
  /// Why \p F may be called where this unit does not show: its address
  /// is taken; or it has external linkage and another unit calls it or
  /// takes its address, no unit defines `main`, or (without the project's
  /// facts) nothing shows what other files do.
  std::optional<std::string> unseenCallers(const clang::FunctionDecl *F) const;
  /// The calls of \p F that other units make, as they judged them, when
  /// those are the only calls this unit does not show (a function of this
  /// unit alone has none); nothing when other calls may exist (its
  /// address is taken, no project index, no unit defines `main`), which
  /// unseenCallers names.
  std::optional<std::vector<CallRecord>>
  callsElsewhere(const clang::FunctionDecl *F) const;
  /// The same for the function of USR \p Key, which this unit does not
  /// declare.
  std::optional<std::vector<CallRecord>>
  callsElsewhere(llvm::StringRef Key) const;
  /// Why the function of USR \p Key, which this unit does not declare,
  /// may be called in ways no unit's summary shows.
  std::optional<std::string> unrecordedCallers(llvm::StringRef Key,
                                               llvm::StringRef Name) const;
  const FunctionFacts &factsOf(const clang::FunctionDecl &F);
  /// Every construction of an object by \p Ctor in the unit.
  llvm::ArrayRef<const clang::CXXConstructExpr *>
  constructionsOf(const clang::CXXConstructorDecl *Ctor) const;
  /// Every use of the field \p Field in the unit, implicit member
  /// functions included.
  llvm::ArrayRef<const clang::MemberExpr *>
  usesOf(const clang::FieldDecl *Field) const;
  /// The function whose body holds the field use or initializer list
  /// \p E; null at file scope.
  const clang::FunctionDecl *functionOf(const clang::Expr *E) const;
  /// Every initializer list of an object of \p Record in the unit (the
  /// semantic form: one element per field, in order).
  llvm::ArrayRef<const clang::InitListExpr *>
  initListsOf(const clang::RecordDecl *Record) const;
  /// Where the address of an object of \p Record first goes to code the
  /// unit cannot see (a function without a body here, MPI, `memcpy`),
  /// which may write any of its fields; null when it never does. With the
  /// project's facts, a function another unit defines is no such code: its
  /// writes are that unit's (writtenElsewhere).
  const clang::Expr *escapeOf(const clang::RecordDecl *Record) const;
  /// Why code whose writes neither this unit nor the project's facts
  /// describe may write \p Field: the structure is a library's, another
  /// unit lets an object's address go to code outside the project, no unit
  /// defines `main`, or (without the project's facts) the structure is
  /// declared in a header or the unit has no `main`, so its functions may
  /// be called with objects built elsewhere. None when every write is in
  /// this unit or described by valuesElsewhere.
  std::optional<std::string>
  unknownWriters(const clang::FieldDecl *Field) const;
  /// Every write of \p Field other units of the project make, with what
  /// their own code shows of the value (empty without the project's facts).
  std::vector<FieldValue> valuesElsewhere(const clang::FieldDecl *Field) const;
  /// The function of USR \p Key that this unit declares and calls or
  /// defines; null when it has none.
  const clang::FunctionDecl *functionNamed(llvm::StringRef Key);
  /// The field "Record::field" \p Key names, among those this unit uses or
  /// the structures it defines; null when it has none of that name.
  const clang::FieldDecl *fieldNamed(llvm::StringRef Key) const;
  /// Whether this unit defines `main`.
  bool definesMain() const { return DefinesMain; }
  /// The facts of the other units of the program (null: only this unit
  /// is known).
  void setProject(const ProjectFacts *Facts) { Project = Facts; }
  const ProjectFacts *project() const { return Project; }
  /// What other units' proofs need from this one.
  UnitSummary summarize();
  /// Every function with a body here that names the global \p Global.
  llvm::ArrayRef<const clang::FunctionDecl *>
  functionsUsing(const clang::VarDecl *Global) const;

  /// Whether a floating-point sum or product may be rewritten to a
  /// collective that combines in another order (--allow-reassociation).
  bool reassociationAllowed() const { return AllowReassociation; }
  void allowReassociation(bool Allow) { AllowReassociation = Allow; }

  /// While set, the parameters of \p F are taken as the same on every
  /// rank (null: followed into the callers as usual): proofs then show
  /// what \p F does when every caller keeps that contract
  /// (CollectiveFunctions.h).
  void assumeParametersOf(const clang::FunctionDecl *F) { Contract = F; }
  const clang::FunctionDecl *contract() const { return Contract; }

  /// Where the broadcast \p F is (CollectiveFunctions.h) is kept: empty
  /// until it is judged; holding nothing while it is being judged, or when
  /// \p F is no broadcast.
  std::optional<std::optional<BroadcastFunction>> &
  broadcastSlot(const clang::FunctionDecl &F) {
    return Broadcasts[&F];
  }
  /// Where the combine function \p F is (CombineFunctions.h, from its body
  /// here or the project's summaries) is kept: empty until it is judged.
  std::optional<std::optional<CombineFunction>> &
  combineSlot(const clang::FunctionDecl &F) {
    return Combines[F.getCanonicalDecl()];
  }
  /// The parameters of the contract function a proof took as the same on
  /// every rank (assumeParametersOf).
  std::vector<const clang::ParmVarDecl *> &contractAssumed() {
    return ContractAssumed;
  }

  /// Where the split proof of \p F is kept (SplitRanks.h): null until it
  /// is computed. The reference stays valid while the unit's facts live.
  std::unique_ptr<SplitProof> &splitProofSlot(const clang::FunctionDecl &F);

  /// The control-flow graph of \p F placed for reaching writes (built on
  /// first use).
  const ReachingWrites &reachingWritesOf(const clang::FunctionDecl &F);

private:
  clang::ASTContext &Context;
  bool AllowReassociation = false;
  bool DefinesMain = false;
  const ProjectFacts *Project = nullptr;
  const clang::FunctionDecl *Contract = nullptr;
  std::vector<const clang::ParmVarDecl *> ContractAssumed;
  std::map<const clang::FunctionDecl *,
           std::optional<std::optional<BroadcastFunction>>>
      Broadcasts;
  std::map<const clang::FunctionDecl *,
           std::optional<std::optional<CombineFunction>>>
      Combines;
  /// USR -> function, built on first use by functionNamed.
  std::optional<llvm::StringMap<const clang::FunctionDecl *>> ByKey;
  /// What the notes say when there are no project's facts.
  std::string WithoutIndex = "no project index: check with a compile database";
  /// Every function with a body in the unit's program code.
  llvm::SmallVector<const clang::FunctionDecl *, 16> Defined;
  llvm::DenseMap<const clang::FunctionDecl *, llvm::SmallVector<CallSite, 2>>
      Callers;
  /// Whether this unit or (with the project's facts) another defines
  /// `main`: without one, the functions may be called from outside.
  bool programHasMain() const;
  /// The real path of the unit's main file.
  std::string mainFile() const;
  /// Whether the unit reads the file \p Path (its main file or a header).
  bool readsFile(llvm::StringRef Path) const;

  llvm::DenseMap<const clang::FunctionDecl *, clang::SourceLocation>
      AddressTaken;
  llvm::DenseMap<const clang::CXXConstructorDecl *,
                 llvm::SmallVector<const clang::CXXConstructExpr *, 2>>
      Constructions;
  llvm::DenseMap<const clang::FieldDecl *,
                 llvm::SmallVector<const clang::MemberExpr *, 4>>
      FieldUses;
  llvm::DenseMap<const clang::VarDecl *,
                 llvm::SmallVector<const clang::FunctionDecl *, 2>>
      GlobalUsers;
  /// What the unit does with objects of each structure type.
  llvm::DenseMap<const clang::Decl *, RecordUses> Records;
  llvm::DenseMap<const clang::Expr *, const clang::FunctionDecl *> Enclosing;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<FunctionFacts>>
      Facts;
  /// A map, not a DenseMap: a proof in progress keeps its slot while it
  /// asks for others.
  std::map<const clang::FunctionDecl *, std::unique_ptr<SplitProof>>
      SplitProofs;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<ReachingWrites>>
      Reaching;
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_FUNCTIONFACTS_H
