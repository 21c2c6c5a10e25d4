//===- Vocabulary.cpp - The MPI functions and their argument roles --------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/MPI/Vocabulary.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <string_view>
#include <unordered_map>

namespace mpilift {
namespace mpi {
namespace {

// Two parallel arrays: the arguments of all functions in table order, and the
// function each belongs to.
const ArgumentInfo AllArguments[] = {
#define MPILIFT_MPI_ARG(Name, TheRole, Type, ParamName)                        \
  {Role::TheRole, #Type, #ParamName},
#include "mpilift/MPI/MPIFunctions.def"
};

const FunctionId ArgumentOwners[] = {
#define MPILIFT_MPI_ARG(Name, TheRole, Type, ParamName) FunctionId::Name,
#include "mpilift/MPI/MPIFunctions.def"
};

struct RawFunction {
  const char *Name;
  Family TheFamily;
};

const RawFunction RawFunctions[] = {
#define MPILIFT_MPI_FUNCTION(Name, TheFamily) {"MPI_" #Name, Family::TheFamily},
#include "mpilift/MPI/MPIFunctions.def"
};

bool isVariadic(FunctionId Id) {
  switch (Id) {
#define MPILIFT_MPI_VARARGS(Name)                                              \
  case FunctionId::Name:                                                       \
    return true;
#include "mpilift/MPI/MPIFunctions.def"
  default:
    return false;
  }
}

struct CollectiveName {
  const char *Suffix;
  CollectiveKind Kind;
};

// Matched against the name without "MPI_" and without the leading "I" of a
// nonblocking collective.
const CollectiveName CollectiveNames[] = {
    {"Barrier", CollectiveKind::Barrier},
    {"Bcast", CollectiveKind::Bcast},
    {"Gather", CollectiveKind::Gather},
    {"Gatherv", CollectiveKind::Gatherv},
    {"Scatter", CollectiveKind::Scatter},
    {"Scatterv", CollectiveKind::Scatterv},
    {"Allgather", CollectiveKind::Allgather},
    {"Allgatherv", CollectiveKind::Allgatherv},
    {"Alltoall", CollectiveKind::Alltoall},
    {"Alltoallv", CollectiveKind::Alltoallv},
    {"Alltoallw", CollectiveKind::Alltoallw},
    {"Reduce", CollectiveKind::Reduce},
    {"Allreduce", CollectiveKind::Allreduce},
    {"Reduce_scatter", CollectiveKind::ReduceScatter},
    {"Reduce_scatter_block", CollectiveKind::ReduceScatterBlock},
    {"Scan", CollectiveKind::Scan},
    {"Exscan", CollectiveKind::Exscan},
    {"Neighbor_allgather", CollectiveKind::NeighborAllgather},
    {"Neighbor_allgatherv", CollectiveKind::NeighborAllgatherv},
    {"Neighbor_alltoall", CollectiveKind::NeighborAlltoall},
    {"Neighbor_alltoallv", CollectiveKind::NeighborAlltoallv},
    {"Neighbor_alltoallw", CollectiveKind::NeighborAlltoallw},
};

CollectiveKind collectiveKindOf(std::string_view Name, Family F) {
  if (!isCollective(F))
    return CollectiveKind::None;
  std::string_view Base = Name.substr(4); // Drop "MPI_".
  if (F == Family::NonblockingCollective) {
    // "Ibcast" -> "bcast"; compare case-insensitively on the first letter.
    Base = Base.substr(1);
  }
  for (const CollectiveName &C : CollectiveNames) {
    std::string_view Suffix = C.Suffix;
    if (Suffix.size() != Base.size())
      continue;
    if (Suffix.substr(1) == Base.substr(1) &&
        (Suffix[0] == Base[0] || Suffix[0] == Base[0] - 'a' + 'A'))
      return C.Kind;
  }
  assert(false && "collective without a CollectiveKind");
  return CollectiveKind::None;
}

SendMode sendModeOf(std::string_view Name, Family F) {
  if (F != Family::BlockingSend && F != Family::NonblockingSend &&
      F != Family::PersistentSendInit)
    return SendMode::None;
  std::string_view Base = Name.substr(4);
  if (F == Family::NonblockingSend)
    Base = Base.substr(1);
  switch (Base[0]) {
  case 'S':
  case 's':
    return Base.size() > 1 && Base[1] == 's' ? SendMode::Synchronous
                                             : SendMode::Standard;
  case 'B':
  case 'b':
    return SendMode::Buffered;
  case 'R':
  case 'r':
    return SendMode::Ready;
  default:
    return SendMode::Standard;
  }
}

struct Table {
  std::array<FunctionInfo, NumFunctions> Functions;
  /// The functions by name: the analyses look up every call they meet.
  std::unordered_map<std::string_view, const FunctionInfo *> ByName;

  Table() {
    unsigned NextArg = 0;
    const unsigned TotalArgs = std::size(AllArguments);
    for (unsigned I = 0; I != NumFunctions; ++I) {
      FunctionInfo &F = Functions[I];
      F.Id = static_cast<FunctionId>(I);
      F.Name = RawFunctions[I].Name;
      F.TheFamily = RawFunctions[I].TheFamily;
      F.Collective = collectiveKindOf(F.Name, F.TheFamily);
      F.Mode = sendModeOf(F.Name, F.TheFamily);
      F.Variadic = isVariadic(F.Id);
      // Arguments of one function are contiguous and in table order.
      F.Args = AllArguments + NextArg;
      unsigned First = NextArg;
      while (NextArg < TotalArgs && ArgumentOwners[NextArg] == F.Id)
        ++NextArg;
      F.NumArgs = NextArg - First;
      ByName.emplace(F.Name, &F);
    }
    assert(NextArg == TotalArgs && "arguments out of function order");
  }
};

const Table &table() {
  static const Table T;
  return T;
}

} // namespace

std::optional<unsigned> FunctionInfo::argIndex(Role R) const {
  for (unsigned I = 0; I != NumArgs; ++I)
    if (Args[I].TheRole == R)
      return I;
  return std::nullopt;
}

const FunctionInfo &info(FunctionId Id) {
  auto Index = static_cast<unsigned>(Id);
  assert(Index < NumFunctions && "FunctionId out of range");
  return table().Functions[Index];
}

const FunctionInfo *lookup(std::string_view Name) {
  if (Name.substr(0, 5) == "PMPI_")
    Name.remove_prefix(1);
  const auto &ByName = table().ByName;
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : It->second;
}

const FunctionInfo *begin() { return table().Functions.data(); }
const FunctionInfo *end() { return table().Functions.data() + NumFunctions; }

const char *name(Role R) {
  switch (R) {
#define ROLE(X)                                                                \
  case Role::X:                                                                \
    return #X;
    ROLE(SendBuffer)
    ROLE(RecvBuffer)
    ROLE(InOutBuffer)
    ROLE(Count)
    ROLE(SendCount)
    ROLE(RecvCount)
    ROLE(SendCounts)
    ROLE(RecvCounts)
    ROLE(SendDispls)
    ROLE(RecvDispls)
    ROLE(Datatype)
    ROLE(SendType)
    ROLE(RecvType)
    ROLE(SendTypes)
    ROLE(RecvTypes)
    ROLE(Dest)
    ROLE(Source)
    ROLE(Tag)
    ROLE(SendTag)
    ROLE(RecvTag)
    ROLE(Comm)
    ROLE(NewComm)
    ROLE(FreedComm)
    ROLE(PeerComm)
    ROLE(Request)
    ROLE(RequestArray)
    ROLE(ArrayLength)
    ROLE(Status)
    ROLE(StatusArray)
    ROLE(Index)
    ROLE(IndexArray)
    ROLE(OutCount)
    ROLE(Flag)
    ROLE(Message)
    ROLE(Root)
    ROLE(Op)
    ROLE(Color)
    ROLE(Key)
    ROLE(Group)
    ROLE(RankOut)
    ROLE(SizeOut)
    ROLE(ErrorCode)
    ROLE(Info)
    ROLE(Level)
    ROLE(RemoteLeader)
    ROLE(LocalLeader)
    ROLE(ThreadLevel)
    ROLE(ThreadLevelOut)
    ROLE(Other)
#undef ROLE
  }
  return "?";
}

const char *name(Family F) {
  switch (F) {
#define FAMILY(X)                                                              \
  case Family::X:                                                              \
    return #X;
    FAMILY(BlockingSend)
    FAMILY(NonblockingSend)
    FAMILY(BlockingRecv)
    FAMILY(NonblockingRecv)
    FAMILY(SendRecv)
    FAMILY(BlockingProbe)
    FAMILY(NonblockingProbe)
    FAMILY(Wait)
    FAMILY(Test)
    FAMILY(RequestFree)
    FAMILY(Cancel)
    FAMILY(PersistentSendInit)
    FAMILY(PersistentRecvInit)
    FAMILY(Start)
    FAMILY(BlockingCollective)
    FAMILY(NonblockingCollective)
    FAMILY(CommQuery)
    FAMILY(CommCreate)
    FAMILY(CommFree)
    FAMILY(Environment)
#undef FAMILY
  }
  return "?";
}

const char *name(CollectiveKind K) {
  if (K == CollectiveKind::None)
    return "none";
  for (const CollectiveName &C : CollectiveNames)
    if (C.Kind == K)
      return C.Suffix;
  return "?";
}

bool isCollective(Family F) {
  return F == Family::BlockingCollective || F == Family::NonblockingCollective;
}

bool isNonblocking(Family F) {
  switch (F) {
  case Family::NonblockingSend:
  case Family::NonblockingRecv:
  case Family::NonblockingProbe:
  case Family::Test:
  case Family::NonblockingCollective:
  case Family::PersistentSendInit:
  case Family::PersistentRecvInit:
  case Family::Start:
    return true;
  default:
    return false;
  }
}

bool sendsPointToPoint(Family F) {
  return F == Family::BlockingSend || F == Family::NonblockingSend ||
         F == Family::SendRecv || F == Family::PersistentSendInit;
}

bool receivesPointToPoint(Family F) {
  return F == Family::BlockingRecv || F == Family::NonblockingRecv ||
         F == Family::SendRecv || F == Family::PersistentRecvInit;
}

bool isPointToPoint(Family F) {
  return sendsPointToPoint(F) || receivesPointToPoint(F);
}

bool completesRequests(Family F) {
  return F == Family::Wait || F == Family::Test;
}

bool createsRequest(FunctionId Id) {
  const FunctionInfo &F = info(Id);
  switch (F.TheFamily) {
  case Family::NonblockingSend:
  case Family::NonblockingRecv:
  case Family::NonblockingCollective:
  case Family::PersistentSendInit:
  case Family::PersistentRecvInit:
    return true;
  case Family::CommCreate:
    return F.hasRole(Role::Request); // MPI_Comm_idup.
  default:
    return false;
  }
}

bool isRooted(CollectiveKind K) {
  switch (K) {
  case CollectiveKind::Bcast:
  case CollectiveKind::Gather:
  case CollectiveKind::Gatherv:
  case CollectiveKind::Scatter:
  case CollectiveKind::Scatterv:
  case CollectiveKind::Reduce:
    return true;
  default:
    return false;
  }
}

} // namespace mpi
} // namespace mpilift
