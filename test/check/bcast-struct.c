// A struct sent with a derived datatype, and a second broadcast of floats
// in the same function on another tag.
// RUN: %check-rewrite rewrite %s %t --trace | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not=warning:
// RUN: FileCheck %s --check-prefix=CHECK-FIXES < %t/prog.c
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

struct config {
  int steps;
  double dt;
  char name[12];
};

int main(int argc, char **argv) {
  int rank, size;
  struct config cfg = {0, 0.0, "unset"};
  float scale[3] = {0, 0, 0};
  MPI_Datatype config_type;
  int lengths[3] = {1, 1, 12};
  MPI_Aint displs[3] = {offsetof(struct config, steps),
                        offsetof(struct config, dt),
                        offsetof(struct config, name)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Type_create_struct(3, lengths, displs, types, &config_type);
  MPI_Type_commit(&config_type);
  if (rank == 0) {
    cfg.steps = 42;
    cfg.dt = 0.125;
    snprintf(cfg.name, sizeof cfg.name, "run-%d", size);
    for (int i = 1; i < size; i++)
      MPI_Send(&cfg, 1, config_type, i, 1, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(&cfg, 1, config_type, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: MPI_Bcast(&cfg, 1, config_type, 0, MPI_COMM_WORLD);
  // CHECK-FIXES: MPI_Bcast(&cfg, 1, config_type, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    scale[0] = 0.5f;
    scale[1] = 1.5f;
    scale[2] = 2.5f;
    for (int i = 1; i < size; i++)
      MPI_Send(scale, 3, MPI_FLOAT, i, 2, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: loop of point-to-point sends implements a broadcast (static analysis and the trace); replace it with MPI_Bcast [mpilift-manual-bcast]
  } else {
    MPI_Recv(scale, 3, MPI_FLOAT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // CHECK-FIXES: MPI_Bcast(scale, 3, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK-FIXES: MPI_Bcast(scale, 3, MPI_FLOAT, 0, MPI_COMM_WORLD);
  printf("rank %d: %d %.3f %s %.1f %.1f %.1f\n", rank, cfg.steps, cfg.dt,
         cfg.name, scale[0], scale[1], scale[2]);
  MPI_Type_free(&config_type);
  MPI_Finalize();
  return 0;
}
// CHECK-MESSAGES: check-rewrite: same output at np 1 2 3 4 5 7 8
