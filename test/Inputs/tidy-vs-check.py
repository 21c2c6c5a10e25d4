#!/usr/bin/env python3
"""clang-tidy with mpilift's module must report and fix what `mpilift
check` does: for each program, the mpilift-* warnings of `mpilift-clang-tidy
--checks=-*,mpilift-*` (rule, place, message) are the findings of `mpilift
check`, and the file after `mpilift-clang-tidy --fix` is the file `mpilift
check --fix` writes.

  tidy-vs-check.py BIN_DIR WORKDIR FILES...
"""
import json
import os
import re
import shutil
import subprocess
import sys

FINDING = re.compile(r"^(.*?):(\d+):(\d+): (warning|error): (.*) \[(mpilift-[a-z-]+)\]$")


def project(work, source, tag):
    name = os.path.basename(source)
    d = os.path.join(work, name + "." + tag)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, name)
    shutil.copy(source, path)
    compiler = "mpicxx" if name.endswith(".cpp") else "mpicc"
    with open(os.path.join(d, "compile_commands.json"), "w") as f:
        json.dump([{"directory": d, "file": path,
                    "command": f"{compiler} -c {path}"}], f)
    return d, path


def findings(output):
    return sorted((int(m.group(2)), int(m.group(3)), m.group(6), m.group(5))
                  for m in map(FINDING.match, output.splitlines()) if m)


def run(cmd):
    return subprocess.run(cmd, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout


def main():
    bindir, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    mpilift = os.path.join(bindir, "mpilift")
    tidy = os.path.join(bindir, "mpilift-clang-tidy")
    os.makedirs(work, exist_ok=True)
    ok = True
    for source in files:
        name = os.path.basename(source)
        d, path = project(work, source, "check")
        expected = findings(run([mpilift, "check", "-p", d, path]))
        run([mpilift, "check", "-p", d, "--fix", path])
        check_fixed = open(path).read()
        d, path = project(work, source, "tidy")
        got = findings(run([tidy, "-p", d, "--checks=-*,mpilift-*", path]))
        run([tidy, "-p", d, "--checks=-*,mpilift-*", "--fix", path])
        tidy_fixed = open(path).read()
        same = got == expected and tidy_fixed == check_fixed
        if got != expected:
            print(f"{name}: clang-tidy's findings differ from mpilift check's:")
            print("  check:", expected)
            print("  tidy: ", got)
        if tidy_fixed != check_fixed:
            print(f"{name}: clang-tidy --fix does not write what mpilift check --fix does")
        if same:
            rewritten = tidy_fixed != open(source).read()
            print(f"{name}: {len(got)} finding(s), "
                  f"{'rewritten' if rewritten else 'unchanged'}: same")
        ok &= same
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
