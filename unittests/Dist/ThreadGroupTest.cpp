//===- ThreadGroupTest.cpp - Threads of one process as a process group ----===//

#include "mpilift/Dist/ThreadGroup.h"

#include "gtest/gtest.h"

#include <thread>

using namespace mpilift;

namespace {

TEST(ThreadGroupTest, MembersKnowThemselves) {
  auto Group = dist::makeThreadGroup(3);
  ASSERT_EQ(Group.size(), 3u);
  for (int Rank = 0; Rank < 3; ++Rank) {
    EXPECT_EQ(Group[Rank]->rank(), Rank);
    EXPECT_EQ(Group[Rank]->size(), 3);
  }
  EXPECT_EQ(Group[0]->memberName(2), "thread 2");
}

TEST(ThreadGroupTest, EachBroadcastReachesEveryMemberInTurn) {
  // Member 0 broadcasts twice before any other member takes the first:
  // each still gets both values, in order, and answers with them.
  constexpr int Size = 4;
  auto Group = dist::makeThreadGroup(Size);
  ASSERT_EQ(*Group[0]->broadcast(5), 5);
  ASSERT_EQ(*Group[0]->broadcast(7), 7);
  std::vector<std::thread> Members;
  for (int Rank = 1; Rank < Size; ++Rank)
    Members.emplace_back([&, Rank] {
      int First = *Group[Rank]->broadcast(-1);
      int Second = *Group[Rank]->broadcast(-1);
      std::string Answer = std::to_string(First) + "," +
                           std::to_string(Second) + " from " +
                           std::to_string(Rank);
      llvm::cantFail(Group[Rank]->sendToFirst(Answer));
      llvm::cantFail(Group[Rank]->sendToFirst("again " + std::to_string(Rank)));
    });
  // Received in member order, whatever order the threads run in.
  for (int From = Size - 1; From >= 1; --From) {
    llvm::Expected<std::string> Got = Group[0]->receiveFrom(From);
    ASSERT_TRUE(bool(Got));
    EXPECT_EQ(*Got, "5,7 from " + std::to_string(From));
  }
  for (int From = 1; From < Size; ++From)
    EXPECT_EQ(*Group[0]->receiveFrom(From), "again " + std::to_string(From));
  for (std::thread &T : Members)
    T.join();
}

TEST(ThreadGroupTest, OnlyMemberZeroReceives) {
  auto Group = dist::makeThreadGroup(2);
  llvm::Error Self = Group[0]->sendToFirst("x");
  EXPECT_TRUE(bool(Self));
  llvm::consumeError(std::move(Self));
  llvm::Expected<std::string> Wrong = Group[1]->receiveFrom(0);
  EXPECT_FALSE(bool(Wrong));
  llvm::consumeError(Wrong.takeError());
  llvm::Expected<std::string> Outside = Group[0]->receiveFrom(2);
  EXPECT_FALSE(bool(Outside));
  llvm::consumeError(Outside.takeError());
}

} // namespace
