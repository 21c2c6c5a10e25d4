//===- PackedEventsTest.cpp - Packing and unpacking event records ---------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "PackedEvents.h"

#include "gtest/gtest.h"

#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace mpilift::rawtrace;

namespace {

Event record(uint64_t Begin, uint64_t Length, uint64_t Site, uint16_t Function,
             int32_t Peer, uint8_t Flags = 0) {
  Event E;
  memset(&E, 0, sizeof(E));
  E.Begin = Begin;
  E.End = Begin + Length;
  E.CallSite = Site;
  E.Buffer = 0x7ffd12345670;
  E.Bytes = 8;
  E.Peer = Peer;
  E.Tag = 5;
  E.Function = Function;
  E.Flags = Flags;
  return E;
}

std::vector<uint8_t> pack(const std::vector<Event> &Es) {
  std::vector<uint8_t> Out(Es.size() * MaxPackedRecordBytes + 1, 0xee);
  size_t Bytes = packEvents(Es.data(), uint32_t(Es.size()), Out.data());
  EXPECT_LE(Bytes, Es.size() * MaxPackedRecordBytes);
  EXPECT_GE(Bytes, Es.size() * MinPackedRecordBytes);
  EXPECT_EQ(Out[Es.size() * MaxPackedRecordBytes], 0xee); // Nothing past.
  Out.resize(Bytes);
  return Out;
}

void expectRoundTrip(const std::vector<Event> &Es) {
  std::vector<uint8_t> P = pack(Es);
  std::vector<Event> Back(Es.size());
  ASSERT_TRUE(
      unpackEvents(P.data(), P.size(), uint32_t(Es.size()), Back.data()));
  for (size_t I = 0; I < Es.size(); ++I)
    EXPECT_EQ(memcmp(&Es[I], &Back[I], sizeof(Event)), 0) << "record " << I;
}

TEST(PackedEventsTest, ExtremeValuesComeBackExactly) {
  constexpr uint64_t Top = std::numeric_limits<uint64_t>::max();
  Event A = record(Top - 3, 7, Top, 0xffff, std::numeric_limits<int32_t>::min(),
                   0xff); // End wraps past 2^64.
  A.Buffer = Top;
  A.Bytes = 0x8000000000000000ull;
  A.Handle = Top;
  A.Tag = std::numeric_limits<int32_t>::max();
  A.Comm = CommNone;
  A.Kind = 0xff;
  Event B = record(0, 0, 0, 0, std::numeric_limits<int32_t>::max());
  B.Tag = std::numeric_limits<int32_t>::min();
  // A layout record keeps offsets where the times are: Begin goes back.
  Event L = record(5, 0, 0, 0, 3);
  L.Kind = uint8_t(EventKind::Layout);
  L.End = 2;
  expectRoundTrip({A, B, A, L, B, L, A});
}

TEST(PackedEventsTest, RandomRecordsComeBackExactly) {
  std::mt19937_64 Random(20261129);
  std::vector<Event> Es(3000);
  for (Event &E : Es) {
    uint64_t Words[8];
    for (uint64_t &W : Words)
      W = Random();
    memcpy(&E, Words, sizeof(E));
  }
  expectRoundTrip(Es);
}

// The point of packing: a loop's records take a few bytes each.
TEST(PackedEventsTest, ALoopsRecordsTakeFewBytes) {
  std::vector<Event> Es;
  uint64_t T = 1000000;
  for (int I = 0; I < 4096; ++I) {
    bool Send = I % 2 == 0;
    Es.push_back(record(T, 180 + I % 40, Send ? 0x401234 : 0x401290,
                        Send ? 3 : 7, 1, Send ? 0 : FlagPeerIsStatus));
    T += 1500 + I % 300;
  }
  std::vector<uint8_t> P = pack(Es);
  EXPECT_LT(P.size(), Es.size() * 12)
      << "bytes per record: " << double(P.size()) / Es.size();
  expectRoundTrip(Es);
}

TEST(PackedEventsTest, BytesThatAreNotTheRecordsAreRefused) {
  std::vector<Event> Es = {record(100, 50, 0x1000, 3, 1),
                           record(300, 60, 0x1040, 7, 2)};
  std::vector<uint8_t> P = pack(Es);
  std::vector<Event> Back(3);
  // One byte short, one byte over, one record more than there is.
  EXPECT_FALSE(unpackEvents(P.data(), P.size() - 1, 2, Back.data()));
  std::vector<uint8_t> Longer = P;
  Longer.push_back(0);
  EXPECT_FALSE(unpackEvents(Longer.data(), Longer.size(), 2, Back.data()));
  EXPECT_FALSE(unpackEvents(P.data(), P.size(), 3, Back.data()));
  // A mask naming a field there is not.
  std::vector<uint8_t> Mask = P;
  Mask[1] |= 0x80;
  EXPECT_FALSE(unpackEvents(Mask.data(), Mask.size(), 2, Back.data()));
  // A number longer than 64 bits.
  std::vector<uint8_t> Long = {0, 0};
  Long.insert(Long.end(), 10, 0xff);
  Long.push_back(0);
  Long.push_back(0);
  EXPECT_FALSE(unpackEvents(Long.data(), Long.size(), 1, Back.data()));
  // A change that takes a one-byte field out of its range: Kind + 300.
  std::vector<uint8_t> Kind = {0x00, 0x01, 0, 0, 0xd8, 0x04};
  EXPECT_FALSE(unpackEvents(Kind.data(), Kind.size(), 1, Back.data()));
  Kind = {0x00, 0x01, 0, 0, 0x02}; // Kind + 1 is fine.
  ASSERT_TRUE(unpackEvents(Kind.data(), Kind.size(), 1, Back.data()));
  EXPECT_EQ(Back[0].Kind, 1);
}

} // namespace
