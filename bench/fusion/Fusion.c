// bench/fusion: the sequences mpilift-fuse-collectives fuses against the
// call it fuses them into, measured alternately in one run at message
// sizes from 8 B to 1 MiB:
//
//   reduce+bcast   MPI_Reduce then MPI_Bcast of the result  vs MPI_Allreduce
//   gather+bcast   MPI_Gather then MPI_Bcast of all blocks   vs MPI_Allgather
//   gatherv+bcast  MPI_Gatherv (odd ranks send half) then MPI_Bcast of all
//                  blocks                                    vs MPI_Allgatherv
//   3 allreduces   three MPI_Allreduce of m/3 bytes each     vs one, packed
//   3 bcasts       three MPI_Bcast of m/3 bytes each         vs one, packed
//   p scatters     MPI_Scatter from every root in turn       vs MPI_Alltoall
//   bcast+allred   MPI_Bcast then MPI_Allreduce (sum) of the broadcast
//                  buffer  vs MPI_Bcast and p * x on each rank (BR-Alllocal)
//   scan+allred    MPI_Scan (min) then MPI_Allreduce (max) of its result
//                  vs one MPI_Allreduce on pairs (SR2-Reduction)
//   scan+scan      MPI_Scan (min) then MPI_Scan (max) of its result
//                  vs one MPI_Scan on pairs (SS2-Scan)
//   bcast+scan+ar  MPI_Bcast, MPI_Scan (product) of the buffer, then
//                  MPI_Allreduce (sum) of the scan's result vs MPI_Bcast
//                  and b + b^2 + ... + b^p on each rank by the binary
//                  method (BSR2-Local, as the rewrite computes it)
//
// Beside each measured ratio (fused / original) it prints the ratio the
// cost model of seed 001, section 4, predicts with the start-up time t_s,
// the time per byte t_w and the time per combined element t_c measured
// here (a ping-pong and a loop of additions): the butterfly estimates
// (15)-(17), and for the gather the usual binomial-tree and
// recursive-doubling ones. Times are the medians, over repetitions, of
// the slowest rank's time per call.
// Usage: mpirun -np P fusion [REPS] [ITERATIONS]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/MPITiming.h"

/// Start-up time and time per byte of one message between ranks 0 and 1:
/// medians of repeated ping-pongs of 0 bytes and of 1 MiB.
static void pingPong(double *Ts, double *Tw) {
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  enum { Big = 1 << 20, Samples = 15 };
  char *Buf = calloc(Big, 1);
  double T[2];
  for (int K = 0; K < 2; ++K) {
    int Bytes = K ? Big : 0, Reps = K ? 5 : 50;
    double Sample[Samples];
    for (int S = 0; S < Samples; ++S) {
      MPI_Barrier(MPI_COMM_WORLD);
      double Start = MPI_Wtime();
      for (int I = 0; I < Reps && Size > 1; ++I) {
        if (Rank == 0) {
          MPI_Send(Buf, Bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(Buf, Bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
        } else if (Rank == 1) {
          MPI_Recv(Buf, Bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
          MPI_Send(Buf, Bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
      }
      Sample[S] = (MPI_Wtime() - Start) / (2.0 * Reps);
    }
    T[K] = median(Sample, Samples);
    MPI_Bcast(&T[K], 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  *Ts = T[0];
  *Tw = T[1] > T[0] ? (T[1] - T[0]) / Big : 0;
  free(Buf);
}

/// Keeps the timed loops from being optimized away.
static volatile double Sink;

/// Time per byte copied by memcpy (the packed form's copies).
static double copyTime(void) {
  const int N = 1 << 22;
  char *A = malloc(N), *B = malloc(N);
  memset(A, 1, N);
  double Start = MPI_Wtime();
  for (int R = 0; R < 10; ++R)
    memcpy(B, A, N);
  double T = (MPI_Wtime() - Start) / (10.0 * N);
  Sink = B[N / 2];
  free(A);
  free(B);
  MPI_Bcast(&T, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return T;
}

/// Time per combined double (the unit of the seed's estimates).
static double combineTime(void) {
  const int N = 1 << 20;
  double *A = malloc(N * sizeof(double)), *B = malloc(N * sizeof(double));
  for (int I = 0; I < N; ++I)
    A[I] = B[I] = I;
  double Start = MPI_Wtime();
  for (int R = 0; R < 10; ++R)
    for (int I = 0; I < N; ++I)
      A[I] += B[I];
  double T = (MPI_Wtime() - Start) / (10.0 * N);
  Sink = A[N / 2];
  free(A);
  free(B);
  MPI_Bcast(&T, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return T;
}

enum Rule {
  ReduceBcast,
  GatherBcast,
  GathervBcast,
  Packed,
  PackedBcast,
  RotatingScatters,
  BcastAllreduce,
  ScanAllreduce,
  ScanScan,
  BcastScanAllreduce,
  Rules
};
static const char *const RuleName[Rules] = {
    "reduce+bcast", "gather+bcast", "gatherv+bcast", "3 allreduces",
    "3 bcasts",     "p scatters",   "bcast+allred",  "scan+allred",
    "scan+scan",    "bcast+scan+ar"};

/// The blocks of the gatherv: \p Count elements from even ranks, half as
/// many (one at least) from odd ones, in rank order; their sum.
static int vBlocks(int Count, int Size, int *Counts, int *Displs) {
  int At = 0;
  for (int R = 0; R < Size; ++R) {
    Counts[R] = R % 2 ? (Count / 2 > 0 ? Count / 2 : 1) : Count;
    Displs[R] = At;
    At += Counts[R];
  }
  return At;
}
enum { MaxProcesses = 1024 };
static int VCounts[MaxProcesses], VDispls[MaxProcesses];

/// b + b^2 + ... + b^n by the binary method on n, as the BSR2-Local
/// rewrite computes it.
static double powerSum(double B, int N) {
  double Sum = B, Power = B;
  long long Bit = 1;
  while (Bit * 2 <= N)
    Bit *= 2;
  for (Bit >>= 1; Bit > 0; Bit >>= 1) {
    Sum = Sum + Power * Sum;
    Power = Power * Power;
    if (N & Bit) {
      Power = Power * B;
      Sum = Sum + Power;
    }
  }
  return Sum;
}

/// The operation on pairs the rewrite makes for a minimum scan followed by
/// a maximum (seed 001, SR2 and SS2): (s1, r1) then (s2, r2) is
/// (max(s1, min(r1, s2)), min(r1, r2)).
static void pairMinMax(void *InV, void *InOutV, int *Len, MPI_Datatype *T) {
  const double *A = InV;
  double *B = InOutV;
  for (int I = 0; I < *Len; ++I) {
    double S = fmax(A[2 * I], fmin(A[2 * I + 1], B[2 * I]));
    B[2 * I + 1] = fmin(A[2 * I + 1], B[2 * I + 1]);
    B[2 * I] = S;
  }
  (void)T;
}
static MPI_Op PairOp;
static MPI_Datatype PairType;

/// A minimum scan then a maximum over its result (Fused == 0), or one
/// collective on pairs as the rewrite makes it: pairs in, one call, first
/// halves out.
static void scanPair(int Scan, int Fused, double *In, double *Out, int Count) {
  MPI_Comm C = MPI_COMM_WORLD;
  double *Prefix = Out + Count, *Pairs = Out + Count, *Result = Out + 3 * Count;
  if (!Fused) {
    MPI_Scan(In, Prefix, Count, MPI_DOUBLE, MPI_MIN, C);
    if (Scan)
      MPI_Scan(Prefix, Out, Count, MPI_DOUBLE, MPI_MAX, C);
    else
      MPI_Allreduce(Prefix, Out, Count, MPI_DOUBLE, MPI_MAX, C);
    return;
  }
  for (int I = 0; I < Count; ++I)
    Pairs[2 * I] = Pairs[2 * I + 1] = In[I];
  if (Scan)
    MPI_Scan(Pairs, Result, Count, PairType, PairOp, C);
  else
    MPI_Allreduce(Pairs, Result, Count, PairType, PairOp, C);
  for (int I = 0; I < Count; ++I)
    Out[I] = Result[2 * I];
}

/// One call of the original sequence (Fused == 0) or of the fused call.
static void once(enum Rule R, int Fused, double *In, double *Out, int Count,
                 int Size) {
  MPI_Comm C = MPI_COMM_WORLD;
  switch (R) {
  case ReduceBcast:
    if (Fused) {
      MPI_Allreduce(In, Out, Count, MPI_DOUBLE, MPI_MAX, C);
    } else {
      MPI_Reduce(In, Out, Count, MPI_DOUBLE, MPI_MAX, 0, C);
      MPI_Bcast(Out, Count, MPI_DOUBLE, 0, C);
    }
    break;
  case GatherBcast:
    if (Fused) {
      MPI_Allgather(In, Count, MPI_DOUBLE, Out, Count, MPI_DOUBLE, C);
    } else {
      MPI_Gather(In, Count, MPI_DOUBLE, Out, Count, MPI_DOUBLE, 0, C);
      MPI_Bcast(Out, Count * Size, MPI_DOUBLE, 0, C);
    }
    break;
  case GathervBcast: {
    int Rank;
    MPI_Comm_rank(C, &Rank);
    int Total = vBlocks(Count, Size, VCounts, VDispls);
    if (Fused) {
      MPI_Allgatherv(In, VCounts[Rank], MPI_DOUBLE, Out, VCounts, VDispls,
                     MPI_DOUBLE, C);
    } else {
      MPI_Gatherv(In, VCounts[Rank], MPI_DOUBLE, Out, VCounts, VDispls,
                  MPI_DOUBLE, 0, C);
      MPI_Bcast(Out, Total, MPI_DOUBLE, 0, C);
    }
    break;
  }
  case Packed: {
    int Third = Count / 3 > 0 ? Count / 3 : 1;
    if (Fused) {
      // What the rewrite makes: copies in, one call, copies out.
      double *PackIn = Out + 3 * Third, *PackOut = PackIn + 3 * Third;
      memcpy(PackIn, In, 3 * Third * sizeof(double));
      MPI_Allreduce(PackIn, PackOut, 3 * Third, MPI_DOUBLE, MPI_MAX, C);
      memcpy(Out, PackOut, 3 * Third * sizeof(double));
    } else {
      for (int K = 0; K < 3; ++K)
        MPI_Allreduce(In + K * Third, Out + K * Third, Third, MPI_DOUBLE,
                      MPI_MAX, C);
    }
    break;
  }
  case PackedBcast: {
    int Third = Count / 3 > 0 ? Count / 3 : 1;
    if (Fused) {
      // What the rewrite makes: the root packs, one call, all unpack.
      double *Pack = Out + 3 * Third;
      int Rank;
      MPI_Comm_rank(C, &Rank);
      if (Rank == 0)
        memcpy(Pack, In, 3 * Third * sizeof(double));
      MPI_Bcast(Pack, 3 * Third, MPI_DOUBLE, 0, C);
      memcpy(Out, Pack, 3 * Third * sizeof(double));
    } else {
      for (int K = 0; K < 3; ++K)
        MPI_Bcast(Out + K * Third, Third, MPI_DOUBLE, 0, C);
    }
    break;
  }
  case RotatingScatters: {
    // Blocks of Count / Size doubles (one at least): an alltoall of Count
    // doubles per rank.
    int Block = Count / Size > 0 ? Count / Size : 1;
    if (Fused)
      MPI_Alltoall(In, Block, MPI_DOUBLE, Out, Block, MPI_DOUBLE, C);
    else
      for (int Root = 0; Root < Size; ++Root)
        MPI_Scatter(In, Block, MPI_DOUBLE, Out + Root * Block, Block,
                    MPI_DOUBLE, Root, C);
    break;
  }
  case BcastAllreduce:
    MPI_Bcast(Out, Count, MPI_DOUBLE, 0, C);
    if (Fused) {
      for (int I = 0; I < Count; ++I)
        Out[Count + I] = Size * Out[I];
    } else {
      MPI_Allreduce(Out, Out + Count, Count, MPI_DOUBLE, MPI_SUM, C);
    }
    break;
  case ScanAllreduce:
  case ScanScan:
    scanPair(R == ScanScan, Fused, In, Out, Count);
    break;
  case BcastScanAllreduce:
    MPI_Bcast(Out, Count, MPI_DOUBLE, 0, C);
    if (Fused) {
      for (int I = 0; I < Count; ++I)
        Out[2 * Count + I] = powerSum(Out[I], Size);
    } else {
      MPI_Scan(Out, Out + Count, Count, MPI_DOUBLE, MPI_PROD, C);
      MPI_Allreduce(Out + Count, Out + 2 * Count, Count, MPI_DOUBLE, MPI_SUM,
                    C);
    }
    break;
  default:
    break;
  }
}

/// The cost model's time of the original (Fused == 0) or the fused form.
static double predicted(enum Rule R, int Fused, double M, int P, double Ts,
                        double Tw, double Tc, double Tm) {
  double L = P > 1 ? log2((double)P) : 0;
  double Elements = M / sizeof(double);
  double Bcast = L * (Ts + M * Tw);                  // (15)
  double Reduce = L * (Ts + M * Tw + Elements * Tc); // (16)
  switch (R) {
  case ReduceBcast:
    return Fused ? Reduce : Reduce + Bcast; // A butterfly allreduce: (16).
  case GatherBcast:
  case GathervBcast: {
    // The v form's blocks average three quarters of M.
    double Block = R == GatherBcast ? M : 0.75 * M;
    double Gather = L * Ts + (P - 1) * Block * Tw; // Binomial tree.
    double Whole = L * (Ts + P * Block * Tw);      // (15) on p blocks.
    return Fused ? L * Ts + (P - 1) * Block * Tw : Gather + Whole;
  }
  case Packed: {
    double Third = M / 3;
    double One = L * (Ts + Third * Tw + Third / sizeof(double) * Tc);
    double Copies = 2 * M * Tm; // In and out.
    return Fused ? L * (Ts + M * Tw + Elements * Tc) + Copies : 3 * One;
  }
  case PackedBcast: {
    double One = L * (Ts + M / 3 * Tw);
    return Fused ? Bcast + 2 * M * Tm : 3 * One;
  }
  case RotatingScatters: {
    // p binomial scatters of M bytes from each root against a pairwise
    // exchange: p - 1 steps of M / p bytes.
    double Scatter = L * Ts + (P - 1) * (M / P) * Tw;
    return Fused ? (P - 1) * (Ts + M / P * Tw) : P * Scatter;
  }
  case BcastAllreduce:
    // The broadcast stays; the allreduce becomes one combination per
    // element (seed 001, Table 1, BR-Local: 2 t_s + m (2 t_w + 1) against
    // m, per log p).
    return Fused ? Bcast + Elements * Tc : Bcast + Reduce;
  case ScanAllreduce:
  case ScanScan: {
    // Table 1: SR2 2 t_s + m (2 t_w + 3) against t_s + m (2 t_w + 3),
    // SS2 2 t_s + m (2 t_w + 4) against t_s + m (2 t_w + 6), per log p;
    // and the pairs copied in and the results out.
    double Ops = R == ScanScan ? 4 : 3, After = R == ScanScan ? 6 : 3;
    return Fused ? L * (Ts + 2 * M * Tw + After * Elements * Tc) + 3 * M * Tm
                 : L * (2 * Ts + 2 * M * Tw + Ops * Elements * Tc);
  }
  case BcastScanAllreduce: {
    // Table 1, BSR2-Local: 3 t_s + m (3 t_w + 3) against 3m per log p, the
    // broadcast kept; the binary method takes about four operations per
    // bit of p.
    double Scan = L * (Ts + M * Tw + 2 * Elements * Tc);
    return Fused ? Bcast + 4 * (L > 0 ? L : 1) * Elements * Tc
                 : Bcast + Scan + Reduce;
  }
  default:
    return 0;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size > MaxProcesses) {
    if (Rank == 0)
      fprintf(stderr, "fusion: at most %d processes\n", MaxProcesses);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Reps = argc > 1 ? atoi(argv[1]) : 9;
  int Iterations = argc > 2 ? atoi(argv[2]) : 20;
  double Ts, Tw;
  pingPong(&Ts, &Tw);
  double Tc = combineTime(), Tm = copyTime();
  if (Rank == 0)
    printf("# %d processes; t_s %.2f us, t_w %.4f ns/byte, t_c %.2f "
           "ns/element, memcpy %.4f ns/byte\n",
           Size, Ts * 1e6, Tw * 1e9, Tc * 1e9, Tm * 1e9);
  if (Rank == 0)
    printf("%-13s %3s %8s %12s %12s %8s %10s\n", "rule", "np", "bytes",
           "original us", "fused us", "ratio", "predicted");
  const int MaxBytes = 1 << 20;
  MPI_Op_create(pairMinMax, 0, &PairOp);
  MPI_Type_contiguous(2, MPI_DOUBLE, &PairType);
  MPI_Type_commit(&PairType);
  // Room for p blocks of the largest message, thrice, and for the pairs.
  double *In = malloc(MaxBytes),
         *Out = malloc((size_t)MaxBytes * (Size > 2 ? Size : 2) * 3);
  for (int I = 0; I < MaxBytes / (int)sizeof(double); ++I)
    In[I] = Rank + I;
  double *TO = malloc(Reps * sizeof(double)),
         *TF = malloc(Reps * sizeof(double));
  for (int R = 0; R < Rules; ++R)
    for (int Bytes = 8; Bytes <= MaxBytes;
         Bytes = Bytes == MaxBytes / 4 ? MaxBytes : Bytes * 8) {
      int Count = Bytes / (int)sizeof(double);
      // Fewer iterations for large messages, at least 3.
      int Its = Bytes >= (1 << 18) ? Iterations / 4 + 3 : Iterations;
      for (int K = 0; K < Reps; ++K) {
        for (int Fused = 0; Fused < 2; ++Fused) {
          once((enum Rule)R, Fused, In, Out, Count, Size); // Warm up.
          MPI_Barrier(MPI_COMM_WORLD);
          double Start = MPI_Wtime();
          for (int I = 0; I < Its; ++I)
            once((enum Rule)R, Fused, In, Out, Count, Size);
          double T = slowest((MPI_Wtime() - Start) / Its);
          (Fused ? TF : TO)[K] = T;
        }
      }
      double O = median(TO, Reps), F = median(TF, Reps);
      double PO = predicted((enum Rule)R, 0, Bytes, Size, Ts, Tw, Tc, Tm);
      double PF = predicted((enum Rule)R, 1, Bytes, Size, Ts, Tw, Tc, Tm);
      if (Rank == 0)
        printf("%-13s %3d %8d %12.2f %12.2f %8.2f %10.2f\n", RuleName[R], Size,
               Bytes, O * 1e6, F * 1e6, F / O, PO > 0 ? PF / PO : 0);
    }
  free(In);
  free(Out);
  free(TO);
  free(TF);
  MPI_Op_free(&PairOp);
  MPI_Type_free(&PairType);
  MPI_Finalize();
  return 0;
}
