//===- Wire.h - Bytes exchanged between processes ---------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A byte string written and read field by field, for what the processes of
/// a parallel conversion or of a shared `mpilift detect` send each other.
/// Both ends run the same build, so plain objects travel as their bytes;
/// the reader checks every length and fails instead of reading past the
/// end. Header-only: the trace runtime uses it without LLVM.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_DIST_WIRE_H
#define MPILIFT_DIST_WIRE_H

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace mpilift {
namespace dist {

/// Appends fields to a byte string.
class WireWriter {
public:
  template <typename T> void put(const T &V) {
    static_assert(std::is_trivially_copyable_v<T>);
    Bytes.append(reinterpret_cast<const char *>(&V), sizeof(V));
  }
  void putString(const std::string &S) {
    put<uint64_t>(S.size());
    Bytes.append(S);
  }
  template <typename T> void putVector(const std::vector<T> &V) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<uint64_t>(V.size());
    Bytes.append(reinterpret_cast<const char *>(V.data()),
                 V.size() * sizeof(T));
  }
  /// Makes room for \p N more bytes at once (a long message grows no
  /// copy at a time).
  void reserve(size_t N) { Bytes.reserve(Bytes.size() + N); }
  const std::string &bytes() const { return Bytes; }
  /// Hands the bytes over, leaving the writer empty.
  std::string take() { return std::move(Bytes); }

private:
  std::string Bytes;
};

/// Reads fields in the order they were written. Every getter returns false
/// (and keeps returning false) once the bytes run out.
class WireReader {
public:
  explicit WireReader(const std::string &Bytes) : Bytes(Bytes) {}

  template <typename T> bool get(T &V) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!take(sizeof(V)))
      return false;
    memcpy(&V, Bytes.data() + Pos - sizeof(V), sizeof(V));
    return true;
  }
  bool getString(std::string &S) {
    uint64_t N;
    if (!get(N) || !take(N))
      return false;
    S.assign(Bytes.data() + Pos - N, N);
    return true;
  }
  template <typename T> bool getVector(std::vector<T> &V) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint64_t N;
    if (!get(N))
      return false;
    if (N > (Bytes.size() - Pos) / sizeof(T)) // N * sizeof(T) may overflow.
      return Ok = false;
    if (!take(N * sizeof(T)))
      return false;
    V.resize(N);
    if (N)
      memcpy(V.data(), Bytes.data() + Pos - N * sizeof(T), N * sizeof(T));
    return true;
  }
  bool ok() const { return Ok; }
  bool atEnd() const { return Ok && Pos == Bytes.size(); }

private:
  bool take(uint64_t N) {
    if (!Ok || N > Bytes.size() - Pos)
      return Ok = false;
    Pos += N;
    return true;
  }

  const std::string &Bytes;
  size_t Pos = 0;
  bool Ok = true;
};

} // namespace dist
} // namespace mpilift

#endif // MPILIFT_DIST_WIRE_H
