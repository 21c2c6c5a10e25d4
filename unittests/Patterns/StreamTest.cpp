//===- StreamTest.cpp - A rank's steps, kept compactly --------------------===//

#include "Stream.h"

#include "gtest/gtest.h"

#include <vector>

using namespace mpilift;
using namespace mpilift::patterns::detail;

namespace {

/// The first step whose predecessor is too far behind it to be kept in
/// the step.
constexpr uint32_t FarStep = 70005;

struct Pushed {
  StepEvent St;
  std::vector<uint32_t> After;
  uint64_t Hash;
  std::vector<trace::LayoutRun> Layout;
};

StepEvent step(uint64_t Bytes, uint64_t Buffer, int32_t Peer, int32_t Tag,
               uint32_t Site, bool Send) {
  StepEvent St;
  St.Bytes = Bytes;
  St.Buffer = Buffer;
  St.Peer = Peer;
  St.Tag = Tag;
  St.Site = Site;
  St.Send = Send;
  St.BlockingSend = Send && Tag % 2 == 0;
  return St;
}

/// Steps of every kind the packing treats apart: sizes of 4 GiB and more,
/// buffers above 4 GiB, no peer or site, hashes, collectives, data with
/// gaps (with runs, and without: a type the tracer does not decode), and
/// predecessors close behind, far behind and more than two.
std::vector<Pushed> variedSteps() {
  std::vector<Pushed> Out;
  auto Add = [&](StepEvent St, std::vector<uint32_t> After, uint64_t Hash = 0,
                 std::vector<trace::LayoutRun> Layout = {}) {
    Out.push_back({St, std::move(After), Hash, std::move(Layout)});
  };
  StepEvent Undecoded = step(8, 0x7ffd12345678, 1, 0, 3, true);
  Undecoded.Noncontiguous = true;
  Add(Undecoded, {});
  Add(step(uint64_t(5) << 30, 0x1000, 2, 7, 4, false), {0});
  Add(step(UINT32_MAX, 0x2000, -1, 1, trace::NoSite, false), {1, 0});
  StepEvent Hashed = step(16, 0x3000, 0, 2, 5, true);
  Hashed.HasHash = true;
  Hashed.Noncontiguous = true;
  Add(Hashed, {2}, 0xfeedface12345678, {{8, 8}, {-24, 8}});
  StepEvent Collective = step(0, 0, -1, 0, 6, false);
  Collective.P2P = false;
  Add(Collective, {3, 1, 2});
  // A halo exchange: four kinds of steps, over and over.
  for (uint32_t K = 5; K < FarStep; ++K)
    Add(step(K, 0x4000 + K, int32_t(K % 4), int32_t(K % 2), K % 2, K % 2),
        {K - 1});
  Add(step(uint64_t(1) << 40, 0xffffffffffff0000, 3, 9, 8, true), {0});
  Add(step(12, 0x5000, 4, 9, 8, false), {FarStep, 45});
  return Out;
}

Stream streamOf(const std::vector<Pushed> &Steps) {
  Stream S;
  for (const Pushed &P : Steps)
    S.push(P.St, P.After, P.Hash, P.Layout);
  return S;
}

void expectSameStep(const StepEvent &A, const StepEvent &B, size_t K) {
  EXPECT_EQ(A.Bytes, B.Bytes) << "step " << K;
  EXPECT_EQ(A.Buffer, B.Buffer) << "step " << K;
  EXPECT_EQ(A.Peer, B.Peer) << "step " << K;
  EXPECT_EQ(A.Tag, B.Tag) << "step " << K;
  EXPECT_EQ(A.Site, B.Site) << "step " << K;
  EXPECT_EQ(A.P2P, B.P2P) << "step " << K;
  EXPECT_EQ(A.Send, B.Send) << "step " << K;
  EXPECT_EQ(A.BlockingSend, B.BlockingSend) << "step " << K;
  EXPECT_EQ(A.HasHash, B.HasHash) << "step " << K;
  EXPECT_EQ(A.Noncontiguous, B.Noncontiguous) << "step " << K;
}

void expectHolds(const Stream &S, const std::vector<Pushed> &Steps) {
  ASSERT_EQ(S.size(), Steps.size());
  size_t K = 0;
  for (StepEvent St : S) {
    expectSameStep(St, Steps[K].St, K);
    llvm::SmallVector<uint32_t, 2> Listed = S.after(K);
    std::vector<uint32_t> After(Listed.begin(), Listed.end());
    EXPECT_EQ(After, Steps[K].After) << "step " << K;
    EXPECT_EQ(S.hash(K), Steps[K].St.HasHash ? Steps[K].Hash : 0)
        << "step " << K;
    llvm::ArrayRef<trace::LayoutRun> Layout = S.layout(K);
    ASSERT_EQ(Layout.size(), Steps[K].Layout.size()) << "step " << K;
    for (size_t I = 0; I < Layout.size(); ++I) {
      EXPECT_EQ(Layout[I].Offset, Steps[K].Layout[I].Offset) << "step " << K;
      EXPECT_EQ(Layout[I].Length, Steps[K].Layout[I].Length) << "step " << K;
    }
    ++K;
  }
  EXPECT_EQ(K, Steps.size());
}

std::string written(const Stream &S) {
  dist::WireWriter W;
  S.write(W);
  return W.take();
}

TEST(StreamTest, GivesBackEveryStepAsPushed) {
  std::vector<Pushed> Steps = variedSteps();
  Stream S = streamOf(Steps);
  expectHolds(S, Steps);
  S.shrinkToFit();
  expectHolds(S, Steps);
}

TEST(StreamTest, KeepsAStepInTwentyBytes) {
  std::vector<Pushed> Steps = variedSteps();
  Stream S = streamOf(Steps);
  // 11 lengths, 20 bytes a step, 11 kinds of 16 bytes (the first five
  // steps', the exchange's four, the last two's), a hash for every step
  // from the first hashed one on (the earlier ones' zero included), two
  // large sizes (4 + 8 bytes each), the predecessors of the three steps
  // that list them (the collective's three, the far ones' 1 and 2; an
  // index, an end and the steps), and the layout of the one step that has
  // runs (an index, an end and two runs of 16 bytes).
  size_t Expected = 11 * 8 + 20 * Steps.size() + 11 * 16 + 8 * Steps.size() +
                    2 * 12 + 3 * (4 + 4) + 6 * 4 + (4 + 4) + 2 * 16;
  EXPECT_EQ(S.writtenBytes(), Expected);
  EXPECT_EQ(written(S).size(), Expected);
}

TEST(StreamTest, ReadsWhatItWrote) {
  std::vector<Pushed> Steps = variedSteps();
  std::string Bytes = written(streamOf(Steps));
  dist::WireReader R(Bytes);
  Stream Back;
  ASSERT_TRUE(Back.read(R));
  EXPECT_TRUE(R.atEnd());
  expectHolds(Back, Steps);
  Back.mapSites({0, 0, 0, 1, 1});
  EXPECT_EQ(Back[0].Site, 1u);
  EXPECT_EQ(Back[2].Site, trace::NoSite);
  EXPECT_EQ(Back[3].Site, 5u); // Past the end of the map: stays.
  EXPECT_EQ(Back[5].Site, 0u);
  EXPECT_EQ(Back[6].Site, 0u);
}

bool reads(const std::string &Bytes) {
  dist::WireReader R(Bytes);
  Stream S;
  return S.read(R);
}

TEST(StreamTest, RefusesMalformedBytes) {
  std::string Good = written(streamOf(variedSteps()));
  ASSERT_TRUE(reads(Good));
  EXPECT_FALSE(reads(Good.substr(0, Good.size() - 1)));
  EXPECT_FALSE(reads(Good.substr(0, 100)));

  auto overwritten = [&](size_t At, uint32_t Word) {
    std::string Bytes = Good;
    Bytes.replace(At, 4, reinterpret_cast<const char *>(&Word), 4);
    return Bytes;
  };
  // The layouts close the stream, each list after its count: one step's
  // index (3), the end of its runs (2), and two runs of 16 bytes.
  size_t Runs = 8 + 2 * 16, Ends = 8 + 4 + Runs, Ats = 8 + 4 + Ends;
  // The last word before them is the last step's last predecessor (45):
  // one at or after the step itself is no predecessor.
  EXPECT_FALSE(reads(overwritten(Good.size() - Ats - 4, FarStep + 1)));
  // A layout of a step the stream does not have, or one whose runs end
  // past the list of runs.
  EXPECT_FALSE(reads(overwritten(Good.size() - Ats + 8, FarStep + 2)));
  EXPECT_FALSE(reads(overwritten(Good.size() - Ends + 8, 3)));

  // Step 0 (after the count of steps) with a predecessor one step back,
  // or of a kind the stream does not have.
  EXPECT_FALSE(reads(overwritten(8 + 16, 1)));
  EXPECT_FALSE(reads(overwritten(8 + 12, 11)));

  // The kinds follow the steps and their count; step 0's kind (the
  // first) claiming a size of its own in the list of large sizes, or a
  // flag no step has.
  size_t FirstKindFlags = 8 + 20 * (FarStep + 2) + 8 + 12;
  EXPECT_FALSE(reads(overwritten(FirstKindFlags, 16)));
  EXPECT_FALSE(reads(overwritten(FirstKindFlags, 0x80)));
}

} // namespace
