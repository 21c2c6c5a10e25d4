//===- EvalValue.h - Values and memory of the rank-space evaluator -*- C++ -*-//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the rank-space evaluator computes with: integers with C's widths
/// and signedness, pointers as (object, byte offset), opaque handles (a
/// communicator parameter), MPI datatypes with their size and extent,
/// requests, and values it could not follow, which carry the reason and
/// the place so that a refusal can say what stopped it. Memory is a set of
/// objects (variables, heap blocks, what a pointer parameter points to),
/// each a map from byte offset to the value stored there.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_ANALYSIS_EVALVALUE_H
#define MPILIFT_LIB_ANALYSIS_EVALVALUE_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace mpilift {
namespace analysis {
namespace eval {

using ObjectId = uint32_t;
constexpr ObjectId NullObject = 0;

/// Why a value could not be followed, and where.
struct Reason {
  std::string Text; ///< Lower case, no final period.
  clang::SourceLocation Loc;
  /// A message to or from a rank that does not exist at this size.
  bool MissingPeer = false;
  /// The statement of the region's function that was running (a stop in
  /// a helper is during the statement that called it).
  const clang::Stmt *During = nullptr;
  /// The variable, parameter or field read at the region's entry whose
  /// value could not be followed, when that is what stopped the run.
  const clang::ValueDecl *Entry = nullptr;
  /// The MPI_Iprobe whose answer stopped the run (Region::ProbesArrive).
  const clang::CallExpr *Probe = nullptr;
  /// The run reached a call that ends the program (exit, abort,
  /// MPI_Abort, a function declared not to return).
  bool ProgramEnds = false;
  /// ProgramEnds at a call of this function, which the region only takes
  /// to end the program (Region::UnknownCallsEnd).
  const clang::FunctionDecl *AssumedEnd = nullptr;
  /// The region is one step of a loop around it whose iterations differ
  /// (a root's send to each peer): a region that holds the loop says more.
  bool StepOfLoop = false;
};

/// One value of the evaluation.
struct Value {
  enum class Kind : uint8_t {
    Int,      ///< I, normalized to Bits and Signed.
    Pointer,  ///< Obj (NullObject: a null pointer) at byte offset I.
    Opaque,   ///< Handle number Obj: equal only to itself.
    Datatype, ///< An MPI datatype of Size bytes spanning Extent bytes.
    Request,  ///< Request number Obj of the run (0: MPI_REQUEST_NULL).
    Unknown,  ///< Not followed; Why indexes the evaluator's reasons.
  };
  Kind K = Kind::Unknown;
  uint8_t Bits = 64;
  bool Signed = true;
  int64_t I = 0;
  ObjectId Obj = NullObject;
  uint64_t Size = 0, Extent = 0;
  /// The inputs (settings) the value is computed from, one bit each.
  uint32_t Taint = 0;
  uint32_t Why = 0;
  /// Where a value was loaded from, unchanged (FromObj NullObject: it was
  /// computed): storing it elsewhere is a copy.
  ObjectId FromObj = NullObject;
  int64_t FromOff = 0;

  static Value integer(int64_t V, unsigned Bits = 64, bool Signed = true) {
    Value R;
    R.K = Kind::Int;
    R.Bits = static_cast<uint8_t>(Bits);
    R.Signed = Signed;
    R.I = V;
    R.normalize();
    return R;
  }
  static Value pointer(ObjectId Object, int64_t Offset) {
    Value R;
    R.K = Kind::Pointer;
    R.Obj = Object;
    R.I = Offset;
    return R;
  }
  static Value opaque(uint32_t Id) {
    Value R;
    R.K = Kind::Opaque;
    R.Obj = Id;
    return R;
  }
  static Value datatype(uint64_t Size, uint64_t Extent) {
    Value R;
    R.K = Kind::Datatype;
    R.Size = Size;
    R.Extent = Extent;
    return R;
  }
  static Value request(uint32_t Id) {
    Value R;
    R.K = Kind::Request;
    R.Obj = Id;
    return R;
  }
  static Value unknown(uint32_t Why) {
    Value R;
    R.Why = Why;
    return R;
  }

  bool isInt() const { return K == Kind::Int; }
  bool isPointer() const { return K == Kind::Pointer; }
  bool isKnown() const { return K != Kind::Unknown; }

  /// Wraps I to Bits, as a C conversion to that type does.
  void normalize() {
    if (Bits >= 64)
      return;
    uint64_t Mask = (uint64_t(1) << Bits) - 1;
    uint64_t U = static_cast<uint64_t>(I) & Mask;
    if (Signed && (U >> (Bits - 1)))
      U |= ~Mask;
    I = static_cast<int64_t>(U);
  }
  /// The same value (for equality tests of handles, pointers, integers).
  bool same(const Value &O) const {
    if (K != O.K)
      return false;
    switch (K) {
    case Kind::Int:
      return I == O.I;
    case Kind::Pointer:
      return Obj == O.Obj && I == O.I;
    case Kind::Opaque:
    case Kind::Request:
      return Obj == O.Obj;
    case Kind::Datatype:
      return Size == O.Size && Extent == O.Extent;
    case Kind::Unknown:
      return false;
    }
    return false;
  }
};

/// One object of memory.
struct Object {
  std::string Name; ///< For messages: "'buf'", "what 'p' points to".
  const clang::ValueDecl *Decl = nullptr; ///< The variable, if one.
  /// Its content is not known (written by code the evaluator did not
  /// follow); loads give Unknown with this reason.
  uint32_t ContentWhy = 0;
  /// Created by the region itself (a local or a heap block that dies
  /// with it): transfers into it are scratch, not results.
  bool Temporary = false;
  /// A block malloc, calloc or aligned_alloc gave.
  bool Allocated = false;
  /// What a parameter of the region's function points or refers to: its
  /// fields hold, until the run writes them, what they held at the
  /// region's entry.
  bool AtEntry = false;
  int64_t Bytes = -1; ///< Its size when known.
  struct Cell {
    Value V;
    uint32_t Bytes;
  };
  /// Cells by byte offset: the part of std::map's interface the evaluator
  /// uses, over a sorted array (most objects are scalars with one cell, and
  /// a run builds and drops thousands of them).
  class CellMap {
  public:
    using Entry = std::pair<int64_t, Cell>;
    using iterator = Entry *;

    iterator begin() { return Entries.begin(); }
    iterator end() { return Entries.end(); }
    const Entry *begin() const { return Entries.begin(); }
    const Entry *end() const { return Entries.end(); }
    bool empty() const { return Entries.empty(); }
    size_t size() const { return Entries.size(); }
    void clear() { Entries.clear(); }

    iterator lower_bound(int64_t Off) {
      return std::lower_bound(
          Entries.begin(), Entries.end(), Off,
          [](const Entry &E, int64_t Key) { return E.first < Key; });
    }
    iterator find(int64_t Off) {
      iterator It = lower_bound(Off);
      return It != end() && It->first == Off ? It : end();
    }
    const Entry *find(int64_t Off) const {
      const Entry *It = std::lower_bound(
          Entries.begin(), Entries.end(), Off,
          [](const Entry &E, int64_t Key) { return E.first < Key; });
      return It != end() && It->first == Off ? It : end();
    }
    size_t count(int64_t Off) { return find(Off) != end() ? 1 : 0; }
    /// Removes the cells that start in [\p Begin, \p End).
    void eraseStarting(int64_t Begin, int64_t End) {
      iterator First = lower_bound(Begin), Last = First;
      while (Last != end() && Last->first < End)
        ++Last;
      Entries.erase(First, Last);
    }
    Cell &operator[](int64_t Off) {
      iterator It = lower_bound(Off);
      if (It == end() || It->first != Off)
        It = Entries.insert(It, Entry{Off, Cell{Value(), 0}});
      return It->second;
    }

  private:
    llvm::SmallVector<Entry, 1> Entries;
  };
  /// By byte offset; cells do not overlap.
  CellMap Cells;
};

} // namespace eval
} // namespace analysis
} // namespace mpilift

#endif // MPILIFT_LIB_ANALYSIS_EVALVALUE_H
