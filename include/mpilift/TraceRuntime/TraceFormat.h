//===- TraceFormat.h - Names mpilift adds to OTF2 archives ------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The OTF2 attribute and property names mpilift writes on top of OTF2's own
/// MPI records, shared by the writer (trace runtime) and the reader
/// (lib/Trace). docs/trace-format.md describes each.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACERUNTIME_TRACEFORMAT_H
#define MPILIFT_TRACERUNTIME_TRACEFORMAT_H

namespace mpilift {
namespace traceformat {

/// Attributes; the position in this list is the OTF2 AttributeRef we write.
enum Attribute : unsigned {
  AttrCallSiteModule, ///< STRING: path of the module holding the call.
  AttrCallSiteOffset, ///< UINT64: return address relative to the module.
  AttrBuffer,         ///< UINT64: send (or only) buffer address.
  AttrRecvBuffer,     ///< UINT64: receive buffer address.
  AttrPayloadHash,    ///< UINT64: hash of the message bytes.
  AttrPeer,           ///< INT32: peer rank in the communicator (see docs).
  AttrTag,            ///< INT32: tag, or MPI_Pcontrol level, or abort code.
  AttrComm,           ///< COMM: communicator, where no MPI record names it.
  AttrBytes,          ///< UINT64: bytes where no MPI record carries them.
  AttrRequest,        ///< UINT64: request id, where no MPI record carries it.
  AttrNewComm,        ///< COMM: communicator a creation call made.
  AttrFlags,          ///< UINT32: mpilift flags (found, in place, ...).
  AttrRecvBytes,      ///< UINT64: received bytes of a neighbor collective.
  NumAttributes
};

/// The attribute names, indexed by Attribute.
inline const char *attributeName(Attribute A) {
  static const char *const Names[NumAttributes] = {"mpilift::callsite_module",
                                                   "mpilift::callsite_offset",
                                                   "mpilift::buffer",
                                                   "mpilift::recv_buffer",
                                                   "mpilift::payload_hash",
                                                   "mpilift::peer",
                                                   "mpilift::tag",
                                                   "mpilift::comm",
                                                   "mpilift::bytes",
                                                   "mpilift::request",
                                                   "mpilift::new_comm",
                                                   "mpilift::flags",
                                                   "mpilift::recv_bytes"};
  return Names[A];
}

/// Flags in AttrFlags.
enum Flags : unsigned {
  FlagFound = 1u << 0,       ///< Probe found a message, test succeeded.
  FlagCancelled = 1u << 1,   ///< The request was cancelled.
  FlagInPlace = 1u << 2,     ///< MPI_IN_PLACE was passed.
  FlagSizeUnknown = 1u << 3, ///< Byte counts could not be computed.
  /// Point-to-point calls: the datatype of the (send) buffer leaves gaps,
  /// so the bytes are not one range of memory from the buffer's address.
  FlagNoncontiguous = 1u << 4,
  /// The same for the receive buffer of MPI_Sendrecv.
  FlagRecvNoncontiguous = 1u << 5,
};

/// OTF2 parameters that carry the layout of a point-to-point buffer whose
/// data has gaps (FlagNoncontiguous, FlagRecvNoncontiguous): UINT64
/// parameter events right after the call's Enter, two per run of bytes
/// next to each other in memory, in the order MPI packs them: the run's
/// offset from the recorded buffer address (two's complement), then its
/// length. Types the tracer cannot decode have the flag and no layout.
enum Parameter : unsigned {
  ParamLayout,     ///< The send buffer's (or the only buffer's).
  ParamRecvLayout, ///< The receive buffer's of MPI_Sendrecv.
  NumParameters
};

/// The parameter names, indexed by Parameter.
inline const char *parameterName(Parameter P) {
  static const char *const Names[NumParameters] = {"mpilift::layout",
                                                   "mpilift::recv_layout"};
  return Names[P];
}

/// Peer and tag values in AttrPeer / AttrTag that are not ranks or tags.
constexpr int PeerNone = -1;
constexpr int PeerAnySource = -2;
constexpr int PeerProcNull = -3;
constexpr int PeerRoot = -4;
constexpr int TagAny = -1;
constexpr int TagNone = -2;

/// Archive properties.
constexpr const char *PropertyComplete = "MPILIFT::COMPLETE";
constexpr const char *PropertyFormatVersion = "MPILIFT::FORMAT_VERSION";
constexpr const char *PropertyPayloadHashes = "MPILIFT::PAYLOAD_HASHES";
constexpr const char *PropertyRankStatus = "MPILIFT::RANK_STATUS";
constexpr const char *PropertyWorldSize = "MPILIFT::WORLD_SIZE";
constexpr const char *FormatVersion = "1";

} // namespace traceformat
} // namespace mpilift

#endif // MPILIFT_TRACERUNTIME_TRACEFORMAT_H
