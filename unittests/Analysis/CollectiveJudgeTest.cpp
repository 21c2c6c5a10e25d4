//===- CollectiveJudgeTest.cpp - Which collective a region implements -----===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The judge on hand-written collectives in many spellings, and on
/// patterns that look like collectives but are not: the verdict, the
/// refusing check, and the expressions the rewrite would use.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "CollectiveJudge.h"

#include "clang/Lex/Lexer.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using mpilift::analysis::test::Parsed;
using mpilift::analysis::test::text;

namespace {

/// "bcast root=root count=n buffer=buf", or "check: reason". The region
/// is the body's statements with MPI calls, or \p First to \p Last.
std::string judge(const char *Code, bool CXX = false, int First = -1,
                  int Last = -1) {
  Parsed P(Code, CXX);
  std::optional<Region> R =
      First < 0 ? P.communicationRegion("f") : P.bodyRegion("f", First, Last);
  if (!R)
    return "no region";
  Verdict V = judgeRegion(*P.TU, *R);
  const clang::ASTContext &Ctx = P.AST->getASTContext();
  if (!V.Proof) {
    if (V.Refusals.empty())
      return "nothing";
    return checkName(V.Refusals[0].Check).str() + ": " + V.Refusals[0].Reason;
  }
  const RegionProof &Pr = *V.Proof;
  std::string Out = collectiveNoun(Pr.Kind).str();
  if (Pr.Root)
    Out += " root=" + text(Pr.Root, Ctx);
  else if (Pr.RootConstant)
    Out += " root=#" + std::to_string(*Pr.RootConstant);
  Out += " count=" + (Pr.Count ? text(Pr.Count, Ctx)
                               : "#" + std::to_string(*Pr.CountConstant));
  if (Pr.Buffer)
    Out += " buffer=" + text(Pr.Buffer, Ctx);
  if (Pr.SendBuffer)
    Out += " send=" + spellBuffer(text(Pr.SendBuffer, Ctx), Pr.SendSpelling);
  if (Pr.RecvBuffer)
    Out += " recv=" + spellBuffer(text(Pr.RecvBuffer, Ctx), Pr.RecvSpelling);
  if (!Pr.Op.empty())
    Out += " op=" + Pr.Op;
  if (Pr.InPlace)
    Out += " in-place";
  if (Pr.Counts)
    Out +=
        " counts=" + text(Pr.Counts, Ctx) + " displs=" + text(Pr.Displs, Ctx);
  if (getenv("SHOW_PLACEMENTS"))
    for (const Placement &Pl : Pr.Placements)
      fprintf(stderr, "  placed at line %u %s%s: %s\n",
              Ctx.getSourceManager().getPresumedLineNumber(
                  Pl.Anchor->getBeginLoc()),
              Pl.Root ? "root " : "", Pl.Others ? "others" : "",
              Pl.Anchor->getStmtClassName());
  return Out;
}

TEST(CollectiveJudgeTest, StarFromZeroSkippingTheRoot) {
  EXPECT_EQ(judge(R"(
void f(int *data, int n) {
  int rank, size, i;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (i = 0; i < size; i++)
      if (i != rank)
        MPI_Send(data, n, MPI_INT, i, 7, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, n, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
void g(int *d) { f(d, 16); }
int main(void) { return 0; }
)"),
            "broadcast root=0 count=n buffer=data");
}

TEST(CollectiveJudgeTest, ChainInGuardPairs) {
  EXPECT_EQ(judge(R"(
void f(double *buf) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0)
    MPI_Recv(buf, 8, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  if (rank < size - 1)
    MPI_Send(buf, 8, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
}
)"),
            "broadcast root=0 count=8 buffer=buf");
}

TEST(CollectiveJudgeTest, BinomialTreeFromAnyRoot) {
  EXPECT_EQ(judge(R"(
void f(int *buf, int count, int root, MPI_Comm comm) {
  int rank, size, mask = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int rel = (rank - root + size) % size;
  while (mask < size) {
    if (rel & mask) {
      MPI_Recv(buf, count, MPI_INT, (rank - mask + size) % size, 1, comm,
               MPI_STATUS_IGNORE);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < size)
      MPI_Send(buf, count, MPI_INT, (rank + mask) % size, 1, comm);
    mask >>= 1;
  }
}
void caller(int *b, int r) { f(b, 5, r, MPI_COMM_WORLD); }
void top(int *b) { caller(b, 2); }
int main(void) { return 0; }
)"),
            "broadcast root=root count=count buffer=buf");
}

TEST(CollectiveJudgeTest, ScatterWithOwnBlockCopied) {
  EXPECT_EQ(judge(R"(
void f(int *all, int *mine) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    memcpy(mine, all, 2 * sizeof(int));
    for (int i = 1; i < size; i++)
      MPI_Send(all + 2 * i, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(mine, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "scatter root=0 count=2 send=all recv=mine");
}

// Blocks of different sizes: the v form, with the program's arrays of
// counts and displacements, and each other rank's own count.
TEST(CollectiveJudgeTest, GatherOfUnequalBlocksIsAVectorForm) {
  EXPECT_EQ(judge(R"(
void *malloc(unsigned long);
void f(int *mine, int *all) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *counts = malloc(size * sizeof(int));
  int *displs = malloc(size * sizeof(int));
  int total = 0;
  for (int p = 0; p < size; p++) {
    counts[p] = 1 + p % 3;
    displs[p] = total;
    total += counts[p];
  }
  if (rank == 0) {
    for (int p = 1; p < size; p++)
      MPI_Recv(all + displs[p], counts[p], MPI_INT, p, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  } else {
    MPI_Send(mine, counts[rank], MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
}
)"),
            "gather root=0 count=counts[rank] send=mine recv=all "
            "counts=counts displs=displs");
}

// The same without arrays: MPI_Gatherv would need them; refused, saying so.
TEST(CollectiveJudgeTest, VectorFormWithoutArraysIsRefused) {
  EXPECT_EQ(judge(R"(
void f(int *mine, int *all) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    int at = 0;
    for (int p = 1; p < size; p++) {
      MPI_Recv(all + at, 1 + p % 3, MPI_INT, p, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      at += 1 + p % 3;
    }
  } else {
    MPI_Send(mine, 1 + rank % 3, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
}
)"),
            "matching-arguments: the ranks' blocks differ in size or are not "
            "in rank order, and no int array in scope at the pattern's start "
            "holds, at the root, every other rank's count, which MPI_Gatherv "
            "takes");
}

// Blocks that overlap at the root make MPI_Scatterv erroneous.
TEST(CollectiveJudgeTest, OverlappingBlocksAreRefused) {
  EXPECT_EQ(judge(R"(
void f(int *all, int *mine) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(all + i, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(mine, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "matching-arguments: at 3 processes, the root's blocks for ranks 1 "
            "and 2 overlap; MPI_Scatterv reads no location twice");
}

TEST(CollectiveJudgeTest, RingAllgatherWithSendrecv) {
  EXPECT_EQ(judge(R"(
void f(int *blocks, int n) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int step = 0; step < size - 1; step++) {
    int out = (rank - step + size) % size;
    int in = (rank - step - 1 + size) % size;
    MPI_Sendrecv(blocks + out * 4, 4, MPI_INT, right, 3,
                 blocks + in * 4, 4, MPI_INT, left, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
}
)"),
            "allgather count=4 recv=blocks in-place");
}

TEST(CollectiveJudgeTest, PairwiseAlltoallWithItsOwnBlockCopied) {
  // The region holds the copy of the rank's own block before the loop.
  EXPECT_EQ(judge(R"(
void f(int *src, int *dst) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memcpy(dst + rank * 2, src + rank * 2, 2 * sizeof(int));
  for (int k = 1; k < size; k++) {
    int to = (rank + k) % size, from = (rank - k + size) % size;
    MPI_Sendrecv(src + to * 2, 2, MPI_INT, to, 9, dst + from * 2, 2, MPI_INT,
                 from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)",
                  false, 3, 4),
            "alltoall count=2 send=src recv=dst");
  // Without it, MPI_Alltoall would write the block the loop leaves alone.
  EXPECT_EQ(judge(R"(
void f(int *src, int *dst) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int k = 1; k < size; k++) {
    int to = (rank + k) % size, from = (rank - k + size) % size;
    MPI_Sendrecv(src + to * 2, 2, MPI_INT, to, 9, dst + from * 2, 2, MPI_INT,
                 from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "message-integrity: at 3 processes, rank 0 leaves its own block "
            "alone and copies nothing there; the collective would write it");
}

TEST(CollectiveJudgeTest, NonblockingGatherWithWaitall) {
  EXPECT_EQ(judge(R"(
void f(long *table, long *mine) {
  int rank, size;
  MPI_Request reqs[128];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Irecv(table + 3 * i, 3, MPI_LONG, i, 0, MPI_COMM_WORLD,
                &reqs[i - 1]);
    MPI_Waitall(size - 1, reqs, MPI_STATUSES_IGNORE);
  } else {
    MPI_Send(mine, 3, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  }
}
)"),
            "gather root=0 count=3 send=mine recv=table");
}

TEST(CollectiveJudgeTest, SubsetIsRefused) {
  EXPECT_EQ(judge(R"(
void f(int *data) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size - 1; i++)
      MPI_Send(data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else if (rank < size - 1) {
    MPI_Recv(data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "scale-independence: at 3 processes the messages form a broadcast "
            "over 2 of them; rank 2 takes no part");
}

// Senders and receivers that disagree on the root: no message finds its
// partner, but each receive pairs with the one send addressed to its rank,
// and then the messages form a broadcast.
TEST(CollectiveJudgeTest, RootsThatDisagreeAreRefusedByMatchingArguments) {
  EXPECT_EQ(judge(R"(
void f(int *data) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int leader = size - 1;
  if (rank == leader) {
    for (int i = 0; i < size; i++)
      if (i != leader)
        MPI_Send(data, 2, MPI_INT, i, 5, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "matching-arguments: at 3 processes, rank 0 waits for a message "
            "from rank 0 (source '0', tag 5), and the one sent to it comes "
            "from rank 2; the ranks do not agree on who sends to whom");
}

// A loop bound one short: a receive that nothing sends to stays a
// scale-independence refusal, even though the rest resembles a broadcast.
TEST(CollectiveJudgeTest, MessageThatNeverComesIsScaleDependent) {
  EXPECT_EQ(judge(R"(
void f(int *data) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size - 1; i++)
      MPI_Send(data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "scale-independence: at 3 processes, rank 2 waits for a message "
            "from rank 0 (tag 0, 4 bytes) that never comes");
}

TEST(CollectiveJudgeTest, PowersOfTwoOnlyIsRefusedAtTheFirstFailingSize) {
  EXPECT_EQ(judge(R"(
void f(int *buf) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int mask = 1; mask < size; mask <<= 1) {
    int partner = rank ^ mask;
    MPI_Sendrecv(buf + rank, 1, MPI_INT, partner, 0, buf + partner, 1,
                 MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "scale-independence: at 3 processes, rank 1 sends to rank 3, "
            "which does not exist");
}

TEST(CollectiveJudgeTest, ValueChangedAtEveryHopIsNoBroadcast) {
  std::string V = judge(R"(
void f(int *x) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0)
    MPI_Recv(x, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  x[0] += 1;
  if (rank < size - 1)
    MPI_Send(x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
}
)");
  EXPECT_EQ(V, "message-integrity: this statement changes what 'x' points to "
               "after it was received and before it is sent again, so the "
               "messages do not all carry the same data");
}

TEST(CollectiveJudgeTest, RootFromInputIsRefused) {
  EXPECT_EQ(judge(R"(
int atoi(const char *);
void f(int *data, char **argv) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = atoi(argv[1]);
  if (rank == root) {
    for (int i = 0; i < size; i++)
      if (i != root)
        MPI_Send(data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 1, MPI_INT, root, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)"),
            "input-independence: the condition 'rank == root' cannot be "
            "evaluated: the result of a call of 'atoi'");
}

//===-- Reductions
//---------------------------------------------------------===//

TEST(CollectiveJudgeTest, StarThatAddsUpIsAReduce) {
  EXPECT_EQ(judge(R"(
void f(void) {
  int rank, size, src;
  long local, total, tmp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  local = 3 * rank + 1;
  if (rank != 0) {
    MPI_Send(&local, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  } else {
    total = local;
    for (src = 1; src < size; src++) {
      MPI_Recv(&tmp, 1, MPI_LONG, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total += tmp;
    }
    printf("%ld\n", total);
  }
}
)"),
            "reduction root=0 count=1 send=&local recv=&total op=MPI_SUM");
}

TEST(CollectiveJudgeTest, RootValueComputedFromItsOwnIsNoCopyOfIt) {
  // `total = local + 1000` is not `local`, though neither value is known
  // (an earlier version took it for a copy, sent &local from the root too
  // and lost the 1000). The root's statement stays where it is and the root
  // reduces in place, after it (test/check/reduce-root-offset.c has the
  // same with the loop after the branch). Until the root was chosen among
  // the values a call spells, `total` (0 where the pattern starts) was
  // taken for the root, and the write of it refused the region.
  EXPECT_EQ(judge(R"(
long f(long local) {
  int rank, size, src;
  long total = 0, tmp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    MPI_Send(&local, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
  } else {
    total = local + 1000;
    for (src = 1; src < size; src++) {
      MPI_Recv(&tmp, 1, MPI_LONG, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total += tmp;
    }
  }
  return total;
}
)"),
            "reduction root=0 count=1 send=&local recv=&total op=MPI_SUM "
            "in-place");
}

TEST(CollectiveJudgeTest, ChainPassingThePrefixBeforeItsOwnIsAnExscan) {
  // Rank 0 holds 0 and passes `0 + mine`, its own value unchanged; the
  // rewrite sets rank 0's result to 0 again after MPI_Exscan.
  const char *Code = R"(
void f(long mine, long *start) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *start = START;
  if (rank > 0)
    MPI_Recv(start, 1, MPI_LONG, rank - 1, 4, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  if (rank < size - 1) {
    long next = *start + mine;
    MPI_Send(&next, 1, MPI_LONG, rank + 1, 4, MPI_COMM_WORLD);
  }
}
)";
  std::string Zero = std::string("#define START 0\n") + Code;
  EXPECT_EQ(judge(Zero.c_str()),
            "exclusive scan count=1 send=&mine recv=start op=MPI_SUM");
  // Rank 0 passes 64 + mine: no rank's own value, no MPI_Exscan.
  std::string Header = std::string("#define START 64\n") + Code;
  EXPECT_EQ(judge(Header.c_str()),
            "matching-arguments: no expression in scope at the pattern's "
            "start has the value of the buffer each rank contributes on "
            "every rank at every size");
}

TEST(CollectiveJudgeTest, ChainPassingARunningValueIsAScan) {
  EXPECT_EQ(judge(R"(
void f(int mine) {
  int rank, size, before, upto;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank > 0) {
    MPI_Recv(&before, 1, MPI_INT, rank - 1, 4, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    upto = before < mine ? mine : before;
  } else {
    upto = mine;
  }
  if (rank < size - 1)
    MPI_Send(&upto, 1, MPI_INT, rank + 1, 4, MPI_COMM_WORLD);
  printf("%d\n", upto);
}
)"),
            "scan count=1 send=&mine recv=&upto op=MPI_MAX");
}

TEST(CollectiveJudgeTest, RingWhoseBuffersStartAsCopiesIsAnAllreduce) {
  EXPECT_EQ(judge(R"(
long f(long mine) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long total = mine, passing = mine, incoming;
  for (int step = 1; step < size; ++step) {
    MPI_Sendrecv(&passing, 1, MPI_LONG, (rank + 1) % size, 1, &incoming, 1,
                 MPI_LONG, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    total ^= incoming;
    passing = incoming;
  }
  return total;
}
)",
                  false, 4, 4),
            "allreduce count=1 send=&mine recv=&total op=MPI_BXOR");
}

TEST(CollectiveJudgeTest, RingThatPassesOnWhatItAddedUpIsNoAllreduce) {
  // Passing the running total on adds the early values again and again.
  EXPECT_EQ(judge(R"(
long f(long mine) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long total = mine, incoming;
  for (int step = 1; step < size; ++step) {
    MPI_Sendrecv(&total, 1, MPI_LONG, (rank + 1) % size, 1, &incoming, 1,
                 MPI_LONG, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    total += incoming;
  }
  return total;
}
)",
                  false, 4, 4),
            "message-integrity: at 3 processes, process 0 combines some "
            "process's data more than once");
}

TEST(CollectiveJudgeTest, FloatingPointSumIsRefusedByReductionOrder) {
  EXPECT_EQ(judge(R"(
void f(void) {
  int rank, size, src;
  double local = 1.5, total, tmp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    total = local;
    for (src = 1; src < size; src++) {
      MPI_Recv(&tmp, 1, MPI_DOUBLE, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total += tmp;
    }
    printf("%f\n", total);
  } else {
    MPI_Send(&local, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
}
)"),
            "reduction-order: a sum of 'double' values rounds differently "
            "when MPI combines them in another order than this code does; "
            "--allow-reassociation accepts results that may differ in the "
            "last bits");
}

TEST(CollectiveJudgeTest, DatatypeOfAnotherTypeIsRefused) {
  EXPECT_EQ(judge(R"(
void f(void) {
  int rank, size, src;
  long local = 7, total, tmp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    total = local;
    for (src = 1; src < size; src++) {
      MPI_Recv(&tmp, 8, MPI_CHAR, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      total += tmp;
    }
    printf("%ld\n", total);
  } else {
    MPI_Send(&local, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }
}
)"),
            "matching-arguments: the messages' datatype 'MPI_CHAR' is not the "
            "predefined datatype of the values the region combines ('long'), "
            "which MPI's reduction needs");
}

} // namespace
