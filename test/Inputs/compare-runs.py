#!/usr/bin/env python3
"""Runs two MPI programs at several process counts and requires the same
output (lines sorted, since ranks print in any order).

  compare-runs.py --mpirun CMD [--np 1,2,3,4,5,7,8] BEFORE AFTER
"""
import argparse
import subprocess
import sys


def output(mpirun, exe, np):
    r = subprocess.run(f"{mpirun} -np {np} {exe}", shell=True, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=300)
    if r.returncode != 0:
        sys.exit(f"compare-runs: {exe} at np {np} exited with "
                 f"{r.returncode}:\n{r.stdout}")
    return sorted(r.stdout.splitlines())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mpirun", required=True)
    p.add_argument("--np", default="1,2,3,4,5,7,8")
    p.add_argument("before")
    p.add_argument("after")
    a = p.parse_args()
    counts = [int(n) for n in a.np.split(",")]
    for np in counts:
        b, f = output(a.mpirun, a.before, np), output(a.mpirun, a.after, np)
        if not b:
            sys.exit(f"compare-runs: {a.before} printed nothing at np {np}")
        if b != f:
            sys.exit(f"compare-runs: different output at np {np}:\n"
                     + "\n".join(b) + "\n---\n" + "\n".join(f))
    print("compare-runs: same output at np " + " ".join(map(str, counts)))


if __name__ == "__main__":
    main()
