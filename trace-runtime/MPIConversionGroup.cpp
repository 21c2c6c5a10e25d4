//===- MPIConversionGroup.cpp - A conversion group on MPI -----------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//

#include "MPIConversionGroup.h"

#include <otf2/otf2.h>

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>

#include <climits>

namespace mpilift {
namespace rt {

MPIConversionGroup::MPIConversionGroup(MPI_Comm Comm) : Comm(Comm) {
  PMPI_Comm_rank(Comm, &Rank);
  PMPI_Comm_size(Comm, &Size);
}

std::vector<std::string> MPIConversionGroup::gather(const std::string &Bytes) {
  // What the conversion exchanges is small (definitions, counts); an int
  // count per member is plenty, and the total must fit an int too.
  int Mine = static_cast<int>(std::min<size_t>(Bytes.size(), INT_MAX));
  std::vector<int> Counts(Rank == 0 ? Size : 0), Offsets(Counts.size());
  PMPI_Gather(&Mine, 1, MPI_INT, Counts.data(), 1, MPI_INT, 0, Comm);
  long long Total = 0;
  for (int R = 0; R < static_cast<int>(Counts.size()); ++R) {
    Offsets[R] = static_cast<int>(std::min<long long>(Total, INT_MAX));
    Total += Counts[R];
  }
  std::string All(Rank == 0 ? static_cast<size_t>(Total) : 0, '\0');
  PMPI_Gatherv(Bytes.data(), Mine, MPI_BYTE, All.data(), Counts.data(),
               Offsets.data(), MPI_BYTE, 0, Comm);
  std::vector<std::string> Parts;
  for (int R = 0; R < static_cast<int>(Counts.size()); ++R)
    Parts.push_back(All.substr(Offsets[R], Counts[R]));
  return Parts;
}

std::string MPIConversionGroup::broadcast(const std::string &Bytes) {
  unsigned long long Length = Bytes.size();
  PMPI_Bcast(&Length, 1, MPI_UNSIGNED_LONG_LONG, 0, Comm);
  std::string Out = Rank == 0 ? Bytes : std::string(Length, '\0');
  for (unsigned long long Done = 0; Done < Length;) {
    int Piece = static_cast<int>(std::min<unsigned long long>(
        Length - Done, static_cast<unsigned long long>(INT_MAX)));
    PMPI_Bcast(Out.data() + Done, Piece, MPI_BYTE, 0, Comm);
    Done += Piece;
  }
  return Out;
}

bool MPIConversionGroup::setCollectiveCallbacks(OTF2_Archive *Archive) {
  return OTF2_MPI_Archive_SetCollectiveCallbacks(Archive, Comm,
                                                 MPI_COMM_NULL) == OTF2_SUCCESS;
}

} // namespace rt
} // namespace mpilift
