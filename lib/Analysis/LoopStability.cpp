//===- LoopStability.cpp - Fields a loop leaves alone ---------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "LoopStability.h"

#include "StatementTree.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// The functions with a body here that \p S calls, and those they call, in
/// \p Out (at most \p Depth calls deep). False when some call there is
/// indirect, or deeper than that: then any function may be among them.
bool calledFrom(const Stmt *S, unsigned Depth,
                llvm::SmallPtrSetImpl<const FunctionDecl *> &Out) {
  bool Known = true;
  findFirst(S, [&](const Stmt *X) {
    const auto *Call = dyn_cast<CallExpr>(X);
    if (!Call)
      return false;
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    if (!Callee) {
      Known = false;
      return true;
    }
    if (Callee->hasBody(Def) && Out.insert(Def).second) {
      if (Depth == 0 || !calledFrom(Def->getBody(), Depth - 1, Out)) {
        Known = false;
        return true;
      }
    }
    return false;
  });
  return Known;
}

/// An assignment of a whole object of \p Record in \p S.
const Stmt *assignsWhole(const Stmt *S, const RecordDecl *Record) {
  return findFirst(S, [&](const Stmt *X) {
    const auto *Op = dyn_cast<BinaryOperator>(X);
    const RecordDecl *Target = Op && Op->getOpcode() == BO_Assign
                                   ? Op->getLHS()->getType()->getAsRecordDecl()
                                   : nullptr;
    return Target && Target->getCanonicalDecl() == Record->getCanonicalDecl();
  });
}

} // namespace

std::optional<std::string> fieldChangesIn(const FieldDecl *Field,
                                          const Stmt *Loop,
                                          const FunctionDecl &Caller,
                                          TranslationUnitFacts &TU) {
  ASTContext &Context = TU.context();
  const SourceManager &SM = Context.getSourceManager();
  std::string Name = "'" + Field->getNameAsString() + "'";
  const RecordDecl *Record = Field->getParent();
  if (TU.escapeOf(Record))
    return "the address of a '" + Record->getNameAsString() +
           "' goes to code that may change " + Name;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Called;
  bool AllKnown = calledFrom(Loop, 4, Called);
  auto InLoop = [&](const Stmt *S) {
    return SM.isPointWithin(SM.getExpansionLoc(S->getBeginLoc()),
                            SM.getExpansionLoc(Loop->getBeginLoc()),
                            SM.getExpansionLoc(Loop->getEndLoc()));
  };
  for (const MemberExpr *Use : TU.usesOf(Field)) {
    if (isOnlyLoaded(*Use, Context))
      continue;
    const FunctionDecl *In = TU.functionOf(Use);
    if (!In || Called.count(In) || (In == &Caller && InLoop(Use)) ||
        (!AllKnown && In != &Caller))
      return Name + " may be changed while the loop runs";
  }
  if (assignsWhole(Loop, Record))
    return "a whole '" + Record->getNameAsString() +
           "' may be assigned while the loop runs";
  for (const FunctionDecl *F : Called)
    if (assignsWhole(F->getBody(), Record))
      return "a whole '" + Record->getNameAsString() +
             "' may be assigned in '" + F->getNameAsString() +
             "', which the loop calls";
  return std::nullopt;
}

} // namespace analysis
} // namespace mpilift
