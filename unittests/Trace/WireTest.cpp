//===- WireTest.cpp - Bytes between processes ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Dist/Wire.h"

#include "gtest/gtest.h"

using namespace mpilift::dist;

namespace {

TEST(WireTest, FieldsComeBackInOrder) {
  WireWriter W;
  W.put<uint32_t>(7);
  W.putString("rank 3");
  W.putVector(std::vector<int32_t>{4, -1, 9});
  W.putString("");
  W.put<uint8_t>(1);

  WireReader R(W.bytes());
  uint32_t A = 0;
  std::string S, Empty = "x";
  std::vector<int32_t> V;
  uint8_t B = 0;
  ASSERT_TRUE(R.get(A));
  ASSERT_TRUE(R.getString(S));
  ASSERT_TRUE(R.getVector(V));
  ASSERT_TRUE(R.getString(Empty));
  ASSERT_TRUE(R.get(B));
  EXPECT_EQ(A, 7u);
  EXPECT_EQ(S, "rank 3");
  EXPECT_EQ(V, (std::vector<int32_t>{4, -1, 9}));
  EXPECT_EQ(Empty, "");
  EXPECT_EQ(B, 1u);
  EXPECT_TRUE(R.atEnd());
}

TEST(WireTest, ShortInputFailsAndStaysFailed) {
  WireWriter W;
  W.putString("communicator members");
  W.putVector(std::vector<uint32_t>{1, 2, 3});
  const std::string &All = W.bytes();
  // Every proper prefix must be refused, never read past its end.
  for (size_t Cut = 0; Cut < All.size(); ++Cut) {
    std::string Prefix = All.substr(0, Cut);
    WireReader R(Prefix);
    std::string S;
    std::vector<uint32_t> V;
    bool Both = R.getString(S) && R.getVector(V);
    EXPECT_FALSE(Both) << "prefix of " << Cut << " bytes";
    EXPECT_FALSE(R.atEnd());
    uint8_t After = 0;
    EXPECT_FALSE(R.get(After));
  }
}

TEST(WireTest, LengthLargerThanInputIsRefused) {
  WireWriter W;
  W.put<uint64_t>(uint64_t(1) << 60); // A vector "length" with no elements.
  WireReader R(W.bytes());
  std::vector<uint64_t> V;
  EXPECT_FALSE(R.getVector(V));
  EXPECT_TRUE(V.empty());
  EXPECT_FALSE(R.ok());
}

} // namespace
