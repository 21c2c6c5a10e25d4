//===- JudgeVectorForms.cpp - The arguments of MPI_Scatterv, MPI_Gatherv --===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A scatter or gather whose blocks differ in size, or do not follow each
/// other in rank order, is a v form: its call takes, at the root, an array
/// of counts and one of displacements. The judge keeps the int arrays in
/// scope whose elements, read in the root's memory, are on every run the
/// counts of the other ranks' blocks, and the pairs of a buffer and an int
/// array whose elements are the blocks' distances from that buffer. The
/// region must not write them: they hold then at the call what they held
/// at the region's start. The other ranks pass their own count, an integer
/// candidate like any other.
///
//===----------------------------------------------------------------------===//

#include "JudgeImpl.h"

using namespace clang;

namespace mpilift {
namespace analysis {
namespace judge {

bool holdsInts(const RankRun &Run, const eval::Value &Array,
               ArrayRef<std::optional<int64_t>> Expected) {
  if (!Array.isPointer() || Array.Obj == eval::NullObject ||
      Array.Obj >= Run.Objects.size())
    return false;
  constexpr int64_t IntBytes = 4;
  int64_t End = Array.I;
  for (size_t Index = 0; Index < Expected.size(); ++Index)
    if (Expected[Index])
      End = Array.I + IntBytes * static_cast<int64_t>(Index + 1);
  // A write in the region would make the end of the run no witness of
  // what the array held where the call goes.
  for (const RankOp &Op : Run.Ops)
    if ((Op.K == RankOp::Kind::Local || Op.K == RankOp::Kind::Recv) &&
        Op.Object == Array.Obj && Op.Offset < End &&
        Op.Offset + static_cast<int64_t>(Op.Bytes) > Array.I)
      return false;
  const eval::Object &Memory = Run.Objects[Array.Obj];
  for (size_t Index = 0; Index < Expected.size(); ++Index) {
    if (!Expected[Index])
      continue;
    const auto *Cell =
        Memory.Cells.find(Array.I + IntBytes * static_cast<int64_t>(Index));
    if (Cell == Memory.Cells.end() || Cell->second.Bytes != IntBytes ||
        !Cell->second.V.isInt() || Cell->second.V.I != *Expected[Index])
      return false;
  }
  return true;
}

std::optional<std::vector<std::optional<int64_t>>>
vectorCounts(const Observation &O, uint64_t TypeSize) {
  std::vector<std::optional<int64_t>> Out(O.Bytes.size());
  for (size_t Rank = 0; Rank < O.Bytes.size(); ++Rank) {
    if (static_cast<int64_t>(Rank) == O.Root || !O.Blocks[Rank])
      continue;
    if (O.Bytes[Rank] % TypeSize)
      return std::nullopt;
    Out[Rank] = static_cast<int64_t>(O.Bytes[Rank] / TypeSize);
  }
  return Out;
}

std::optional<std::vector<std::optional<int64_t>>>
vectorDispls(const Observation &O, const eval::Value &Base, uint64_t TypeSize) {
  if (!Base.isPointer())
    return std::nullopt;
  std::vector<std::optional<int64_t>> Out(O.Blocks.size());
  for (size_t Rank = 0; Rank < O.Blocks.size(); ++Rank) {
    const std::optional<Where> &Block = O.Blocks[Rank];
    // MPI reads no displacement of an empty block.
    if (static_cast<int64_t>(Rank) == O.Root || !Block || !O.Bytes[Rank])
      continue;
    int64_t Distance = Block->Off - Base.I;
    if (Block->Obj != Base.Obj || Distance < 0 ||
        Distance % static_cast<int64_t>(TypeSize))
      return std::nullopt;
    Out[Rank] = Distance / static_cast<int64_t>(TypeSize);
  }
  return Out;
}

/// The one non-local message of \p Run, if it has exactly one.
static const RankOp *onlyMessage(const RankRun &Run) {
  const RankOp *Only = nullptr;
  for (const RankOp &Op : Run.Ops) {
    if ((Op.K != RankOp::Kind::Send && Op.K != RankOp::Kind::Recv) ||
        Op.SelfCopy)
      continue;
    if (Only)
      return nullptr;
    Only = &Op;
  }
  return Only;
}

void completeWithEmptyBlocks(int64_t P, const std::vector<RankRun> &Runs,
                             cg::Detection &D) {
  if (D.Collectives.size() != 1 || !D.Residual.empty())
    return;
  cg::Collective &C = D.Collectives[0];
  bool Scatter = C.Kind == cg::CollectiveKind::Scatter ||
                 C.Kind == cg::CollectiveKind::Scatterv;
  bool Gather = C.Kind == cg::CollectiveKind::Gather ||
                C.Kind == cg::CollectiveKind::Gatherv;
  if ((!Scatter && !Gather) || C.Parts != 1 || C.onAllProcesses(P) ||
      C.Root < 0 || C.Root >= P)
    return;
  RankOp::Kind Out = Scatter ? RankOp::Kind::Send : RankOp::Kind::Recv;
  RankOp::Kind In = Scatter ? RankOp::Kind::Recv : RankOp::Kind::Send;
  std::vector<cg::Transfer> Empty;
  for (int64_t Rank = 0; Rank < P; ++Rank) {
    if (std::binary_search(C.Group.begin(), C.Group.end(),
                           static_cast<cg::Rank>(Rank)))
      continue;
    // Its one message: nothing, to or from the root, which has the
    // matching empty one.
    const RankOp *Own = onlyMessage(Runs[Rank]);
    if (!Own || Own->K != In || Own->Bytes != 0 || Own->Peer != C.Root)
      return;
    const RankOp *AtRoot = nullptr;
    for (const RankOp &Op : Runs[C.Root].Ops)
      if (Op.K == Out && !Op.SelfCopy && Op.Peer == Rank && Op.Bytes == 0 &&
          Op.Tag == Own->Tag)
        AtRoot = &Op;
    if (!AtRoot)
      return;
    cg::Address RootAddr = addressOf(AtRoot->Object, AtRoot->Offset);
    cg::Address OwnAddr = addressOf(Own->Object, Own->Offset);
    Empty.push_back(Scatter
                        ? cg::Transfer(static_cast<cg::Rank>(Rank), OwnAddr, 0,
                                       C.Root, RootAddr)
                        : cg::Transfer(C.Root, RootAddr, 0,
                                       static_cast<cg::Rank>(Rank), OwnAddr));
    C.Group.push_back(static_cast<cg::Rank>(Rank));
  }
  llvm::sort(C.Group);
  llvm::append_range(C.Blocks, Empty);
  C.Kind = Scatter ? cg::CollectiveKind::Scatterv : cg::CollectiveKind::Gatherv;
  C.BlockSize = 0;
}

bool Judge::disjointBlocks(int64_t P, const Observation &O) {
  std::vector<std::pair<Where, int64_t>> Blocks; // Place and rank.
  for (int64_t Rank = 0; Rank < P; ++Rank)
    if (O.Blocks[Rank])
      Blocks.push_back({*O.Blocks[Rank], Rank});
  llvm::sort(Blocks, [](const auto &A, const auto &B) {
    return std::tie(A.first.Obj, A.first.Off, A.second) <
           std::tie(B.first.Obj, B.first.Off, B.second);
  });
  bool Scatter = O.Kind == ManualKind::Scatter;
  for (size_t I = 1; I < Blocks.size(); ++I) {
    auto [Before, RankBefore] = Blocks[I - 1];
    auto [Here, RankHere] = Blocks[I];
    std::string Ranks = "ranks " + std::to_string(RankBefore) + " and " +
                        std::to_string(RankHere);
    if (Here.Obj != Before.Obj) {
      refuse(SafetyCheck::MatchingArguments,
             "at " + processes(P) + ", the root's blocks for " + Ranks +
                 " lie in different buffers; " +
                 (Scatter ? "MPI_Scatterv sends from one"
                          : "MPI_Gatherv receives into one"),
             regionLoc());
      return false;
    }
    if (Before.Off + static_cast<int64_t>(O.Bytes[RankBefore]) > Here.Off) {
      refuse(SafetyCheck::MatchingArguments,
             "at " + processes(P) + ", the root's blocks for " + Ranks +
                 " overlap; " +
                 (Scatter ? "MPI_Scatterv reads no location twice"
                          : "MPI_Gatherv writes no location twice"),
             regionLoc());
      return false;
    }
  }
  return true;
}

void Judge::filterVectorCandidates(const Observation &O,
                                   const std::vector<RankRun> &Runs) {
  AnyVector |= O.Vector;
  bool Possible =
      (O.Kind == ManualKind::Scatter || O.Kind == ManualKind::Gather) &&
      O.TypeSize && *O.TypeSize;
  std::optional<std::vector<std::optional<int64_t>>> Counts;
  if (Possible)
    Counts = vectorCounts(O, *O.TypeSize);
  if (!Counts) {
    AsCounts.assign(Candidates.size(), false);
    AsOwnCount.assign(Candidates.size(), false);
    BaseDispls.clear();
    return;
  }
  const RankRun &Root = Runs[O.Root];
  for (size_t I = 0; I < Candidates.size(); ++I) {
    if (I >= Root.Probes.size()) {
      AsCounts[I] = AsOwnCount[I] = false;
      continue;
    }
    if (AsCounts[I] && llvm::none_of(valuesBeforeMessages(Root, I),
                                     [&](const eval::Value *Val) {
                                       return holdsInts(Root, *Val, *Counts);
                                     }))
      AsCounts[I] = false;
    for (size_t Rank = 0; Rank < Runs.size() && AsOwnCount[I]; ++Rank) {
      if (!(*Counts)[Rank])
        continue;
      if (I >= Runs[Rank].Probes.size() ||
          llvm::none_of(valuesBeforeMessages(Runs[Rank], I),
                        [&](const eval::Value *Val) {
                          return Val->isInt() && Val->I == *(*Counts)[Rank];
                        }))
        AsOwnCount[I] = false;
    }
  }
  llvm::erase_if(BaseDispls, [&](std::pair<size_t, size_t> Pair) {
    auto [Base, Displs] = Pair;
    if (Base >= Root.Probes.size() || Displs >= Root.Probes.size())
      return true;
    return llvm::none_of(
        valuesBeforeMessages(Root, Base), [&](const eval::Value *B) {
          std::optional<std::vector<std::optional<int64_t>>> Expected =
              vectorDispls(O, *B, *O.TypeSize);
          return Expected &&
                 llvm::any_of(valuesBeforeMessages(Root, Displs),
                              [&](const eval::Value *D) {
                                return holdsInts(Root, *D, *Expected);
                              });
        });
  });
}

bool Judge::chooseVector(RegionProof &Proof) {
  // Prefer what the calls spell (they come first) and plain names.
  auto Plain = [&](size_t I) {
    return isa<DeclRefExpr>(Candidates[I].E->IgnoreParenImpCasts());
  };
  auto First = [&](const std::vector<bool> &Alive) -> std::optional<size_t> {
    std::optional<size_t> Best;
    for (size_t I = 0; I < Candidates.size(); ++I)
      if (Alive[I] && (!Best || (Plain(I) && !Plain(*Best))))
        Best = I;
    return Best;
  };
  std::string Call =
      Proof.Kind == ManualKind::Scatter ? "MPI_Scatterv" : "MPI_Gatherv";
  std::string Why = "the ranks' blocks differ in size or are not in rank "
                    "order, and no int array in scope at the pattern's "
                    "start holds, at the root, ";
  std::optional<size_t> Counts = First(AsCounts);
  if (!Counts) {
    refuse(SafetyCheck::MatchingArguments,
           Why + "every other rank's count, which " + Call + " takes",
           regionLoc());
    return false;
  }
  std::optional<std::pair<size_t, size_t>> Pair;
  for (std::pair<size_t, size_t> P : BaseDispls)
    if (!Pair || (Plain(P.first) && Plain(P.second) &&
                  !(Plain(Pair->first) && Plain(Pair->second))))
      Pair = P;
  if (!Pair) {
    refuse(SafetyCheck::MatchingArguments,
           Why + "every other rank's displacement from one buffer, which " +
               Call + " takes",
           regionLoc());
    return false;
  }
  std::optional<size_t> Own = First(AsOwnCount);
  if (!Own) {
    refuse(SafetyCheck::MatchingArguments,
           "no expression in scope at the pattern's start has the value of "
           "each rank's own count on every rank at every size",
           regionLoc());
    return false;
  }
  Proof.Counts = Candidates[*Counts].E;
  Proof.Displs = Candidates[Pair->second].E;
  Proof.Count = Candidates[*Own].E;
  (Proof.Kind == ManualKind::Scatter ? Proof.SendBuffer : Proof.RecvBuffer) =
      Candidates[Pair->first].E;
  return true;
}

} // namespace judge
} // namespace analysis
} // namespace mpilift
