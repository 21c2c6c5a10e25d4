//===- CDag.cpp - libcdag: compile and run communication DAGs -------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// cDAG_Compile gathers every process's graph on rank 0, which matches,
/// propagates the dataflow into SST form and detects collectives
/// (lib/CommGraph), then broadcasts the result. Every process then derives
/// the same execution plan from it (the same deterministic function on the
/// same input, so all agree on which MPI call runs each collective) and
/// keeps its own part: the MPI arguments of each collective it takes part
/// in, sub-communicators for collectives on process subsets, the residual
/// transfers it sends and receives, and local copies.
///
/// Every transfer of the SST form reads original data. Where a process
/// would send from memory that the same run also writes, the sources are
/// copied to a staging buffer first, so the order of the MPI calls cannot
/// change what arrives.
///
//===----------------------------------------------------------------------===//

#include "cdag/cdag.h"

#include "mpilift/CommGraph/CommGraph.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <new>
#include <string>
#include <vector>

namespace cg = mpilift::commgraph;

namespace {

thread_local std::string LastError;

int fail(int Code, std::string Message) {
  LastError = std::move(Message);
  return Code;
}

int mpiFail(int RC, const char *What) {
  char Text[MPI_MAX_ERROR_STRING];
  int Len = 0;
  MPI_Error_string(RC, Text, &Len);
  return fail(CDAG_ERR_MPI, std::string(What) + " failed: " +
                                std::string(Text, static_cast<size_t>(Len)));
}

#define CDAG_MPI(Call)                                                         \
  do {                                                                         \
    int RC_ = (Call);                                                          \
    if (RC_ != MPI_SUCCESS)                                                    \
      return mpiFail(RC_, #Call);                                              \
  } while (0)

bool envIsOne(const char *Name) {
  const char *V = getenv(Name);
  return V && !strcmp(V, "1");
}

void *pointer(uint64_t Address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(Address));
}

//===-- The plan: the same on every process
//---------------------------------===//

/// How a detected collective runs.
enum class Method : uint8_t {
  Bcast,            ///< MPI_Bcast of one block.
  BcastParts,       ///< MPI_Bcast of all parts with an hindexed datatype.
  Scatter,          ///< MPI_Scatter, root in place.
  Scatterv,         ///< MPI_Scatterv, root in place.
  Gather,           ///< MPI_Gather, root in place.
  Gatherv,          ///< MPI_Gatherv, root in place.
  AllgatherInPlace, ///< MPI_Allgather with MPI_IN_PLACE.
  Allgather,        ///< MPI_Allgather; the own-block copy was in the graph.
  Alltoall,         ///< MPI_Alltoall; the own-block copies were in the graph.
  Alltoallv,        ///< MPI_Alltoallv with per-process displacements.
  PointToPoint,     ///< Not expressible here: run as residual transfers.
};

const char *mpiName(Method M) {
  switch (M) {
  case Method::Bcast:
  case Method::BcastParts:
    return "MPI_Bcast";
  case Method::Scatter:
    return "MPI_Scatter";
  case Method::Scatterv:
    return "MPI_Scatterv";
  case Method::Gather:
    return "MPI_Gather";
  case Method::Gatherv:
    return "MPI_Gatherv";
  case Method::AllgatherInPlace:
  case Method::Allgather:
    return "MPI_Allgather";
  case Method::Alltoall:
    return "MPI_Alltoall";
  case Method::Alltoallv:
    return "MPI_Alltoallv";
  case Method::PointToPoint:
    return "point-to-point";
  }
  return "?";
}

struct Planned {
  cg::Collective C;
  Method M = Method::PointToPoint;
};

struct Plan {
  std::vector<Planned> Collectives;
  std::vector<cg::Transfer> Residual;
};

/// Position of each rank in a collective's group (-1: not in it).
std::vector<int> groupIndex(const cg::Collective &C, int P) {
  std::vector<int> Index(P, -1);
  for (size_t I = 0; I < C.Group.size(); ++I)
    Index[C.Group[I]] = static_cast<int>(I);
  return Index;
}

bool fitsInt(uint64_t V) { return V <= static_cast<uint64_t>(INT_MAX); }

/// Whether, for every process, the addresses \p Addr(T) of its blocks (keyed
/// by \p Holder(T)) are base + index(\p Slot(T)) * size.
template <typename HolderFn, typename SlotFn, typename AddrFn>
bool regular(const cg::Collective &C, const std::vector<int> &Index,
             HolderFn Holder, SlotFn Slot, AddrFn Addr,
             std::map<cg::Rank, uint64_t> &Base) {
  for (const cg::Transfer &T : C.Blocks) {
    uint64_t B = Addr(T) - static_cast<uint64_t>(Index[Slot(T)]) * C.BlockSize;
    auto [It, New] = Base.emplace(Holder(T), B);
    if (!New && It->second != B)
      return false;
  }
  return true;
}

/// Whether per-process displacements from the lowest address fit in an int.
bool displacementsFit(const cg::Collective &C) {
  std::map<cg::Rank, std::pair<uint64_t, uint64_t>> SendSpan, RecvSpan;
  auto extend = [](std::pair<uint64_t, uint64_t> &S, uint64_t A, uint64_t N) {
    S.first = std::min(S.first, A);
    S.second = std::max(S.second, A + N);
  };
  for (const cg::Transfer &T : C.Blocks) {
    if (!fitsInt(T.Size))
      return false;
    extend(SendSpan.emplace(T.Src, std::make_pair(UINT64_MAX, 0)).first->second,
           T.SrcAddr, T.Size);
    extend(RecvSpan.emplace(T.Dst, std::make_pair(UINT64_MAX, 0)).first->second,
           T.DstAddr, T.Size);
  }
  for (auto *Spans : {&SendSpan, &RecvSpan})
    for (const auto &[R, S] : *Spans)
      if (!fitsInt(S.second - S.first))
        return false;
  return true;
}

/// Takes from \p Residual, for every process of \p C, the copy of its own
/// block an all-collective MPI call makes (own send slot to own receive
/// slot); false (and nothing taken) unless every process has one.
bool takeOwnCopies(const cg::Collective &C, const std::vector<int> &Index,
                   const std::map<cg::Rank, uint64_t> &SendBase,
                   const std::map<cg::Rank, uint64_t> &RecvBase,
                   std::vector<cg::Transfer> &Residual) {
  std::vector<size_t> Found;
  for (cg::Rank R : C.Group) {
    auto S = SendBase.find(R), D = RecvBase.find(R);
    if (S == SendBase.end() || D == RecvBase.end())
      return false;
    uint64_t Offset = static_cast<uint64_t>(Index[R]) * C.BlockSize;
    cg::Transfer Want{R, D->second + Offset, C.BlockSize, R,
                      S->second + Offset};
    auto It = std::find(Residual.begin(), Residual.end(), Want);
    if (It == Residual.end())
      return false;
    Found.push_back(static_cast<size_t>(It - Residual.begin()));
  }
  std::sort(Found.rbegin(), Found.rend());
  for (size_t I : Found)
    Residual.erase(Residual.begin() + static_cast<long>(I));
  return true;
}

Method chooseMethod(const cg::Collective &C, int P,
                    std::vector<cg::Transfer> &Residual) {
  using cg::CollectiveKind;
  if (!displacementsFit(C))
    return Method::PointToPoint;
  std::vector<int> Index = groupIndex(C, P);
  auto Src = [](const cg::Transfer &T) { return T.Src; };
  auto Dst = [](const cg::Transfer &T) { return T.Dst; };
  auto SrcAddr = [](const cg::Transfer &T) { return T.SrcAddr; };
  auto DstAddr = [](const cg::Transfer &T) { return T.DstAddr; };
  std::map<cg::Rank, uint64_t> SendBase, RecvBase;
  switch (C.Kind) {
  case CollectiveKind::Bcast:
    return C.Parts > 1 ? Method::BcastParts : Method::Bcast;
  case CollectiveKind::Scatter:
    if (C.Parts == 1 && regular(C, Index, Src, Dst, SrcAddr, SendBase))
      return Method::Scatter;
    return C.Parts == 1 ? Method::Scatterv : Method::Alltoallv;
  case CollectiveKind::Gather:
    if (C.Parts == 1 && regular(C, Index, Dst, Src, DstAddr, RecvBase))
      return Method::Gather;
    return C.Parts == 1 ? Method::Gatherv : Method::Alltoallv;
  case CollectiveKind::Scatterv:
    return Method::Scatterv;
  case CollectiveKind::Gatherv:
    return Method::Gatherv;
  case CollectiveKind::Allgather: {
    if (C.Parts != 1 || !regular(C, Index, Dst, Src, DstAddr, RecvBase))
      return Method::Alltoallv;
    bool InPlace = true;
    for (const cg::Transfer &T : C.Blocks) {
      SendBase[T.Src] = T.SrcAddr;
      InPlace &= RecvBase[T.Src] + Index[T.Src] * C.BlockSize == T.SrcAddr;
    }
    if (InPlace)
      return Method::AllgatherInPlace;
    // MPI_Allgather also copies each process's block into its own slot; the
    // graph must do the same, or the call would write memory it does not.
    std::map<cg::Rank, uint64_t> OwnSlotBase;
    for (const auto &[R, A] : SendBase)
      OwnSlotBase[R] = A - Index[R] * C.BlockSize;
    if (takeOwnCopies(C, Index, OwnSlotBase, RecvBase, Residual))
      return Method::Allgather;
    return Method::Alltoallv;
  }
  case CollectiveKind::Alltoall:
    if (C.Parts == 1 && regular(C, Index, Src, Dst, SrcAddr, SendBase) &&
        regular(C, Index, Dst, Src, DstAddr, RecvBase) &&
        takeOwnCopies(C, Index, SendBase, RecvBase, Residual))
      return Method::Alltoall;
    return Method::Alltoallv;
  case CollectiveKind::Allgatherv:
  case CollectiveKind::Alltoallv:
    return Method::Alltoallv;
  }
  return Method::PointToPoint;
}

Plan makePlan(const cg::Detection &D, int P) {
  Plan Out;
  Out.Residual = D.Residual;
  for (const cg::Collective &C : D.Collectives) {
    Planned PC;
    PC.C = C;
    PC.M = chooseMethod(C, P, Out.Residual);
    if (PC.M == Method::PointToPoint) {
      Out.Residual.insert(Out.Residual.end(), C.Blocks.begin(), C.Blocks.end());
      continue;
    }
    Out.Collectives.push_back(std::move(PC));
  }
  return Out;
}

std::string describe(const Planned &PC, int P) {
  std::string S = cg::name(PC.C.Kind);
  if (PC.C.Root >= 0)
    S += " root " + std::to_string(PC.C.Root);
  if (PC.C.onAllProcesses(P)) {
    S += " on all " + std::to_string(P) + " processes";
  } else {
    S += " on processes";
    for (cg::Rank R : PC.C.Group)
      S += " " + std::to_string(R);
  }
  uint64_t Bytes = 0;
  for (const cg::Transfer &T : PC.C.Blocks)
    Bytes += T.Size;
  S += " (" + std::to_string(PC.C.Blocks.size()) + " transfers, " +
       std::to_string(Bytes) + " bytes";
  if (PC.C.Parts > 1)
    S += ", " + std::to_string(PC.C.Parts) + " parts combined";
  S += ") as ";
  S += mpiName(PC.M);
  return S;
}

//===-- Moving the detection result from rank 0 to everyone ---------------===//

void putTransfer(std::vector<uint64_t> &W, const cg::Transfer &T) {
  W.push_back(static_cast<uint32_t>(T.Dst));
  W.push_back(T.DstAddr);
  W.push_back(T.Size);
  W.push_back(static_cast<uint32_t>(T.Src));
  W.push_back(T.SrcAddr);
}

cg::Transfer getTransfer(const uint64_t *&P) {
  cg::Transfer T{static_cast<cg::Rank>(P[0]), P[1], P[2],
                 static_cast<cg::Rank>(P[3]), P[4]};
  P += 5;
  return T;
}

std::vector<uint64_t> encode(const cg::Detection &D) {
  std::vector<uint64_t> W;
  W.push_back(D.Collectives.size());
  for (const cg::Collective &C : D.Collectives) {
    W.push_back(static_cast<uint64_t>(C.Kind));
    W.push_back(static_cast<uint32_t>(C.Root));
    W.push_back(C.Group.size());
    for (cg::Rank R : C.Group)
      W.push_back(static_cast<uint32_t>(R));
    W.push_back(C.BlockSize);
    W.push_back(C.Parts);
    W.push_back(C.Blocks.size());
    for (const cg::Transfer &T : C.Blocks)
      putTransfer(W, T);
  }
  W.push_back(D.Residual.size());
  for (const cg::Transfer &T : D.Residual)
    putTransfer(W, T);
  return W;
}

cg::Detection decode(const std::vector<uint64_t> &W) {
  cg::Detection D;
  const uint64_t *P = W.data();
  uint64_t NumCollectives = *P++;
  for (uint64_t I = 0; I < NumCollectives; ++I) {
    cg::Collective C;
    C.Kind = static_cast<cg::CollectiveKind>(*P++);
    C.Root = static_cast<cg::Rank>(static_cast<int32_t>(*P++));
    uint64_t G = *P++;
    for (uint64_t K = 0; K < G; ++K)
      C.Group.push_back(static_cast<cg::Rank>(*P++));
    C.BlockSize = *P++;
    C.Parts = static_cast<uint32_t>(*P++);
    uint64_t B = *P++;
    for (uint64_t K = 0; K < B; ++K)
      C.Blocks.push_back(getTransfer(P));
    D.Collectives.push_back(std::move(C));
  }
  uint64_t NumResidual = *P++;
  for (uint64_t K = 0; K < NumResidual; ++K)
    D.Residual.push_back(getTransfer(P));
  return D;
}

} // namespace

//===-- Handles
//------------------------------------------------------------===//

struct cDAG_Graph_s {
  MPI_Comm Comm;
  int Rank = 0, Size = 1;
  cg::LocalGraph Local{0};
};

namespace {

/// One process's part of a collective.
struct LocalCollective {
  Method M;
  MPI_Comm Comm; ///< The schedule's communicator or a sub-communicator.
  bool OwnsComm; ///< A sub-communicator this schedule created.
  int Root = 0;  ///< In Comm.
  bool IsRoot = false;
  void *SendBuf = nullptr, *RecvBuf = nullptr;
  int Count = 0; ///< Bytes per block.
  std::vector<int> SendCounts, SendDispls, RecvCounts, RecvDispls;
  MPI_Datatype Type = MPI_DATATYPE_NULL; ///< BcastParts.
};

/// Sources copied before each run because the run also writes them.
struct Stage {
  uint64_t From;
  std::vector<char> Copy;
};

struct PointToPoint {
  void *Buffer;
  int Bytes;
  int Peer;
};

struct LocalCopy {
  void *To;
  const void *From;
  size_t Bytes;
};

} // namespace

struct cDAG_Schedule_s {
  MPI_Comm Comm = MPI_COMM_NULL; ///< A duplicate of the graph's.
  int Rank = 0, Size = 1;
  bool Detection = true;
  std::vector<LocalCollective> Collectives;
  std::vector<Stage> Stages;
  std::vector<PointToPoint> Receives, Sends;
  std::vector<LocalCopy> Copies;
  std::vector<MPI_Request> Requests;
  std::string Report;
  int NumCollectives = 0;
  cg::LocalGraph Original{0}; ///< For CDAG_DISABLE_DETECTION=1.
};

namespace {

//===-- Building this process's part
//---------------------------------------===//

/// Maps source addresses into staging copies where the run overwrites them.
class Stager {
public:
  Stager(cDAG_Schedule_s &S, const Plan &P) : S(S) {
    auto writes = [&](const cg::Transfer &T) {
      if (T.Dst == S.Rank)
        Written.emplace_back(T.DstAddr, T.DstAddr + T.Size);
    };
    for (const Planned &PC : P.Collectives)
      for (const cg::Transfer &T : PC.C.Blocks)
        writes(T);
    for (const cg::Transfer &T : P.Residual)
      writes(T);
    // Sorted and merged: disjoint, so ends grow with starts.
    std::sort(Written.begin(), Written.end());
    std::vector<std::pair<uint64_t, uint64_t>> Merged;
    for (const auto &W : Written) {
      if (!Merged.empty() && W.first <= Merged.back().second)
        Merged.back().second = std::max(Merged.back().second, W.second);
      else
        Merged.push_back(W);
    }
    Written = std::move(Merged);
  }

  /// Source addresses of one user (a collective, a transfer) on this
  /// process: staged together, so their relative layout is kept.
  std::map<uint64_t, uint64_t> stage(const std::vector<cg::Transfer> &Reads) {
    std::map<uint64_t, uint64_t> Map;
    uint64_t Low = UINT64_MAX, High = 0;
    bool Overlaps = false;
    for (const cg::Transfer &T : Reads) {
      if (T.Src != S.Rank || T.Size == 0)
        continue;
      Low = std::min(Low, T.SrcAddr);
      High = std::max(High, T.SrcAddr + T.Size);
      Overlaps |= overlapsWrite(T.SrcAddr, T.SrcAddr + T.Size);
    }
    for (const cg::Transfer &T : Reads)
      if (T.Src == S.Rank)
        Map[T.SrcAddr] = T.SrcAddr;
    if (!Overlaps)
      return Map;
    S.Stages.push_back({Low, std::vector<char>(High - Low)});
    uint64_t Copy = reinterpret_cast<uintptr_t>(S.Stages.back().Copy.data());
    for (auto &[From, To] : Map)
      To = Copy + (From - Low);
    return Map;
  }

private:
  /// Whether the run writes any byte of [Begin, End) on this process.
  bool overlapsWrite(uint64_t Begin, uint64_t End) const {
    auto It = std::lower_bound(Written.begin(), Written.end(),
                               std::make_pair(End, uint64_t(0)));
    return It != Written.begin() && std::prev(It)->second > Begin;
  }

  cDAG_Schedule_s &S;
  std::vector<std::pair<uint64_t, uint64_t>> Written;
};

int buildCollective(cDAG_Schedule_s &S, const Planned &PC, Stager &St) {
  const cg::Collective &C = PC.C;
  std::vector<int> Index = groupIndex(C, S.Size);
  bool Member = Index[S.Rank] >= 0;
  LocalCollective L;
  L.M = PC.M;
  L.Comm = S.Comm;
  L.OwnsComm = false;
  if (!C.onAllProcesses(S.Size)) {
    // Collective over the schedule's communicator: everyone takes part in
    // creating it, members get ranks in group order.
    MPI_Comm Sub;
    CDAG_MPI(MPI_Comm_split(S.Comm, Member ? 0 : MPI_UNDEFINED,
                            Member ? Index[S.Rank] : 0, &Sub));
    L.Comm = Sub;
    L.OwnsComm = true;
  }
  if (!Member)
    return CDAG_SUCCESS;
  std::map<uint64_t, uint64_t> Staged = St.stage(C.Blocks);
  auto src = [&](const cg::Transfer &T) { return pointer(Staged[T.SrcAddr]); };
  L.Root = C.Root >= 0 ? Index[C.Root] : 0;
  L.IsRoot = C.Root == S.Rank;
  L.Count = static_cast<int>(C.BlockSize);
  int G = static_cast<int>(C.Group.size());
  std::vector<const cg::Transfer *> Mine; // Blocks this process sends or gets.
  for (const cg::Transfer &T : C.Blocks)
    if (T.Src == S.Rank || T.Dst == S.Rank)
      Mine.push_back(&T);

  switch (L.M) {
  case Method::Bcast:
    for (const cg::Transfer *T : Mine)
      L.SendBuf = L.IsRoot ? src(*T) : pointer(T->DstAddr);
    break;
  case Method::BcastParts: {
    // One block per part, in part order: the root's sources, or this
    // process's destinations.
    std::vector<MPI_Aint> Where;
    size_t PerPart = C.Blocks.size() / C.Parts;
    for (uint32_t Part = 0; Part < C.Parts; ++Part)
      for (size_t K = 0; K < PerPart; ++K) {
        const cg::Transfer &T = C.Blocks[Part * PerPart + K];
        if (L.IsRoot) {
          Where.push_back(
              static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(src(T))));
          break;
        }
        if (T.Dst == S.Rank)
          Where.push_back(static_cast<MPI_Aint>(T.DstAddr));
      }
    std::vector<int> Lengths(Where.size(), L.Count);
    CDAG_MPI(MPI_Type_create_hindexed(static_cast<int>(Where.size()),
                                      Lengths.data(), Where.data(), MPI_BYTE,
                                      &L.Type));
    CDAG_MPI(MPI_Type_commit(&L.Type));
    break;
  }
  case Method::Scatter:
    for (const cg::Transfer *T : Mine) {
      if (L.IsRoot) // Base of the root's blocks, in group order.
        L.SendBuf = pointer(reinterpret_cast<uintptr_t>(src(*T)) -
                            static_cast<uint64_t>(Index[T->Dst]) * C.BlockSize);
      else
        L.RecvBuf = pointer(T->DstAddr);
    }
    break;
  case Method::Gather:
    for (const cg::Transfer *T : Mine) {
      if (L.IsRoot)
        L.RecvBuf = pointer(T->DstAddr -
                            static_cast<uint64_t>(Index[T->Src]) * C.BlockSize);
      else
        L.SendBuf = src(*T);
    }
    break;
  case Method::AllgatherInPlace:
  case Method::Allgather:
  case Method::Alltoall:
    for (const cg::Transfer *T : Mine) {
      if (T->Dst == S.Rank)
        L.RecvBuf = pointer(T->DstAddr -
                            static_cast<uint64_t>(Index[T->Src]) * C.BlockSize);
      else if (L.M == Method::Alltoall)
        L.SendBuf = pointer(reinterpret_cast<uintptr_t>(src(*T)) -
                            static_cast<uint64_t>(Index[T->Dst]) * C.BlockSize);
      else
        L.SendBuf = src(*T);
    }
    break;
  case Method::Scatterv:
  case Method::Gatherv:
  case Method::Alltoallv: {
    L.SendCounts.assign(G, 0);
    L.SendDispls.assign(G, 0);
    L.RecvCounts.assign(G, 0);
    L.RecvDispls.assign(G, 0);
    uint64_t SendLow = UINT64_MAX, RecvLow = UINT64_MAX;
    for (const cg::Transfer *T : Mine) {
      if (T->Src == S.Rank)
        SendLow =
            std::min<uint64_t>(SendLow, reinterpret_cast<uintptr_t>(src(*T)));
      if (T->Dst == S.Rank)
        RecvLow = std::min(RecvLow, T->DstAddr);
    }
    for (const cg::Transfer *T : Mine) {
      if (T->Src == S.Rank) {
        L.SendCounts[Index[T->Dst]] = static_cast<int>(T->Size);
        L.SendDispls[Index[T->Dst]] =
            static_cast<int>(reinterpret_cast<uintptr_t>(src(*T)) - SendLow);
      }
      if (T->Dst == S.Rank) {
        L.RecvCounts[Index[T->Src]] = static_cast<int>(T->Size);
        L.RecvDispls[Index[T->Src]] = static_cast<int>(T->DstAddr - RecvLow);
      }
    }
    L.SendBuf = SendLow == UINT64_MAX ? nullptr : pointer(SendLow);
    L.RecvBuf = RecvLow == UINT64_MAX ? nullptr : pointer(RecvLow);
    if (L.M == Method::Scatterv && !L.IsRoot)
      L.Count = L.RecvCounts[L.Root];
    if (L.M == Method::Gatherv && !L.IsRoot)
      L.Count = L.SendCounts[L.Root];
    break;
  }
  case Method::PointToPoint:
    break;
  }
  S.Collectives.push_back(std::move(L));
  return CDAG_SUCCESS;
}

int buildSchedule(cDAG_Schedule_s &S, const Plan &P) {
  Stager St(S, P);
  for (const Planned &PC : P.Collectives)
    if (int RC = buildCollective(S, PC, St))
      return RC;
  for (const cg::Transfer &T : P.Residual) {
    if (!fitsInt(T.Size))
      return fail(CDAG_ERR_ARG, "a transfer of more than 2 GiB");
    if (T.Src == S.Rank && T.Dst == S.Rank) {
      std::map<uint64_t, uint64_t> M = St.stage({T});
      S.Copies.push_back({pointer(T.DstAddr), pointer(M[T.SrcAddr]), T.Size});
    } else if (T.Src == S.Rank) {
      std::map<uint64_t, uint64_t> M = St.stage({T});
      S.Sends.push_back(
          {pointer(M[T.SrcAddr]), static_cast<int>(T.Size), T.Dst});
    } else if (T.Dst == S.Rank) {
      S.Receives.push_back(
          {pointer(T.DstAddr), static_cast<int>(T.Size), T.Src});
    }
  }
  return CDAG_SUCCESS;
}

//===-- Running
//------------------------------------------------------------===//

int runCollective(const LocalCollective &L) {
  if (L.Comm == MPI_COMM_NULL)
    return CDAG_SUCCESS;
  switch (L.M) {
  case Method::Bcast:
    CDAG_MPI(MPI_Bcast(L.SendBuf, L.Count, MPI_BYTE, L.Root, L.Comm));
    break;
  case Method::BcastParts:
    CDAG_MPI(MPI_Bcast(MPI_BOTTOM, 1, L.Type, L.Root, L.Comm));
    break;
  case Method::Scatter:
    CDAG_MPI(MPI_Scatter(L.SendBuf, L.Count, MPI_BYTE,
                         L.IsRoot ? MPI_IN_PLACE : L.RecvBuf, L.Count, MPI_BYTE,
                         L.Root, L.Comm));
    break;
  case Method::Gather:
    CDAG_MPI(MPI_Gather(L.IsRoot ? MPI_IN_PLACE : L.SendBuf, L.Count, MPI_BYTE,
                        L.RecvBuf, L.Count, MPI_BYTE, L.Root, L.Comm));
    break;
  case Method::Scatterv:
    CDAG_MPI(MPI_Scatterv(L.SendBuf, L.SendCounts.data(), L.SendDispls.data(),
                          MPI_BYTE, L.IsRoot ? MPI_IN_PLACE : L.RecvBuf,
                          L.Count, MPI_BYTE, L.Root, L.Comm));
    break;
  case Method::Gatherv:
    CDAG_MPI(MPI_Gatherv(L.IsRoot ? MPI_IN_PLACE : L.SendBuf, L.Count, MPI_BYTE,
                         L.RecvBuf, L.RecvCounts.data(), L.RecvDispls.data(),
                         MPI_BYTE, L.Root, L.Comm));
    break;
  case Method::AllgatherInPlace:
    CDAG_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, L.RecvBuf,
                           L.Count, MPI_BYTE, L.Comm));
    break;
  case Method::Allgather:
    CDAG_MPI(MPI_Allgather(L.SendBuf, L.Count, MPI_BYTE, L.RecvBuf, L.Count,
                           MPI_BYTE, L.Comm));
    break;
  case Method::Alltoall:
    CDAG_MPI(MPI_Alltoall(L.SendBuf, L.Count, MPI_BYTE, L.RecvBuf, L.Count,
                          MPI_BYTE, L.Comm));
    break;
  case Method::Alltoallv:
    CDAG_MPI(MPI_Alltoallv(L.SendBuf, L.SendCounts.data(), L.SendDispls.data(),
                           MPI_BYTE, L.RecvBuf, L.RecvCounts.data(),
                           L.RecvDispls.data(), MPI_BYTE, L.Comm));
    break;
  case Method::PointToPoint:
    break;
  }
  return CDAG_SUCCESS;
}

int runDetected(cDAG_Schedule_s &S) {
  for (Stage &St : S.Stages)
    memcpy(St.Copy.data(), pointer(St.From), St.Copy.size());
  S.Requests.clear();
  // Residual transfers first, nonblocking; both sides post in the plan's
  // order, so same-pair messages match in that order.
  for (const PointToPoint &R : S.Receives) {
    S.Requests.emplace_back();
    CDAG_MPI(MPI_Irecv(R.Buffer, R.Bytes, MPI_BYTE, R.Peer, 0, S.Comm,
                       &S.Requests.back()));
  }
  for (const PointToPoint &Sd : S.Sends) {
    S.Requests.emplace_back();
    CDAG_MPI(MPI_Isend(Sd.Buffer, Sd.Bytes, MPI_BYTE, Sd.Peer, 0, S.Comm,
                       &S.Requests.back()));
  }
  for (const LocalCollective &L : S.Collectives)
    if (int RC = runCollective(L))
      return RC;
  CDAG_MPI(MPI_Waitall(static_cast<int>(S.Requests.size()), S.Requests.data(),
                       MPI_STATUSES_IGNORE));
  for (const LocalCopy &C : S.Copies)
    memmove(C.To, C.From, C.Bytes);
  return CDAG_SUCCESS;
}

/// CDAG_DISABLE_DETECTION=1: the graph's own operations, each started as
/// soon as its dependencies completed.
int runOriginal(cDAG_Schedule_s &S) {
  const std::vector<cg::Operation> &Ops = S.Original.ops();
  std::vector<uint32_t> Left(Ops.size(), 0);
  std::vector<std::vector<uint32_t>> Next(Ops.size());
  for (const auto &[Before, After] : S.Original.dependencies()) {
    Next[Before].push_back(After);
    ++Left[After];
  }
  std::deque<uint32_t> Ready;
  for (uint32_t I = 0; I < Ops.size(); ++I)
    if (!Left[I])
      Ready.push_back(I);
  std::vector<MPI_Request> Active;
  std::vector<uint32_t> ActiveOp;
  size_t Done = 0;
  auto complete = [&](uint32_t Op) {
    ++Done;
    for (uint32_t N : Next[Op])
      if (--Left[N] == 0)
        Ready.push_back(N);
  };
  while (Done < Ops.size()) {
    while (!Ready.empty()) {
      uint32_t I = Ready.front();
      Ready.pop_front();
      const cg::Operation &Op = Ops[I];
      if (!cg::isMessage(Op.Kind)) {
        complete(I);
        continue;
      }
      MPI_Request R;
      int Bytes = static_cast<int>(Op.Size);
      if (Op.Kind == cg::OpKind::Send)
        CDAG_MPI(MPI_Isend(pointer(Op.Start), Bytes, MPI_BYTE, Op.Peer, Op.Tag,
                           S.Comm, &R));
      else
        CDAG_MPI(MPI_Irecv(pointer(Op.Start), Bytes, MPI_BYTE, Op.Peer, Op.Tag,
                           S.Comm, &R));
      Active.push_back(R);
      ActiveOp.push_back(I);
    }
    if (Active.empty())
      break;
    int Which;
    CDAG_MPI(MPI_Waitany(static_cast<int>(Active.size()), Active.data(), &Which,
                         MPI_STATUS_IGNORE));
    uint32_t Op = ActiveOp[Which];
    Active.erase(Active.begin() + Which);
    ActiveOp.erase(ActiveOp.begin() + Which);
    complete(Op);
  }
  if (Done != Ops.size())
    return fail(CDAG_ERR_GRAPH, "the graph has a dependency cycle");
  return CDAG_SUCCESS;
}

//===-- Compiling
//----------------------------------------------------------===//

/// Rank 0's part: analyze all graphs. Returns the encoded detection result.
std::string analyze(const std::vector<uint64_t> &All,
                    const std::vector<int> &Counts, int P, bool Detect,
                    std::vector<uint64_t> &Encoded) {
  cg::Graph G(P);
  size_t Offset = 0;
  for (int R = 0; R < P; ++R) {
    cg::LocalGraph L(R);
    cg::Status S = cg::LocalGraph::deserialize(
        All.data() + Offset, static_cast<size_t>(Counts[R]), L);
    Offset += static_cast<size_t>(Counts[R]);
    if (!S.ok())
      return "the graph of process " + std::to_string(R) + ": " + S.Message;
    S = G.add(L);
    if (!S.ok())
      return S.Message;
  }
  cg::Matching M;
  cg::Status S = cg::match(G, M);
  if (!S.ok())
    return S.Message;
  if (!Detect)
    return "";
  std::vector<cg::Transfer> SST;
  S = cg::propagate(G, M, SST);
  if (!S.ok())
    return S.Message;
  Encoded = encode(cg::detect(SST, P));
  return "";
}

int broadcastWords(std::vector<uint64_t> &W, MPI_Comm Comm, int Rank) {
  uint64_t N = W.size();
  CDAG_MPI(MPI_Bcast(&N, 1, MPI_UINT64_T, 0, Comm));
  if (Rank != 0)
    W.resize(N);
  // In pieces: MPI counts are int.
  for (uint64_t Done = 0; Done < N;) {
    int Chunk = static_cast<int>(std::min<uint64_t>(N - Done, 1u << 26));
    CDAG_MPI(MPI_Bcast(W.data() + Done, Chunk, MPI_UINT64_T, 0, Comm));
    Done += static_cast<uint64_t>(Chunk);
  }
  return CDAG_SUCCESS;
}

int compile(cDAG_Graph_s &G, cDAG_Schedule_s &S) {
  CDAG_MPI(MPI_Comm_dup(G.Comm, &S.Comm));
  S.Rank = G.Rank;
  S.Size = G.Size;
  S.Original = G.Local;

  std::vector<uint64_t> Mine = G.Local.serialize();
  if (!fitsInt(Mine.size()))
    return fail(CDAG_ERR_ARG, "the graph of this process is too large");
  int MyCount = static_cast<int>(Mine.size());
  std::vector<int> Counts(S.Rank == 0 ? S.Size : 0), Displs;
  CDAG_MPI(
      MPI_Gather(&MyCount, 1, MPI_INT, Counts.data(), 1, MPI_INT, 0, S.Comm));
  std::vector<uint64_t> All;
  if (S.Rank == 0) {
    uint64_t Total = 0;
    for (int C : Counts) {
      Displs.push_back(static_cast<int>(Total));
      Total += static_cast<uint64_t>(C);
    }
    if (!fitsInt(Total))
      return fail(CDAG_ERR_ARG, "the graphs are too large to gather");
    All.resize(Total);
  }
  CDAG_MPI(MPI_Gatherv(Mine.data(), MyCount, MPI_UINT64_T, All.data(),
                       Counts.data(), Displs.data(), MPI_UINT64_T, 0, S.Comm));

  // Rank 0 decides for all: detection on or off, success or the error.
  std::vector<uint64_t> Encoded;
  std::string Error;
  int Flags[2] = {0, 0}; // {detect, error length}
  if (S.Rank == 0) {
    Flags[0] = envIsOne("CDAG_DISABLE_DETECTION") ? 0 : 1;
    Error = analyze(All, Counts, S.Size, Flags[0], Encoded);
    Flags[1] = static_cast<int>(Error.size());
  }
  CDAG_MPI(MPI_Bcast(Flags, 2, MPI_INT, 0, S.Comm));
  if (Flags[1]) {
    Error.resize(static_cast<size_t>(Flags[1]));
    CDAG_MPI(MPI_Bcast(&Error[0], Flags[1], MPI_CHAR, 0, S.Comm));
    return fail(CDAG_ERR_GRAPH, Error);
  }
  S.Detection = Flags[0] != 0;
  if (!S.Detection) {
    S.Report = "cdag: detection disabled; " +
               std::to_string(G.Local.ops().size()) +
               " operations on this process run as point-to-point\n";
    return CDAG_SUCCESS;
  }
  if (int RC = broadcastWords(Encoded, S.Comm, S.Rank))
    return RC;
  Plan P = makePlan(decode(Encoded), S.Size);
  S.NumCollectives = static_cast<int>(P.Collectives.size());
  for (const Planned &PC : P.Collectives)
    S.Report += "cdag: " + describe(PC, S.Size) + "\n";
  uint64_t Bytes = 0;
  for (const cg::Transfer &T : P.Residual)
    Bytes += T.Size;
  S.Report += "cdag: " + std::to_string(P.Residual.size()) +
              " residual transfers (" + std::to_string(Bytes) +
              " bytes) as point-to-point\n";
  return buildSchedule(S, P);
}

void freeSchedule(cDAG_Schedule_s *S) {
  for (LocalCollective &L : S->Collectives) {
    if (L.Type != MPI_DATATYPE_NULL)
      MPI_Type_free(&L.Type);
    if (L.OwnsComm && L.Comm != MPI_COMM_NULL)
      MPI_Comm_free(&L.Comm);
  }
  if (S->Comm != MPI_COMM_NULL)
    MPI_Comm_free(&S->Comm);
  delete S;
}

} // namespace

//===-- The C API
//----------------------------------------------------------===//

// The library is built with hidden visibility; its C API is what it exports.
#pragma GCC visibility push(default)
extern "C" {

int cDAG_Create(MPI_Comm comm, cDAG_Graph *graph) {
  if (!graph || comm == MPI_COMM_NULL)
    return fail(CDAG_ERR_ARG, "cDAG_Create: null graph or communicator");
  auto *G = new (std::nothrow) cDAG_Graph_s;
  if (!G)
    return fail(CDAG_ERR_NOMEM, "cDAG_Create: out of memory");
  G->Comm = comm;
  CDAG_MPI(MPI_Comm_rank(comm, &G->Rank));
  CDAG_MPI(MPI_Comm_size(comm, &G->Size));
  G->Local = cg::LocalGraph(G->Rank);
  *graph = G;
  return CDAG_SUCCESS;
}

static int addTransfer(cDAG_Graph g, const void *buf, size_t bytes, int peer,
                       int tag, cDAG_Op *op, bool Send) {
  const char *What = Send ? "cDAG_Send" : "cDAG_Recv";
  if (!g)
    return fail(CDAG_ERR_ARG, std::string(What) + ": null graph");
  if (peer < 0 || peer >= g->Size)
    return fail(CDAG_ERR_ARG, std::string(What) + ": rank " +
                                  std::to_string(peer) +
                                  " is not in the communicator");
  if (tag < 0)
    return fail(CDAG_ERR_ARG, std::string(What) + ": negative tag");
  if (!fitsInt(bytes))
    return fail(CDAG_ERR_ARG,
                std::string(What) + ": messages over 2 GiB are not supported");
  uint64_t A = reinterpret_cast<uintptr_t>(buf);
  uint32_t I = Send ? g->Local.addSend(A, bytes, peer, tag)
                    : g->Local.addRecv(A, bytes, peer, tag);
  if (op)
    *op = static_cast<cDAG_Op>(I);
  return CDAG_SUCCESS;
}

int cDAG_Send(cDAG_Graph graph, const void *buf, size_t bytes, int dest,
              int tag, cDAG_Op *op) {
  return addTransfer(graph, buf, bytes, dest, tag, op, true);
}

int cDAG_Recv(cDAG_Graph graph, void *buf, size_t bytes, int source, int tag,
              cDAG_Op *op) {
  return addTransfer(graph, buf, bytes, source, tag, op, false);
}

int cDAG_Local(cDAG_Graph graph, cDAG_Op *op) {
  if (!graph)
    return fail(CDAG_ERR_ARG, "cDAG_Local: null graph");
  uint32_t I = graph->Local.addLocal();
  if (op)
    *op = static_cast<cDAG_Op>(I);
  return CDAG_SUCCESS;
}

int cDAG_Depend(cDAG_Graph graph, cDAG_Op before, cDAG_Op after) {
  if (!graph)
    return fail(CDAG_ERR_ARG, "cDAG_Depend: null graph");
  int N = static_cast<int>(graph->Local.ops().size());
  if (before < 0 || before >= N || after < 0 || after >= N)
    return fail(CDAG_ERR_ARG, "cDAG_Depend: no such operation");
  if (before == after)
    return fail(CDAG_ERR_ARG, "cDAG_Depend: an operation cannot wait for "
                              "itself");
  graph->Local.addDependency(static_cast<uint32_t>(before),
                             static_cast<uint32_t>(after));
  return CDAG_SUCCESS;
}

int cDAG_Scratch(cDAG_Graph graph, void *buf, size_t bytes) {
  if (!graph)
    return fail(CDAG_ERR_ARG, "cDAG_Scratch: null graph");
  graph->Local.addScratch(reinterpret_cast<uintptr_t>(buf), bytes);
  return CDAG_SUCCESS;
}

int cDAG_Compile(cDAG_Graph graph, cDAG_Schedule *schedule) {
  if (!graph || !schedule)
    return fail(CDAG_ERR_ARG, "cDAG_Compile: null graph or schedule");
  auto *S = new (std::nothrow) cDAG_Schedule_s;
  if (!S)
    return fail(CDAG_ERR_NOMEM, "cDAG_Compile: out of memory");
  int RC = compile(*graph, *S);
  if (RC) {
    freeSchedule(S);
    return RC;
  }
  if (S->Rank == 0 && envIsOne("CDAG_REPORT"))
    fputs(S->Report.c_str(), stderr);
  *schedule = S;
  return CDAG_SUCCESS;
}

int cDAG_Run(cDAG_Schedule schedule) {
  if (!schedule)
    return fail(CDAG_ERR_ARG, "cDAG_Run: null schedule");
  return schedule->Detection ? runDetected(*schedule) : runOriginal(*schedule);
}

const char *cDAG_Report(cDAG_Schedule schedule) {
  return schedule ? schedule->Report.c_str() : "";
}

int cDAG_Num_collectives(cDAG_Schedule schedule) {
  return schedule ? schedule->NumCollectives : 0;
}

int cDAG_Free_schedule(cDAG_Schedule *schedule) {
  if (!schedule || !*schedule)
    return fail(CDAG_ERR_ARG, "cDAG_Free_schedule: null schedule");
  freeSchedule(*schedule);
  *schedule = nullptr;
  return CDAG_SUCCESS;
}

int cDAG_Free(cDAG_Graph *graph) {
  if (!graph || !*graph)
    return fail(CDAG_ERR_ARG, "cDAG_Free: null graph");
  delete *graph;
  *graph = nullptr;
  return CDAG_SUCCESS;
}

const char *cDAG_Error_string(int code) {
  switch (code) {
  case CDAG_SUCCESS:
    return "success";
  case CDAG_ERR_ARG:
    return "bad argument";
  case CDAG_ERR_GRAPH:
    return "the graph cannot run (unmatched operations, size mismatch or a "
           "cycle)";
  case CDAG_ERR_MPI:
    return "an MPI call failed";
  case CDAG_ERR_NOMEM:
    return "out of memory";
  default:
    return "unknown error";
  }
}

const char *cDAG_Error_message(void) { return LastError.c_str(); }

} // extern "C"
#pragma GCC visibility pop
