// MPI_THREAD_MULTIPLE: four threads per rank exchange with the other rank,
// each on its own tag.
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { Threads = 4, Messages = 5 };
static int Rank;

static void *exchange(void *arg) {
  int tag = (int)(long)arg, value = 0;
  for (int i = 0; i < Messages; ++i) {
    if (Rank == 0)
      MPI_Send(&i, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
    else
      MPI_Recv(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    printf("no MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  pthread_t t[Threads];
  for (long i = 0; i < Threads; ++i)
    pthread_create(&t[i], NULL, exchange, (void *)i);
  for (int i = 0; i < Threads; ++i)
    pthread_join(t[i], NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d done\n", Rank);
  MPI_Finalize();
  return 0;
}
