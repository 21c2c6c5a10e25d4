#!/usr/bin/env python3
"""bench/recall: what the trace detects and what `mpilift check` does, per
test program, as a user who traces and then checks would see it.

For every program given (by default test/check/*.c and *.cpp), in a scratch
directory: blank its lit directives, split it into its files (`//---
NAME` sections), build it with the MPI wrapper, run it
at 4 processes under mpilift-run, run `mpilift detect`, then
`mpilift check --trace` (no --fix). Each program gets one row:

  detected   the collectives `mpilift detect` reports (or "-")
  check      "rewritten" (the rules that offer a rewrite), "refused"
             (the safety checks named), or "silent"

and a summary counts the programs the trace detects something in that
check rewrites, refuses, or is silent about.

  python3 bench/recall/recall.py BUILD_DIR [PROGRAM...] [--markdown]
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl_vader_single_copy_mechanism="none")


def run(cmd, **kw):
    try:
        return subprocess.run(cmd, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=300, env=ENV,
                              **kw)
    except subprocess.TimeoutExpired:
        return None


def program_args(src):
    """The --args a test's RUN line gives its program, if any."""
    m = re.search(r'--args="([^"]*)"', open(src).read())
    return m.group(1).split() if m else []


def one(build, src, scratch):
    name = os.path.basename(src)
    # fuse-gatherv-bcast.c and .cpp share a stem: one directory each.
    d = os.path.join(scratch, name.replace(".", "_"))
    os.makedirs(d)
    ext = os.path.splitext(name)[1]
    prog = os.path.join(d, "prog" + ext)
    with open(src) as f:
        text = re.sub(r"//\s*[A-Z][A-Z0-9_-]*:[^\n]*", "", f.read())
    # A program of several files: `//--- NAME` starts the file NAME (a
    # header, or another unit), as in test/Inputs/check-rewrite.py.
    sections = re.split(r"^//--- (\S+)\n", text, flags=re.M)
    with open(prog, "w") as f:
        f.write(sections[0])
    units = [prog]
    for unit, body in zip(sections[1::2], sections[2::2]):
        with open(os.path.join(d, unit), "w") as f:
            f.write(body)
        if not unit.endswith(".h"):
            units.append(os.path.join(d, unit))
    cc = "mpicxx" if ext in (".cpp", ".cc") else "mpicc"
    with open(os.path.join(d, "compile_commands.json"), "w") as f:
        json.dump([{"directory": d, "file": u,
                    "command": f"{cc} -g -O0 -c {u} -o {u}.o"}
                   for u in units], f)
    exe = os.path.join(d, "app")
    r = run([cc, "-g", "-O0", *units, "-o", exe])
    if not r or r.returncode:
        return {"name": name, "detected": "(does not build)", "check": "-"}
    traces = os.path.join(d, "traces")
    r = run(["mpiexec", "--oversubscribe", "--bind-to", "none", "-np", "4",
             os.path.join(build, "bin", "mpilift-run"), "-o", traces, "--",
             exe, *program_args(src)])
    detected = []
    if r and r.returncode == 0:
        pj = os.path.join(d, "patterns.json")
        r = run([os.path.join(build, "bin", "mpilift"), "detect", traces,
                 "--format", "json", "-o", pj])
        if r and r.returncode == 0:
            doc = json.load(open(pj))
            detected = sorted({p["collective"] for p in doc["patterns"]})
    else:
        detected = ["(traced run failed)"]
    r = run([os.path.join(build, "bin", "mpilift"), "check", "-p", d,
             "--trace", traces, *units])
    out = r.stdout if r else ""
    rewritten, refused = set(), set()
    for line in out.splitlines():
        m = re.search(r"warning: .*\[(mpilift-manual-\w+)\]$", line)
        if not m:
            continue
        rule = m.group(1).replace("mpilift-manual-", "")
        n = re.search(r"not rewritten: (.*) refused", line)
        if n:
            refused.update(c.strip() for c in n.group(1).split(","))
        elif "not rewritten" in line:
            refused.add("rewrite failed")
        else:
            rewritten.add(rule)
    if rewritten:
        verdict = "rewritten (" + ", ".join(sorted(rewritten)) + ")"
    elif refused:
        verdict = "refused (" + ", ".join(sorted(refused)) + ")"
    else:
        verdict = "silent"
    return {"name": name, "detected": ", ".join(detected) or "-",
            "check": verdict}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    markdown = "--markdown" in sys.argv
    build = os.path.abspath(args[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    srcs = args[1:] or sorted(glob.glob(os.path.join(root, "test/check/*.c")) +
                              glob.glob(os.path.join(root, "test/check/*.cpp")))
    scratch = tempfile.mkdtemp(prefix="recall-")
    rows = [one(build, s, scratch) for s in srcs]
    shutil.rmtree(scratch)
    if markdown:
        print("| program | the trace detects | mpilift check |")
        print("| --- | --- | --- |")
        for r in rows:
            print(f"| `{r['name']}` | {r['detected']} | {r['check']} |")
    else:
        for r in rows:
            print(f"{r['name']:36s} {r['detected']:24s} {r['check']}")
    traced = [r for r in rows if r["detected"] not in ("-",) and
              not r["detected"].startswith("(")]
    count = lambda k: sum(r["check"].startswith(k) for r in traced)
    print(f"\nprograms: {len(rows)}; the trace detects a collective in "
          f"{len(traced)}: rewritten {count('rewritten')}, refused "
          f"{count('refused')}, silent {count('silent')}")


if __name__ == "__main__":
    main()
