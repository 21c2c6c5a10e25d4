#!/usr/bin/env python3
"""Runs `mpilift check` on one test program the way a user would, and proves
the rewrite by running: the program is copied (its CHECK comments blanked, so
line numbers stay), given a compile_commands.json whose compiler is the MPI
wrapper, built, checked with --fix, rebuilt, and run before and after at
several process counts with identical output required.

  check-rewrite.py rewrite SRC DIR [--trace] [--np 1,2,3] [--cflags FLAGS]
  check-rewrite.py refuse SRC DIR [--cflags FLAGS]

--cflags go into the compile database and every build, as a project's own
flags would.

A program of several files is one source with sections: each line
`//--- NAME` starts the file NAME (a header, or another unit that goes into
the compile database and every build); what comes before the first is the
program's main file, the one checked and rewritten. Its line numbers are
those of the source. With --all-units, every unit is checked and may be
rewritten (a helper in another file that holds the pattern).

'refuse' requires that --fix leaves the file byte for byte unchanged. The
diagnostics of `mpilift check` go to standard output for FileCheck.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys


def fail(msg):
    print("check-rewrite: error: " + msg)
    sys.exit(1)


def run(cmd, timeout=300, **kw):
    # A program that deadlocks (an unsafe exchange, a broken rewrite) must
    # fail the test, not hang the suite; its processes (MPI's ranks spin
    # while they wait) must not outlive it, or they slow every later test.
    proc = subprocess.Popen(cmd, shell=isinstance(cmd, str), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, **kw)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        fail(f"'{cmd}' did not finish in {timeout} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out)


def sorted_output(mpirun, exe, np, args, original=False):
    r = run(f"{mpirun} -np {np} {exe} {args}")
    # Open MPI 4.1 now and then crashes a finished process in its own
    # shutdown ("Process received signal", address not mapped) on this
    # kind of VM. The original program, which mpilift did not touch, runs
    # once more then; a rewritten program that crashes fails at once.
    if original and r.returncode != 0 and \
            "Process received signal" in r.stdout:
        r = run(f"{mpirun} -np {np} {exe} {args}")
    if r.returncode != 0:
        fail(f"{exe} at np {np} exited with {r.returncode}:\n{r.stdout}")
    return sorted(r.stdout.splitlines())


NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def same_within(a, b, rtol):
    """Whether the lines a and b are the same text with numbers equal to
    rtol relative; with rtol 0, whether they are the same text."""
    if rtol == 0:
        return a == b
    if NUMBER.sub("#", a) != NUMBER.sub("#", b):
        return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
        x, y = float(x), float(y)
        if abs(x - y) > rtol * max(abs(x), abs(y)):
            return False
    return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["rewrite", "refuse"])
    p.add_argument("src")
    p.add_argument("dir")
    p.add_argument("--mpilift", required=True)
    p.add_argument("--mpilift-run", required=True)
    p.add_argument("--mpicc", required=True)
    p.add_argument("--mpicxx", required=True)
    p.add_argument("--mpirun", required=True)
    p.add_argument("--np", default="1,2,3,4,5,7,8")
    p.add_argument("--cflags", default="",
                   help="the project's compile flags (database and builds)")
    p.add_argument("--trace", action="store_true")
    p.add_argument("--args", default="")
    p.add_argument("--check-args", default="")
    p.add_argument("--all-units", action="store_true",
                   help="check and rewrite the other units too")
    p.add_argument("--new-build-args", default="",
                   help="extra flags to build the rewritten program (libcdag)")
    p.add_argument("--rtol", type=float, default=0.0,
                   help="numbers in the outputs may differ by this much, "
                        "relative (floating-point reductions rewritten "
                        "with --allow-reassociation); 0: byte for byte")
    p.add_argument("--report", default="",
                   help="run the rewritten program at this np with "
                        "CDAG_REPORT=1 and print what it says")
    o = p.parse_args()

    shutil.rmtree(o.dir, ignore_errors=True)
    os.makedirs(o.dir)
    ext = os.path.splitext(o.src)[1]
    prog = os.path.join(o.dir, "prog" + ext)
    with open(o.src) as f:
        # Every FileCheck or lit directive (CHECK-FIXES:, SARIF-NOT:, RUN:)
        # is blanked; the line stays, so line numbers do not move.
        text = re.sub(r"//\s*[A-Z][A-Z0-9_-]*:[^\n]*", "", f.read())
    sections = re.split(r"^//--- (\S+)\n", text, flags=re.M)
    with open(prog, "w") as f:
        f.write(sections[0])
    units = []
    for name, body in zip(sections[1::2], sections[2::2]):
        with open(os.path.join(o.dir, name), "w") as f:
            f.write(body)
        if not name.endswith(".h"):
            units.append(os.path.join(o.dir, name))
    cc = o.mpicxx if ext in (".cpp", ".cc", ".cxx") else o.mpicc

    def write_database(extra=""):
        with open(os.path.join(o.dir, "compile_commands.json"), "w") as f:
            json.dump([{"directory": o.dir, "file": u,
                        "command": f"{cc} -g -O0 {o.cflags} {extra} -c {u} "
                                   f"-o {os.path.basename(u)}.o"}
                       for u in [prog] + units], f)

    write_database()
    sources = " ".join([prog] + units)
    orig = os.path.join(o.dir, "orig")
    r = run(f"{cc} -g -O0 {o.cflags} {sources} -o {orig}")
    if r.returncode:
        fail("the original does not build:\n" + r.stdout)

    check = f"{o.mpilift} check -p {o.dir} {o.check_args}"
    if o.trace:
        traces = os.path.join(o.dir, "traces")
        r = run(f"{o.mpirun} -np 4 {o.mpilift_run} -o {traces} -- {orig} {o.args}")
        if r.returncode:
            fail("the traced run failed:\n" + r.stdout)
        check += f" --trace {traces}"

    def contents():
        return {u: open(u).read() for u in [prog] + units}

    checked = " ".join([prog] + units) if o.all_units else prog
    before_all = contents()
    before = before_all if o.all_units else before_all[prog]
    r = run(f"{check} --fix {checked}")
    print(r.stdout, end="")
    if r.returncode != 0:
        fail(f"mpilift check exited with {r.returncode}")
    after = contents() if o.all_units else open(prog).read()

    if o.mode == "refuse":
        if contents() != before_all:
            fail("a file was changed:\n" + str(after))
        print("check-rewrite: unchanged")
        return

    if after == before:
        fail("nothing was rewritten")
    if o.new_build_args:
        # The finding asked for these flags (libcdag): the build gets the
        # compile ones.
        write_database(" ".join(w for w in o.new_build_args.split()
                                if w.startswith("-I")))
    r = run(f"{check} --fix {checked}")
    again = contents() if o.all_units else open(prog).read()
    if r.returncode != 0 or again != after:
        fail("a second --fix changed the file or failed:\n" + r.stdout)
    # What was refused stays refused; nothing rewritable may be left.
    left = [line for line in r.stdout.splitlines()
            if re.search(r"warning: .*\[mpilift-", line) and
            "not rewritten" not in line]
    if left:
        fail("a second run still reports findings:\n" + r.stdout)
    new = os.path.join(o.dir, "new")
    r = run(f"{cc} -g -O0 {o.cflags} {sources} -o {new} {o.new_build_args}")
    if r.returncode:
        fail("the rewritten program does not build:\n" + r.stdout)
    nps = o.np.split(",")
    for np in nps:
        a = sorted_output(o.mpirun, orig, np, o.args, original=True)
        b = sorted_output(o.mpirun, new, np, o.args)
        if len(a) != len(b) or not all(
                same_within(x, y, o.rtol) for x, y in zip(a, b)):
            fail(f"output differs at np {np}:\noriginal:\n" + "\n".join(a) +
                 "\nrewritten:\n" + "\n".join(b))
        if not a:
            fail(f"no output at np {np}: nothing was compared")
    print("check-rewrite: same output at np " + " ".join(nps) +
          (f" (numbers to {o.rtol:g} relative)" if o.rtol else ""))
    if o.report:
        r = run(f"env CDAG_REPORT=1 {o.mpirun} -np {o.report} {new} {o.args}")
        for line in r.stdout.splitlines():
            print("report: " + line)


if __name__ == "__main__":
    main()
