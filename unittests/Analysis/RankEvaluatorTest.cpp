//===- RankEvaluatorTest.cpp - A region's communication per rank ----------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rank-space evaluator on small functions: which operations each rank
/// records, and what stops a run. The region is the range of the body's
/// statements that hold MPI calls.
///
//===----------------------------------------------------------------------===//

#include "EvalPrelude.h"

#include "RankEvaluator.h"

#include "gtest/gtest.h"

using namespace mpilift::analysis;
using mpilift::analysis::test::Parsed;

namespace {

/// "send 1 8B tag 3 @x+0" for each op.
std::string describe(const RankRun &Run) {
  std::string Out;
  for (const RankOp &Op : Run.Ops) {
    if (!Out.empty())
      Out += "; ";
    const char *Kind = Op.K == RankOp::Kind::Send   ? "send"
                       : Op.K == RankOp::Kind::Recv ? "recv"
                                                    : "local";
    Out += std::string(Kind) + (Op.SelfCopy ? "-self" : "");
    if (Op.K != RankOp::Kind::Local)
      Out += " " + std::to_string(Op.Peer);
    Out += " " + std::to_string(Op.Bytes) + "B";
    if (Op.K != RankOp::Kind::Local && !Op.SelfCopy)
      Out += " tag " + std::to_string(Op.Tag);
    Out += " @" + Run.Objects[Op.Object].Name + "+" + std::to_string(Op.Offset);
  }
  return Out;
}

std::string runAt(const char *Code, int64_t Rank, int64_t Size,
                  std::vector<int64_t> Setting = {}) {
  Parsed P(Code);
  std::optional<Region> R = P.communicationRegion("f");
  if (!R)
    return "no region";
  RankEvaluator E(*P.TU, *R);
  RankRun Run = E.run(Rank, Size, Setting);
  if (Run.Stopped)
    return "stopped: " + Run.Stopped->Text;
  return describe(Run);
}

TEST(RankEvaluatorTest, StarBroadcastWithSkip) {
  const char *Code = R"(
void f(void) {
  int rank, size, data[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 0; i < size; i++)
      if (i != rank)
        MPI_Send(data, 4, MPI_INT, i, 7, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)";
  EXPECT_EQ(runAt(Code, 0, 3),
            "send 1 16B tag 7 @'data'+0; send 2 16B tag 7 @'data'+0");
  EXPECT_EQ(runAt(Code, 2, 3), "recv 0 16B tag 7 @'data'+0");
  EXPECT_EQ(runAt(Code, 0, 1), "");
}

TEST(RankEvaluatorTest, ChainWithNeighboursFromRank) {
  const char *Code = R"(
void f(double *buf, int n) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = rank - 1;
  if (left < 0)
    left = MPI_PROC_NULL;
  if (rank > 0)
    MPI_Recv(buf, 8, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank < size - 1)
    MPI_Send(buf, 8, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
}
)";
  EXPECT_EQ(runAt(Code, 0, 3), "send 1 64B tag 0 @what 'buf' points to+0");
  EXPECT_EQ(runAt(Code, 1, 3), "recv 0 64B tag 0 @what 'buf' points to+0; "
                               "send 2 64B tag 0 @what 'buf' points to+0");
}

TEST(RankEvaluatorTest, BinomialTreeWithMaskLoops) {
  const char *Code = R"(
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
void caller(int *b) { f(b, 5, 2, MPI_COMM_WORLD); }
int main(void) { return 0; }
)";
  // root and count are inputs; the setting gives root 2 and count 5.
  EXPECT_EQ(runAt(Code, 2, 5, {5, 2}),
            "send 1 20B tag 1 @what 'buf' points to+0; "
            "send 4 20B tag 1 @what 'buf' points to+0; "
            "send 3 20B tag 1 @what 'buf' points to+0");
  EXPECT_EQ(runAt(Code, 3, 5, {5, 2}),
            "recv 2 20B tag 1 @what 'buf' points to+0");
}

TEST(RankEvaluatorTest, NonblockingStarWithWaitall) {
  const char *Code = R"(
void f(int *data, int n) {
  int rank, size;
  MPI_Request reqs[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Isend(data, 4, MPI_INT, i, 0, MPI_COMM_WORLD, &reqs[i - 1]);
    MPI_Waitall(size - 1, reqs, MPI_STATUSES_IGNORE);
  } else {
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)";
  EXPECT_EQ(runAt(Code, 0, 3), "send 1 16B tag 0 @what 'data' points to+0; "
                               "send 2 16B tag 0 @what 'data' points to+0");
}

TEST(RankEvaluatorTest, CopyIntoASendBufferIsASelfCopy) {
  const char *Code = R"(
void f(int *all, int *packed) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    memcpy(packed, all, 2 * sizeof(int));
    for (int i = 1; i < size; i++)
      MPI_Send(packed, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(packed, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)";
  EXPECT_EQ(runAt(Code, 0, 2), "send-self 0 8B @what 'all' points to+0; "
                               "recv-self 0 8B @what 'packed' points to+0; "
                               "send 1 8B tag 0 @what 'packed' points to+0");
  // A copy between objects that hold no message of the rank is left out.
  const char *Elsewhere = R"(
void f(int *all, int *mine, int *a, int *b) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    memcpy(a, b, 2 * sizeof(int));
    for (int i = 1; i < size; i++)
      MPI_Send(all + 2 * i, 2, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(mine, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)";
  EXPECT_EQ(runAt(Elsewhere, 0, 2), "send 1 8B tag 0 @what 'all' points to+8");
}

/// A broadcast from the root \p RootInit gives, which comes from a call
/// the evaluator cannot follow.
std::string starFromUnknownRoot(const char *RootInit) {
  return std::string(R"(
int read_root(void);
void f(int *data) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int root = )") +
         RootInit + R"(;
  if (rank == root) {
    for (int i = 0; i < size; i++)
      if (i != root)
        MPI_Send(data, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(data, 1, MPI_INT, root, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
)";
}

// A named constant is its value wherever it is declared: a namespace's
// `constexpr`, a `static const` member.
TEST(RankEvaluatorTest, ConstantsAreTheirValues) {
  Parsed P(R"(
namespace {
constexpr int kTag = 42;
}
struct Sizes {
  static const int kCount = 6;
};
void f(int *data) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    MPI_Send(data, Sizes::kCount, MPI_INT, 1, kTag, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(data, Sizes::kCount, MPI_INT, 0, kTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}
)",
           /*CXX=*/true);
  std::optional<Region> R = P.communicationRegion("f");
  ASSERT_TRUE(R);
  RankRun Run = RankEvaluator(*P.TU, *R).run(0, 2, {});
  ASSERT_FALSE(Run.Stopped) << Run.Stopped->Text;
  EXPECT_EQ(describe(Run), "send 1 24B tag 42 @what 'data' points to+0");
}

// Before the region, a loop that writes what the region reads runs with
// its init (the init alone writes nothing the region reads).
TEST(RankEvaluatorTest, LoopBeforeTheRegionRunsWithItsInit) {
  const char *Code = R"(
void f(void) {
  int rank, size, n = 0;
  int data[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; i++)
    n += 2;
  if (rank == 0)
    MPI_Send(data, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(data, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
)";
  EXPECT_EQ(runAt(Code, 1, 2), "recv 0 6B tag 0 @'data'+0");
}

// A variable initialized from an lvalue takes its value, not its address
// (`int me = w.me;` once gave a pointer, and the region moved nothing).
TEST(RankEvaluatorTest, InitializerLoadsItsValue) {
  const char *Code = R"(
struct world { int me, np; };
void f(void) {
  struct world w;
  int data[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &w.me);
  MPI_Comm_size(MPI_COMM_WORLD, &w.np);
  int me = w.me;
  int last = w.np - 1;
  if (me == 0)
    MPI_Send(data, 4, MPI_INT, last, 0, MPI_COMM_WORLD);
  else if (me == last)
    MPI_Recv(data, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
)";
  EXPECT_EQ(runAt(Code, 0, 3), "send 2 16B tag 0 @'data'+0");
  EXPECT_EQ(runAt(Code, 2, 3), "recv 0 16B tag 0 @'data'+0");
}

// Counts the region reads through a pointer are made before it: the
// stores through the pointer run, and so does a helper it is passed to.
TEST(RankEvaluatorTest, CountsStoredThroughAPointerAreFollowed) {
  const char *Code = R"(
void *malloc(unsigned long);
static void fill(int *c, int n) {
  for (int p = 0; p < n; p++)
    c[p] += p;
}
void f(void) {
  int rank, size;
  double data[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int *counts = malloc(size * sizeof(int));
  for (int p = 0; p < size; p++)
    counts[p] = 2;
  fill(counts, size);
  if (rank == 0)
    MPI_Send(data, counts[2], MPI_DOUBLE, 2, 0, MPI_COMM_WORLD);
  else if (rank == 2)
    MPI_Recv(data, counts[rank], MPI_DOUBLE, 0, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}
)";
  EXPECT_EQ(runAt(Code, 0, 3), "send 2 32B tag 0 @'data'+0");
  EXPECT_EQ(runAt(Code, 2, 3), "recv 0 32B tag 0 @'data'+0");
}

TEST(RankEvaluatorTest, InputDependencyStops) {
  EXPECT_EQ(runAt(starFromUnknownRoot("read_root()").c_str(), 1, 3),
            "stopped: the condition 'rank == root' cannot be evaluated: the "
            "result of a call of 'read_root'");
}

TEST(RankEvaluatorTest, AssumedVariableIsAnInput) {
  // The run stops inside the statement that computes 'root'.
  Parsed P(starFromUnknownRoot("read_root() > 0 ? 1 : 0"));
  std::optional<Region> R = P.communicationRegion("f");
  ASSERT_TRUE(R);
  // Without the assumption the run stops while computing 'root', and says
  // so: that statement is what the region finder takes as an input.
  RankRun Stopped = RankEvaluator(*P.TU, *R).run(1, 3, {});
  ASSERT_TRUE(Stopped.Stopped);
  const clang::VarDecl *Root = assignedVariable(Stopped.Stopped->During);
  ASSERT_TRUE(Root);
  EXPECT_EQ(Root->getName(), "root");
  // Assumed, 'root' is an input: its computation does not run, and each
  // setting gives it a value.
  R->Assumed.push_back(Root);
  RankEvaluator E(*P.TU, *R);
  ASSERT_EQ(E.inputs().size(), 1u);
  EXPECT_EQ(E.inputs()[0].Name, "'root'");
  RankRun AsRoot = E.run(1, 3, {1});
  ASSERT_FALSE(AsRoot.Stopped);
  EXPECT_EQ(describe(AsRoot), "send 0 4B tag 0 @what 'data' points to+0; "
                              "send 2 4B tag 0 @what 'data' points to+0");
  RankRun Other = E.run(1, 3, {2});
  ASSERT_FALSE(Other.Stopped);
  EXPECT_EQ(describe(Other), "recv 2 4B tag 0 @what 'data' points to+0");
}

TEST(RankEvaluatorTest, RankInClassMembers) {
  const char *Code = R"(
class Exchanger {
public:
  explicit Exchanger(MPI_Comm c) : comm_(c) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }
  void f(double *v) {
    if (rank_ == 0) {
      for (int p = 1; p < nranks_; ++p)
        MPI_Send(v, 3, MPI_DOUBLE, p, 4, comm_);
    } else {
      MPI_Recv(v, 3, MPI_DOUBLE, 0, 4, comm_, MPI_STATUS_IGNORE);
    }
  }
private:
  MPI_Comm comm_;
  int rank_, nranks_;
};
int main(void) { return 0; }
)";
  Parsed P(Code, /*CXX=*/true);
  std::optional<Region> R = P.communicationRegion("f");
  ASSERT_TRUE(R);
  RankEvaluator E(*P.TU, *R);
  RankRun Run = E.run(0, 3, {});
  ASSERT_FALSE(Run.Stopped) << Run.Stopped->Text;
  EXPECT_EQ(describe(Run), "send 1 24B tag 4 @what 'v' points to+0; "
                           "send 2 24B tag 4 @what 'v' points to+0");
}

TEST(RankEvaluatorTest, MethodsThroughThisAndReturnedReferences) {
  // A method called without an object runs on 'this'; one returning a
  // reference returns the place it refers to.
  const char *Code = R"(
class Relay {
public:
  explicit Relay(MPI_Comm c) : comm_(c) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  int &root() { return root_; }
  void plan() { root() = size_ - 1; }
  void f(double *v) {
    plan();
    if (rank_ == root()) {
      for (int p = 0; p < size_; ++p)
        if (p != root_)
          MPI_Send(v, 2, MPI_DOUBLE, p, 4, comm_);
    } else {
      MPI_Recv(v, 2, MPI_DOUBLE, root(), 4, comm_, MPI_STATUS_IGNORE);
    }
  }
private:
  MPI_Comm comm_;
  int rank_, size_, root_;
};
int main(void) { return 0; }
)";
  Parsed P(Code, /*CXX=*/true);
  const clang::FunctionDecl *F = P.function("f");
  ASSERT_TRUE(F);
  const auto *Body = llvm::cast<clang::CompoundStmt>(F->getBody());
  Region R{F, Body, 0, 1, {}};
  RankEvaluator E(*P.TU, R);
  RankRun Root = E.run(2, 3, {});
  ASSERT_FALSE(Root.Stopped) << Root.Stopped->Text;
  EXPECT_EQ(describe(Root), "send 0 16B tag 4 @what 'v' points to+0; "
                            "send 1 16B tag 4 @what 'v' points to+0");
  RankRun Leaf = E.run(0, 3, {});
  ASSERT_FALSE(Leaf.Stopped) << Leaf.Stopped->Text;
  EXPECT_EQ(describe(Leaf), "recv 2 16B tag 4 @what 'v' points to+0");
}

TEST(RankEvaluatorTest, OffsetofIsAConstant) {
  const char *Code = R"(
struct header { int kind; double stamp; char tail[5]; };
void f(char *v) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n = __builtin_offsetof(struct header, tail);
  if (rank == 0)
    MPI_Send(v, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(v, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
)";
  Parsed P(Code);
  std::optional<Region> R = P.communicationRegion("f");
  ASSERT_TRUE(R);
  RankRun Run = RankEvaluator(*P.TU, *R).run(0, 2, {});
  ASSERT_FALSE(Run.Stopped) << Run.Stopped->Text;
  EXPECT_EQ(describe(Run), "send 1 16B tag 0 @what 'v' points to+0");
}

TEST(RankEvaluatorTest, DatatypeParameterFromItsCallers) {
  // Every caller passes MPI_DOUBLE: the parameter is that datatype. A
  // caller passing another one leaves it unknown.
  const std::string Helper = R"(
static void share(double *v, MPI_Datatype type, int rank, int size) {
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Send(v, 2, type, i, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(v, 2, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
void run(double *v, double *w) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  share(v, MPI_DOUBLE, rank, size);
)";
  Parsed Same(Helper + "  share(w, MPI_DOUBLE , rank, size);\n}\n");
  std::optional<Region> R = Same.communicationRegion("share");
  ASSERT_TRUE(R);
  RankRun Run = RankEvaluator(*Same.TU, *R).run(0, 3, {});
  ASSERT_FALSE(Run.Stopped) << Run.Stopped->Text;
  EXPECT_EQ(describe(Run), "send 1 16B tag 0 @what 'v' points to+0; "
                           "send 2 16B tag 0 @what 'v' points to+0");
  Parsed Mixed(Helper + "  share(w, MPI_INT, rank, size);\n}\n");
  R = Mixed.communicationRegion("share");
  ASSERT_TRUE(R);
  RankRun Stopped = RankEvaluator(*Mixed.TU, *R).run(0, 3, {});
  ASSERT_TRUE(Stopped.Stopped);
  EXPECT_NE(Stopped.Stopped->Text.find("the datatype 'type'"),
            std::string::npos)
      << Stopped.Stopped->Text;
}

} // namespace

namespace {

/// Whether the run of \p Code's region at (\p Rank, \p Size) reached it, or
/// why it stopped.
std::string reachedAt(const char *Code, int64_t Rank, int64_t Size) {
  Parsed P(Code);
  std::optional<Region> R = P.communicationRegion("f");
  if (!R)
    return "no region";
  RankEvaluator E(*P.TU, *R);
  RankRun Run = E.run(Rank, Size, {});
  if (Run.Stopped)
    return "stopped: " + Run.Stopped->Text;
  return Run.Reached ? "reached" : "left before";
}

} // namespace

// HPL's `if ((size = ...) <= 1) return`: at one process no rank reaches the
// region; the check before it runs although the region needs nothing it
// computes.
TEST(RankEvaluatorTest, EarlyReturnBeforeTheRegion) {
  const char *Code = R"(
struct grid { MPI_Comm comm; int me, np; };
void f(struct grid *g, double *buf, int *flag) {
  int size, rank;
  MPI_Comm_size(g->comm, &size);
  MPI_Comm_rank(g->comm, &rank);
  if (size <= 1) {
    *flag = 1;
    return;
  }
  if (rank == 0)
    MPI_Send(buf, 8, MPI_DOUBLE, 1, 0, g->comm);
  else if (rank == 1)
    MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, g->comm, MPI_STATUS_IGNORE);
}
)";
  EXPECT_EQ(reachedAt(Code, 0, 1), "left before");
  EXPECT_EQ(reachedAt(Code, 0, 2), "reached");
}

// An early return on some ranks only, decided by what the run cannot
// evaluate, stops the run; the same on every rank (a parameter all callers
// pass alike) and undecidable, it is taken as not leaving: all ranks or
// none reach the region.
TEST(RankEvaluatorTest, EarlyReturnUndecided) {
  const char *SomeRanks = R"(
int lookup(int);
void f(double *buf) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (lookup(rank) < 0)
    return;
  if (rank == 0)
    MPI_Send(buf, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
int main(void) { return 0; }
)";
  EXPECT_EQ(reachedAt(SomeRanks, 0, 2).rfind("stopped: ", 0), 0u);
  const char *Alike = R"(
void f(double *buf, int verbose) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (verbose > 3)
    return;
  if (rank == 0)
    MPI_Send(buf, 8, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(buf, 8, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
void g(double *buf) { f(buf, 2); }
int main(void) { return 0; }
)";
  EXPECT_EQ(reachedAt(Alike, 0, 2), "reached");
}
