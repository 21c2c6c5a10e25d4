//===- CompilerFlags.h - How a database's commands are parsed ---*- C++ -*-===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Compile databases of MPI codes name the MPI wrapper (mpicc) as the
/// compiler: its include paths and defines are what it adds, and GCC 12,
/// which it runs, accepts old C that clang 19 rejects. The adjuster here
/// gives clang's tooling the same view of each unit.
///
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_LIB_CHECK_COMPILERFLAGS_H
#define MPILIFT_LIB_CHECK_COMPILERFLAGS_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mpilift {
namespace check {

/// What an MPI compiler wrapper adds (include paths, defines) and which
/// compiler it runs, so databases that name mpicc work like any other.
/// Cached per wrapper.
///
/// Asking means running the wrapper, and a compile database is the
/// repository's: a database naming `./bin/mpicc` would make us run the
/// repository's script. As clangd's --query-driver, only a wrapper named
/// bare (found by name on PATH), one that is the program PATH finds by its
/// name, or one matching a glob the user gave is run; any other is
/// replaced by the wrapper of the same name on PATH (else `mpicc`), and
/// the note callback says so once per wrapper.
class MPIWrapperFlags {
public:
  struct Wrapper {
    std::vector<std::string> Flags;
    std::string Compiler; ///< What it runs ("gcc"); empty if unknown.
  };

  /// \p QueryDriver: comma-separated globs of wrapper paths the user
  /// allows to run (`*` matches any run of characters, `/` too).
  explicit MPIWrapperFlags(
      std::string QueryDriver = "",
      std::function<void(std::string)> Note = nullptr);

  const Wrapper &wrapperFor(llvm::StringRef Compiler);

  /// The program asked for \p Compiler's flags, or empty if none;
  /// \p Replaced is set when it is not \p Compiler itself.
  std::string programToAsk(llvm::StringRef Compiler, bool &Replaced) const;

  /// Whether \p Compiler is named like an MPI wrapper.
  static bool isWrapper(llvm::StringRef Compiler);

private:
  std::string QueryDriver;
  std::function<void(std::string)> Note;
  llvm::StringMap<Wrapper> Cache;
  std::mutex Mutex;
};

/// Whether \p Compiler is GCC (`gcc`, `gcc-12`, `cc`, `x86_64-linux-gnu-gcc`,
/// and the C++ names), which accepts with a warning some old C that clang
/// 19 rejects.
bool isGCC(llvm::StringRef Compiler);

/// The adjuster every tool run of a session uses: the MPI wrapper's flags,
/// GCC's leniency where GCC builds the unit, and clang's resource
/// directory.
clang::tooling::ArgumentsAdjuster
compilerAdjuster(std::shared_ptr<MPIWrapperFlags> Wrappers);

} // namespace check
} // namespace mpilift

#endif // MPILIFT_LIB_CHECK_COMPILERFLAGS_H
