// bench/cdag-run: a 1 MiB broadcast written as a star in cDAG, run with
// detection (it becomes MPI_Bcast) against CDAG_DISABLE_DETECTION=1 (the
// star as point-to-point), both compiled in this run and measured
// alternately. Prints median times per run, their ratio, the compile time,
// and after how many cDAG_Run calls compiling has paid for itself (the
// paper's section 3.3).
// Usage: mpirun -np 8 cdag-run [BYTES] [REPS] [RUNS_PER_REP]
#include <cdag/cdag.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/MPITiming.h"

static double compile(cDAG_Graph G, cDAG_Schedule *S) {
  MPI_Barrier(MPI_COMM_WORLD);
  double T = MPI_Wtime();
  if (cDAG_Compile(G, S) != CDAG_SUCCESS) {
    fprintf(stderr, "compile: %s\n", cDAG_Error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return slowest(MPI_Wtime() - T);
}

static double timeRuns(cDAG_Schedule S, int Runs) {
  MPI_Barrier(MPI_COMM_WORLD);
  double T = MPI_Wtime();
  for (int I = 0; I < Runs; ++I)
    cDAG_Run(S);
  return slowest(MPI_Wtime() - T) / Runs;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  size_t Bytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 1 << 20;
  int Reps = argc > 2 ? atoi(argv[2]) : 11;
  int Runs = argc > 3 ? atoi(argv[3]) : 20;
  char *Buf = malloc(Bytes);
  for (size_t I = 0; I < Bytes; ++I)
    Buf[I] = Rank == 0 ? (char)I : 0;

  cDAG_Graph G;
  cDAG_Create(MPI_COMM_WORLD, &G);
  for (int J = 1; Rank == 0 && J < Size; ++J)
    cDAG_Send(G, Buf, Bytes, J, 0, NULL);
  if (Rank != 0)
    cDAG_Recv(G, Buf, Bytes, 0, 0, NULL);

  cDAG_Schedule Detected, Plain;
  unsetenv("CDAG_DISABLE_DETECTION");
  double CompileDetected = compile(G, &Detected);
  setenv("CDAG_DISABLE_DETECTION", "1", 1);
  double CompilePlain = compile(G, &Plain);
  cDAG_Free(&G);

  double *TD = malloc(Reps * sizeof(double)), *TP = malloc(Reps * sizeof(double));
  for (int R = 0; R < Reps; ++R) {
    TP[R] = timeRuns(Plain, Runs);
    TD[R] = timeRuns(Detected, Runs);
  }
  int Errors = 0;
  for (size_t I = 0; I < Bytes; ++I)
    Errors += Buf[I] != (char)I;
  int AllErrors;
  MPI_Reduce(&Errors, &AllErrors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    double P = median(TP, Reps), D = median(TD, Reps);
    printf("processes %d, %zu bytes, median of %d x %d runs\n", Size, Bytes,
           Reps, Runs);
    printf("%s", cDAG_Report(Detected));
    printf("point-to-point (detection off) %10.1f us/run\n", P * 1e6);
    printf("detected (MPI collective)      %10.1f us/run\n", D * 1e6);
    printf("ratio point-to-point/detected  %10.2f\n", P / D);
    printf("compile with detection         %10.1f us (without: %.1f us)\n",
           CompileDetected * 1e6, CompilePlain * 1e6);
    if (P > D)
      printf("compiling pays off after        %10.1f runs\n",
             CompileDetected / (P - D));
    else
      printf("compiling does not pay off here (detected is not faster)\n");
    printf("data check: %s\n", AllErrors ? "WRONG" : "ok");
  }
  cDAG_Free_schedule(&Detected);
  cDAG_Free_schedule(&Plain);
  free(Buf);
  free(TD);
  free(TP);
  MPI_Finalize();
  return 0;
}
