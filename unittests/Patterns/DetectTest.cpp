//===- DetectTest.cpp - Pattern detection on traces built in memory -------===//
//
// Part of mpilift. Traces as another tracer would give them (no call sites,
// no buffers) and as mpilift gives them (buffers), built event by event:
// the paper's star (n = 8, root 4), what buffers decide, what a root that
// skips one rank or an extra message inside the star does, chains whose
// root rotates, and when results are partial.
//
//===----------------------------------------------------------------------===//

#include "Patterns/SamePatterns.h"

#include "mpilift/Patterns/Detect.h"

#include "gtest/gtest.h"

using namespace mpilift;
using namespace mpilift::patterns;

namespace {

/// A trace of \p Size ranks on one world communicator.
class TraceBuilder {
public:
  explicit TraceBuilder(int Size, bool FromMpilift) {
    T.WorldSize = Size;
    T.FromMpilift = FromMpilift;
    T.Complete = FromMpilift;
    trace::Communicator World;
    World.Name = "MPI_COMM_WORLD";
    for (int R = 0; R < Size; ++R) {
      World.Members.push_back(R);
      T.Ranks.emplace_back();
      T.Ranks.back().Rank = R;
    }
    T.Comms.push_back(World);
  }

  void send(int From, int To, uint64_t Bytes, uint64_t Buffer = 0) {
    add(From, mpi::FunctionId::Send, To, Bytes, Buffer);
  }
  /// A send whose completion the trace does not show (an MPI_Isend never
  /// waited for, as far as the search is concerned).
  void isend(int From, int To, uint64_t Bytes, uint64_t Buffer) {
    add(From, mpi::FunctionId::Isend, To, Bytes, Buffer);
  }
  void recv(int At, int From, uint64_t Bytes, uint64_t Buffer = 0) {
    add(At, mpi::FunctionId::Recv, From, Bytes, Buffer);
  }

  trace::Trace T;

private:
  void add(int Rank, mpi::FunctionId F, int Peer, uint64_t Bytes,
           uint64_t Buffer) {
    trace::Event E;
    E.Function = F;
    E.Comm = 0;
    E.Peer = Peer;
    E.Tag = 1;
    E.Bytes = Bytes;
    E.Buffer = Buffer;
    E.Begin = E.End = ++Clock;
    T.Ranks[Rank].Events.push_back(E);
  }
  uint64_t Clock = 0;
};

/// The star of Figure 3 (n = 8, root 4) \p Iterations times; the root
/// sends from \p RootBuffer(peer), the others receive into 0x1000.
template <typename BufferFn>
void star(TraceBuilder &B, int Root, int Iterations, BufferFn RootBuffer,
          bool WithBuffers) {
  int N = B.T.WorldSize;
  for (int It = 0; It < Iterations; ++It)
    for (int P = 0; P < N; ++P) {
      if (P == Root)
        continue;
      B.send(Root, P, 64, WithBuffers ? RootBuffer(P) : 0);
      B.recv(P, Root, 64, WithBuffers ? 0x1000 : 0);
    }
}

/// \p R found exactly one pattern, of this kind.
void expectOnly(const DetectResult &R, const char *Collective,
                const char *Topology, const char *Evidence) {
  ASSERT_EQ(R.Patterns.size(), 1u);
  EXPECT_EQ(R.Patterns[0].Collective, Collective);
  EXPECT_EQ(R.Patterns[0].Topology, Topology);
  EXPECT_EQ(R.Patterns[0].Evidence, Evidence);
}

uint64_t sameBuffer(int) { return 0x5000; }
uint64_t chunkOfPeer(int P) { return 0x9000 + 64 * uint64_t(P); }

TEST(DetectTest, ForeignStarIsFoundByTemplateButNotClassified) {
  TraceBuilder B(8, /*FromMpilift=*/false);
  star(B, 4, 3, sameBuffer, /*WithBuffers=*/false);
  DetectResult R = detectPatterns(B.T);
  ASSERT_EQ(R.Patterns.size(), 1u);
  const Pattern &P = R.Patterns[0];
  // Without buffers or hashes nothing tells broadcast from scatter.
  EXPECT_EQ(P.Collective, "unknown");
  EXPECT_EQ(P.Topology, "star");
  EXPECT_EQ(P.Root, 4);
  EXPECT_EQ(P.Occurrences, 3u);
  EXPECT_EQ(P.Bytes, 64u);
  EXPECT_EQ(P.Evidence, "template");
  EXPECT_FALSE(R.Partial); // Foreign archives never say they are complete.
}

TEST(DetectTest, BuffersTellBroadcastFromScatter) {
  TraceBuilder Bcast(8, true), Scatter(8, true);
  star(Bcast, 4, 3, sameBuffer, true);
  star(Scatter, 4, 3, chunkOfPeer, true);
  expectOnly(detectPatterns(Bcast.T), "bcast", "star", "both");
  expectOnly(detectPatterns(Scatter.T), "scatter", "star", "both");
}

TEST(DetectTest, ARootThatSkipsARankOnceIsNoPattern) {
  TraceBuilder B(5, true);
  star(B, 0, 1, sameBuffer, true);
  for (int P = 1; P < 5; ++P)
    if (P != 3) { // Rank 3 left out of the second iteration.
      B.send(0, P, 64, 0x5000);
      B.recv(P, 0, 64, 0x1000);
    }
  star(B, 0, 1, sameBuffer, true);
  DetectResult R = detectPatterns(B.T);
  EXPECT_TRUE(R.Patterns.empty()) << R.Patterns[0].Collective;
}

/// A ring broadcast from rank 0 (Listing 2) three times; with \p Detour,
/// rank 2 sends something else between receiving and forwarding.
trace::Trace ring(bool Detour) {
  TraceBuilder B(4, true);
  for (int It = 0; It < 3; ++It)
    for (int V = 0; V < 4; ++V) {
      if (V == 2 && Detour) {
        B.send(2, 0, 8, 0x7000);
        B.recv(0, 2, 8, 0x7100);
      }
      int Next = (V + 1) % 4;
      B.send(V, Next, 64, 0x1000);
      B.recv(Next, V, 64, 0x1000);
    }
  return B.T;
}

TEST(DetectTest, AMessageInsideASlaveRepeatIsNoPattern) {
  expectOnly(detectPatterns(ring(false)), "bcast", "ring", "both");
  // Rank 2 runs R[1], S[0], S[3]: its slave repeat R[1], S[3] is broken.
  DetectResult Detour = detectPatterns(ring(true));
  EXPECT_TRUE(Detour.Patterns.empty())
      << Detour.Patterns[0].Collective << " " << Detour.Patterns[0].Topology;
}

TEST(DetectTest, AMessageBetweenOtherRanksDoesNotBreakAStar) {
  // Rank 2 forwards something to rank 1 after its part of the star: in
  // program order it lies outside every rank's repeat, and replacing the
  // star by a broadcast keeps each rank's order, so the star stands.
  TraceBuilder B(4, true);
  for (int It = 0; It < 3; ++It) {
    B.send(0, 1, 64, 0x5000);
    B.recv(1, 0, 64, 0x1000);
    B.send(0, 2, 64, 0x5000);
    B.recv(2, 0, 64, 0x1000);
    B.send(2, 1, 8, 0x7000);
    B.recv(1, 2, 8, 0x7100);
    B.send(0, 3, 64, 0x5000);
    B.recv(3, 0, 64, 0x1000);
  }
  expectOnly(detectPatterns(B.T), "bcast", "star", "both");
}

/// HPL's broadcast: a chain along the ring 0, 1, ..., n-1 from root It % n
/// in iteration It; with \p StopShort, the last iteration's chain ends one
/// rank early.
trace::Trace rotatingChain(int N, int Iterations, bool WithBuffers,
                           bool StopShort = false) {
  TraceBuilder B(N, WithBuffers);
  uint64_t Buffer = WithBuffers ? 0x1000 : 0;
  for (int It = 0; It < Iterations; ++It) {
    int Root = It % N;
    int Hops = N - 1 - (StopShort && It == Iterations - 1);
    for (int H = 0; H < Hops; ++H) {
      int From = (Root + H) % N, To = (From + 1) % N;
      B.send(From, To, 64, Buffer);
      B.recv(To, From, 64, Buffer);
    }
  }
  return B.T;
}

TEST(DetectTest, AChainWhoseRootRotatesIsOnePattern) {
  // A rank's send as root and as forwarder look alike, so no root's
  // occurrences match the others' in number: each occurrence is grown from
  // its messages instead, and the roots are gathered into one pattern.
  for (int N : {3, 5, 8}) {
    SCOPED_TRACE("n " + std::to_string(N));
    DetectResult R = detectPatterns(rotatingChain(N, 2 * N, true));
    ASSERT_EQ(R.Patterns.size(), 1u) << R.Patterns[0].Topology;
    const Pattern &P = R.Patterns[0];
    EXPECT_EQ(P.Collective, "bcast");
    EXPECT_EQ(P.Topology, "chain");
    EXPECT_EQ(P.Evidence, "both");
    EXPECT_EQ(P.Root, -1);
    std::vector<int> Every(N);
    for (int I = 0; I < N; ++I)
      Every[I] = I;
    EXPECT_EQ(P.Roots, Every);
    EXPECT_EQ(P.Occurrences, 2u * N);
    EXPECT_NE(P.Note.find("root changes"), std::string::npos);
  }
  // Another tracer's archive: found by template, not classified.
  DetectResult Foreign = detectPatterns(rotatingChain(4, 8, false));
  ASSERT_EQ(Foreign.Patterns.size(), 1u);
  EXPECT_EQ(Foreign.Patterns[0].Collective, "unknown");
  EXPECT_EQ(Foreign.Patterns[0].Evidence, "template");
}

TEST(DetectTest, ReleasingTheEventsFindsTheSamePatterns) {
  // A chain whose root changes and a star from a fixed root: the same
  // patterns, whether or not the events go once read.
  TraceBuilder Star(5, true);
  star(Star, 2, 4, sameBuffer, true);
  for (const trace::Trace &Original : {rotatingChain(5, 10, true), Star.T}) {
    trace::Trace Released = Original;
    DetectResult Before = detectPatterns(Original);
    DetectResult After = detectPatternsReleasingEvents(Released);
    ASSERT_EQ(Before.Patterns.size(), 1u);
    testutil::expectSamePatterns(After.Patterns, Before.Patterns);
    ASSERT_EQ(Released.Ranks.size(), 5u);
    for (const trace::RankTrace &R : Released.Ranks) {
      EXPECT_TRUE(R.Events.empty());
      EXPECT_TRUE(R.Requests.empty());
    }
  }
}

TEST(DetectTest, ARotatingChainThatStopsShortOnceIsNoPattern) {
  // The short chain leaves steps of the same calls unexplained; neither the
  // rotating pattern nor fixed-root windows that take their messages from
  // different iterations may stand in for it.
  for (int N : {3, 4, 5}) {
    DetectResult R = detectPatterns(rotatingChain(N, N, true, true));
    EXPECT_TRUE(R.Patterns.empty())
        << "n " << N << ": " << R.Patterns[0].Topology << " root "
        << R.Patterns[0].Root;
  }
}

TEST(DetectTest, StarsFromEveryRootAtOnceAreNoRotatingBroadcast) {
  // Every rank sends its block to all others, then receives from all others
  // in descending order (which the linear all-to-all template does not
  // list). Each root's star grows into a consistent occurrence, but the
  // occurrences interleave: rank 0 finishes its own star before its part of
  // rank 1's, rank 1 the other way round. That is an exchange, not a
  // broadcast whose root changes.
  int N = 4;
  TraceBuilder B(N, true);
  for (int It = 0; It < 2; ++It) {
    for (int R = 0; R < N; ++R)
      for (int P = 0; P < N; ++P)
        if (P != R)
          B.send(R, P, 64, 0x9000 + 64 * uint64_t(P));
    for (int R = 0; R < N; ++R)
      for (int P = N - 1; P >= 0; --P)
        if (P != R)
          B.recv(R, P, 64, 0xA000 + 64 * uint64_t(P));
  }
  for (const Pattern &P : detectPatterns(B.T).Patterns)
    EXPECT_TRUE(P.Roots.empty() && P.Topology != "star")
        << P.Collective << " " << P.Topology;
}

/// A chain from rank 0 over 4 ranks, \p Iterations times, each message
/// sent in two 32-byte segments; with \p Contiguous, the second segment's
/// buffers follow the first's.
trace::Trace segmentedChain(int Iterations, bool Contiguous) {
  TraceBuilder B(4, true);
  for (int It = 0; It < Iterations; ++It)
    for (int Seg = 0; Seg < 2; ++Seg) {
      uint64_t Buffer = 0x1000 + Seg * (Contiguous ? 32 : 64);
      for (int V = 0; V < 3; ++V) {
        B.send(V, V + 1, 32, Buffer);
        B.recv(V + 1, V, 32, Buffer);
      }
    }
  return B.T;
}

TEST(DetectTest, SegmentsThatContinueEachOtherAreOnePipelinedBroadcast) {
  DetectResult R = detectPatterns(segmentedChain(3, true));
  ASSERT_EQ(R.Patterns.size(), 1u);
  EXPECT_EQ(R.Patterns[0].Topology, "chain");
  EXPECT_EQ(R.Patterns[0].Segments, 2u);
  EXPECT_EQ(R.Patterns[0].Occurrences, 3u);
  EXPECT_EQ(R.Patterns[0].Bytes, 64u);
  EXPECT_NE(R.Patterns[0].Note.find("pipelined in 2 segments"),
            std::string::npos);
  // With a gap between the segments' bytes they are separate broadcasts.
  R = detectPatterns(segmentedChain(3, false));
  ASSERT_EQ(R.Patterns.size(), 1u);
  EXPECT_EQ(R.Patterns[0].Segments, 1u);
  EXPECT_EQ(R.Patterns[0].Occurrences, 6u);
  EXPECT_EQ(R.Patterns[0].Bytes, 32u);
}

/// A broadcast down an irregular tree of 5 ranks (0 -> 3 -> {1, 4},
/// 0 -> 2), which no template lists, \p Iterations times, with
/// nonblocking sends; every rank receives into 0x1000 and rank 3 forwards
/// from \p ForwardFrom.
TraceBuilder irregularTree(int Iterations, uint64_t ForwardFrom) {
  TraceBuilder B(5, true);
  for (int It = 0; It < Iterations; ++It) {
    B.isend(0, 3, 64, 0x1000);
    B.recv(3, 0, 64, 0x1000);
    B.isend(3, 1, 64, ForwardFrom);
    B.recv(1, 3, 64, 0x1000);
    B.isend(3, 4, 64, ForwardFrom);
    B.recv(4, 3, 64, 0x1000);
    B.isend(0, 2, 64, 0x1000);
    B.recv(2, 0, 64, 0x1000);
  }
  return B;
}

// The dataflow of the steps no template explains is analysed only where
// a rank forwards what it received or talks to every other rank: rank 3
// sending from where it received makes the tree a broadcast; sending from
// elsewhere, each rank's data reaches only its own receivers.
TEST(DetectTest, OnlyForwardedDataMakesADataflowBroadcast) {
  DetectResult Forwarded = detectPatterns(irregularTree(4, 0x1000).T);
  ASSERT_EQ(Forwarded.Patterns.size(), 1u);
  EXPECT_EQ(Forwarded.Patterns[0].Collective, "bcast");
  EXPECT_EQ(Forwarded.Patterns[0].Evidence, "dataflow");
  EXPECT_EQ(Forwarded.Patterns[0].Root, 0);
  EXPECT_EQ(Forwarded.Patterns[0].Occurrences, 4u);
  EXPECT_TRUE(detectPatterns(irregularTree(4, 0x2000).T).Patterns.empty());
}

TEST(DetectTest, OnlyIncompleteMpiliftTracesArePartial) {
  TraceBuilder B(4, true);
  star(B, 1, 3, sameBuffer, true);
  B.T.Complete = false;
  DetectResult R = detectPatterns(B.T);
  EXPECT_TRUE(R.Partial);
  ASSERT_EQ(R.Patterns.size(), 1u); // What was recorded still counts.
  EXPECT_EQ(R.Patterns[0].Collective, "bcast");
}

} // namespace
