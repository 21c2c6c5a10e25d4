/*===- PingPong.c - Samples for mpilift's machine profile ------------------===
 *
 * Part of mpilift.
 *
 *===----------------------------------------------------------------------===
 *
 * Run by `mpilift calibrate` as `mpirun -np 2 mpilift-pingpong [SAMPLES]`.
 * Ranks 0 and 1 bounce messages of 0 B to 1 MiB; rank 0 prints, per size,
 * the median one-way time of SAMPLES batches of round trips, and the time
 * of one combining operation (a double added to another) measured the same
 * way, in this line format (docs/cost-profile.md):
 *
 *   mpilift-pingpong 1
 *   library <the first line of MPI_Get_library_version>
 *   operation <seconds per element>
 *   sample <bytes> <seconds one way>
 *
 * Extra ranks only join the barriers between batches. Exit status 2 on
 * bad arguments or fewer than two processes.
 *
 *===----------------------------------------------------------------------===*/

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MaxBytes = 1 << 20, OperationElements = 1 << 14 };

static const int Sizes[] = {0, 8, 64, 512, 4096, 32768, 262144, MaxBytes};

static int compareDoubles(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return (X > Y) - (X < Y);
}

static double median(double *Values, int N) {
  qsort(Values, (size_t)N, sizeof(double), compareDoubles);
  return N % 2 ? Values[N / 2] : (Values[N / 2 - 1] + Values[N / 2]) / 2;
}

/* Round trips per batch: enough that a batch of small messages lasts well
 * beyond the timer's resolution, few for large ones. */
static int tripsFor(int Bytes) {
  if (Bytes <= 4096)
    return 200;
  return Bytes <= 32768 ? 50 : 5;
}

/* One batch of round trips between ranks 0 and 1; one-way seconds. */
static double batch(char *Buffer, int Bytes, int Trips, int Rank) {
  double Start = MPI_Wtime();
  for (int T = 0; T < Trips; ++T) {
    if (Rank == 0) {
      MPI_Send(Buffer, Bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(Buffer, Bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(Buffer, Bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Send(Buffer, Bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - Start) / (2.0 * Trips);
}

/* Seconds per element of Acc[i] += In[i], the operation the seed's model
 * takes as its unit. */
static double operationTime(int Samples) {
  double *Acc = malloc(OperationElements * sizeof(double));
  double *In = malloc(OperationElements * sizeof(double));
  double *Times = malloc((size_t)Samples * sizeof(double));
  for (int I = 0; I < OperationElements; ++I) {
    Acc[I] = 0;
    In[I] = 1.0 / (I + 1);
  }
  const int Rounds = 64;
  for (int S = 0; S < Samples; ++S) {
    double Start = MPI_Wtime();
    for (int R = 0; R < Rounds; ++R) {
      for (int I = 0; I < OperationElements; ++I)
        Acc[I] += In[I];
      /* Keeps the rounds apart: the compiler may not fold them. */
      __asm__ __volatile__("" : : "r"(Acc) : "memory");
    }
    Times[S] = (MPI_Wtime() - Start) / ((double)Rounds * OperationElements);
  }
  double Result = median(Times, Samples);
  volatile double Sink = Acc[OperationElements - 1];
  (void)Sink;
  free(Acc);
  free(In);
  free(Times);
  return Result;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Samples = argc > 1 ? atoi(argv[1]) : 15;
  if (argc > 2 || Samples < 1 || Samples > 1000 || Size < 2) {
    if (Rank == 0)
      fprintf(stderr, Size < 2 ? "mpilift-pingpong: needs 2 processes\n"
                               : "usage: mpilift-pingpong [SAMPLES 1-1000]\n");
    MPI_Finalize();
    return 2;
  }
  char *Buffer = calloc(MaxBytes, 1);
  double *Times = malloc((size_t)Samples * sizeof(double));
  if (Rank == 0) {
    char Library[MPI_MAX_LIBRARY_VERSION_STRING];
    int Length;
    MPI_Get_library_version(Library, &Length);
    Library[strcspn(Library, "\n,")] = '\0';
    printf("mpilift-pingpong 1\nlibrary %s\n", Library);
    printf("operation %.6e\n", operationTime(Samples));
  }
  for (size_t K = 0; K < sizeof Sizes / sizeof Sizes[0]; ++K) {
    int Bytes = Sizes[K], Trips = tripsFor(Bytes);
    if (Rank < 2)
      batch(Buffer, Bytes, 2, Rank); /* Warms the path up. */
    for (int S = 0; S < Samples; ++S) {
      MPI_Barrier(MPI_COMM_WORLD);
      Times[S] = Rank < 2 ? batch(Buffer, Bytes, Trips, Rank) : 0;
    }
    if (Rank == 0)
      printf("sample %d %.6e\n", Bytes, median(Times, Samples));
  }
  free(Buffer);
  free(Times);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
