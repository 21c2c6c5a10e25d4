//===- ForeignArchiveTest.cpp - Reading OTF2 that mpilift did not write ---===//
//
// An archive as another tracer would write it: user regions around the MPI
// calls, location ids that are not ranks, no mpilift attributes. The reader
// must find the ranks through the COMM_LOCATIONS group, skip the user
// regions, and leave call sites absent.
//
//===----------------------------------------------------------------------===//

#include "mpilift/Trace/Trace.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <otf2/otf2.h>

#include <string>

using namespace mpilift;

namespace {

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
OTF2_TimeStamp postFlush(void *, OTF2_FileType, OTF2_LocationRef) { return 0; }
const OTF2_FlushCallbacks Flush = {preFlush, postFlush};

// Strings, regions and the communicator of the archive.
enum : uint32_t {
  StrEmpty,
  StrMain,
  StrSend,
  StrRecv,
  StrWorld,
  StrRank0,
  StrRank1,
  StrMachine
};
enum : uint32_t { RegionMain, RegionSend, RegionRecv };
// Location ids as a tool might number them: not the ranks.
constexpr OTF2_LocationRef Loc0 = 100, Loc1 = 7;

void writeForeignArchive(const std::string &Dir) {
  OTF2_Archive *A = OTF2_Archive_Open(
      Dir.c_str(), "foreign", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
      OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  OTF2_Archive_SetFlushCallbacks(A, &Flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(A);
  OTF2_Archive_OpenEvtFiles(A);

  // Rank 1 (location 7) sends 16 bytes with tag 4 to rank 0 (location 100),
  // both inside a user region "main".
  OTF2_EvtWriter *W1 = OTF2_Archive_GetEvtWriter(A, Loc1);
  OTF2_EvtWriter_Enter(W1, nullptr, 10, RegionMain);
  OTF2_EvtWriter_Enter(W1, nullptr, 20, RegionSend);
  OTF2_EvtWriter_MpiSend(W1, nullptr, 20, 0, 0, 4, 16);
  OTF2_EvtWriter_Leave(W1, nullptr, 30, RegionSend);
  OTF2_EvtWriter_Leave(W1, nullptr, 40, RegionMain);
  OTF2_Archive_CloseEvtWriter(A, W1);
  OTF2_EvtWriter *W0 = OTF2_Archive_GetEvtWriter(A, Loc0);
  OTF2_EvtWriter_Enter(W0, nullptr, 11, RegionMain);
  OTF2_EvtWriter_Enter(W0, nullptr, 15, RegionRecv);
  OTF2_EvtWriter_MpiRecv(W0, nullptr, 35, 1, 0, 4, 16);
  OTF2_EvtWriter_Leave(W0, nullptr, 35, RegionRecv);
  OTF2_EvtWriter_Leave(W0, nullptr, 45, RegionMain);
  OTF2_Archive_CloseEvtWriter(A, W0);
  OTF2_Archive_CloseEvtFiles(A);

  OTF2_GlobalDefWriter *G = OTF2_Archive_GetGlobalDefWriter(A);
  OTF2_GlobalDefWriter_WriteClockProperties(G, 1000000000, 10, 40, 0);
  const char *Strings[] = {"",         "main",           "MPI_Send",
                           "MPI_Recv", "MPI_COMM_WORLD", "proc 0",
                           "proc 1",   "machine"};
  for (uint32_t I = 0; I < 8; ++I)
    OTF2_GlobalDefWriter_WriteString(G, I, Strings[I]);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 0, StrMachine, StrMachine,
                                           OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(G, 0, StrRank0,
                                          OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                          OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocationGroup(G, 1, StrRank1,
                                          OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                          OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocation(G, Loc1, StrRank1,
                                     OTF2_LOCATION_TYPE_CPU_THREAD, 5, 1);
  OTF2_GlobalDefWriter_WriteLocation(G, Loc0, StrRank0,
                                     OTF2_LOCATION_TYPE_CPU_THREAD, 5, 0);
  OTF2_GlobalDefWriter_WriteRegion(
      G, RegionMain, StrMain, StrMain, StrEmpty, OTF2_REGION_ROLE_FUNCTION,
      OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, StrEmpty, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(
      G, RegionSend, StrSend, StrSend, StrEmpty, OTF2_REGION_ROLE_POINT2POINT,
      OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, StrEmpty, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(
      G, RegionRecv, StrRecv, StrRecv, StrEmpty, OTF2_REGION_ROLE_POINT2POINT,
      OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, StrEmpty, 0, 0);
  uint64_t WorldLocations[] = {Loc0, Loc1};
  OTF2_GlobalDefWriter_WriteGroup(
      G, 0, StrWorld, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
      OTF2_GROUP_FLAG_NONE, 2, WorldLocations);
  uint64_t Members[] = {0, 1};
  OTF2_GlobalDefWriter_WriteGroup(G, 1, StrWorld, OTF2_GROUP_TYPE_COMM_GROUP,
                                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                  Members);
  OTF2_GlobalDefWriter_WriteComm(G, 0, StrWorld, 1, OTF2_UNDEFINED_COMM,
                                 OTF2_COMM_FLAG_NONE);
  OTF2_Archive_Close(A);
}

TEST(ForeignArchiveTest, RanksComeFromCommLocations) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("mpilift-foreign", Dir));
  writeForeignArchive(std::string(Dir));
  llvm::Expected<trace::Trace> T =
      trace::readTrace(std::string(Dir) + "/foreign.otf2");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_FALSE(T->FromMpilift);
  EXPECT_FALSE(T->Complete); // Nothing says so.
  ASSERT_EQ(T->WorldSize, 2);

  ASSERT_EQ(T->Ranks[1].Events.size(), 1u); // "main" is not an MPI call.
  const trace::Event &Send = T->Ranks[1].Events[0];
  EXPECT_EQ(Send.Function, mpi::FunctionId::Send);
  EXPECT_EQ(Send.Peer, 0);
  EXPECT_EQ(Send.Tag, 4);
  EXPECT_EQ(Send.Bytes, 16u);
  EXPECT_EQ(Send.Site, trace::NoSite);
  EXPECT_EQ(Send.Begin, 10u); // Relative to the clock's global offset.
  EXPECT_EQ(Send.End, 20u);

  ASSERT_EQ(T->Ranks[0].Events.size(), 1u);
  const trace::Event &Recv = T->Ranks[0].Events[0];
  EXPECT_EQ(Recv.Function, mpi::FunctionId::Recv);
  EXPECT_EQ(Recv.Peer, 1);
  EXPECT_EQ(Recv.Bytes, 16u);
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
