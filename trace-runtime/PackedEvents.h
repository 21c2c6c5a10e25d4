//===- PackedEvents.h - Event records packed for the spill file -*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A full buffer of 64-byte event records is packed before it is written:
/// copying the records into the page cache was most of what a traced call
/// cost (docs/performance.md), and consecutive records of one thread
/// differ in few fields and by little. Each record becomes a two-byte mask
/// of the fields that differ from the previous record's, the change of
/// Begin, the length End - Begin, and the change of each field the mask
/// names, all as zigzag LEB128 numbers. A chunk packs from a record of
/// zeros, so chunks unpack on their own.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_PACKEDEVENTS_H
#define MPILIFT_TRACE_RUNTIME_PACKEDEVENTS_H

#include "RawFormat.h"

#include <cstddef>
#include <cstdint>

namespace mpilift {
namespace rawtrace {

/// The fewest bytes a packed record takes: the mask, Begin and length.
constexpr size_t MinPackedRecordBytes = 4;
/// The most: the mask and twelve numbers of up to ten bytes.
constexpr size_t MaxPackedRecordBytes = 2 + 12 * 10;

/// Packs \p N records into \p Out, which has room for
/// N * MaxPackedRecordBytes bytes; returns the bytes written.
/// Async-signal-safe: no allocation, no library call.
size_t packEvents(const Event *Records, uint32_t N, uint8_t *Out);

/// Unpacks exactly \p N records from the \p Bytes at \p In into \p Out;
/// false when the bytes are not \p N packed records and nothing more.
bool unpackEvents(const uint8_t *In, size_t Bytes, uint32_t N, Event *Out);

} // namespace rawtrace
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_PACKEDEVENTS_H
