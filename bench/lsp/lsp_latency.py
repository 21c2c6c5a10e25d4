#!/usr/bin/env python3
"""bench/lsp: edit-to-diagnostic time of `mpilift lsp` beside clangd-19's on
the same small C++ MPI file, in the same run.

Each server is started once, opens the file, and then R times receives an
edit (a comment line added, full text, as Neovim sends it) and is timed
until it publishes diagnostics for that version. mpilift runs with
--debounce-ms 0, so the figure is the check itself (an editor adds the
debounce on top); clangd-19 gets the same flags in its own database (the
ones mpicxx --showme:compile gives), so both parse the same headers.
Prints per server the first check, the median and the quartiles of the
edits, and the ratio of the medians.

  python3 bench/lsp/lsp_latency.py BUILD_DIR [R]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The JSON-RPC connection the tests use.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "test", "Inputs"))
from lspconnection import Connection  # noqa: E402

SOURCE = r'''#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace {

constexpr int kTag = 17;

class Decomposition {
public:
  explicit Decomposition(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  void share(std::vector<double> &coefficients) const {
    if (rank_ == 0) {
      for (int p = 1; p < size_; ++p)
        MPI_Send(coefficients.data(), static_cast<int>(coefficients.size()),
                 MPI_DOUBLE, p, kTag, comm_);
    } else {
      MPI_Recv(coefficients.data(), static_cast<int>(coefficients.size()),
               MPI_DOUBLE, 0, kTag, comm_, MPI_STATUS_IGNORE);
    }
  }

  int rank() const { return rank_; }

private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  {
    Decomposition d(MPI_COMM_WORLD);
    std::vector<double> c(8);
    if (d.rank() == 0)
      std::iota(c.begin(), c.end(), 1.0);
    d.share(c);
    std::printf("%d: %s %g\n", d.rank(), std::to_string(c.size()).c_str(),
                std::accumulate(c.begin(), c.end(), 0.0));
  }
  MPI_Finalize();
  return 0;
}
'''


class Server:
    """A server under measurement: when each version's diagnostics came."""

    def __init__(self, cmd):
        self.published = {}  # version -> time
        self.responses = {}
        self.conn = Connection(cmd, on_message=self.record,
                               stderr=subprocess.DEVNULL)

    def record(self, msg, now):
        if msg.get("method") == "textDocument/publishDiagnostics":
            v = msg["params"].get("version")
            if v is not None and v not in self.published:
                self.published[v] = now
        elif "id" in msg and "method" not in msg:
            self.responses[msg["id"]] = msg
        elif "id" in msg:  # A request of the server's: say yes.
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})

    def send(self, msg):
        self.conn.send(msg)

    def wait(self, pred, timeout=120):
        if not self.conn.wait_until(pred, timeout):
            sys.exit("lsp_latency: timed out")

    def stop(self):
        self.send({"jsonrpc": "2.0", "id": 99, "method": "shutdown"})
        self.wait(lambda: 99 in self.responses)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.conn.proc.wait(30)


def measure(cmd, path, reps):
    s = Server(cmd)
    uri = "file://" + path
    s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": "file://" + os.path.dirname(path),
        "capabilities": {"textDocument": {"publishDiagnostics": {
            "versionSupport": True, "relatedInformation": True}}}}})
    s.wait(lambda: 1 in s.responses)
    s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    start = time.perf_counter()
    s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                         "text": SOURCE}}})
    s.wait(lambda: 1 in s.published)
    first = s.published[1] - start
    times = []
    for i in range(reps):
        version = i + 2
        text = SOURCE + "// edit %d\n" % i
        start = time.perf_counter()
        s.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]}})
        s.wait(lambda: version in s.published)
        times.append(s.published[version] - start)
        time.sleep(0.05)
    s.stop()
    return first, times


def main():
    build = os.path.abspath(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    clangd = shutil.which("clangd-19") or "/usr/lib/llvm-19/bin/clangd"
    work = tempfile.mkdtemp(prefix="mpilift-lsp-bench-")
    try:
        ours, theirs = os.path.join(work, "mpilift"), os.path.join(work, "clangd")
        for d in (ours, theirs):
            os.makedirs(d)
            with open(os.path.join(d, "prog.cpp"), "w") as f:
                f.write(SOURCE)
        flags = subprocess.check_output(["mpicxx", "--showme:compile"], text=True)
        with open(os.path.join(ours, "compile_commands.json"), "w") as f:
            json.dump([{"directory": ours, "file": os.path.join(ours, "prog.cpp"),
                        "command": "mpicxx -std=c++17 -c prog.cpp"}], f)
        with open(os.path.join(theirs, "compile_commands.json"), "w") as f:
            json.dump([{"directory": theirs, "file": os.path.join(theirs, "prog.cpp"),
                        "command": "clang++ -std=c++17 %s -c prog.cpp" % flags.strip()}], f)
        rows = []
        rows.append(("mpilift lsp",) + measure(
            [os.path.join(build, "bin", "mpilift"), "lsp", "--debounce-ms", "0"],
            os.path.join(ours, "prog.cpp"), reps))
        if os.path.exists(clangd):
            rows.append(("clangd-19",) + measure(
                [clangd, "--background-index=0", "--log=error", "-j=1"],
                os.path.join(theirs, "prog.cpp"), reps))
        else:
            print("clangd-19 is not installed (apt-get install clangd-19): "
                  "no baseline")
        print("%-12s %10s %10s %10s %10s" % ("server", "open s", "edit p25",
                                            "median s", "p75"))
        medians = {}
        for name, first, times in rows:
            q = statistics.quantiles(times, n=4)
            medians[name] = statistics.median(times)
            print("%-12s %10.3f %10.3f %10.3f %10.3f" % (
                name, first, q[0], medians[name], q[2]))
        if len(medians) == 2:
            print("edit-to-diagnostic ratio mpilift/clangd: %.2f" % (
                medians["mpilift lsp"] / medians["clangd-19"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
