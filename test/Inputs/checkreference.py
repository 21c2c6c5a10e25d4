"""What `mpilift check` says about a program, as the reference the other
front ends (the language server, the clang-tidy module) are compared with.
Shared by lsp-vs-check.py and tidy-vs-check.py.
"""
import json
import os
import re
import shutil
import subprocess

FINDING = re.compile(
    r"^(.*?):(\d+):(\d+): (warning|error|remark): (.*) \[(mpilift-[a-z-]+)\]$")


def project(work, source, tag):
    """A copy of SOURCE in WORK/<name>.<tag> with a compile_commands.json
    whose compiler is the MPI wrapper; returns (directory, path)."""
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
    """The findings in clang-style OUTPUT: sorted (line, column, rule,
    message) with the message's trailing rule id left out."""
    return sorted((int(m.group(2)), int(m.group(3)), m.group(6), m.group(5))
                  for m in map(FINDING.match, output.splitlines()) if m)


def run(cmd):
    return subprocess.run(cmd, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout


def reference(mpilift, work, source):
    """mpilift check's findings for SOURCE and the text --fix writes."""
    d, path = project(work, source, "check")
    expected = findings(run([mpilift, "check", "-p", d, path]))
    run([mpilift, "check", "-p", d, "--fix", path])
    with open(path) as f:
        return expected, f.read()
