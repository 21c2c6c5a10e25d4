/*===- MPIPlugin.c - MPI as the transport of mpilift's process groups ----===*
 *
 * Part of mpilift.
 *
 *===----------------------------------------------------------------------===*
 *
 * libmpilift-mpi.so: the few MPI calls a dist::ProcessGroup needs, behind
 * a C interface that mpilift loads at run time (ProcessGroup.cpp). Every
 * function returns an MPI error code; errors return instead of aborting.
 *
 *===----------------------------------------------------------------------===*/

#include <mpi.h>
#include <stdint.h>

/* Messages travel in pieces of at most this many bytes: MPI counts are
 * ints. */
#define MPILIFT_PIECE (1 << 30)

enum { TagSize = 1, TagData = 2 };

int mpilift_mpi_plugin_version(void) { return 1; }

int mpilift_mpi_init(int *Rank, int *Size) {
  int Provided;
  int Err = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &Provided);
  if (Err != MPI_SUCCESS)
    return Err;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Err = MPI_Comm_rank(MPI_COMM_WORLD, Rank);
  if (Err != MPI_SUCCESS)
    return Err;
  return MPI_Comm_size(MPI_COMM_WORLD, Size);
}

int mpilift_mpi_broadcast(int *Value) {
  return MPI_Bcast(Value, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

int mpilift_mpi_send(const char *Data, uint64_t Size) {
  int Err = MPI_Send(&Size, 1, MPI_UINT64_T, 0, TagSize, MPI_COMM_WORLD);
  for (uint64_t At = 0; Err == MPI_SUCCESS && At < Size;) {
    uint64_t Piece = Size - At < MPILIFT_PIECE ? Size - At : MPILIFT_PIECE;
    Err = MPI_Send(Data + At, (int)Piece, MPI_BYTE, 0, TagData, MPI_COMM_WORLD);
    At += Piece;
  }
  return Err;
}

int mpilift_mpi_receive_size(int From, uint64_t *Size) {
  return MPI_Recv(Size, 1, MPI_UINT64_T, From, TagSize, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
}

int mpilift_mpi_receive(int From, char *Data, uint64_t Size) {
  int Err = MPI_SUCCESS;
  for (uint64_t At = 0; Err == MPI_SUCCESS && At < Size;) {
    uint64_t Piece = Size - At < MPILIFT_PIECE ? Size - At : MPILIFT_PIECE;
    Err = MPI_Recv(Data + At, (int)Piece, MPI_BYTE, From, TagData,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    At += Piece;
  }
  return Err;
}

void mpilift_mpi_error_string(int Err, char *Buffer, int Capacity) {
  char Text[MPI_MAX_ERROR_STRING];
  int Length = 0;
  if (MPI_Error_string(Err, Text, &Length) != MPI_SUCCESS)
    Length = 0;
  if (Length >= Capacity)
    Length = Capacity - 1;
  for (int I = 0; I < Length; ++I)
    Buffer[I] = Text[I];
  Buffer[Length < 0 ? 0 : Length] = '\0';
}

int mpilift_mpi_finalize(void) { return MPI_Finalize(); }
