// Communication shapes for pattern detection, three iterations each.
// Usage: patterns MODE      (modes below; the root is rank 1 % size)
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 8

static int Rank, Size, Root;

static int rel(int R) { return (R - Root + Size) % Size; }
static int abs_(int V) { return (V + Root) % Size; }

static void star(double *B) {
  if (Rank == Root) {
    for (int J = 0; J < Size; ++J)
      if (J != Root)
        MPI_Send(B, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD);
  } else {
    MPI_Recv(B, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  const char *Mode = argc > 1 ? argv[1] : "star";
  Root = 1 % Size;
  double B[N], *All = calloc(Size * N, sizeof(double));
  int Next = (Rank + 1) % Size, Prev = (Rank - 1 + Size) % Size;
  MPI_Comm Half = MPI_COMM_NULL;
  for (int It = 0; It < 3; ++It) {
    for (int I = 0; I < N; ++I)
      B[I] = Rank == Root ? It * 100 + I : -1;
    if (!strcmp(Mode, "star")) {
      star(B);
    } else if (!strcmp(Mode, "scatter")) {
      for (int I = 0; I < Size * N; ++I)
        All[I] = I + It;
      if (Rank == Root) {
        for (int J = 0; J < Size; ++J)
          if (J != Root)
            MPI_Send(All + J * N, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD);
      } else {
        MPI_Recv(B, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "gather")) {
      if (Rank == Root) {
        for (int J = 0; J < Size; ++J)
          if (J != Root)
            MPI_Recv(All + J * N, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      } else {
        MPI_Send(B, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD);
      }
    } else if (!strcmp(Mode, "allgather")) {
      // A gather to the root, then a broadcast of everything gathered.
      for (int I = 0; I < N; ++I)
        All[Rank * N + I] = Rank * 10 + I + It;
      if (Rank == Root) {
        for (int J = 0; J < Size; ++J)
          if (J != Root)
            MPI_Recv(All + J * N, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int J = 0; J < Size; ++J)
          if (J != Root)
            MPI_Send(All, Size * N, MPI_DOUBLE, J, 2, MPI_COMM_WORLD);
      } else {
        MPI_Send(All + Rank * N, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD);
        MPI_Recv(All, Size * N, MPI_DOUBLE, Root, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "bruck")) {
      // Bruck's allgather: blocks kept rotated so that one's own comes
      // first; at step k, send the first min(k, n - k) blocks to rank - k and
      // receive as many from rank + k behind them.
      double *Tmp = malloc(Size * N * sizeof(double));
      for (int I = 0; I < N; ++I)
        Tmp[I] = Rank * 10 + I + It;
      for (int K = 1; K < Size; K *= 2) {
        int Count = K < Size - K ? K : Size - K;
        MPI_Sendrecv(Tmp, Count * N, MPI_DOUBLE, (Rank - K + Size) % Size, 1,
                     Tmp + K * N, Count * N, MPI_DOUBLE, (Rank + K) % Size, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      for (int J = 0; J < Size; ++J)
        memcpy(All + ((Rank + J) % Size) * N, Tmp + J * N, N * sizeof(double));
      free(Tmp);
    } else if (!strcmp(Mode, "doubling")) {
      // Recursive doubling: exchange everything held with rank ^ mask (the
      // hypercube allgather; powers of two only, else nothing).
      for (int I = 0; I < N; ++I)
        All[Rank * N + I] = Rank * 10 + I + It;
      for (int Mask = 1; Mask < Size && !(Size & (Size - 1)); Mask *= 2) {
        int Partner = Rank ^ Mask, Mine = Rank & ~(Mask - 1),
            Theirs = Partner & ~(Mask - 1);
        if (Partner < Size)
          MPI_Sendrecv(All + Mine * N, Mask * N, MPI_DOUBLE, Partner, 1,
                       All + Theirs * N, Mask * N, MPI_DOUBLE, Partner, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "alltoall")) {
      double *Out = malloc(Size * N * sizeof(double));
      MPI_Request *Req = malloc(Size * sizeof(MPI_Request));
      int K = 0;
      for (int J = 0; J < Size; ++J)
        if (J != Rank)
          MPI_Isend(All + J * N, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD, &Req[K++]);
      for (int J = 0; J < Size; ++J)
        if (J != Rank)
          MPI_Recv(Out + J * N, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      MPI_Waitall(K, Req, MPI_STATUSES_IGNORE);
      free(Out);
      free(Req);
    } else if (!strcmp(Mode, "ring")) { // Listing 2.
      if (Rank == Root) {
        MPI_Send(B, N, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
        MPI_Recv(B, N, MPI_DOUBLE, Prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(B, N, MPI_DOUBLE, Prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(B, N, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
      }
    } else if (!strcmp(Mode, "chain") || !strcmp(Mode, "polling")) {
      if (Rank == Root) {
        MPI_Send(B, N, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
      } else {
        if (!strcmp(Mode, "polling")) { // Listing 7: work until it arrives.
          int Flag = 0;
          volatile double Work = 0;
          while (!Flag) {
            MPI_Iprobe(Prev, 1, MPI_COMM_WORLD, &Flag, MPI_STATUS_IGNORE);
            Work += 1;
          }
        }
        MPI_Recv(B, N, MPI_DOUBLE, Prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rel(Rank) != Size - 1)
          MPI_Send(B, N, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
      }
    } else if (!strcmp(Mode, "hpl")) { // HPL's increasing ring, V-D.
      int V = rel(Rank);
      if (V == 0) {
        MPI_Send(B, N, MPI_DOUBLE, abs_(1), 1, MPI_COMM_WORLD);
        if (Size > 2)
          MPI_Send(B, N, MPI_DOUBLE, abs_(2), 1, MPI_COMM_WORLD);
      } else {
        int From = V <= 2 ? Root : abs_(V - 1);
        MPI_Recv(B, N, MPI_DOUBLE, From, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (V >= 2 && V + 1 < Size)
          MPI_Send(B, N, MPI_DOUBLE, abs_(V + 1), 1, MPI_COMM_WORLD);
      }
    } else if (!strcmp(Mode, "pipeline")) { // A chain in two segments.
      int V = rel(Rank);
      for (int Seg = 0; Seg < 2; ++Seg) {
        double *P = B + Seg * (N / 2);
        if (V)
          MPI_Recv(P, N / 2, MPI_DOUBLE, Prev, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
        if (V + 1 < Size)
          MPI_Send(P, N / 2, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
      }
    } else if (!strcmp(Mode, "crash")) { // The star, then the root aborts.
      star(B);
      if (It == 2 && Rank == Root)
        MPI_Abort(MPI_COMM_WORLD, 3);
      if (It == 2)
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(Mode, "hypercube")) {
      // One dimension per step: holders (v < 2^x) send to v + 2^x.
      int V = rel(Rank);
      for (int D = 1; D < Size; D *= 2) {
        if (V < D && V + D < Size)
          MPI_Send(B, N, MPI_DOUBLE, abs_(V + D), 1, MPI_COMM_WORLD);
        else if (V >= D && V < 2 * D)
          MPI_Recv(B, N, MPI_DOUBLE, abs_(V - D), 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "binomial")) {
      // MPICH's binomial tree: the parent clears the lowest bit, children
      // in decreasing distance. No template lists it.
      int V = rel(Rank), Low = V & -V, High = 1;
      while (High * 2 < Size)
        High *= 2;
      if (V)
        MPI_Recv(B, N, MPI_DOUBLE, abs_(V - Low), 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      for (int M = V ? Low / 2 : High; M >= 1; M /= 2)
        if (V + M < Size)
          MPI_Send(B, N, MPI_DOUBLE, abs_(V + M), 1, MPI_COMM_WORLD);
    } else if (!strcmp(Mode, "subcomm")) {
      if (Half == MPI_COMM_NULL)
        MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, Rank, &Half);
      int HR, HS;
      MPI_Comm_rank(Half, &HR);
      MPI_Comm_size(Half, &HS);
      if (HR == 0) {
        for (int J = 1; J < HS; ++J)
          MPI_Send(B, N, MPI_DOUBLE, J, 1, Half);
      } else {
        MPI_Recv(B, N, MPI_DOUBLE, 0, 1, Half, MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "halo")) {
      double L[N], R[N];
      MPI_Sendrecv(B, N, MPI_DOUBLE, Next, 1, L, N, MPI_DOUBLE, Prev, 1,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(B, N, MPI_DOUBLE, Prev, 2, R, N, MPI_DOUBLE, Next, 2,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(Mode, "pingpong")) {
      if (Rank == 0 && Size > 1) {
        MPI_Send(B, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(B, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (Rank == 1) {
        MPI_Recv(B, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(B, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
      }
    } else if (!strcmp(Mode, "subset")) { // Skips the last rank.
      if (Rank == Root) {
        for (int J = 0; J < Size - 1; ++J)
          if (J != Root)
            MPI_Send(B, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD);
      } else if (Rank != Size - 1) {
        MPI_Recv(B, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "skip")) { // Rank 0 left out of iteration 1.
      int Skip = It == 1 ? 0 : -1;
      if (Rank == Root) {
        for (int J = 0; J < Size; ++J)
          if (J != Root && J != Skip)
            MPI_Send(B, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD);
      } else if (Rank != Skip) {
        MPI_Recv(B, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(Mode, "interleave")) { // Another message inside.
      int First = Root == 0 ? 1 : 0;
      if (Rank == Root) {
        for (int J = 0; J < Size; ++J) {
          if (J == Root)
            continue;
          MPI_Send(B, N, MPI_DOUBLE, J, 1, MPI_COMM_WORLD);
          if (J == First)
            MPI_Send(&It, 1, MPI_INT, J, 9, MPI_COMM_WORLD);
        }
      } else {
        MPI_Recv(B, N, MPI_DOUBLE, Root, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (Rank == First) {
          int X;
          MPI_Recv(&X, 1, MPI_INT, Root, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      }
    } else if (!strcmp(Mode, "rotate")) { // The root changes each time.
      Root = It % Size;
      star(B);
      Root = 1 % Size;
    } else if (!strcmp(Mode, "rotchain")) {
      // HPL's broadcast: a chain along the ring from a root that changes
      // each time, so a rank that started the chain once forwards later.
      Root = It % Size;
      for (int I = 0; I < N; ++I)
        B[I] = Rank == Root ? It * 100 + I : -1;
      if (Rank != Root)
        MPI_Recv(B, N, MPI_DOUBLE, Prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (Next != Root)
        MPI_Send(B, N, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
      Root = 1 % Size;
    } else if (!strcmp(Mode, "rotskip")) {
      // The same, but the last iteration stops one rank short: not one
      // pattern (the call sites' last steps are no chain).
      Root = It % Size;
      int Idle = It == 2 ? (Root - 1 + Size) % Size : -1;
      if (Rank != Root && Rank != Idle)
        MPI_Recv(B, N, MPI_DOUBLE, Prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (Rank != Idle && Next != Root && Next != Idle)
        MPI_Send(B, N, MPI_DOUBLE, Next, 1, MPI_COMM_WORLD);
      Root = 1 % Size;
    }
  }
  free(All);
  if (Half != MPI_COMM_NULL)
    MPI_Comm_free(&Half);
  if (Rank == 0)
    printf("%s done\n", Mode);
  MPI_Finalize();
  return 0;
}
