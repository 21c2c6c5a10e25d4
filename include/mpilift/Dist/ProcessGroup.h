//===- ProcessGroup.h - The processes of an mpirun launch -------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The processes `mpirun -np K mpilift ...` starts, as a subcommand that
/// shares its work among them sees them: a rank, a size, and messages to
/// and from process 0. MPI carries them, reached through a plugin
/// (libmpilift-mpi.so) loaded only when mpirun started more than one
/// process: `mpilift` itself does not link MPI.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_DIST_PROCESSGROUP_H
#define MPILIFT_DIST_PROCESSGROUP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mpilift {
namespace dist {

/// Processes that share one command's work; process 0 gathers it.
class ProcessGroup {
public:
  virtual ~ProcessGroup();

  /// This process, from 0.
  virtual int rank() const = 0;
  /// How many processes there are.
  virtual int size() const = 0;
  /// Process 0's \p Value, on every process (collective).
  virtual llvm::Expected<int> broadcast(int Value) = 0;
  /// Sends \p Data to process 0; not on process 0. By value: a group of
  /// threads hands the bytes over without a copy (a share of a long
  /// trace's steps is gigabytes).
  virtual llvm::Error sendToFirst(std::string Data) = 0;
  /// On process 0: what process \p From sent with sendToFirst.
  virtual llvm::Expected<std::string> receiveFrom(int From) = 0;
  /// How messages name member \p Rank: "process 1".
  virtual std::string memberName(int Rank) const;
};

/// How many processes the launcher that started this one started, from
/// the environment it sets (Open MPI, MPICH and PMIx launchers); 1 when
/// none did.
int launchedProcesses();

/// This process among those the launcher started (launchedProcesses),
/// from the environment; 0 when no launcher started it.
int launchedRank();

/// The processes of this launch joined through MPI, if the launcher
/// started more than one (launchedProcesses); null otherwise. The plugin
/// is $MPILIFT_MPI_PLUGIN, else libmpilift-mpi.so in the library
/// directory beside this executable. MPI is finalised when the group is
/// destroyed.
llvm::Expected<std::unique_ptr<ProcessGroup>> joinLaunchedProcesses();

} // namespace dist
} // namespace mpilift

#endif // MPILIFT_DIST_PROCESSGROUP_H
