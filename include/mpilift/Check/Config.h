//===- Config.h - .mpilift.yaml ---------------------------------*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The project configuration file, found upward from each source file like
/// `.clang-tidy`:
///
/// ```yaml
/// Checks: 'mpilift-*,-mpilift-manual-alltoall'
/// WarningsAsErrors: 'mpilift-manual-bcast'
/// HeaderFilterRegex: 'src/.*'
/// Collectives: nonblocking      # or blocking
/// Fallback: cdag                # or none
/// ```
///
/// Options given on the command line win over the file.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_CHECK_CONFIG_H
#define MPILIFT_CHECK_CONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mpilift {
namespace check {

/// The settings of one `.mpilift.yaml`; unset keys stay empty.
struct Config {
  std::optional<std::string> Checks, WarningsAsErrors, HeaderFilterRegex,
      Collectives, Fallback;
  /// Read so that it can be reported as ignored: which programs may run is
  /// the user's choice, not the repository's.
  std::optional<std::string> QueryDriver;
  std::string Path; ///< The file these came from; empty for none.
};

/// Parses the text of a configuration file; unknown keys and bad values
/// are errors that name \p Path.
llvm::Expected<Config> parseConfig(llvm::StringRef Text, llvm::StringRef Path);

/// The nearest `.mpilift.yaml` in the directory of \p SourceFile or above
/// it; an empty Config when there is none.
llvm::Expected<Config> findConfig(llvm::StringRef SourceFile);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_CHECK_CONFIG_H
