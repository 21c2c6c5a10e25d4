//===- ProjectIndex.h - The project's facts, built and cached ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Builds the facts of every unit of a compile database (ProjectFacts) for
/// a check session: each unit is parsed once and summarised; a summary is
/// kept in the cache directory with the hash of its compile command and of
/// every file the unit read, and reused while they are unchanged.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_CHECK_PROJECTINDEX_H
#define MPILIFT_LIB_CHECK_PROJECTINDEX_H

#include "SessionImpl.h"

#include "mpilift/Analysis/ProjectFacts.h"

#include <memory>

namespace mpilift {
namespace check {

/// The facts of every unit of \p Compilations, or null when the database
/// lists no files (flags given on the command line) or a unit could not be
/// summarised (the session is told which, and checks each unit alone).
std::unique_ptr<analysis::ProjectFacts>
buildProjectFacts(const clang::tooling::CompilationDatabase &Compilations,
                  CheckSession::Impl &Session,
                  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_LIB_CHECK_PROJECTINDEX_H
