//===- PackedEvents.cpp - Event records packed for the spill file ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "PackedEvents.h"

namespace mpilift {
namespace rawtrace {

namespace {

/// The fields a mask bit stands for, in the order their changes follow.
enum FieldBit : uint16_t {
  CallSiteBit = 1u << 0,
  BufferBit = 1u << 1,
  BytesBit = 1u << 2,
  HandleBit = 1u << 3,
  PeerBit = 1u << 4,
  TagBit = 1u << 5,
  CommBit = 1u << 6,
  FunctionBit = 1u << 7,
  KindBit = 1u << 8,
  FlagsBit = 1u << 9,
  AllBits = (1u << 10) - 1,
};

uint64_t zigzag(int64_t V) {
  return (static_cast<uint64_t>(V) << 1) ^ static_cast<uint64_t>(V >> 63);
}

int64_t unzigzag(uint64_t V) {
  return static_cast<int64_t>((V >> 1) ^ (~(V & 1) + 1));
}

uint8_t *putNumber(uint8_t *Out, uint64_t V) {
  while (V >= 0x80) {
    *Out++ = static_cast<uint8_t>(V) | 0x80;
    V >>= 7;
  }
  *Out++ = static_cast<uint8_t>(V);
  return Out;
}

/// The change from \p Before to \p Now of a field of up to 64 bits, as the
/// unsigned difference modulo 2^64 read as signed.
int64_t change(uint64_t Now, uint64_t Before) {
  return static_cast<int64_t>(Now - Before);
}

/// Reads packed numbers, refusing to read past the end.
class Reader {
public:
  Reader(const uint8_t *In, size_t Bytes) : P(In), End(In + Bytes) {}

  bool number(uint64_t &V) {
    V = 0;
    for (unsigned Shift = 0; Shift < 64; Shift += 7) {
      if (P == End)
        return false;
      uint8_t B = *P++;
      // The tenth byte holds the top bit alone.
      if (Shift == 63 && B > 1)
        return false;
      V |= static_cast<uint64_t>(B & 0x7f) << Shift;
      if (!(B & 0x80))
        return true;
    }
    return false;
  }

  bool mask(uint16_t &M) {
    if (End - P < 2)
      return false;
    M = static_cast<uint16_t>(P[0] | P[1] << 8);
    P += 2;
    return true;
  }

  /// Adds the next change to \p Field when \p Set.
  bool field64(bool Set, uint64_t &Field) {
    uint64_t V;
    if (!Set)
      return true;
    if (!number(V))
      return false;
    Field += static_cast<uint64_t>(unzigzag(V));
    return true;
  }

  /// Adds the next change to a field of type T when \p Set; false if the
  /// sum does not fit T.
  template <typename T> bool fieldNarrow(bool Set, T &Field) {
    uint64_t V;
    if (!Set)
      return true;
    if (!number(V))
      return false;
    int64_t Sum = static_cast<int64_t>(Field) + unzigzag(V);
    if (Sum != static_cast<int64_t>(static_cast<T>(Sum)))
      return false;
    Field = static_cast<T>(Sum);
    return true;
  }

  bool atEnd() const { return P == End; }

private:
  const uint8_t *P;
  const uint8_t *End;
};

} // namespace

size_t packEvents(const Event *Records, uint32_t N, uint8_t *Out) {
  uint8_t *O = Out;
  Event Before = {};
  for (uint32_t I = 0; I < N; ++I) {
    const Event &E = Records[I];
    uint8_t *Mask = O;
    O += 2;
    O = putNumber(O, zigzag(change(E.Begin, Before.Begin)));
    O = putNumber(O, zigzag(change(E.End, E.Begin)));
    uint16_t Bits = 0;
    auto Put = [&](uint16_t Bit, int64_t Change) {
      if (Change == 0)
        return;
      Bits |= Bit;
      O = putNumber(O, zigzag(Change));
    };
    Put(CallSiteBit, change(E.CallSite, Before.CallSite));
    Put(BufferBit, change(E.Buffer, Before.Buffer));
    Put(BytesBit, change(E.Bytes, Before.Bytes));
    Put(HandleBit, change(E.Handle, Before.Handle));
    Put(PeerBit, int64_t(E.Peer) - int64_t(Before.Peer));
    Put(TagBit, int64_t(E.Tag) - int64_t(Before.Tag));
    Put(CommBit, int64_t(E.Comm) - int64_t(Before.Comm));
    Put(FunctionBit, int64_t(E.Function) - int64_t(Before.Function));
    Put(KindBit, int64_t(E.Kind) - int64_t(Before.Kind));
    Put(FlagsBit, int64_t(E.Flags) - int64_t(Before.Flags));
    Mask[0] = static_cast<uint8_t>(Bits);
    Mask[1] = static_cast<uint8_t>(Bits >> 8);
    Before = E;
  }
  return static_cast<size_t>(O - Out);
}

bool unpackEvents(const uint8_t *In, size_t Bytes, uint32_t N, Event *Out) {
  Reader R(In, Bytes);
  Event E = {};
  for (uint32_t I = 0; I < N; ++I) {
    uint16_t Bits;
    uint64_t Begin, Length;
    if (!R.mask(Bits) || (Bits & ~AllBits) || !R.number(Begin) ||
        !R.number(Length))
      return false;
    E.Begin += static_cast<uint64_t>(unzigzag(Begin));
    E.End = E.Begin + static_cast<uint64_t>(unzigzag(Length));
    if (!R.field64(Bits & CallSiteBit, E.CallSite) ||
        !R.field64(Bits & BufferBit, E.Buffer) ||
        !R.field64(Bits & BytesBit, E.Bytes) ||
        !R.field64(Bits & HandleBit, E.Handle) ||
        !R.fieldNarrow(Bits & PeerBit, E.Peer) ||
        !R.fieldNarrow(Bits & TagBit, E.Tag) ||
        !R.fieldNarrow(Bits & CommBit, E.Comm) ||
        !R.fieldNarrow(Bits & FunctionBit, E.Function) ||
        !R.fieldNarrow(Bits & KindBit, E.Kind) ||
        !R.fieldNarrow(Bits & FlagsBit, E.Flags))
      return false;
    Out[I] = E;
  }
  return R.atEnd();
}

} // namespace rawtrace
} // namespace mpilift
