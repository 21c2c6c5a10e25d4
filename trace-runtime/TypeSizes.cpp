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
  TypeLayout L = askTypeLayout(T);
  bool Solid = L.TrueLb == 0 && L.Size == L.Extent && L.Size == L.TrueExtent;
  unsigned Used = 0;
  for (unsigned I = typeSlot(Key); Used < TypeSizeSlots;
       I = (I + 1) % TypeSizeSlots, ++Used) {
    TypeSizeSlot &S = PredefinedTypeSizes[I];
    if (S.Key == Key)
      return; // An alias of a type already entered (MPI_LONG_LONG_INT).
    if (S.Key == 0) {
      S = {Key, static_cast<uint64_t>(Size), Solid};
      return;
    }
  }
}

} // namespace

namespace {

/// Decodes a datatype's type map into runs of bytes with the envelope and
/// contents MPI keeps for every derived type.
class Flattener {
public:
  explicit Flattener(std::vector<LayoutRun> &Runs) : Runs(Runs) {}

  /// \p Count elements of \p T, \p Stride bytes apart, from \p Base.
  void repeat(MPI_Datatype T, int64_t Count, int64_t Base, int64_t Stride,
              unsigned Depth) {
    TypeLayout L = typeLayout(T);
    if (L.Size == L.TrueExtent) { // One run per element: no need to decode.
      if (Stride == static_cast<int64_t>(L.Size)) {
        add(Base + L.TrueLb, static_cast<uint64_t>(Count) * L.Size);
        return;
      }
      for (int64_t K = 0; K < Count && !Failed; ++K)
        add(Base + K * Stride + L.TrueLb, L.Size);
      return;
    }
    for (int64_t K = 0; K < Count && !Failed; ++K)
      element(T, Base + K * Stride, Depth);
  }

  bool failed() const { return Failed; }

  static int64_t extentOf(MPI_Datatype T) {
    MPI_Aint Lb = 0, Extent = 0;
    PMPI_Type_get_extent(T, &Lb, &Extent);
    return static_cast<int64_t>(Extent);
  }

private:
  void add(int64_t Offset, uint64_t Length) {
    if (Length == 0 || Failed)
      return;
    if (!Runs.empty() &&
        Runs.back().Offset + static_cast<int64_t>(Runs.back().Length) ==
            Offset) {
      Runs.back().Length += Length;
      return;
    }
    if (Runs.size() == MaxLayoutRuns) {
      Failed = true;
      return;
    }
    Runs.push_back({Offset, Length});
  }

  /// One element of \p T at \p Base.
  void element(MPI_Datatype T, int64_t Base, unsigned Depth) {
    int NI = 0, NA = 0, ND = 0, Combiner = MPI_COMBINER_NAMED;
    if (Depth > 16 ||
        PMPI_Type_get_envelope(T, &NI, &NA, &ND, &Combiner) != MPI_SUCCESS ||
        Combiner == MPI_COMBINER_NAMED) {
      Failed = true; // A named type with padding inside (MPI_SHORT_INT).
      return;
    }
    std::vector<int> I(NI);
    std::vector<MPI_Aint> A(NA);
    std::vector<MPI_Datatype> D(ND);
    if (PMPI_Type_get_contents(T, NI, NA, ND, I.data(), A.data(), D.data()) !=
        MPI_SUCCESS) {
      Failed = true;
      return;
    }
    contents(Combiner, I, A, D, Base, Depth + 1);
    for (MPI_Datatype &Sub : D) { // MPI hands out new handles to derived ones.
      int SubNI, SubNA, SubND, SubCombiner;
      PMPI_Type_get_envelope(Sub, &SubNI, &SubNA, &SubND, &SubCombiner);
      if (SubCombiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(&Sub);
    }
  }

  void contents(int Combiner, const std::vector<int> &I,
                const std::vector<MPI_Aint> &A,
                const std::vector<MPI_Datatype> &D, int64_t Base,
                unsigned Depth) {
    switch (Combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: // Lower bound and extent move no data.
      repeat(D[0], 1, Base, 0, Depth);
      return;
    case MPI_COMBINER_CONTIGUOUS:
      repeat(D[0], I[0], Base, extentOf(D[0]), Depth);
      return;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
      int64_t Ext = extentOf(D[0]);
      int64_t Stride = Combiner == MPI_COMBINER_VECTOR ? I[2] * Ext : A[0];
      for (int K = 0; K < I[0] && !Failed; ++K)
        repeat(D[0], I[1], Base + K * Stride, Ext, Depth);
      return;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {
      int64_t Ext = extentOf(D[0]);
      for (int K = 0; K < I[0] && !Failed; ++K) {
        int64_t At =
            Combiner == MPI_COMBINER_INDEXED ? I[1 + I[0] + K] * Ext : A[K];
        repeat(D[0], I[1 + K], Base + At, Ext, Depth);
      }
      return;
    }
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
      int64_t Ext = extentOf(D[0]);
      for (int K = 0; K < I[0] && !Failed; ++K) {
        int64_t At =
            Combiner == MPI_COMBINER_INDEXED_BLOCK ? I[2 + K] * Ext : A[K];
        repeat(D[0], I[1], Base + At, Ext, Depth);
      }
      return;
    }
    case MPI_COMBINER_STRUCT:
      for (int K = 0; K < I[0] && !Failed; ++K)
        repeat(D[K], I[1 + K], Base + A[K], extentOf(D[K]), Depth);
      return;
    default: // Subarray, darray, Fortran types: not decoded.
      Failed = true;
      return;
    }
  }

  std::vector<LayoutRun> &Runs;
  bool Failed = false;
};

} // namespace

bool flattenLayout(int Count, MPI_Datatype T, std::vector<LayoutRun> &Runs) {
  Runs.clear();
  if (Count <= 0 || T == MPI_DATATYPE_NULL)
    return true;
  Flattener F(Runs);
  F.repeat(T, Count, 0, Flattener::extentOf(T), 0);
  return !F.failed();
}

TypeLayout askTypeLayout(MPI_Datatype T) {
  TypeLayout L;
  int Size = 0;
  MPI_Aint Lb = 0, Extent = 0, TrueLb = 0, TrueExtent = 0;
  if (PMPI_Type_size(T, &Size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(T, &Lb, &Extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(T, &TrueLb, &TrueExtent) != MPI_SUCCESS ||
      Size <= 0)
    return L;
  L.Size = static_cast<uint64_t>(Size);
  L.TrueLb = static_cast<int64_t>(TrueLb);
  L.Extent = Extent > 0 ? static_cast<uint64_t>(Extent) : 0;
  L.TrueExtent = TrueExtent > 0 ? static_cast<uint64_t>(TrueExtent) : 0;
  return L;
}

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
