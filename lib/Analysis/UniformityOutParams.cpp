//===- UniformityOutParams.cpp - Values returned through pointers ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A value a function returns through a pointer parameter: `int n;
/// read_problem(argc, argv, &n);` where `read_problem` parses `n` on
/// process 0 and broadcasts it, or sets `*reps = REPS;`. The caller's
/// variable holds the same value on every rank when every write the
/// callee makes of what its parameter points to does (as the writes of a
/// local are judged), whenever every rank runs the callee: the caller
/// judges whether every rank makes the call. A callee in another unit is
/// judged there, and its summary says what it returns (project-index.md).
///
//===----------------------------------------------------------------------===//

#include "RankUniformity.h"

#include "StatementTree.h"

#include "mpilift/Analysis/LibraryHeaders.h"
#include "mpilift/Analysis/ManualCollective.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace mpilift {
namespace analysis {

namespace {

/// `'*p'` (or `'r'` for a reference), for the notes.
std::string pointee(const ParmVarDecl *P) {
  if (P->getType()->isReferenceType())
    return "'" + P->getNameAsString() + "'";
  return "'*" + P->getNameAsString() + "'";
}

/// The index of the argument \p Address of \p Call, if it is one.
std::optional<unsigned> argumentIndex(const CallExpr *Call,
                                      const Expr *Address) {
  for (unsigned I = 0; I < Call->getNumArgs(); ++I)
    if (Call->getArg(I)->IgnoreParenCasts() == Address->IgnoreParenCasts())
      return I;
  return std::nullopt;
}

} // namespace

std::optional<Divergence>
RankUniformity::outParameterDivergence(const ParmVarDecl *P,
                                       const FunctionDecl &F) {
  InProgress.clear();
  return pointeeWrites(P, F, 0);
}

bool RankUniformity::leavesBetween(SourceLocation From, SourceLocation To,
                                   const FunctionDecl &F) {
  const SourceManager &SM = TU.context().getSourceManager();
  auto Before = [&](SourceLocation A, SourceLocation B) {
    return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A),
                                        SM.getExpansionLoc(B));
  };
  // Every return counts, also one behind a test of an MPI call's result:
  // `if (ierr == MPI_SUCCESS) return 0;` is taken in a run without errors.
  return findFirst(F.getBody(), [&](const Stmt *S) {
    return isa<ReturnStmt>(S) && Before(From, S->getBeginLoc()) &&
           Before(S->getBeginLoc(), To);
  });
}

std::optional<Divergence> RankUniformity::pointeeWrites(const ParmVarDecl *P,
                                                        const FunctionDecl &F,
                                                        unsigned Depth) {
  if (Depth > MaxDepth)
    return Divergence{"the writes through " + named(P) +
                          " are followed no further",
                      P->getLocation()};
  const FunctionFacts &Facts = TU.factsOf(F);
  // A reference's writes are those of the object it is bound to.
  bool Reference = P->getType()->isReferenceType();
  if (!Reference && !Facts.writesOf(P).empty())
    return Divergence{named(P) + " is itself changed in " + named(&F) +
                          ", so what it points to cannot be followed",
                      Facts.writesOf(P).front().Where->getBeginLoc()};
  std::vector<Write> Writes =
      Reference ? std::vector<Write>(Facts.writesOf(P).begin(),
                                     Facts.writesOf(P).end())
                : pointeeWritesOf(P, Facts, TU.context());
  SourceLocation Exit = F.getBody()->getEndLoc();
  // Read on process 0, broadcast in an array, unpacked on the others.
  RoundTrip Trip = pointeeRoundTrip(P, Writes, F, Depth);
  if (Trip.Why)
    return Trip.Why;
  for (unsigned I = 0; I < Writes.size(); ++I) {
    const Write &W = Writes[I];
    if (isReadOnlyPass(W) || (I < Trip.Covered.size() && Trip.Covered.test(I)))
      continue;
    const Write *By = nullptr;
    if (W.Kind != WriteKind::Escape &&
        overwrittenForAll(
            W, Writes, Exit, F, TU.context(),
            [&](const CallExpr *Call, const Expr *Address) {
              return uniformingWrite(Call, Address, F, Depth);
            },
            &By) &&
        !leavesBetween(W.Where->getEndLoc(), By->Call->getBeginLoc(), F))
      continue;
    if (auto Why = replacedTooLittle(pointee(P), W, Writes, Exit, F))
      return Why;
    if (auto Why = pointeeWrite(P, W, F, Depth))
      return Why;
  }
  return std::nullopt;
}

std::optional<Divergence> RankUniformity::pointeeWrite(const ParmVarDecl *P,
                                                       const Write &W,
                                                       const FunctionDecl &F,
                                                       unsigned Depth) {
  SourceLocation Loc = W.Where->getBeginLoc();
  if (W.Kind == WriteKind::Escape || W.Kind == WriteKind::Element)
    return Divergence{named(P) + " is used in " + named(&F) +
                          " where writes through it cannot be followed",
                      Loc};
  if (auto Why = controlOf(W.Where, F, Depth))
    return Divergence{
        pointee(P) + " is written where not every rank may get: " + Why->Reason,
        Loc};
  switch (W.Kind) {
  case WriteKind::Assign:
    if (auto Why = valueOf(W.Value, F, Depth))
      return Divergence{pointee(P) +
                            " is given a value that may differ between "
                            "ranks: " +
                            Why->Reason,
                        Loc};
    return std::nullopt;
  case WriteKind::AddressPass: {
    const auto *Address = dyn_cast<Expr>(W.Where);
    const mpi::FunctionInfo *Info = mpiCallee(W.Call);
    if (!Info) {
      // A function of the program that is a broadcast.
      if (broadcastFunctionWrites(W.Call, Address, F, Depth))
        return std::nullopt;
      if (auto Why = returnedThrough(W.Call, Address, Depth))
        return Divergence{pointee(P) + " " + Why->Reason, Why->Loc};
      return std::nullopt;
    }
    if (Info->Id == mpi::FunctionId::Comm_size)
      return std::nullopt;
    if (Info->Id == mpi::FunctionId::Comm_rank)
      return Divergence{pointee(P) + " is the rank of the calling process",
                        Loc};
    if (uniformingCoverage(W.Call, Address, TU.context()) != Coverage::None)
      return collectiveFallsShort(pointee(P), W, F);
    return Divergence{pointee(P) + " is written by a call of '" +
                          W.Call->getDirectCallee()->getNameAsString() + "'",
                      Loc};
  }
  default:
    return Divergence{pointee(P) + " is updated from the value the caller "
                                   "passed, which is not followed",
                      Loc};
  }
}

std::optional<Divergence> RankUniformity::returnedThrough(const CallExpr *Call,
                                                          const Expr *Address,
                                                          unsigned Depth) {
  SourceLocation Loc = Call->getBeginLoc();
  const FunctionDecl *Callee = Call->getDirectCallee();
  std::optional<unsigned> Index =
      Address ? argumentIndex(Call, Address) : std::nullopt;
  if (!Callee || !Index || isa<CXXOperatorCallExpr>(Call))
    return Divergence{"is written by a call that cannot be followed", Loc};
  std::string Name = "'" + Callee->getNameAsString() + "'";
  const FunctionDecl *Definition = nullptr;
  if (Callee->getBody(Definition) && *Index < Definition->getNumParams()) {
    const ParmVarDecl *Param = Definition->getParamDecl(*Index);
    std::optional<Divergence> Why = inAnotherFunction(
        [&] { return pointeeWrites(Param, *Definition, Depth + 1); });
    if (!Why)
      return std::nullopt;
    return Divergence{"is written by " + Name + ": " + Why->Reason, Why->Loc};
  }
  std::string Key = functionKey(*Callee);
  LibraryHeaders Library(TU.context());
  if (Key.empty() || Library.contain(Callee->getLocation()))
    return Divergence{"is written by a call of " + Name, Loc};
  // A unit's summary leaves another unit's function to the reader.
  if (AssumedOuts) {
    ParamKey K{Key, *Index};
    if (!llvm::is_contained(*AssumedOuts, K))
      AssumedOuts->push_back(std::move(K));
    return std::nullopt;
  }
  const ProjectFacts *Project = TU.project();
  std::optional<SharedValue> Out =
      Project ? Project->outValue(Key, *Index) : std::nullopt;
  if (!Out)
    return Divergence{"is written by a call of " + Name, Loc};
  if (!Out->Uniform)
    return Divergence{"is written by " + Name +
                          " in another unit, which says: " + Out->Reason,
                      Loc};
  if (auto Why = sharedAssumptions(*Out, Loc, Depth + 1))
    return Divergence{"is written by " + Name + ": " + Why->Reason, Why->Loc};
  return std::nullopt;
}

} // namespace analysis
} // namespace mpilift
