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

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>

namespace mpilift {
namespace analysis {

/// How a statement changes (or may change) a variable.
enum class WriteKind {
  Init,        ///< `int x = Value;`
  Assign,      ///< `x = Value;`
  Compound,    ///< `x += Value;` and friends.
  IncDec,      ///< `x++`, `--x`.
  AddressPass, ///< `&x` passed to a call (Call is set).
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
/// initializer lists that build them, and the first place the address of
/// one goes to code the unit cannot see.
struct RecordUses {
  llvm::SmallVector<const clang::InitListExpr *, 2> InitLists;
  const clang::Expr *Escape = nullptr;
};

class TranslationUnitFacts {
public:
  explicit TranslationUnitFacts(clang::ASTContext &Context);

  clang::ASTContext &context() const { return Context; }
  /// Every direct call of \p F (its canonical declaration) in the unit.
  llvm::ArrayRef<CallSite> callersOf(const clang::FunctionDecl *F) const;
  /// Whether the address of \p F is taken or it is called indirectly, so
  /// the calls above may not be all.
  bool mayBeCalledIndirectly(const clang::FunctionDecl *F) const;
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
  /// which may write any of its fields; null when it never does.
  const clang::Expr *escapeOf(const clang::RecordDecl *Record) const;
  /// Every function with a body here that names the global \p Global.
  llvm::ArrayRef<const clang::FunctionDecl *>
  functionsUsing(const clang::VarDecl *Global) const;

  /// Whether a floating-point sum or product may be rewritten to a
  /// collective that combines in another order (--allow-reassociation).
  bool reassociationAllowed() const { return AllowReassociation; }
  void allowReassociation(bool Allow) { AllowReassociation = Allow; }

private:
  clang::ASTContext &Context;
  bool AllowReassociation = false;
  llvm::DenseMap<const clang::FunctionDecl *, llvm::SmallVector<CallSite, 2>>
      Callers;
  llvm::DenseSet<const clang::FunctionDecl *> AddressTaken;
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
};

} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_FUNCTIONFACTS_H
