// Communication patterns written with libcdag's C API. Each is compiled
// once and run three times with new data; every process checks every byte
// it ends with. Usage: cdag_patterns PATTERN [ROOT]
//   star, binomial, chain, scatter, ring, butterfly, ft, mix
#include <cdag/cdag.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64 // Doubles per block.

static int Rank, Size, Root, Errors;
static cDAG_Graph G;

#define CHECKED(Call)                                                          \
  do {                                                                         \
    int RC_ = (Call);                                                          \
    if (RC_ != CDAG_SUCCESS) {                                                 \
      fprintf(stderr, "rank %d: %s: %s\n", Rank, #Call, cDAG_Error_message()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

static double value(int Owner, int Slot, int I, int Iter) {
  return Owner * 1000.0 + Slot * 10.0 + I + Iter * 0.25;
}

static void expect(int Cond, const char *What, int Index) {
  if (!Cond && Errors++ < 5)
    printf("rank %d: wrong %s at %d\n", Rank, What, Index);
}

static void fill(double *Buf, int Count, double V) {
  for (int I = 0; I < Count; ++I)
    Buf[I] = V;
}

static int rel(int R) { return (R - Root + Size) % Size; }
static int abs_(int V) { return (V + Root) % Size; }
static int lowbit(int V) { return V & -V; }
static int highestPowerBelow(int P) {
  int M = 1;
  while (M * 2 < P)
    M *= 2;
  return M;
}

static cDAG_Op send(const void *Buf, int Doubles, int To, int Tag) {
  cDAG_Op Op;
  CHECKED(cDAG_Send(G, Buf, Doubles * sizeof(double), To, Tag, &Op));
  return Op;
}
static cDAG_Op recv(void *Buf, int Doubles, int From, int Tag) {
  cDAG_Op Op;
  CHECKED(cDAG_Recv(G, Buf, Doubles * sizeof(double), From, Tag, &Op));
  return Op;
}

// Buffers of all patterns.
static double Buf[N], *All, *Src, *Dst, *Temp, Small[3], SmallIn[3], Mine,
    *Gathered;

//===-- Building ---------------------------------------------------------===//

static void buildStar(void) {
  for (int J = 0; J < Size; ++J)
    if (J != Root && Rank == Root)
      send(Buf, N, J, 0);
  if (Rank != Root)
    recv(Buf, N, Root, 0);
}

static void buildBinomial(void) {
  int V = rel(Rank), Mask = V ? lowbit(V) / 2 : highestPowerBelow(Size);
  cDAG_Op R = -1;
  if (V)
    R = recv(Buf, N, abs_(V - lowbit(V)), 0);
  for (; Mask; Mask /= 2)
    if (V + Mask < Size) {
      cDAG_Op S = send(Buf, N, abs_(V + Mask), 0);
      if (R >= 0)
        CHECKED(cDAG_Depend(G, R, S));
    }
}

static void buildChain(void) {
  int V = rel(Rank), Seg = N / 4;
  for (int K = 0; K < 4; ++K) {
    cDAG_Op R = -1;
    if (V > 0)
      R = recv(Buf + K * Seg, Seg, abs_(V - 1), K);
    if (V + 1 < Size) {
      cDAG_Op S = send(Buf + K * Seg, Seg, abs_(V + 1), K);
      if (R >= 0)
        CHECKED(cDAG_Depend(G, R, S));
    }
  }
}

// Binomial scatter: the subtree's blocks arrive in Temp; the first block is
// this process's, the rest is forwarded and scratch afterwards.
static void buildScatter(void) {
  int V = rel(Rank), Span = V ? lowbit(V) : Size;
  if (V && Span > Size - V)
    Span = Size - V;
  cDAG_Op R = -1;
  if (V) {
    R = recv(Temp, Span * N, abs_(V - lowbit(V)), 0);
    if (Span > 1)
      CHECKED(cDAG_Scratch(G, Temp + N, (Span - 1) * N * sizeof(double)));
  }
  for (int Mask = V ? lowbit(V) / 2 : highestPowerBelow(Size); Mask;
       Mask /= 2) {
    if (V + Mask >= Size)
      continue;
    int Blocks = Mask < Size - (V + Mask) ? Mask : Size - (V + Mask);
    const double *From = V ? Temp + Mask * N : All + (V + Mask) * N;
    cDAG_Op S = send(From, Blocks * N, abs_(V + Mask), 0);
    if (R >= 0)
      CHECKED(cDAG_Depend(G, R, S));
  }
}

static void buildRing(void) {
  cDAG_Op Last = -1;
  for (int K = 0; K + 1 < Size; ++K) {
    int SendSlot = (Rank - K + Size) % Size, RecvSlot = (Rank - K - 1 + Size) % Size;
    cDAG_Op S = send(All + SendSlot * N, N, (Rank + 1) % Size, 0);
    if (Last >= 0)
      CHECKED(cDAG_Depend(G, Last, S));
    Last = recv(All + RecvSlot * N, N, (Rank - 1 + Size) % Size, 0);
  }
}

// Recursive doubling for powers of two, Bruck otherwise (slot k of process
// r holds the block of r + k). A step forwards what every earlier step
// received, so its send depends on all earlier receives.
static void buildButterfly(void) {
  cDAG_Op Received[64];
  int NumReceived = 0;
  int Pow2 = (Size & (Size - 1)) == 0;
  for (int D = 1; D < Size; D *= 2) {
    cDAG_Op S;
    if (Pow2) {
      int Partner = Rank ^ D;
      S = send(All + (Rank & ~(D - 1)) * N, D * N, Partner, 0);
      Received[NumReceived] = recv(All + (Partner & ~(D - 1)) * N, D * N,
                                   Partner, 0);
    } else {
      int Count = D < Size - D ? D : Size - D;
      S = send(All, Count * N, (Rank - D + Size) % Size, 0);
      Received[NumReceived] = recv(All + D * N, Count * N, (Rank + D) % Size, 0);
    }
    for (int K = 0; K < NumReceived; ++K)
      CHECKED(cDAG_Depend(G, Received[K], S));
    ++NumReceived;
  }
}

// The NAS FT loop of the paper's section 1.2.
static void buildFT(void) {
  for (int I = 0; I < Size; ++I) {
    send(Src + I * N, N, I, 0);
    recv(Dst + I * N, N, I, 0);
  }
}

// A star broadcast, a ring shift of unrelated small data, and a linear
// gather of one value per process.
static void buildMix(void) {
  buildStar();
  CHECKED(cDAG_Send(G, Small, sizeof(Small), (Rank + 1) % Size, 1, NULL));
  CHECKED(cDAG_Recv(G, SmallIn, sizeof(SmallIn), (Rank - 1 + Size) % Size, 1,
                    NULL));
  if (Rank == Root) {
    for (int I = 0; I < Size; ++I)
      if (I != Root)
        CHECKED(cDAG_Recv(G, Gathered + I, sizeof(double), I, 2, NULL));
  } else {
    CHECKED(cDAG_Send(G, &Mine, sizeof(double), Root, 2, NULL));
  }
}

//===-- Data before and after a run --------------------------------------===//

static void prepare(const char *P, int Iter) {
  if (!strcmp(P, "star") || !strcmp(P, "binomial") || !strcmp(P, "chain") ||
      !strcmp(P, "mix")) {
    for (int I = 0; I < N; ++I)
      Buf[I] = Rank == Root ? value(Root, 0, I, Iter) : -1;
  }
  if (!strcmp(P, "scatter")) {
    fill(Temp, Size * N, -1);
    if (Rank == Root) // In relative order: block v goes to process v + root.
      for (int V = 0; V < Size; ++V)
        for (int I = 0; I < N; ++I)
          All[V * N + I] = value(abs_(V), 1, I, Iter);
  }
  if (!strcmp(P, "ring") || !strcmp(P, "butterfly")) {
    fill(All, Size * N, -1);
    int Bruck = !strcmp(P, "butterfly") && (Size & (Size - 1));
    int Slot = Bruck ? 0 : Rank;
    for (int I = 0; I < N; ++I)
      All[Slot * N + I] = value(Rank, 2, I, Iter);
  }
  if (!strcmp(P, "ft")) {
    fill(Dst, Size * N, -1);
    for (int J = 0; J < Size; ++J)
      for (int I = 0; I < N; ++I)
        Src[J * N + I] = value(Rank, J, I, Iter);
  }
  if (!strcmp(P, "mix")) {
    for (int I = 0; I < 3; ++I) {
      Small[I] = value(Rank, 7, I, Iter);
      SmallIn[I] = -1;
    }
    Mine = value(Rank, 8, 0, Iter);
    fill(Gathered, Size, -1);
  }
}

static void verify(const char *P, int Iter) {
  if (!strcmp(P, "star") || !strcmp(P, "binomial") || !strcmp(P, "chain") ||
      !strcmp(P, "mix"))
    for (int I = 0; I < N; ++I)
      expect(Buf[I] == value(Root, 0, I, Iter), "broadcast data", I);
  if (!strcmp(P, "scatter") && Rank != Root)
    for (int I = 0; I < N; ++I)
      expect(Temp[I] == value(Rank, 1, I, Iter), "scattered block", I);
  if (!strcmp(P, "ring") || !strcmp(P, "butterfly")) {
    int Bruck = !strcmp(P, "butterfly") && (Size & (Size - 1));
    for (int S = 0; S < Size; ++S)
      for (int I = 0; I < N; ++I) {
        int Owner = Bruck ? (Rank + S) % Size : S;
        expect(All[S * N + I] == value(Owner, 2, I, Iter), "gathered block",
               S * N + I);
      }
  }
  if (!strcmp(P, "ft"))
    for (int J = 0; J < Size; ++J)
      for (int I = 0; I < N; ++I)
        expect(Dst[J * N + I] == value(J, Rank, I, Iter), "alltoall block",
               J * N + I);
  if (!strcmp(P, "mix")) {
    int Left = (Rank - 1 + Size) % Size;
    for (int I = 0; I < 3; ++I)
      expect(SmallIn[I] == value(Left, 7, I, Iter), "ring message", I);
    if (Rank == Root)
      for (int I = 0; I < Size; ++I)
        expect(I == Root ? Gathered[I] == -1
                         : Gathered[I] == value(I, 8, 0, Iter),
               "gathered value", I);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const char *P = argc > 1 ? argv[1] : "star";
  Root = argc > 2 ? atoi(argv[2]) % Size : 0;
  All = malloc(Size * N * sizeof(double));
  Src = malloc(Size * N * sizeof(double));
  Dst = malloc(Size * N * sizeof(double));
  Temp = malloc(Size * N * sizeof(double));
  Gathered = malloc(Size * sizeof(double));

  CHECKED(cDAG_Create(MPI_COMM_WORLD, &G));
  if (!strcmp(P, "star"))
    buildStar();
  else if (!strcmp(P, "binomial"))
    buildBinomial();
  else if (!strcmp(P, "chain"))
    buildChain();
  else if (!strcmp(P, "scatter"))
    buildScatter();
  else if (!strcmp(P, "ring"))
    buildRing();
  else if (!strcmp(P, "butterfly"))
    buildButterfly();
  else if (!strcmp(P, "ft"))
    buildFT();
  else if (!strcmp(P, "mix"))
    buildMix();
  else {
    fprintf(stderr, "unknown pattern %s\n", P);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  cDAG_Schedule S;
  CHECKED(cDAG_Compile(G, &S));
  CHECKED(cDAG_Free(&G));
  for (int Iter = 0; Iter < 3; ++Iter) {
    prepare(P, Iter);
    CHECKED(cDAG_Run(S));
    verify(P, Iter);
  }
  CHECKED(cDAG_Free_schedule(&S));
  printf("rank %d: %s %s\n", Rank, P, Errors ? "FAILED" : "ok");
  free(All);
  free(Src);
  free(Dst);
  free(Temp);
  free(Gathered);
  MPI_Finalize();
  return Errors != 0;
}
