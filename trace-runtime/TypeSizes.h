//===- TypeSizes.h - Sizes of predefined datatypes --------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The size of every predefined MPI datatype, read once with PMPI_Type_size
/// when tracing starts and looked up afterwards without a call into MPI.
/// Predefined handles are never freed, so the table never goes stale; derived
/// datatypes (which a program may free and whose handles MPI may reuse) are
/// always asked of MPI.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_TYPESIZES_H
#define MPILIFT_TRACE_RUNTIME_TYPESIZES_H

#include <mpi.h>

#include <cstdint>
#include <cstring>

namespace mpilift {
namespace rt {

/// Open addressing over the predefined handles; written by
/// cachePredefinedTypeSizes() before tracing starts, read-only afterwards.
struct TypeSizeSlot {
  uint64_t Key; ///< Handle bits; 0 marks an empty slot.
  uint64_t Size;
};
constexpr unsigned TypeSizeSlots = 128;
extern TypeSizeSlot PredefinedTypeSizes[TypeSizeSlots];

/// The bits of a datatype handle (a pointer in Open MPI, an int in MPICH).
inline uint64_t typeKey(MPI_Datatype T) {
  uint64_t Key = 0;
  static_assert(sizeof(T) <= sizeof(Key), "datatype handle wider than 64 bits");
  memcpy(&Key, &T, sizeof(T));
  return Key;
}

inline unsigned typeSlot(uint64_t Key) {
  return static_cast<unsigned>((Key * 0x9e3779b97f4a7c15ull) >> 57) %
         TypeSizeSlots;
}

/// Fills the table; called once before the first call is recorded.
void cachePredefinedTypeSizes();

/// The size of one element of \p T in bytes; 0 for MPI_DATATYPE_NULL and for
/// types MPI reports no size for.
inline uint64_t typeSize(MPI_Datatype T) {
  uint64_t Key = typeKey(T);
  for (unsigned I = typeSlot(Key);; I = (I + 1) % TypeSizeSlots) {
    const TypeSizeSlot &S = PredefinedTypeSizes[I];
    if (S.Key == Key && Key != 0)
      return S.Size;
    if (S.Key == 0)
      break;
  }
  if (T == MPI_DATATYPE_NULL)
    return 0;
  int Size = 0;
  PMPI_Type_size(T, &Size);
  return Size > 0 ? static_cast<uint64_t>(Size) : 0;
}

} // namespace rt
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_TYPESIZES_H
