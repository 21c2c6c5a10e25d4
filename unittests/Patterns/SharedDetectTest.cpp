//===- SharedDetectTest.cpp - detect with the ranks shared among processes ===//
//
// Part of mpilift. A trace written as spill files and converted (no MPI),
// whose ranks use their call sites in different orders and from two
// modules, read in shares as the processes of `mpirun -np K mpilift
// detect` read it: the call sites must come out numbered as one reader of
// the whole trace numbers them, and the patterns must be the same. The
// processes run one after the other here, through a process group that
// keeps their messages.
//
//===----------------------------------------------------------------------===//

#include "Patterns/SamePatterns.h"
#include "Trace/SpillWriter.h"

#include "mpilift/Patterns/SharedDetect.h"
#include "mpilift/TraceRuntime/Convert.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <map>

using namespace mpilift;
using namespace mpilift::rawtrace;
using mpilift::testutil::call;
using mpilift::testutil::SpillWriter;

namespace {

/// Processes run one after the other: the others first, then process 0,
/// which finds their messages kept. The others see process 0's broadcast
/// as \p Prepared (for a complete trace, preparing it changes nothing).
class SequentialGroup : public dist::ProcessGroup {
public:
  struct Board {
    std::map<int, std::string> Mail;
    int Broadcast = 1;
  };

  SequentialGroup(Board &B, int Rank, int Size)
      : B(B), Rank(Rank), Size(Size) {}
  int rank() const override { return Rank; }
  int size() const override { return Size; }
  llvm::Expected<int> broadcast(int Value) override {
    if (Rank == 0)
      B.Broadcast = Value;
    return B.Broadcast;
  }
  llvm::Error sendToFirst(std::string Data) override {
    B.Mail[Rank] = std::move(Data);
    return llvm::Error::success();
  }
  llvm::Expected<std::string> receiveFrom(int From) override {
    auto It = B.Mail.find(From);
    if (It == B.Mail.end())
      return llvm::createStringError("process " + std::to_string(From) +
                                     " sent nothing");
    return It->second;
  }

private:
  Board &B;
  int Rank, Size;
};

constexpr uint64_t App = 0x1000, Lib = 0x5000;

class SharedDetectTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> Tmp;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("mpilift-shared", Tmp));
    Dir = std::string(Tmp);
    ASSERT_FALSE(llvm::sys::fs::create_directory(Dir + "/" + SpillDirName));
    writeStar();
    tracert::ConvertResult C = tracert::convertSpillFiles(Dir);
    ASSERT_TRUE(C.Ok) << C.Error;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// Rank 0 sends a star broadcast three times from the program, after a
  /// barrier; rank 1 receives in a library (first a site no other rank
  /// uses, then the barrier's); rank 2 receives at its own site of the
  /// program, with the barrier last.
  void writeStar() {
    auto at = [](Event E, uint64_t Site) {
      E.CallSite = Site;
      return E;
    };
    const std::vector<SpillWriter::ModuleSpec> Modules = {
        {"/opt/app/bin/solver", App, App + 0x1000, 0},
        {"/opt/app/lib/libgrid.so", Lib, Lib + 0x1000, Lib}};
    {
      SpillWriter R0(Dir, 0, 3);
      R0.modules(Modules);
      std::vector<Event> Es{
          at(call(mpi::FunctionId::Barrier, 1000, PeerNone, TagNone, 0, 0),
             App + 0x300)};
      for (uint64_t K = 0; K < 3; ++K)
        for (int32_t To : {1, 2})
          Es.push_back(at(
              call(mpi::FunctionId::Send, 2000 + 1000 * K + To, To, 7, 0, 48),
              App + 0x100));
      R0.events(Es);
      R0.footer(EndReason::Finalize);
    }
    {
      SpillWriter R1(Dir, 1, 3);
      R1.modules(Modules);
      std::vector<Event> Es;
      for (uint64_t K = 0; K < 3; ++K) {
        Es.push_back(
            at(call(mpi::FunctionId::Recv, 2100 + 1000 * K, 0, 7, 0, 48),
               Lib + 0x100));
        if (K == 0)
          Es.push_back(
              at(call(mpi::FunctionId::Barrier, 2500, PeerNone, TagNone, 0, 0),
                 App + 0x300));
      }
      R1.events(Es);
      R1.footer(EndReason::Finalize);
    }
    {
      SpillWriter R2(Dir, 2, 3);
      R2.modules(Modules);
      std::vector<Event> Es;
      for (uint64_t K = 0; K < 3; ++K)
        Es.push_back(
            at(call(mpi::FunctionId::Recv, 2200 + 1000 * K, 0, 7, 0, 48),
               App + 0x200));
      Es.push_back(
          at(call(mpi::FunctionId::Barrier, 9000, PeerNone, TagNone, 0, 0),
             App + 0x300));
      R2.events(Es);
      R2.footer(EndReason::Finalize);
    }
  }

  /// Runs the \p Size processes of a shared detect, process 0 last.
  llvm::Expected<std::optional<patterns::SharedDetectResult>>
  runShared(int Size) {
    SequentialGroup::Board Board;
    for (int Rank = Size - 1; Rank > 0; --Rank) {
      SequentialGroup G(Board, Rank, Size);
      llvm::Expected<std::optional<patterns::SharedDetectResult>> Mine =
          patterns::detectOnProcesses(Dir, G);
      if (!Mine)
        return Mine.takeError();
      EXPECT_FALSE(Mine->has_value()) << "process " << Rank;
    }
    SequentialGroup First(Board, 0, Size);
    return patterns::detectOnProcesses(Dir, First);
  }

  std::string Dir;
};

std::vector<std::pair<std::string, uint64_t>> sitesOf(const trace::Trace &T) {
  std::vector<std::pair<std::string, uint64_t>> Out;
  for (const trace::CallSite &S : T.Sites)
    Out.emplace_back(T.Modules.at(S.Module), S.Offset);
  return Out;
}

TEST_F(SharedDetectTest, SharesGiveWhatOneReaderFinds) {
  llvm::Expected<trace::Trace> Whole = trace::readTrace(Dir);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
  // One reader numbers rank 0's sites, then rank 1's new ones, then rank
  // 2's; the library is the second module because rank 1 uses it first.
  EXPECT_EQ(sitesOf(*Whole), (std::vector<std::pair<std::string, uint64_t>>{
                                 {"/opt/app/bin/solver", 0x1300},
                                 {"/opt/app/bin/solver", 0x1100},
                                 {"/opt/app/lib/libgrid.so", 0x100},
                                 {"/opt/app/bin/solver", 0x1200}}));
  patterns::DetectResult Expected = patterns::detectPatterns(*Whole);
  ASSERT_EQ(Expected.Patterns.size(), 1u);
  EXPECT_EQ(Expected.Patterns[0].Collective, "bcast");
  EXPECT_EQ(Expected.Patterns[0].Occurrences, 3u);

  for (int Size : {1, 2, 3, 4}) {
    SCOPED_TRACE("processes: " + std::to_string(Size));
    auto Shared = runShared(Size);
    ASSERT_TRUE(bool(Shared)) << llvm::toString(Shared.takeError());
    ASSERT_TRUE(Shared->has_value());
    const patterns::SharedDetectResult &R = **Shared;
    EXPECT_EQ(R.Trace.Modules, Whole->Modules);
    EXPECT_EQ(sitesOf(R.Trace), sitesOf(*Whole));
    for (int Rank = 0; Rank < 3; ++Rank)
      EXPECT_EQ(R.Trace.Ranks[Rank].SiteOrder, Whole->Ranks[Rank].SiteOrder);
    testutil::expectSamePatterns(R.Result.Patterns, Expected.Patterns);
  }
}

TEST_F(SharedDetectTest, ThreadsGiveWhatOneReaderFinds) {
  llvm::Expected<trace::Trace> Whole = trace::readTrace(Dir);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
  patterns::DetectResult Expected = patterns::detectPatterns(*Whole);
  ASSERT_EQ(Expected.Patterns.size(), 1u);
  // Up to more threads than the trace has ranks (those read none).
  for (int Threads : {1, 2, 3, 5}) {
    SCOPED_TRACE("threads: " + std::to_string(Threads));
    auto Shared = patterns::detectOnThreads(Dir, Threads);
    ASSERT_TRUE(bool(Shared)) << llvm::toString(Shared.takeError());
    EXPECT_EQ(Shared->Trace.Modules, Whole->Modules);
    EXPECT_EQ(sitesOf(Shared->Trace), sitesOf(*Whole));
    testutil::expectSamePatterns(Shared->Result.Patterns, Expected.Patterns);
  }
}

TEST_F(SharedDetectTest, AnotherThreadFailingIsNamed) {
  ASSERT_FALSE(llvm::sys::fs::remove(Dir + "/traces/2.evt"));
  auto Shared = patterns::detectOnThreads(Dir, 2);
  ASSERT_FALSE(bool(Shared));
  std::string Message = llvm::toString(Shared.takeError());
  EXPECT_NE(Message.find("'" + Dir), std::string::npos) << Message;
  EXPECT_NE(Message.find("rank 2"), std::string::npos) << Message;
  EXPECT_EQ(Message.find("thread 1"), std::string::npos)
      << "rank 2 is thread 0's to read: " << Message;
  ASSERT_FALSE(llvm::sys::fs::remove(Dir + "/traces/1.evt"));
  Shared = patterns::detectOnThreads(Dir, 2);
  ASSERT_FALSE(bool(Shared));
  Message = llvm::toString(Shared.takeError());
  EXPECT_NE(Message.find("rank 2"), std::string::npos)
      << "thread 0's own failure comes first: " << Message;
  Shared = patterns::detectOnThreads(Dir, 3);
  ASSERT_FALSE(bool(Shared));
  Message = llvm::toString(Shared.takeError());
  EXPECT_NE(Message.find("thread 1: "), std::string::npos) << Message;
  EXPECT_NE(Message.find("rank 1"), std::string::npos) << Message;
}

TEST_F(SharedDetectTest, AnotherProcessFailingIsNamed) {
  // Process 1 of 2 reads rank 1, whose events are gone; process 0 reads
  // ranks 0 and 2 and says who failed and why.
  ASSERT_FALSE(llvm::sys::fs::remove(Dir + "/traces/1.evt"));
  auto Shared = runShared(2);
  ASSERT_FALSE(bool(Shared));
  std::string Message = llvm::toString(Shared.takeError());
  EXPECT_NE(Message.find("process 1: "), std::string::npos) << Message;
  EXPECT_NE(Message.find("rank 1"), std::string::npos) << Message;
}

TEST_F(SharedDetectTest, MalformedOrRepeatedStepsAreRefused) {
  llvm::Expected<trace::Trace> T = trace::readTrace(Dir);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  patterns::RankStepCollector Steps;
  llvm::Error Garbage = Steps.add(*T, "not steps at all");
  ASSERT_TRUE(bool(Garbage));
  EXPECT_NE(llvm::toString(std::move(Garbage)).find("malformed"),
            std::string::npos);

  patterns::RankStepCollector Other;
  Other.take(*T, 1);
  std::string Bytes = Other.serialize(*T);
  EXPECT_FALSE(bool(Steps.add(*T, Bytes)));
  llvm::Error Twice = Steps.add(*T, Bytes);
  ASSERT_TRUE(bool(Twice));
  EXPECT_NE(llvm::toString(std::move(Twice)).find("rank 1 arrived twice"),
            std::string::npos);
  // Cut short anywhere, the bytes are refused.
  for (size_t Cut : {size_t(4), Bytes.size() / 2, Bytes.size() - 1}) {
    patterns::RankStepCollector Fresh;
    llvm::Error Short = Fresh.add(*T, Bytes.substr(0, Cut));
    EXPECT_TRUE(bool(Short)) << "cut at " << Cut;
    llvm::consumeError(std::move(Short));
  }
}

} // namespace
