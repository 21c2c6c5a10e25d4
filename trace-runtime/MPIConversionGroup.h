//===- MPIConversionGroup.h - A conversion group on MPI ---------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The processes of the traced run as a ConversionGroup: PMPI collectives on
/// a communicator, and OTF2's own MPI collective callbacks (PMPI as well, so
/// that the runtime's wrappers see none of it).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_TRACE_RUNTIME_MPICONVERSIONGROUP_H
#define MPILIFT_TRACE_RUNTIME_MPICONVERSIONGROUP_H

#include "mpilift/TraceRuntime/Convert.h"

#include <mpi.h>

namespace mpilift {
namespace rt {

class MPIConversionGroup : public tracert::ConversionGroup {
public:
  /// \p Comm must stay valid while the group is used.
  explicit MPIConversionGroup(MPI_Comm Comm);

  int rank() const override { return Rank; }
  int size() const override { return Size; }
  std::vector<std::string> gather(const std::string &Bytes) override;
  std::string broadcast(const std::string &Bytes) override;
  bool setCollectiveCallbacks(OTF2_Archive_struct *Archive) override;

private:
  MPI_Comm Comm;
  int Rank = 0;
  int Size = 1;
};

} // namespace rt
} // namespace mpilift

#endif // MPILIFT_TRACE_RUNTIME_MPICONVERSIONGROUP_H
