//===- CostModelTest.cpp - The machine profile and its estimates ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/CostModel.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;

namespace {

// A machine with t_s = 1 us and 1 ns per byte, measured exactly.
const char *const ExactOutput = "mpilift-pingpong 1\n"
                                "library Open MPI v4.1.4\n"
                                "operation 5.000000e-10\n"
                                "sample 0 1.000000e-06\n"
                                "sample 64 1.500000e-06\n"
                                "sample 4096 5.096000e-06\n"
                                "sample 1048576 1.049576e-03\n";

std::string errorOf(llvm::Expected<MachineProfile> P) {
  if (P)
    return "no error";
  return llvm::toString(P.takeError());
}

std::string writeTemporary(llvm::StringRef Text) {
  llvm::SmallString<128> Path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("profile", "json", Path));
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  OS << Text;
  return Path.str().str();
}

TEST(CostModelTest, FitsStartupToTheSmallestAndBandwidthToTheLargeMessages) {
  llvm::Expected<MachineProfile> P = fitPingPongOutput(ExactOutput);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_DOUBLE_EQ(P->StartupSeconds, 1e-6);
  // The 64-byte sample (latency-bound, slower than the line) is left out.
  EXPECT_NEAR(P->SecondsPerByte, 1e-9, 1e-15);
  EXPECT_DOUBLE_EQ(P->SecondsPerOperation, 5e-10);
  EXPECT_EQ(P->Library, "Open MPI v4.1.4");
  EXPECT_EQ(P->Samples.size(), 4u);
}

TEST(CostModelTest, RefusesOutputThatIsNotThePingPongs) {
  EXPECT_EQ(errorOf(fitPingPongOutput("hello\n")),
            "the ping-pong printed 'hello', which is not a line of its "
            "format");
  EXPECT_EQ(errorOf(fitPingPongOutput("operation 1e-9\nsample 0 1e-6\n")),
            "the output is not the ping-pong's (no 'mpilift-pingpong' line)");
  EXPECT_EQ(errorOf(fitPingPongOutput("mpilift-pingpong 2\n")),
            "the ping-pong speaks format 2, this mpilift format 1: they are "
            "from different builds");
  EXPECT_EQ(errorOf(fitPingPongOutput(
                "mpilift-pingpong 1\noperation 1e-9\nsample 0 1e-6\n")),
            "the ping-pong printed no sample of 4096 bytes or more");
  EXPECT_EQ(errorOf(fitPingPongOutput("mpilift-pingpong 1\nsample 0 1e-6\n")),
            "the ping-pong printed no time of an operation");
  EXPECT_EQ(errorOf(fitPingPongOutput(
                "mpilift-pingpong 1\noperation 1e-9\nsample 0 -1\n")),
            "the ping-pong printed 'sample 0 -1', which is not a line of its "
            "format");
  // Large messages faster than empty ones: no positive t_w.
  EXPECT_EQ(errorOf(fitPingPongOutput("mpilift-pingpong 1\noperation 1e-9\n"
                                      "sample 0 1e-6\nsample 8192 5e-7\n")),
            "the ping-pong's samples: seconds_per_byte must be a positive "
            "number of seconds, not -6.10352e-11");
}

TEST(CostModelTest, WrittenProfilesReadBack) {
  llvm::Expected<MachineProfile> P = fitPingPongOutput(ExactOutput);
  ASSERT_TRUE(bool(P));
  std::string Path = writeTemporary("");
  ASSERT_FALSE(bool(writeMachineProfile(*P, Path)));
  llvm::Expected<MachineProfile> Back = readMachineProfile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_DOUBLE_EQ(Back->StartupSeconds, P->StartupSeconds);
  EXPECT_DOUBLE_EQ(Back->SecondsPerByte, P->SecondsPerByte);
  EXPECT_DOUBLE_EQ(Back->SecondsPerOperation, P->SecondsPerOperation);
  EXPECT_EQ(Back->Library, P->Library);
  EXPECT_EQ(Back->Samples.size(), 4u);
  EXPECT_EQ(Back->Origin, "the machine profile '" + Path + "'");
  llvm::sys::fs::remove(Path);
}

TEST(CostModelTest, BadProfilesAreRefusedWithTheFileAndTheReason) {
  std::string Path = writeTemporary("{\"version\": 1, \"startup_seconds\": "
                                    "1e-6, \"seconds_per_byte\": 0, "
                                    "\"seconds_per_operation\": 1e-9}");
  EXPECT_EQ(errorOf(readMachineProfile(Path)),
            "'" + Path +
                "': seconds_per_byte must be a positive number of seconds, "
                "not 0");
  llvm::sys::fs::remove(Path);
  Path = writeTemporary("{\"version\": 2}");
  EXPECT_EQ(errorOf(readMachineProfile(Path)),
            "'" + Path +
                "': not a machine profile of version 1 (write it again with "
                "mpilift calibrate)");
  llvm::sys::fs::remove(Path);
  Path = writeTemporary("{\"version\": 1, \"startup_seconds\": 1e-6}");
  EXPECT_EQ(errorOf(readMachineProfile(Path)),
            "'" + Path + "': no number 'seconds_per_byte'");
  llvm::sys::fs::remove(Path);
  Path = writeTemporary("[1, 2");
  EXPECT_NE(errorOf(readMachineProfile(Path)).find("not JSON"),
            std::string::npos);
  llvm::sys::fs::remove(Path);
  EXPECT_NE(errorOf(readMachineProfile("/nonexistent/profile.json"))
                .find("'/nonexistent/profile.json': "),
            std::string::npos);
}

TEST(CostModelTest, PackingPaysWhileTheSavedStartupsOutweighTheCopies) {
  MachineProfile P;
  P.StartupSeconds = 1e-6;
  P.SecondsPerByte = 1e-9;
  P.SecondsPerOperation = 1e-9;
  P.Origin = "a test machine";
  // Two reductions of 8 doubles: 1 us saved, 16 copies of 2 ns.
  CostEstimate Small = estimatePacking(P, 2, 16, 8, true);
  EXPECT_TRUE(Small.pays());
  EXPECT_NEAR(Small.BeforeSeconds, 2e-6 + 16 * 9e-9, 1e-15);
  EXPECT_NEAR(Small.AfterSeconds, 1e-6 + 16 * 9e-9 + 32e-9, 1e-15);
  EXPECT_EQ(Small.describe(),
            "predicted on 2 processes: 1.18 us instead of 2.14 us (a test "
            "machine)");
  // 1024 elements: 2 us of copies against 1 us saved.
  EXPECT_FALSE(estimatePacking(P, 2, 1024, 8, true).pays());
  // Three calls save two start-ups.
  EXPECT_TRUE(estimatePacking(P, 3, 900, 8, true).pays());
}

TEST(CostModelTest, ScanPairsPayWhileTheStartupOutweighsTheCopies) {
  MachineProfile P;
  P.StartupSeconds = 1e-6;
  P.SecondsPerByte = 1e-9;
  P.SecondsPerOperation = 1e-9;
  // SR2: t_s > 3m (1000 operations against 3 per element).
  EXPECT_TRUE(estimateScanPair(P, 300, 8, false).pays());
  EXPECT_FALSE(estimateScanPair(P, 400, 8, false).pays());
  // SS2: t_s > 5m.
  EXPECT_TRUE(estimateScanPair(P, 150, 8, true).pays());
  EXPECT_FALSE(estimateScanPair(P, 250, 8, true).pays());
  CostEstimate One = estimateScanPair(P, 1, 8, true);
  EXPECT_NEAR(One.BeforeSeconds, 2e-6 + 16e-9 + 4e-9, 1e-15);
  EXPECT_NEAR(One.AfterSeconds, 1e-6 + 16e-9 + 6e-9 + 3e-9, 1e-15);
}

TEST(CostModelTest, BroadcastScanRulesFollowTableOneWithTheBroadcastKept) {
  MachineProfile P;
  P.StartupSeconds = 1e-6; // 1000 operations.
  P.SecondsPerByte = 0;    // t_w = 0: only the start-ups decide.
  P.SecondsPerOperation = 1e-9;
  // BSS-Comcast: t_w + t_s / m > 2, m < 500.
  EXPECT_TRUE(estimateBcastScanLocal(P, 499, 8, true, true).pays());
  EXPECT_FALSE(estimateBcastScanLocal(P, 501, 8, true, true).pays());
  // BSS2-Comcast: t_w + t_s / m > 1/2, m < 2000.
  EXPECT_TRUE(estimateBcastScanLocal(P, 1999, 8, true, false).pays());
  EXPECT_FALSE(estimateBcastScanLocal(P, 2001, 8, true, false).pays());
  // BSR-Local alike; BSR2-Local: 2 t_s + 2 m t_w > 0, always.
  EXPECT_FALSE(estimateBcastScanLocal(P, 2001, 8, false, true).pays());
  EXPECT_TRUE(estimateBcastScanLocal(P, 1 << 30, 8, false, false).pays());
  CostEstimate One = estimateBcastScanLocal(P, 1, 8, true, false);
  EXPECT_NEAR(One.BeforeSeconds, 3e-6 + 4e-9, 1e-15);
  EXPECT_NEAR(One.AfterSeconds, 1e-6 + 5e-9, 1e-15);
}

TEST(CostModelTest, TheDefaultProfileSaysWhereItIsFrom) {
  MachineProfile P = defaultMachineProfile();
  EXPECT_EQ(P.Origin, "the default machine profile");
  EXPECT_GT(P.StartupSeconds, 0);
  EXPECT_GT(P.SecondsPerByte, 0);
  EXPECT_GT(P.SecondsPerOperation, 0);
}

} // namespace
