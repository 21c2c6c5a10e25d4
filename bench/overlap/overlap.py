#!/usr/bin/env python3
"""bench/overlap: what the overlap rules change at run time, measured in one
run against the original program.

Builds bench/overlap/exchange.c three ways:

  original   blocking MPI_Send/MPI_Recv, then computation
  split      `mpilift check --checks=mpilift-split-send,mpilift-split-recv
             --fix`: MPI_Isend/MPI_Irecv, waits after the computation
  polled     the same with --progress-polling (MPI_Test every 64 iterations
             of the computation loop)

For 2 and 4 ranks and messages of 1 and 4 MiB it first measures the
exchange alone, then sets the computation to take about as long; it also
runs without computation (nothing to overlap). Every variant runs R times,
interleaved; the medians of the slowest rank's time per iteration are
printed with the ratios against the original (below 1: faster). The
checksums of all variants must agree.

  python3 bench/overlap/overlap.py BUILD_DIR [R]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = ["env", "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
          "mpirun", "--oversubscribe", "--bind-to", "none"]
ITERATIONS = 20


def sh(cmd, **kw):
    r = subprocess.run(cmd, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600, **kw)
    if r.returncode:
        sys.exit("overlap.py: '%s' failed:\n%s" % (" ".join(cmd), r.stdout))
    return r.stdout


def build(mpilift, work):
    src = os.path.join(work, "exchange.c")
    shutil.copy(os.path.join(HERE, "exchange.c"), src)
    flags = sh(["mpicc", "--showme:compile"]).split()
    exes = {}
    for name, extra in [("original", None), ("split", []),
                        ("polled", ["--progress-polling"])]:
        copy = os.path.join(work, name + ".c")
        shutil.copy(src, copy)
        if extra is not None:
            sh([mpilift, "check", "--fix",
                "--checks=mpilift-split-send,mpilift-split-recv"] + extra +
               [copy, "--"] + flags)
            if open(copy).read() == open(src).read():
                sys.exit("overlap.py: mpilift rewrote nothing for " + name)
        exe = os.path.join(work, name)
        sh(["mpicc", "-O2", copy, "-o", exe])
        exes[name] = exe
    return exes


def run(exe, np, size, work):
    out = sh(MPIRUN + ["-np", str(np), exe, str(size), str(work),
                       str(ITERATIONS)]).split()
    return float(out[0]), out[1]


def median_time(exe, np, size, work, runs):
    return statistics.median(run(exe, np, size, work)[0] for _ in range(runs))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mpilift = os.path.join(os.path.abspath(sys.argv[1]), "bin", "mpilift")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = tempfile.mkdtemp(prefix="mpilift-overlap-")
    try:
        exes = build(mpilift, work)
        print("%-3s %-6s %-10s %12s %12s %12s %7s %7s" %
              ("np", "MiB", "compute", "original", "split", "polled",
               "split/o", "poll/o"))
        for np in (2, 4):
            for mib in (1, 4):
                size = mib << 20
                # Calibrate: the exchange alone, and the cost of 1e6 units.
                alone = median_time(exes["original"], np, size, 0, 3)
                unit = (median_time(exes["original"], np, size, 10**6, 3) -
                        alone) / 1e6
                balanced = max(1, int(alone / unit)) if unit > 0 else 10**6
                for label, units in (("none", 0), ("balanced", balanced)):
                    times = {k: [] for k in exes}
                    sums = set()
                    for _ in range(runs):
                        for name, exe in exes.items():
                            t, checksum = run(exe, np, size, units)
                            times[name].append(t)
                            sums.add(checksum)
                    if len(sums) != 1:
                        sys.exit("overlap.py: the variants disagree: %s" % sums)
                    m = {k: statistics.median(v) for k, v in times.items()}
                    print("%-3d %-6d %-10s %10.3fms %10.3fms %10.3fms %7.2f %7.2f"
                          % (np, mib, label, m["original"] * 1e3,
                             m["split"] * 1e3, m["polled"] * 1e3,
                             m["split"] / m["original"],
                             m["polled"] / m["original"]))
                    sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
