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
/// A message's buffer is recorded as one range of memory. Where its
/// datatype leaves gaps (a vector, HPL's structure of matrix columns, the
/// pair types in an array) no single range is the memory the call touches;
/// typeLayout says so, and where the data really starts.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_TYPESIZES_H
#define MPILIFT_TRACE_RUNTIME_TYPESIZES_H

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace mpilift {
namespace rt {

/// Open addressing over the predefined handles; written by
/// cachePredefinedTypeSizes() before tracing starts, read-only afterwards.
struct TypeSizeSlot {
  uint64_t Key; ///< Handle bits; 0 marks an empty slot.
  uint64_t Size;
  /// The type's bytes start at offset 0 and fill its extent.
  bool Solid;
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

/// The table's slot for \p T, if it is a predefined type.
inline const TypeSizeSlot *predefinedSlot(MPI_Datatype T) {
  uint64_t Key = typeKey(T);
  if (Key == 0)
    return nullptr;
  for (unsigned I = typeSlot(Key);; I = (I + 1) % TypeSizeSlots) {
    const TypeSizeSlot &S = PredefinedTypeSizes[I];
    if (S.Key == Key)
      return &S;
    if (S.Key == 0)
      return nullptr;
  }
}

/// The size of one element of \p T in bytes; 0 for MPI_DATATYPE_NULL and for
/// types MPI reports no size for.
inline uint64_t typeSize(MPI_Datatype T) {
  if (const TypeSizeSlot *S = predefinedSlot(T))
    return S->Size;
  if (T == MPI_DATATYPE_NULL)
    return 0;
  int Size = 0;
  PMPI_Type_size(T, &Size);
  return Size > 0 ? static_cast<uint64_t>(Size) : 0;
}

/// Where the data of a buffer of some elements of one datatype lies.
struct TypeLayout {
  uint64_t Size = 0;
  /// The offset of the type's first byte from the buffer's address.
  int64_t TrueLb = 0;
  uint64_t Extent = 0, TrueExtent = 0;

  /// Whether \p Count elements fill one range of memory without gaps:
  /// [TrueLb, TrueLb + Count * Size) from the buffer's address.
  bool contiguous(int Count) const {
    return Count <= 1 ? Count <= 0 || Size == TrueExtent
                      : Size == TrueExtent && Extent == TrueExtent;
  }
};

/// The layout of a datatype MPI must be asked about (derived ones, and
/// predefined ones with gaps such as MPI_DOUBLE_INT).
TypeLayout askTypeLayout(MPI_Datatype T);

/// The layout of \p T: from the table for the predefined types without
/// gaps, else asked of MPI.
inline TypeLayout typeLayout(MPI_Datatype T) {
  const TypeSizeSlot *S = predefinedSlot(T);
  if (S && S->Solid)
    return {S->Size, 0, S->Size, S->Size};
  if (T == MPI_DATATYPE_NULL)
    return {};
  return askTypeLayout(T);
}

/// Bytes of a message's data that lie next to each other in memory:
/// \c Length bytes at \c Offset from the address the call was given.
struct LayoutRun {
  int64_t Offset;
  uint64_t Length;
};

/// Runs are recorded up to this many per buffer; a buffer with more is
/// only marked as having gaps.
constexpr size_t MaxLayoutRuns = 4096;

/// Appends to \p Runs (cleared first) the runs of \p Count elements of
/// \p T, in the order MPI packs them, adjacent runs merged. False when the
/// type is one this decoder does not know (subarray, darray, Fortran and
/// distributed types, named types with padding inside) or has more than
/// MaxLayoutRuns runs.
bool flattenLayout(int Count, MPI_Datatype T, std::vector<LayoutRun> &Runs);

} // namespace rt
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_TYPESIZES_H
