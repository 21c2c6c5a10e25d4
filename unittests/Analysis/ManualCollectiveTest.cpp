//===- ManualCollectiveTest.cpp - The finder and its safety checks --------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The paper's listings as unit tests of the analysis: what is recognised,
/// which checks refuse, and where a nonblocking wait goes. A small prelude
/// declares the MPI functions, so no MPI installation is needed.
///
//===----------------------------------------------------------------------===//

#include "mpilift/Analysis/ManualCollective.h"

#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

using namespace mpilift::analysis;

namespace {

const char *const Prelude = R"(
typedef struct comm *MPI_Comm;
typedef struct type *MPI_Datatype;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;
typedef struct request *MPI_Request;
extern struct comm world;
extern struct type int_type, long_type;
#define MPI_COMM_WORLD (&world)
#define MPI_INT (&int_type)
#define MPI_LONG (&long_type)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
int MPI_Comm_rank(MPI_Comm, int *);
int MPI_Comm_size(MPI_Comm, int *);
int MPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
int MPI_Recv(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
int MPI_Iprobe(int, int, MPI_Comm, int *, MPI_Status *);
int MPI_Sendrecv(const void *, int, MPI_Datatype, int, int, void *, int,
                 MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
void compute(void);
)";

/// Parses \p Code (after the prelude) and runs the finder on the function
/// named \p Function.
struct Analysed {
  std::unique_ptr<clang::ASTUnit> AST;
  std::vector<ManualCollective> Found;
};

Analysed analyse(const std::string &Code, const char *Function = "f") {
  Analysed A;
  A.AST = clang::tooling::buildASTFromCodeWithArgs(std::string(Prelude) + Code,
                                                   {"-std=c11"}, "input.c");
  EXPECT_TRUE(A.AST);
  clang::ASTContext &Context = A.AST->getASTContext();
  ManualCollectiveFinder Finder(Context);
  for (const clang::Decl *D : Context.getTranslationUnitDecl()->decls())
    if (const auto *F = llvm::dyn_cast<clang::FunctionDecl>(D))
      if (F->getName() == Function && F->hasBody())
        A.Found = Finder.find(*F);
  return A;
}

bool refusedBy(const ManualCollective &C, SafetyCheck Check) {
  for (const Refusal &R : C.Refusals)
    if (R.Check == Check)
      return true;
  return false;
}

std::string reasons(const ManualCollective &C) {
  std::string Out;
  for (const Refusal &R : C.Refusals)
    Out += checkName(R.Check).str() + ": " + R.Reason + "\n";
  return Out;
}

// Listing 3: the star broadcast from master_task = 4, with the root skipped
// by `if (j != master_task)`... written in the paper as `rank !=`, which
// would send to the root itself; here the loop variable is compared. Below
// five processes the others wait for a rank that does not exist: a
// broadcast only from five processes on: refused by scale independence.
TEST(ManualCollectiveTest, Listing3StarBroadcastNeedsFiveProcesses) {
  Analysed A = analyse(R"(
void f(void) {
  int x = 0, rank, numtasks, master_task = 4, tag = 1;
  MPI_Status Stat;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  for (int i = 0; i < 10; ++i) {
    if (rank == master_task) {
      for (int j = 0; j < numtasks; ++j) {
        if (j != master_task) {
          MPI_Send(&x, 1, MPI_INT, j, tag, MPI_COMM_WORLD);
        }
      }
    } else {
      MPI_Recv(&x, 1, MPI_INT, master_task, tag, MPI_COMM_WORLD, &Stat);
    }
  }
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_EQ(C.Kind, ManualKind::Bcast);
  EXPECT_EQ(C.Topology, ManualTopology::Star);
  ASSERT_EQ(C.Refusals.size(), 1u) << reasons(C);
  EXPECT_EQ(C.Refusals[0].Check, SafetyCheck::ScaleIndependence);
  EXPECT_EQ(C.Refusals[0].Reason,
            "at 4 processes, rank 0 receives from rank 4, which does not "
            "exist");
}

// Listing 1: `if (dest == 42) continue;` makes it input dependent.
TEST(ManualCollectiveTest, Listing1SkipOf42IsRefusedFrom43Processes) {
  Analysed A = analyse(R"(
void f(int *buf) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int dest = 1; dest < size; dest++) {
      if (dest == 42)
        continue;
      MPI_Send(buf, 1, MPI_INT, dest, 0, MPI_COMM_WORLD);
    }
  } else {
    MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
void g(int *b) { f(b); }
)");
  // The paper refuses it for the conditional; run at every size, it is a
  // broadcast up to 42 processes and misses rank 42 from 43 on.
  ASSERT_EQ(A.Found.size(), 1u);
  EXPECT_TRUE(refusedBy(A.Found[0], SafetyCheck::ScaleIndependence))
      << reasons(A.Found[0]);
  EXPECT_NE(reasons(A.Found[0]).find("at 43 processes"), std::string::npos)
      << reasons(A.Found[0]);
}

// Listing 4: `buf++` inside the loop breaks message integrity.
TEST(ManualCollectiveTest, Listing4ChangedMessageIsRefused) {
  Analysed A = analyse(R"(
void f(void) {
  int buf = 0, rank, numprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
  if (rank == 0) {
    for (int dest = 0; dest < numprocs; dest++) {
      if (dest != 0) {
        MPI_Send(&buf, 1, MPI_INT, dest, 0, MPI_COMM_WORLD);
        buf++;
      }
    }
  } else {
    MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  ASSERT_EQ(C.Refusals.size(), 1u) << reasons(C);
  EXPECT_EQ(C.Refusals[0].Check, SafetyCheck::MessageIntegrity);
}

// Listing 2 as printed: `(rank - 1) % numtasks` is -1 on rank 0.
TEST(ManualCollectiveTest, Listing2NegativeRemainderIsCaught) {
  Analysed A = analyse(R"(
void f(void) {
  int x = 0, rank, numtasks, master_task = 2, tag = 1;
  MPI_Status Stat;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  if (rank == master_task) {
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, (rank - 1) % numtasks, tag, MPI_COMM_WORLD, &Stat);
  } else {
    MPI_Recv(&x, 1, MPI_INT, (rank - 1) % numtasks, tag, MPI_COMM_WORLD, &Stat);
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
  }
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_EQ(C.Topology, ManualTopology::Ring);
  ASSERT_TRUE(refusedBy(C, SafetyCheck::ScaleIndependence)) << reasons(C);
  EXPECT_NE(reasons(C).find("receives from rank -1"), std::string::npos)
      << reasons(C);
}

// The same ring with a correct predecessor is a proven broadcast whose
// root's closing receive and every forwarding send go away.
TEST(ManualCollectiveTest, ClosedRingIsSafe) {
  Analysed A = analyse(R"(
void f(void) {
  int x = 0, rank, numtasks, master_task = 0, tag = 1;
  MPI_Status Stat;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &numtasks);
  int prev = (rank + numtasks - 1) % numtasks;
  if (rank == master_task) {
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &Stat);
  } else {
    MPI_Recv(&x, 1, MPI_INT, prev, tag, MPI_COMM_WORLD, &Stat);
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % numtasks, tag, MPI_COMM_WORLD);
  }
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_TRUE(C.isSafe()) << reasons(C);
  EXPECT_EQ(C.Topology, ManualTopology::Ring);
  // One call for every rank, instead of the whole guard.
  ASSERT_TRUE(C.Region.has_value());
  ASSERT_EQ(C.Region->Placements.size(), 1u);
  EXPECT_TRUE(C.Region->Placements[0].Replace);
  EXPECT_EQ(C.Region->Placements[0].Anchor,
            C.Region->Block->body_begin()[C.Region->First]);
}

// A size written twice, and a size from another communicator.
TEST(ManualCollectiveTest, ScaleIndependenceFollowsTheSize) {
  Analysed A = analyse(R"(
void f(int *v, MPI_Comm other) {
  int rank, size, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_size(other, &n);
  size = size - 1;
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(v, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 0) {
    for (int i = 1; i < n; i++)
      MPI_Send(v, 1, MPI_INT, i, 1, MPI_COMM_WORLD);
  } else {
    MPI_Recv(v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
void g(int *v, MPI_Comm c) { f(v, c); }
)");
  ASSERT_EQ(A.Found.size(), 2u);
  for (const ManualCollective &C : A.Found)
    EXPECT_TRUE(refusedBy(C, SafetyCheck::ScaleIndependence)) << reasons(C);
  EXPECT_NE(reasons(A.Found[1]).find("is set by MPI_Comm_size on 'other'"),
            std::string::npos)
      << reasons(A.Found[1]);
}

// An in-place allgather, and the wait point of its nonblocking form: past
// the computation, before the first use of the table.
TEST(ManualCollectiveTest, AllgatherInPlaceAndItsWaitPoint) {
  Analysed A = analyse(R"(
void f(void) {
  int rank, size;
  long table[64];
  int other = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  table[rank] = rank;
  for (int p = 0; p < size; p++)
    if (p != rank)
      MPI_Sendrecv(table + rank, 1, MPI_LONG, p, 0, table + p, 1, MPI_LONG, p,
                   0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  other = other + 1;
  table[0] += other;
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_TRUE(C.isSafe()) << reasons(C);
  EXPECT_EQ(C.Kind, ManualKind::Allgather);
  ASSERT_TRUE(C.Region.has_value());
  EXPECT_TRUE(C.Region->InPlace);
  ASSERT_TRUE(C.Wait.has_value());
  ASSERT_NE(C.Wait->Before, nullptr);
  EXPECT_EQ(C.Wait->Reason, "this statement uses 'table'");
}

// A call inside the loop may write the message; a call after it stops the
// wait of a buffer whose address escaped.
TEST(ManualCollectiveTest, OpaqueCallsAreConservative) {
  Analysed A = analyse(R"(
void keep(int *);
void f(void) {
  int rank, size, v[2] = {0, 0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  keep(v);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(v, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(v, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  compute();
  v[0] = 1;
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_TRUE(C.isSafe()) << reasons(C);
  ASSERT_TRUE(C.Wait.has_value());
  EXPECT_EQ(C.Wait->Reason,
            "this call may reach the buffer, which is not a private local "
            "object");
}

// Listing 7, HPL's polling chain broadcast, with the caller's loop. As
// printed, the function stores HPL_SUCCESS after the if/else whatever the
// probe said, so the loop would stop before the message is there: refused.
// With the "keep testing" path returning early it is proven.
const char *const Listing7 = R"(
enum { HPL_KEEP_TESTING = 1, HPL_SUCCESS = 0 };
static int HPL_bcast_test(int *buf, int count, int root, int *IFLAG) {
  int rank, size, go;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next_task = (rank + 1) % size, recv_task = (rank + size - 1) % size;
  if (rank == root) {
    ROOT_GUARD MPI_Send(buf, count, MPI_INT, next_task, 7, MPI_COMM_WORLD);
  } else {
    MPI_Iprobe(recv_task, 7, MPI_COMM_WORLD, &go, MPI_STATUS_IGNORE);
    if (go != 0) {
      MPI_Recv(buf, count, MPI_INT, recv_task, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      if (next_task != root)
        MPI_Send(buf, count, MPI_INT, next_task, 7, MPI_COMM_WORLD);
    } else { *IFLAG = HPL_KEEP_TESTING; KEEP_GOING } }
  *IFLAG = HPL_SUCCESS; return (*IFLAG); }
void HPL_bcast(int *panel) {
  int buf[16], test = HPL_KEEP_TESTING;
  while (test == HPL_KEEP_TESTING) {
    compute();
    (void)HPL_bcast_test(buf, 16, 0, &test);
  }
  panel[0] = buf[0];
}
)";

/// Listing 7 with \p KeepGoing after the "keep testing" store and
/// \p RootGuard before the root's send.
std::string listing7(const char *KeepGoing, const char *RootGuard) {
  std::string Code = Listing7;
  Code.replace(Code.find("KEEP_GOING"), 10, KeepGoing);
  Code.replace(Code.find("ROOT_GUARD"), 10, RootGuard);
  return Code;
}

// As printed, the listing also sends to itself when it runs alone (HPL
// does not call it then), like Listing 2's ring.
TEST(ManualCollectiveTest, Listing7AsPrintedStopsPollingTooEarly) {
  Analysed A = analyse(listing7("", ""), "HPL_bcast_test");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  ASSERT_TRUE(C.Polling.has_value());
  ASSERT_EQ(C.Refusals.size(), 2u) << reasons(C);
  EXPECT_EQ(C.Refusals[0].Check, SafetyCheck::ScaleIndependence);
  EXPECT_EQ(C.Refusals[0].Reason,
            "at 1 process, rank 0 sends to rank 0 (tag 7, 12 bytes), and no "
            "receive takes the message");
  EXPECT_EQ(C.Refusals[1].Check, SafetyCheck::PollingLoop);
  EXPECT_NE(C.Refusals[1].Reason.find("reports 0 while waiting, 0 once it "
                                      "has arrived and 0 on the root"),
            std::string::npos)
      << reasons(C);
}

TEST(ManualCollectiveTest, Listing7WithItsEarlyReturnIsSafe) {
  Analysed A =
      analyse(listing7("return *IFLAG;", "if (size > 1)"), "HPL_bcast_test");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  ASSERT_TRUE(C.Polling.has_value());
  EXPECT_TRUE(C.isSafe()) << reasons(C);
  EXPECT_EQ(C.Polling->Probe->getDirectCallee()->getName(), "MPI_Iprobe");
  // The receive goes with the forwarding send: the block that holds only
  // them; the root's send is where its call goes.
  ASSERT_EQ(C.Polling->Removed.size(), 1u);
  EXPECT_EQ(C.Polling->Removed[0], C.Polling->Arrived->getThen());
  ASSERT_TRUE(C.Polling->RootSend);
  EXPECT_EQ(C.Polling->RootSend, C.RootStmt);
  EXPECT_TRUE(llvm::isa<clang::IfStmt>(C.Polling->RootSend));
}

// The caller reads the buffer between two probes: refused.
TEST(ManualCollectiveTest, Listing7CallerTouchingTheBufferIsRefused) {
  std::string Code = listing7("return *IFLAG;", "if (size > 1)");
  Code.replace(Code.find("compute();"), 10, "panel[1] += buf[1];");
  Analysed A = analyse(Code, "HPL_bcast_test");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_TRUE(refusedBy(C, SafetyCheck::MessageIntegrity)) << reasons(C);
  EXPECT_FALSE(refusedBy(C, SafetyCheck::PollingLoop)) << reasons(C);
}

TEST(ManualCollectiveTest, RankFromAnUnseenCallerIsAssumedToSayWhatItIs) {
  // 'rank' and 'size' come from callers this unit does not see: taken as
  // the rank and the size, the region is a broadcast, and it is refused by
  // input-independence, naming both; nothing is rewritten.
  Analysed A = analyse(R"(
void f(int *v, int rank, int size) {
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(v, 4, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)");
  ASSERT_EQ(A.Found.size(), 1u);
  const ManualCollective &C = A.Found[0];
  EXPECT_EQ(C.Kind, ManualKind::Bcast);
  EXPECT_FALSE(C.Region);
  ASSERT_EQ(C.Refusals.size(), 1u) << reasons(C);
  EXPECT_TRUE(refusedBy(C, SafetyCheck::InputIndependence)) << reasons(C);
  EXPECT_NE(C.Refusals[0].Reason.find(
                "only if 'rank' and 'size' are the rank and the size"),
            std::string::npos)
      << reasons(C);
}

} // namespace
