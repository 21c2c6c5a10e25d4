//===- TypeSizes.cpp - Sizes of predefined datatypes without a call -------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "TypeSizes.h"

#include <iterator>

namespace mpilift {
namespace rt {

TypeSizeSlot PredefinedTypeSizes[TypeSizeSlots];

namespace {

void insert(MPI_Datatype T) {
  if (T == MPI_DATATYPE_NULL)
    return;
  const uint64_t Key = typeKey(T);
  if (Key == 0)
    return; // Indistinguishable from an empty slot: always asked of MPI.
  int Size = 0;
  if (PMPI_Type_size(T, &Size) != MPI_SUCCESS || Size <= 0)
    return;
  unsigned Used = 0;
  for (unsigned I = typeSlot(Key); Used < TypeSizeSlots;
       I = (I + 1) % TypeSizeSlots, ++Used) {
    TypeSizeSlot &S = PredefinedTypeSizes[I];
    if (S.Key == Key)
      return; // An alias of a type already entered (MPI_LONG_LONG_INT).
    if (S.Key == 0) {
      S = {Key, static_cast<uint64_t>(Size)};
      return;
    }
  }
}

} // namespace

void cachePredefinedTypeSizes() {
  // The C datatypes of MPI 3.1, section 3.2.2 and 4.1.4 (pair types). At
  // most half the slots are used, so every probe ends at an empty slot.
  const MPI_Datatype Predefined[] = {
      MPI_CHAR,
      MPI_SHORT,
      MPI_INT,
      MPI_LONG,
      MPI_LONG_LONG_INT,
      MPI_LONG_LONG,
      MPI_SIGNED_CHAR,
      MPI_UNSIGNED_CHAR,
      MPI_UNSIGNED_SHORT,
      MPI_UNSIGNED,
      MPI_UNSIGNED_LONG,
      MPI_UNSIGNED_LONG_LONG,
      MPI_FLOAT,
      MPI_DOUBLE,
      MPI_LONG_DOUBLE,
      MPI_WCHAR,
      MPI_C_BOOL,
      MPI_INT8_T,
      MPI_INT16_T,
      MPI_INT32_T,
      MPI_INT64_T,
      MPI_UINT8_T,
      MPI_UINT16_T,
      MPI_UINT32_T,
      MPI_UINT64_T,
      MPI_C_COMPLEX,
      MPI_C_FLOAT_COMPLEX,
      MPI_C_DOUBLE_COMPLEX,
      MPI_C_LONG_DOUBLE_COMPLEX,
      MPI_BYTE,
      MPI_PACKED,
      MPI_AINT,
      MPI_OFFSET,
      MPI_COUNT,
      MPI_FLOAT_INT,
      MPI_DOUBLE_INT,
      MPI_LONG_INT,
      MPI_2INT,
      MPI_SHORT_INT,
      MPI_LONG_DOUBLE_INT,
  };
  static_assert(std::size(Predefined) * 2 <= TypeSizeSlots,
                "the table must stay at most half full");
  for (MPI_Datatype T : Predefined)
    insert(T);
}

} // namespace rt
} // namespace mpilift
