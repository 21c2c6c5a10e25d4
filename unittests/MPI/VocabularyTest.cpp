//===- VocabularyTest.cpp - Tests of the MPI vocabulary -------------------===//

#include "mpilift/MPI/Vocabulary.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mpilift::mpi;

namespace {

TEST(VocabularyTest, SendArgumentsHaveRoles) {
  const FunctionInfo *F = lookup("MPI_Send");
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(F->TheFamily, Family::BlockingSend);
  EXPECT_EQ(F->Mode, SendMode::Standard);
  EXPECT_EQ(F->NumArgs, 6u);
  EXPECT_EQ(F->argIndex(Role::SendBuffer), 0u);
  EXPECT_EQ(F->argIndex(Role::Count), 1u);
  EXPECT_EQ(F->argIndex(Role::Datatype), 2u);
  EXPECT_EQ(F->argIndex(Role::Dest), 3u);
  EXPECT_EQ(F->argIndex(Role::Tag), 4u);
  EXPECT_EQ(F->argIndex(Role::Comm), 5u);
  EXPECT_FALSE(F->hasRole(Role::Source));
  EXPECT_STREQ(F->Args[0].Type, "const void *");
  EXPECT_STREQ(F->Args[3].Name, "dest");
}

TEST(VocabularyTest, LookupAcceptsProfilingNames) {
  EXPECT_EQ(lookup("PMPI_Irecv"), lookup("MPI_Irecv"));
  EXPECT_EQ(lookup("MPI_Nonsense"), nullptr);
  EXPECT_EQ(lookup(""), nullptr);
}

TEST(VocabularyTest, SendModes) {
  EXPECT_EQ(lookup("MPI_Ssend")->Mode, SendMode::Synchronous);
  EXPECT_EQ(lookup("MPI_Issend")->Mode, SendMode::Synchronous);
  EXPECT_EQ(lookup("MPI_Bsend")->Mode, SendMode::Buffered);
  EXPECT_EQ(lookup("MPI_Irsend")->Mode, SendMode::Ready);
  EXPECT_EQ(lookup("MPI_Send_init")->Mode, SendMode::Standard);
  EXPECT_EQ(lookup("MPI_Recv")->Mode, SendMode::None);
}

TEST(VocabularyTest, CollectiveKindsIgnoreBlocking) {
  EXPECT_EQ(lookup("MPI_Bcast")->Collective, CollectiveKind::Bcast);
  EXPECT_EQ(lookup("MPI_Ibcast")->Collective, CollectiveKind::Bcast);
  EXPECT_EQ(lookup("MPI_Ireduce_scatter_block")->Collective,
            CollectiveKind::ReduceScatterBlock);
  EXPECT_EQ(lookup("MPI_Ineighbor_alltoallw")->Collective,
            CollectiveKind::NeighborAlltoallw);
  EXPECT_EQ(lookup("MPI_Send")->Collective, CollectiveKind::None);
  EXPECT_TRUE(isRooted(CollectiveKind::Scatterv));
  EXPECT_FALSE(isRooted(CollectiveKind::Allgather));
}

TEST(VocabularyTest, SendrecvHasBothSides) {
  const FunctionInfo *F = lookup("MPI_Sendrecv");
  EXPECT_EQ(F->argIndex(Role::Dest), 3u);
  EXPECT_EQ(F->argIndex(Role::SendTag), 4u);
  EXPECT_EQ(F->argIndex(Role::RecvBuffer), 5u);
  EXPECT_EQ(F->argIndex(Role::Source), 8u);
  EXPECT_EQ(F->argIndex(Role::RecvTag), 9u);
  EXPECT_EQ(F->argIndex(Role::Status), 11u);
  EXPECT_EQ(lookup("MPI_Sendrecv_replace")->argIndex(Role::InOutBuffer), 0u);
}

TEST(VocabularyTest, CompletionFunctions) {
  EXPECT_EQ(lookup("MPI_Waitall")->argIndex(Role::ArrayLength), 0u);
  EXPECT_EQ(lookup("MPI_Waitall")->argIndex(Role::RequestArray), 1u);
  EXPECT_EQ(lookup("MPI_Waitsome")->argIndex(Role::IndexArray), 3u);
  EXPECT_EQ(lookup("MPI_Testany")->argIndex(Role::Flag), 3u);
  EXPECT_TRUE(completesRequests(Family::Test));
  EXPECT_FALSE(completesRequests(Family::Start));
  EXPECT_TRUE(createsRequest(FunctionId::Ibcast));
  EXPECT_TRUE(createsRequest(FunctionId::Recv_init));
  EXPECT_TRUE(createsRequest(FunctionId::Comm_idup));
  EXPECT_FALSE(createsRequest(FunctionId::Comm_dup));
  EXPECT_FALSE(createsRequest(FunctionId::Wait));
}

TEST(VocabularyTest, TableIsConsistent) {
  std::set<std::string> Names;
  unsigned Count = 0;
  for (const FunctionInfo *F = begin(); F != end(); ++F, ++Count) {
    EXPECT_TRUE(Names.insert(F->Name).second) << F->Name;
    EXPECT_EQ(&info(F->Id), F);
    EXPECT_EQ(lookup(F->Name), F);
    // Every operation that moves data names its communicator (MPI_Mrecv
    // and MPI_Imrecv take it from the message).
    bool MovesData = isPointToPoint(F->TheFamily) || isCollective(F->TheFamily);
    if (MovesData && !F->hasRole(Role::Message)) {
      EXPECT_TRUE(F->hasRole(Role::Comm)) << F->Name;
    }
    if (isNonblocking(F->TheFamily) && F->TheFamily != Family::Test &&
        F->TheFamily != Family::NonblockingProbe &&
        F->TheFamily != Family::Start) {
      EXPECT_TRUE(F->hasRole(Role::Request)) << F->Name;
    }
    if (sendsPointToPoint(F->TheFamily)) {
      EXPECT_TRUE(F->hasRole(Role::Dest)) << F->Name;
    }
    if (receivesPointToPoint(F->TheFamily) && !F->hasRole(Role::Message)) {
      EXPECT_TRUE(F->hasRole(Role::Source)) << F->Name;
    }
    if (isRooted(F->Collective)) {
      EXPECT_TRUE(F->hasRole(Role::Root)) << F->Name;
    }
    for (unsigned I = 0; I < F->NumArgs; ++I)
      EXPECT_STRNE(F->Args[I].Name, "") << F->Name;
  }
  EXPECT_EQ(Count, NumFunctions);
  // The list: all MPI 3.1 collectives, blocking and nonblocking.
  for (const char *Name :
       {"MPI_Barrier", "MPI_Ibarrier", "MPI_Alltoallw", "MPI_Ialltoallw",
        "MPI_Exscan", "MPI_Iexscan", "MPI_Neighbor_alltoallv",
        "MPI_Ineighbor_allgather", "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv",
        "MPI_Imrecv", "MPI_Startall", "MPI_Request_free", "MPI_Cart_create",
        "MPI_Comm_create", "MPI_Comm_split", "MPI_Comm_free"})
    EXPECT_NE(lookup(Name), nullptr) << Name;
}

TEST(VocabularyTest, PcontrolIsVariadic) {
  EXPECT_TRUE(lookup("MPI_Pcontrol")->Variadic);
  EXPECT_FALSE(lookup("MPI_Send")->Variadic);
  EXPECT_EQ(lookup("MPI_Pcontrol")->argIndex(Role::Level), 0u);
}

} // namespace
