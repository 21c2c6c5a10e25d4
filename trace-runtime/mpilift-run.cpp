//===- mpilift-run.cpp - Run an MPI program with tracing ------------------===//
//
// Part of mpilift.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// mpirun -np 8 mpilift-run -o traces -- ./app args...
///
/// Sets MPILIFT_TRACE_DIR and preloads libmpilift-trace.so, then replaces
/// itself with the program, so that signals, exit status and everything else
/// stay exactly the program's own.
///
//===----------------------------------------------------------------------===//

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#ifndef MPILIFT_RELATIVE_LIBDIR
#define MPILIFT_RELATIVE_LIBDIR "../lib"
#endif

namespace {

const char *const Usage =
    "usage: mpilift-run [-o DIR] [--hash] [--force] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with every MPI call traced into DIR (one OTF2 archive for\n"
    "all ranks). Start it under mpirun, once per rank:\n"
    "  mpirun -np 8 mpilift-run -o traces -- ./app args\n"
    "\n"
    "options:\n"
    "  -o DIR    trace directory (default: $MPILIFT_TRACE_DIR); it must not\n"
    "            exist or be empty\n"
    "  --hash    also record a hash of every message's bytes\n"
    "  --force   replace an existing trace in DIR\n"
    "  -h, --help  show this help\n";

int usageError(const char *Message) {
  fprintf(stderr, "mpilift-run: error: %s\n\n%s", Message, Usage);
  return 2;
}

bool isFile(const std::string &Path) {
  struct stat St;
  return stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode);
}

std::string directoryOfExecutable() {
  char Buffer[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Buffer, sizeof(Buffer) - 1);
  if (N <= 0)
    return ".";
  std::string Path(Buffer, N);
  return Path.substr(0, Path.rfind('/'));
}

/// The runtime library: $MPILIFT_TRACE_LIB, else next to this executable.
std::string findTraceLibrary() {
  if (const char *Lib = getenv("MPILIFT_TRACE_LIB"))
    return Lib;
  std::string Bin = directoryOfExecutable();
  for (const char *Relative : {MPILIFT_RELATIVE_LIBDIR, "../lib"}) {
    std::string Candidate = Bin + "/" + Relative + "/libmpilift-trace.so";
    if (isFile(Candidate))
      return Candidate;
  }
  return "";
}

std::string absolutePath(const std::string &Path) {
  if (!Path.empty() && Path[0] == '/')
    return Path;
  char Cwd[PATH_MAX];
  if (!getcwd(Cwd, sizeof(Cwd)))
    return Path;
  return std::string(Cwd) + "/" + Path;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Dir;
  if (const char *Env = getenv("MPILIFT_TRACE_DIR"))
    Dir = Env;
  bool Hash = false, Force = false;
  int I = 1;
  for (; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (Arg == "--")
      break;
    if (Arg == "-h" || Arg == "--help") {
      fputs(Usage, stdout);
      return 0;
    }
    if (Arg == "-o") {
      if (I + 1 >= Argc)
        return usageError("-o needs a directory");
      Dir = Argv[++I];
    } else if (Arg.compare(0, 2, "-o") == 0 && Arg.size() > 2) {
      Dir = Arg.substr(2);
    } else if (Arg == "--hash") {
      Hash = true;
    } else if (Arg == "--force") {
      Force = true;
    } else {
      return usageError(("unknown option '" + Arg + "'").c_str());
    }
  }
  if (I >= Argc)
    return usageError("expected '--' before the program");
  if (I + 1 >= Argc)
    return usageError("no program after '--'");
  if (Dir.empty())
    return usageError("no trace directory (use -o DIR)");

  std::string Library = findTraceLibrary();
  if (Library.empty()) {
    fprintf(stderr, "mpilift-run: error: cannot find libmpilift-trace.so next "
                    "to mpilift-run (set MPILIFT_TRACE_LIB)\n");
    return 2;
  }
  std::string Preload = Library;
  if (const char *Old = getenv("LD_PRELOAD"))
    if (*Old)
      Preload += std::string(":") + Old;
  setenv("LD_PRELOAD", Preload.c_str(), 1);
  setenv("MPILIFT_TRACE_DIR", absolutePath(Dir).c_str(), 1);
  if (Hash)
    setenv("MPILIFT_TRACE_HASH", "1", 1);
  if (Force)
    setenv("MPILIFT_TRACE_FORCE", "1", 1);

  execvp(Argv[I + 1], Argv + I + 1);
  fprintf(stderr, "mpilift-run: error: cannot run '%s': %s\n", Argv[I + 1],
          strerror(errno));
  return errno == ENOENT ? 127 : 126;
}
