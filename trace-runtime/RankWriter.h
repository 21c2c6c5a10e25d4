//===- RankWriter.h - Write one rank's events as OTF2 -----------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The second pass of a conversion: one rank's events read from its spill
/// file a chunk per thread at a time, the threads' calls merged in time
/// order, requests, messages and call sites resolved, and one OTF2 location
/// written per thread. The same for the serial and the parallel conversion.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_RANKWRITER_H
#define MPILIFT_TRACE_RUNTIME_RANKWRITER_H

#include "SpillFile.h"
#include "mpilift/MPI/Vocabulary.h"
#include "mpilift/TraceRuntime/TraceFormat.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace mpilift {
namespace tracert {

/// Maps time stamp counter values to CLOCK_MONOTONIC nanoseconds, piecewise
/// linear between calibration points.
class ClockMap {
public:
  explicit ClockMap(std::vector<rawtrace::Calibration> Points) {
    std::sort(Points.begin(), Points.end(),
              [](const rawtrace::Calibration &A,
                 const rawtrace::Calibration &B) { return A.Tsc < B.Tsc; });
    for (const rawtrace::Calibration &C : Points)
      if (this->Points.empty() || C.Tsc > this->Points.back().Tsc)
        this->Points.push_back(C);
  }

  bool usable() const { return Points.size() >= 2; }

  uint64_t toNs(uint64_t Tsc) const {
    if (Points.empty())
      return Tsc;
    if (Points.size() == 1)
      return Points[0].MonotonicNs + (Tsc - Points[0].Tsc);
    auto It = std::upper_bound(
        Points.begin(), Points.end(), Tsc,
        [](uint64_t T, const rawtrace::Calibration &C) { return T < C.Tsc; });
    size_t Hi = std::min<size_t>(std::max<size_t>(It - Points.begin(), 1),
                                 Points.size() - 1);
    const rawtrace::Calibration &A = Points[Hi - 1], &B = Points[Hi];
    long double Rate = static_cast<long double>(B.MonotonicNs - A.MonotonicNs) /
                       static_cast<long double>(B.Tsc - A.Tsc);
    long double Ns =
        static_cast<long double>(A.MonotonicNs) +
        (static_cast<long double>(Tsc) - static_cast<long double>(A.Tsc)) *
            Rate;
    return Ns < 0 ? 0 : static_cast<uint64_t>(Ns);
  }

  uint64_t realtimeMinusMonotonic() const {
    if (Points.empty())
      return 0;
    return Points[0].RealtimeNs - Points[0].MonotonicNs;
  }

private:
  std::vector<rawtrace::Calibration> Points;
};

/// OTF2 strings numbered densely in the order they are first asked for.
class StringTable {
public:
  OTF2_StringRef get(const std::string &S) {
    auto It = Refs.find(S);
    if (It != Refs.end())
      return It->second;
    OTF2_StringRef Ref = static_cast<OTF2_StringRef>(Strings.size());
    Refs.emplace(S, Ref);
    Strings.push_back(S);
    return Ref;
  }
  /// The reference of a string added before; OTF2_UNDEFINED_STRING if none.
  OTF2_StringRef find(const std::string &S) const {
    auto It = Refs.find(S);
    return It == Refs.end() ? OTF2_UNDEFINED_STRING : It->second;
  }
  const std::vector<std::string> &all() const { return Strings; }

private:
  std::unordered_map<std::string, OTF2_StringRef> Refs;
  std::vector<std::string> Strings;
};

/// The first thread of a rank has the rank as location id; others
/// (thread << 32) | rank.
inline OTF2_LocationRef locationOf(int Rank, uint16_t Thread) {
  return (static_cast<uint64_t>(Thread) << 32) | static_cast<uint32_t>(Rank);
}

/// Every function of the vocabulary is a region whose id is the function's:
/// no process must agree with another on the order of first use.
inline OTF2_RegionRef regionOf(mpi::FunctionId F) {
  return static_cast<OTF2_RegionRef>(F);
}

/// What writing one rank's events leaves for the global definitions.
struct RankWritten {
  /// The rank's clock had enough calibration points for exact times.
  bool ClockUsable = true;
  uint64_t FirstNs = UINT64_MAX, LastNs = 0;
  /// CLOCK_REALTIME at FirstNs.
  uint64_t Realtime = 0;
  /// Events per thread; never empty, as every rank has a location.
  std::map<uint16_t, uint64_t> EventsPerThread;
  /// Global communicator -> the communicator it was created from, as this
  /// rank saw it first.
  std::map<uint32_t, uint32_t> ParentOf;
};

class RankWriter {
public:
  /// \p Strings must hold the path of every module of \p S.
  RankWriter(OTF2_Archive *Archive, const SpillFile &S,
             const StringTable &Strings, OTF2_AttributeList *Attributes)
      : Archive(Archive), S(S), Strings(Strings), Attributes(Attributes),
        Clock(S.Clocks) {}

  /// Writes all events; returns false with Error set if OTF2 failed.
  bool write(std::string &Error);

  /// What write() left for the global definitions.
  RankWritten result() const;

private:
  enum class RequestKind { Send, Recv, Collective, Other };

  struct PersistentRequest {
    RequestKind Kind;
    uint32_t Comm;
    int32_t Peer, Tag;
    uint64_t Bytes;
    uint64_t Id; ///< Written on the init and on every activation.
  };

  struct ActiveRequest {
    uint64_t Id;
    RequestKind Kind;
    uint32_t Comm;
    bool Persistent;
    bool WroteStart; ///< An OTF2 record opened it (not MPI_PROC_NULL).
    mpi::CollectiveKind Collective;
    uint32_t Root;
    uint64_t Sent, Received;
  };

  struct Group {
    const rawtrace::Event *Call;
    const rawtrace::Event *PartsBegin;
    const rawtrace::Event *PartsEnd;
    uint16_t Thread;
  };

  void writeGroup(const Group &G);
  OTF2_EvtWriter *writerFor(uint16_t Thread);
  uint64_t time(uint64_t Tsc, uint16_t Thread);
  uint32_t globalComm(uint32_t Local) const {
    return Local < S.GlobalComm.size() ? S.GlobalComm[Local] : UINT32_MAX;
  }
  void addCallSite(uint64_t Address);
  void addU64(traceformat::Attribute A, uint64_t V) {
    OTF2_AttributeList_AddUint64(Attributes, A, V);
  }
  void addI32(traceformat::Attribute A, int32_t V) {
    OTF2_AttributeList_AddInt32(Attributes, A, V);
  }
  void addComm(traceformat::Attribute A, uint32_t Comm) {
    if (Comm != UINT32_MAX)
      OTF2_AttributeList_AddCommRef(Attributes, A, Comm);
  }
  uint32_t flagsOf(const rawtrace::Event &E) const;
  const rawtrace::Event *hashAfter(const Group &G,
                                   const rawtrace::Event *E) const;
  uint64_t newRequest(uint64_t Handle, const ActiveRequest &R);

  /// The layout records of \p G as parameter events at \p Time
  /// (traceformat::Parameter).
  void writeLayouts(const Group &G, OTF2_EvtWriter *W, uint64_t Time);
  void writeSend(const Group &G, OTF2_EvtWriter *W, uint64_t Begin);
  void writeReceive(const Group &G, OTF2_EvtWriter *W, uint64_t End);
  void writePostedReceive(const Group &G, OTF2_EvtWriter *W, uint64_t Begin);
  void writeCompletions(const Group &G, OTF2_EvtWriter *W, uint64_t End);
  void writeStart(uint64_t Handle, OTF2_EvtWriter *W, uint64_t Begin);
  void writeCollective(const Group &G, OTF2_EvtWriter *W, uint64_t Begin,
                       uint64_t End, bool Blocking);

  OTF2_Archive *Archive;
  const SpillFile &S;
  const StringTable &Strings;
  OTF2_AttributeList *Attributes;
  ClockMap Clock;
  RankWritten Written;

  std::map<uint16_t, OTF2_EvtWriter *> Writers;
  std::map<uint16_t, uint64_t> LastTime;
  std::unordered_map<uint64_t, ActiveRequest> Requests;
  std::unordered_map<uint64_t, PersistentRequest> Persistent;
  std::unordered_map<uint64_t, uint32_t> MessageComms;
  uint64_t NextRequestId = 1;
  bool Failed = false;
};

} // namespace tracert
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_RANKWRITER_H
