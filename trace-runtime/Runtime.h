//===- Runtime.h - State of the MPI trace runtime ---------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The recording state shared by the PMPI wrappers: per-thread event buffers,
/// the spill file, the communicator registry and the crash handling. The hot
/// path (tracing(), timestamp(), pushEvent(), commId() of MPI_COMM_WORLD) is
/// inline and takes no lock.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_RUNTIME_H
#define MPILIFT_TRACE_RUNTIME_RUNTIME_H

#include "RawFormat.h"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <x86intrin.h>

#define MPILIFT_EXPORT __attribute__((visibility("default")))

namespace mpilift {
namespace rt {

/// True while events are recorded: the runtime is set up, healthy, and not
/// paused by MPI_Pcontrol(0).
extern std::atomic<bool> TracingOn;

inline bool tracing() { return TracingOn.load(std::memory_order_relaxed); }

inline uint64_t timestamp() { return __rdtsc(); }

/// The events of one thread, appended to the spill file when full.
struct ThreadBuffer {
  rawtrace::Event *Events;
  /// Where a full buffer is packed before it is written; null if it could
  /// not be allocated (the records are then written as they are).
  uint8_t *Packed;
  uint32_t Capacity;
  /// Records in Events; written by the owner only, read by the crash flush.
  std::atomic<uint32_t> Count;
  /// Set while the owner writes the buffer out, so a crash flush skips it.
  std::atomic<bool> Flushing;
  uint16_t Thread;
  ThreadBuffer *Next;
};

ThreadBuffer *createThreadBuffer();
void flushFullBuffer(ThreadBuffer &B);

// __thread, not thread_local: a pointer with no dynamic initialization needs
// no TLS wrapper call, so the hot path is one initial-exec TLS load.
extern __thread ThreadBuffer *CurrentBuffer
    __attribute__((tls_model("initial-exec")));

/// The slot of this thread's next record, to be filled in place and then
/// made part of the buffer by commitEvent(). Filling the buffer directly
/// spares the copy of a record assembled on the stack, whose reading back
/// the processor cannot forward from the narrow stores that wrote it. No
/// other record of this thread may be started before the commit.
inline rawtrace::Event &nextEvent() {
  ThreadBuffer *B = CurrentBuffer;
  if (__builtin_expect(B == nullptr, 0))
    B = createThreadBuffer();
  uint32_t N = B->Count.load(std::memory_order_relaxed);
  if (__builtin_expect(N == B->Capacity, 0)) {
    flushFullBuffer(*B);
    N = 0;
  }
  return B->Events[N];
}

/// Makes the record nextEvent() returned part of this thread's buffer; the
/// crash flush reads records up to here only.
inline void commitEvent() {
  ThreadBuffer *B = CurrentBuffer;
  B->Count.store(B->Count.load(std::memory_order_relaxed) + 1,
                 std::memory_order_release);
}

/// Appends one record to this thread's buffer.
inline void pushEvent(const rawtrace::Event &E) {
  nextEvent() = E;
  commitEvent();
}

uint32_t lookupComm(MPI_Comm C);

/// The rank-local id of a communicator; registers unknown ones.
inline uint32_t commId(MPI_Comm C) {
  if (C == MPI_COMM_WORLD)
    return 0;
  if (C == MPI_COMM_NULL)
    return rawtrace::CommNone;
  return lookupComm(C);
}

/// Registers a communicator a creation call returned.
uint32_t registerNewComm(MPI_Comm C);
/// Forgets a communicator before MPI_Comm_free releases its handle.
void forgetComm(MPI_Comm C);

/// Set once at MPI_Init from MPILIFT_TRACE_HASH=1.
extern bool HashPayloads;

/// Whether payload hashes are recorded.
inline bool hashingPayloads() { return HashPayloads; }

/// Setup after PMPI_Init succeeded; decides whether this run is traced.
void initialize(int ThreadLevel);
/// Flushes, writes the footer and (on rank 0) converts the trace to OTF2.
/// Called at MPI_Finalize before PMPI_Finalize.
void finalize();
/// Flushes what was recorded after an abnormal end. Async-signal-safe.
void flushAfterAbnormalEnd(rawtrace::EndReason Reason, int Detail);
/// Pauses (Level 0) or resumes (other levels) recording.
void setPaused(bool Paused);
/// Whether initialize() set up tracing for this run.
bool active();

} // namespace rt
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_RUNTIME_H
