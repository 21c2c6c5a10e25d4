//===- InChild.h - Measure in a fresh child process -------------*- C++ -*-===//
//
// Part of mpilift. For benchmarks whose peak memory must be one
// measurement's alone: the measurement runs in a forked child and its
// result (a trivially copyable struct) comes back through a pipe.
//
//===----------------------------------------------------------------------===//

#ifndef MPILIFT_BENCH_COMMON_INCHILD_H
#define MPILIFT_BENCH_COMMON_INCHILD_H

#include <cstdlib>
#include <sys/resource.h>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>

namespace mpilift {
namespace bench {

/// This process's peak resident set so far, in KiB.
inline long peakRssKb() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

/// Runs \p Measure in a forked child and returns its result; aborts if the
/// child fails.
template <typename Fn> auto inChild(Fn Measure) {
  using Result = decltype(Measure());
  static_assert(std::is_trivially_copyable_v<Result>, "sent through a pipe");
  int Pipe[2];
  if (pipe(Pipe))
    abort();
  pid_t Pid = fork();
  if (Pid == 0) {
    close(Pipe[0]);
    Result R = Measure();
    _exit(write(Pipe[1], &R, sizeof(R)) == sizeof(R) ? 0 : 1);
  }
  close(Pipe[1]);
  Result R;
  ssize_t Got = read(Pipe[0], &R, sizeof(R));
  close(Pipe[0]);
  int Status;
  waitpid(Pid, &Status, 0);
  if (Got != sizeof(R) || !WIFEXITED(Status) || WEXITSTATUS(Status))
    abort();
  return R;
}

} // namespace bench
} // namespace mpilift

#endif // MPILIFT_BENCH_COMMON_INCHILD_H
