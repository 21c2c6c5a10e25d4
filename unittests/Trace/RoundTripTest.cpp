//===- RoundTripTest.cpp - Spill files -> OTF2 -> per-rank events ---------===//
//
// Writes spill files as the trace runtime would, converts them, and reads
// the archive back: no MPI involved, so every field can be checked exactly.
//
//===----------------------------------------------------------------------===//

#include "SpillWriter.h"

#include "mpilift/MPI/Vocabulary.h"
#include "mpilift/Trace/Trace.h"
#include "mpilift/TraceRuntime/Convert.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace mpilift;
using namespace mpilift::rawtrace;
using mpilift::testutil::call;
using mpilift::testutil::part;
using mpilift::testutil::SpillWriter;

namespace {

class RoundTripTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Tmp;
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("mpilift-roundtrip", Tmp));
    Dir = std::string(Tmp);
    ASSERT_FALSE(llvm::sys::fs::create_directory(Dir + "/" + SpillDirName));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// Rank 0: a send, a nonblocking send on a reordered communicator, a
  /// wildcard receive, and a wait for both. Rank 1: the matching receive.
  void writeTwoRanks(bool TornRank1, bool Packed = false) {
    {
      SpillWriter R0(Dir, 0, 2);
      R0.Packed = Packed;
      R0.comm(1, {1, 0}); // Comm rank 0 is world rank 1.
      R0.events(
          {call(mpi::FunctionId::Send, 2000, 1, 5, 0, 8),
           call(mpi::FunctionId::Isend, 3000, 0, 6, 1, 4, 0xaaa),
           call(mpi::FunctionId::Irecv, 4000, PeerAnySource, 9, 0, 16, 0xbbb),
           call(mpi::FunctionId::Waitall, 5000, PeerNone, TagNone, CommNone, 0),
           part(EventKind::Completion, 0xaaa),
           part(EventKind::Completion, 0xbbb, 1, 9, 16)});
      R0.footer(EndReason::Finalize);
    }
    SpillWriter R1(Dir, 1, 2);
    R1.Packed = Packed;
    R1.comm(1, {1, 0});
    R1.events({call(mpi::FunctionId::Recv, 2500, 0, 5, 0, 8)});
    if (TornRank1) {
      R1.garbage(10); // A chunk cut short by a crash.
      return;
    }
    R1.footer(EndReason::Finalize);
  }

  /// Converts what writeTwoRanks wrote and checks every field read back.
  void checkTwoRanks();

  std::string Dir;
};

TEST_F(RoundTripTest, EventsSurviveConversion) {
  writeTwoRanks(/*TornRank1=*/false);
  checkTwoRanks();
}

TEST_F(RoundTripTest, PackedEventsSurviveConversion) {
  writeTwoRanks(/*TornRank1=*/false, /*Packed=*/true);
  checkTwoRanks();
}

void RoundTripTest::checkTwoRanks() {
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  ASSERT_TRUE(C.Ok) << C.Error;
  EXPECT_TRUE(C.Complete);
  EXPECT_EQ(C.Ranks, 2);
  EXPECT_FALSE(tracert::hasSpillFiles(Dir));

  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_TRUE(T->Complete);
  EXPECT_TRUE(T->FromMpilift);
  ASSERT_EQ(T->WorldSize, 2);
  ASSERT_EQ(T->Comms.size(), 2u);
  EXPECT_EQ(T->Comms[1].Members, (std::vector<int32_t>{1, 0}));

  const auto &E0 = T->Ranks[0].Events;
  ASSERT_EQ(E0.size(), 4u);
  EXPECT_EQ(E0[0].Function, mpi::FunctionId::Send);
  EXPECT_EQ(E0[0].Peer, 1);
  EXPECT_EQ(E0[0].Tag, 5);
  EXPECT_EQ(E0[0].Bytes, 8u);
  EXPECT_EQ(E0[0].Buffer, 0xb000u);
  EXPECT_EQ(E0[0].Comm, 0u);
  EXPECT_EQ(E0[0].End - E0[0].Begin, 50u);
  ASSERT_NE(E0[0].Site, trace::NoSite);
  EXPECT_EQ(T->Modules[T->Sites[E0[0].Site].Module], "/bin/app");
  EXPECT_EQ(T->Sites[E0[0].Site].Offset, 0x1234u);

  // Comm rank 0 of the reordered communicator is world rank 1.
  EXPECT_EQ(E0[1].Function, mpi::FunctionId::Isend);
  EXPECT_EQ(E0[1].Peer, 1);
  EXPECT_EQ(E0[1].Comm, 1u);
  EXPECT_NE(E0[1].Request, 0u);

  EXPECT_EQ(E0[2].Function, mpi::FunctionId::Irecv);
  EXPECT_EQ(E0[2].Peer, trace::AnySource);
  EXPECT_EQ(E0[2].Tag, 9);
  EXPECT_EQ(E0[2].Bytes, 16u);

  EXPECT_EQ(E0[3].Function, mpi::FunctionId::Waitall);
  auto Done = T->requestsOf(0, E0[3]);
  ASSERT_EQ(Done.size(), 2u);
  EXPECT_EQ(Done[0].Request, E0[1].Request);
  EXPECT_EQ(Done[0].PostedBy, 1u);
  EXPECT_EQ(Done[1].Request, E0[2].Request);
  EXPECT_EQ(Done[1].PostedBy, 2u);
  EXPECT_EQ(Done[1].Peer, 1); // The wildcard matched world rank 1.
  EXPECT_EQ(Done[1].Tag, 9);
  EXPECT_EQ(Done[1].Bytes, 16u);

  const auto &E1 = T->Ranks[1].Events;
  ASSERT_EQ(E1.size(), 1u);
  EXPECT_EQ(E1[0].Function, mpi::FunctionId::Recv);
  EXPECT_EQ(E1[0].Peer, 0);
  // Times are relative to the earliest event of the run (tsc 2000).
  EXPECT_EQ(E0[0].Begin, 0u);
  EXPECT_EQ(E1[0].Begin, 500u);
}

// A reader's callback gets each rank once its events are read, in rank
// order, with the definitions complete; what it releases stays released.
TEST_F(RoundTripTest, RanksAreHandedOverAsTheyAreRead) {
  writeTwoRanks(/*TornRank1=*/false);
  ASSERT_TRUE(tracert::convertSpillFiles(Dir).Ok);
  std::vector<std::pair<int, size_t>> Seen; // Rank, events then.
  llvm::Expected<trace::Trace> T =
      trace::readTrace(Dir, nullptr, [&](trace::Trace &T, int Rank) {
        EXPECT_EQ(T.Comms.size(), 2u);
        EXPECT_FALSE(T.Sites.empty());
        Seen.emplace_back(Rank, T.Ranks[Rank].Events.size());
        if (Rank == 0)
          std::vector<trace::Event>().swap(T.Ranks[Rank].Events);
      });
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(Seen, (std::vector<std::pair<int, size_t>>{{0, 4}, {1, 1}}));
  EXPECT_TRUE(T->Ranks[0].Events.empty());
  EXPECT_EQ(T->Ranks[1].Events.size(), 1u);
}

// A call's parts written in later chunks than the call (the buffer filled
// between them), with another thread's chunk in between: the converter
// reads a chunk at a time and must keep the call and its parts together.
TEST_F(RoundTripTest, CallPartsSplitAcrossChunksStayTogether) {
  {
    SpillWriter R0(Dir, 0, 2);
    R0.events(
        {call(mpi::FunctionId::Isend, 3000, 1, 6, 0, 4, 0xaaa),
         call(mpi::FunctionId::Irecv, 4000, 1, 9, 0, 16, 0xbbb),
         call(mpi::FunctionId::Waitall, 5000, PeerNone, TagNone, CommNone, 0)});
    R0.events({call(mpi::FunctionId::Barrier, 4500, PeerNone, TagNone, 0, 0)},
              /*Thread=*/1);
    R0.events({part(EventKind::Completion, 0xaaa)});
    R0.events({part(EventKind::Completion, 0xbbb, 1, 9, 16),
               call(mpi::FunctionId::Send, 6000, 1, 7, 0, 8)});
    R0.footer(EndReason::Finalize);
  }
  {
    SpillWriter R1(Dir, 1, 2);
    R1.events({call(mpi::FunctionId::Recv, 3500, 0, 6, 0, 4),
               call(mpi::FunctionId::Send, 3600, 0, 9, 0, 16),
               call(mpi::FunctionId::Barrier, 4600, PeerNone, TagNone, 0, 0),
               call(mpi::FunctionId::Recv, 6500, 0, 7, 0, 8)});
    R1.footer(EndReason::Finalize);
  }
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  ASSERT_TRUE(C.Ok) << C.Error;
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  const auto &E0 = T->Ranks[0].Events;
  ASSERT_EQ(E0.size(), 5u);
  std::vector<mpi::FunctionId> Order;
  for (const auto &E : E0)
    Order.push_back(E.Function);
  EXPECT_EQ(Order, (std::vector<mpi::FunctionId>{
                       mpi::FunctionId::Isend, mpi::FunctionId::Irecv,
                       mpi::FunctionId::Barrier, mpi::FunctionId::Waitall,
                       mpi::FunctionId::Send}));
  auto Done = T->requestsOf(0, E0[3]);
  ASSERT_EQ(Done.size(), 2u);
  EXPECT_EQ(Done[0].Request, E0[0].Request);
  EXPECT_EQ(Done[1].Request, E0[1].Request);
  EXPECT_EQ(Done[1].Bytes, 16u);
}

TEST_F(RoundTripTest, TornChunkKeepsEarlierEventsAndMarksIncomplete) {
  writeTwoRanks(/*TornRank1=*/true);
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  ASSERT_TRUE(C.Ok) << C.Error;
  EXPECT_FALSE(C.Complete);
  bool SawTorn = false;
  for (const std::string &W : C.Warnings)
    SawTorn |= W.find("torn chunk") != std::string::npos;
  EXPECT_TRUE(SawTorn);
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_FALSE(T->Complete);
  ASSERT_EQ(T->Ranks[1].Events.size(), 1u);
  EXPECT_NE(T->RankStatus.find("1: no end record"), std::string::npos)
      << T->RankStatus;
}

TEST_F(RoundTripTest, MissingRankIsReported) {
  {
    SpillWriter R0(Dir, 0, 3);
    R0.events({call(mpi::FunctionId::Send, 2000, 2, 5, 0, 8)});
    R0.footer(EndReason::Signal, 11);
  }
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  ASSERT_TRUE(C.Ok) << C.Error;
  EXPECT_FALSE(C.Complete);
  ASSERT_FALSE(C.Warnings.empty());
  EXPECT_NE(C.Warnings.back().find("rank 2"), std::string::npos);
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->WorldSize, 3);
  EXPECT_NE(T->RankStatus.find("0: signal 11"), std::string::npos);
  EXPECT_NE(T->RankStatus.find("1: missing"), std::string::npos);
  EXPECT_EQ(T->Ranks[0].Events[0].Peer, 2);
}

TEST_F(RoundTripTest, ReaderRecoversSpillFilesItself) {
  writeTwoRanks(/*TornRank1=*/false);
  bool Recovered = false;
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir, &Recovered);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_TRUE(Recovered);
  EXPECT_EQ(T->Ranks[0].Events.size(), 4u);
}

TEST_F(RoundTripTest, NotATraceIsAnError) {
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_FALSE(bool(T));
  EXPECT_NE(llvm::toString(T.takeError()).find("not a trace directory"),
            std::string::npos);
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  EXPECT_FALSE(C.Ok);
  EXPECT_NE(C.Error.find("no spill files"), std::string::npos);
}

TEST_F(RoundTripTest, GarbageSpillFileIsSkippedNotFatal) {
  {
    SpillWriter R0(Dir, 0, 1);
    R0.events({call(mpi::FunctionId::Barrier, 2000, PeerNone, TagNone, 0, 0),
               part(EventKind::RecvPart, 0)});
    R0.footer(EndReason::Finalize);
  }
  FILE *F =
      fopen((Dir + "/" + SpillDirName + "/rank-000009.raw").c_str(), "wb");
  fputs("not a spill file at all", F);
  fclose(F);
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  ASSERT_TRUE(C.Ok) << C.Error;
  ASSERT_FALSE(C.Warnings.empty());
  EXPECT_NE(C.Warnings[0].find("not an mpilift spill file"), std::string::npos);
}

// Files written before records were packed still convert.
TEST_F(RoundTripTest, FilesOfTheFirstFormatVersionAreRead) {
  {
    SpillWriter R0(Dir, 0, 1, /*Version=*/1);
    R0.events({call(mpi::FunctionId::Barrier, 2000, PeerNone, TagNone, 0, 0),
               part(EventKind::RecvPart, 0)});
    R0.footer(EndReason::Finalize);
  }
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  ASSERT_TRUE(C.Ok) << C.Error;
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  ASSERT_EQ(T->Ranks[0].Events.size(), 1u);
  EXPECT_EQ(T->Ranks[0].Events[0].Function, mpi::FunctionId::Barrier);
}

// A whole chunk whose bytes are not the records its header counts is no
// torn tail: the conversion says where it lies instead of guessing.
TEST_F(RoundTripTest, PackedChunkThatDoesNotUnpackIsNamed) {
  {
    SpillWriter R0(Dir, 0, 1);
    std::vector<Event> One = {
        call(mpi::FunctionId::Barrier, 2000, PeerNone, TagNone, 0, 0)};
    std::vector<uint8_t> P(MaxPackedRecordBytes * 2, 0);
    size_t Bytes = packEvents(One.data(), 1, P.data());
    // Two records claimed, one and four zero bytes given: the second
    // record's mask and numbers are zeros, which would unpack, so cut the
    // last byte to leave it incomplete.
    R0.chunk(ChunkType::PackedEvents, 0, P.data(),
             uint32_t(Bytes + MinPackedRecordBytes - 1), 2);
    R0.events({call(mpi::FunctionId::Barrier, 9000, PeerNone, TagNone, 0, 0)});
    R0.footer(EndReason::Finalize);
  }
  tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
  std::string All = C.Error;
  for (const std::string &W : C.Warnings)
    All += "\n" + W;
  EXPECT_NE(All.find("do not unpack"), std::string::npos) << All;
}

} // namespace
