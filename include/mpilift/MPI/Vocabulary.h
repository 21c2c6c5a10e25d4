//===- Vocabulary.h - MPI functions and their argument roles ----*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one MPI vocabulary of the project: every MPI function mpilift reasons
/// about, its family (what kind of operation it is), and the role of each
/// argument. Analyses ask "which argument is the destination of this send"
/// through argIndex(Role::Dest); nothing else in the project hard-codes an
/// argument position.
///
/// The table lives in MPIFunctions.def. This library depends on nothing but
/// the C++ standard library, so the trace runtime can link it.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_MPI_VOCABULARY_H
#define MPILIFT_MPI_VOCABULARY_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace mpilift {
namespace mpi {

/// Every function of MPIFunctions.def, in table order.
enum class FunctionId : uint16_t {
#define MPILIFT_MPI_FUNCTION(Name, Family) Name,
#include "mpilift/MPI/MPIFunctions.def"
};

/// The number of functions in the table.
constexpr unsigned NumFunctions = 0
#define MPILIFT_MPI_FUNCTION(Name, Family) +1
#include "mpilift/MPI/MPIFunctions.def"
    ;

/// What kind of operation a function is.
enum class Family : uint8_t {
  BlockingSend,          ///< MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend.
  NonblockingSend,       ///< MPI_Isend and its modes.
  BlockingRecv,          ///< MPI_Recv, MPI_Mrecv.
  NonblockingRecv,       ///< MPI_Irecv, MPI_Imrecv.
  SendRecv,              ///< MPI_Sendrecv, MPI_Sendrecv_replace.
  BlockingProbe,         ///< MPI_Probe, MPI_Mprobe.
  NonblockingProbe,      ///< MPI_Iprobe, MPI_Improbe.
  Wait,                  ///< MPI_Wait and its array forms.
  Test,                  ///< MPI_Test and its array forms.
  RequestFree,           ///< MPI_Request_free.
  Cancel,                ///< MPI_Cancel.
  PersistentSendInit,    ///< MPI_Send_init and its modes.
  PersistentRecvInit,    ///< MPI_Recv_init.
  Start,                 ///< MPI_Start, MPI_Startall.
  BlockingCollective,    ///< MPI_Bcast, MPI_Gather, ...
  NonblockingCollective, ///< MPI_Ibcast, MPI_Igather, ...
  CommQuery,             ///< MPI_Comm_rank, MPI_Comm_size.
  CommCreate,            ///< Every function that makes a new communicator.
  CommFree,              ///< MPI_Comm_free.
  Environment,           ///< MPI_Init, MPI_Finalize, MPI_Abort, MPI_Pcontrol.
};

namespace detail {
inline constexpr Family FunctionFamilies[] = {
#define MPILIFT_MPI_FUNCTION(Name, TheFamily) Family::TheFamily,
#include "mpilift/MPI/MPIFunctions.def"
};
} // namespace detail

/// The family of \p Id, usable in constant expressions (the trace runtime
/// dispatches on it at compile time).
constexpr Family familyOf(FunctionId Id) {
  return detail::FunctionFamilies[static_cast<unsigned>(Id)];
}

/// The role an argument plays in its call.
enum class Role : uint8_t {
  SendBuffer,  ///< Data that is sent (read only).
  RecvBuffer,  ///< Data that is received (written).
  InOutBuffer, ///< Sent by some ranks, received by others (MPI_Bcast).
  Count,       ///< Element count that applies to every buffer of the call.
  SendCount,
  RecvCount,
  SendCounts, ///< Per-peer counts of a v-collective (array).
  RecvCounts,
  SendDispls,
  RecvDispls,
  Datatype, ///< Datatype that applies to every buffer of the call.
  SendType,
  RecvType,
  SendTypes, ///< Per-peer datatypes of a w-collective (array).
  RecvTypes,
  Dest,   ///< Destination rank in the communicator.
  Source, ///< Source rank in the communicator (may be MPI_ANY_SOURCE).
  Tag,    ///< Tag of the whole call.
  SendTag,
  RecvTag,
  Comm,         ///< The communicator the call runs on.
  NewComm,      ///< Output: a communicator the call creates.
  FreedComm,    ///< In/out: the communicator MPI_Comm_free releases.
  PeerComm,     ///< MPI_Intercomm_create's bridge communicator.
  Request,      ///< One request (output when posting, input when completing).
  RequestArray, ///< Array of requests.
  ArrayLength,  ///< Number of entries in the request array.
  Status,       ///< One status (output).
  StatusArray,  ///< Array of statuses (output).
  Index,        ///< Output: index of the completed request.
  IndexArray,   ///< Output: indices of the completed requests.
  OutCount,     ///< Output: number of completed requests.
  Flag,         ///< Output: whether the test succeeded.
  Message,      ///< Matched-probe message handle.
  Root,         ///< Root rank of a rooted collective.
  Op,           ///< Reduction operation.
  Color,
  Key,
  Group,
  RankOut, ///< Output of MPI_Comm_rank.
  SizeOut, ///< Output of MPI_Comm_size.
  ErrorCode,
  Info,
  Level, ///< MPI_Pcontrol's level.
  RemoteLeader,
  LocalLeader,
  ThreadLevel,
  ThreadLevelOut,
  Other, ///< Topology descriptions, argc/argv and the like.
};

/// The collective a function performs, independent of blocking.
enum class CollectiveKind : uint8_t {
  None,
  Barrier,
  Bcast,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Allgather,
  Allgatherv,
  Alltoall,
  Alltoallv,
  Alltoallw,
  Reduce,
  Allreduce,
  ReduceScatter,
  ReduceScatterBlock,
  Scan,
  Exscan,
  NeighborAllgather,
  NeighborAllgatherv,
  NeighborAlltoall,
  NeighborAlltoallv,
  NeighborAlltoallw,
};

/// The send mode of a point-to-point send.
enum class SendMode : uint8_t { None, Standard, Synchronous, Buffered, Ready };

/// One parameter of an MPI function.
struct ArgumentInfo {
  Role TheRole;
  const char *Type; ///< The C type as mpi.h declares it, e.g. "const void *".
  const char *Name; ///< The parameter name in mpi.h, e.g. "buf".
};

/// Everything the vocabulary knows about one MPI function.
struct FunctionInfo {
  FunctionId Id;
  const char *Name; ///< The C name, e.g. "MPI_Send".
  Family TheFamily;
  CollectiveKind Collective;
  SendMode Mode;
  bool Variadic;
  const ArgumentInfo *Args;
  unsigned NumArgs;

  /// The position of the first argument with role \p R, if any.
  std::optional<unsigned> argIndex(Role R) const;
  /// Whether some argument has role \p R.
  bool hasRole(Role R) const { return argIndex(R).has_value(); }
};

/// The entry of \p Id.
const FunctionInfo &info(FunctionId Id);

/// The entry named \p Name ("MPI_Send"; "PMPI_Send" is accepted too), or null.
const FunctionInfo *lookup(std::string_view Name);

/// The first entry of the table; entries are contiguous, NumFunctions long.
const FunctionInfo *begin();
const FunctionInfo *end();

/// Stable spellings, used in diagnostics, traces and docs.
const char *name(Role R);
const char *name(Family F);
const char *name(CollectiveKind K);

/// Whether functions of family \p F are collective operations.
bool isCollective(Family F);
/// Whether functions of family \p F return before the operation completes.
bool isNonblocking(Family F);
/// Whether \p F moves data point to point (sends, receives, both).
bool isPointToPoint(Family F);
/// Whether \p F sends point-to-point data (including persistent inits).
bool sendsPointToPoint(Family F);
/// Whether \p F receives point-to-point data (including persistent inits).
bool receivesPointToPoint(Family F);
/// Whether \p F completes requests (wait and test families).
bool completesRequests(Family F);
/// Whether calls of function \p Id create a request the program must complete.
bool createsRequest(FunctionId Id);
/// Whether the collective \p K has a root argument.
bool isRooted(CollectiveKind K);

} // namespace mpi
} // namespace mpilift

#endif // MPILIFT_MPI_VOCABULARY_H
