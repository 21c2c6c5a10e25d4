//===- ThreadGroup.h - Threads of one process as a group --------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A ProcessGroup whose members are threads of this process: a subcommand
/// written for `mpirun -np K` shares its work among K threads the same
/// way, with the same messages (`mpilift detect --jobs K`).
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_DIST_THREADGROUP_H
#define MPILIFT_DIST_THREADGROUP_H

#include "mpilift/Dist/ProcessGroup.h"

#include <memory>
#include <vector>

namespace mpilift {
namespace dist {

/// The \p Size members of one group of threads, member K at index K. Each
/// member is used by one thread; they share what is sent among them and
/// must outlive every thread that uses one. A member waits in broadcast
/// and receiveFrom until the member it waits for has called broadcast or
/// sendToFirst.
std::vector<std::unique_ptr<ProcessGroup>> makeThreadGroup(int Size);

} // namespace dist
} // namespace mpilift

#endif // MPILIFT_DIST_THREADGROUP_H
