#!/usr/bin/env python3
"""The language server and `mpilift check` must agree: for each program,
the diagnostics `mpilift lsp` publishes for the open file (with its
precompiled preamble, after an edit so that the preamble is reused) are
the findings `mpilift check` prints, and the text after the server's
fix-all action is the file `mpilift check --fix` writes.

  lsp-vs-check.py MPILIFT WORKDIR FILES...
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading

FINDING = re.compile(r"^(.*?):(\d+):(\d+): (warning|error|remark): (.*) \[(mpilift-[a-z-]+)\]$")


class Client:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.cond = threading.Condition()
        self.messages = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            msg = json.loads(out.read(length))
            with self.cond:
                self.messages.append(msg)
                self.cond.notify_all()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def wait_for(self, pred):
        with self.cond:
            if not self.cond.wait_for(lambda: any(pred(m) for m in self.messages), 300):
                sys.exit("lsp-vs-check: timed out")
            return [m for m in self.messages if pred(m)][-1]


def apply_edits(text, edits):
    lines = text.split("\n")
    starts = [0]
    for l in lines[:-1]:
        starts.append(starts[-1] + len(l) + 1)

    def offset(pos):  # ASCII sources: characters are bytes.
        if pos["line"] >= len(starts):
            return len(text)
        return starts[pos["line"]] + pos["character"]
    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        a, b = offset(e["range"]["start"]), offset(e["range"]["end"])
        text = text[:a] + e["newText"] + text[b:]
    return text


def check(mpilift, work, source):
    name = os.path.basename(source)
    d = os.path.join(work, name + ".d")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, name)
    shutil.copy(source, path)
    compiler = "mpicxx" if name.endswith(".cpp") else "mpicc"
    with open(os.path.join(d, "compile_commands.json"), "w") as f:
        json.dump([{"directory": d, "file": path, "command": f"{compiler} -c {path}"}], f)
    text = open(path).read()

    r = subprocess.run([mpilift, "check", "-p", d, path], text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    expected = sorted((int(m.group(2)), int(m.group(3)), m.group(6), m.group(5))
                      for m in map(FINDING.match, r.stdout.splitlines()) if m)
    fixed = os.path.join(d, "fixed")
    os.makedirs(fixed)
    shutil.copy(path, os.path.join(fixed, name))
    with open(os.path.join(fixed, "compile_commands.json"), "w") as f:
        fp = os.path.join(fixed, name)
        json.dump([{"directory": fixed, "file": fp, "command": f"{compiler} -c {fp}"}], f)
    subprocess.run([mpilift, "check", "-p", fixed, "--fix", os.path.join(fixed, name)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after_fix = open(os.path.join(fixed, name)).read()

    c = Client([mpilift, "lsp", "--debounce-ms", "0"])
    uri = "file://" + path
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    c.wait_for(lambda m: m.get("id") == 1)
    c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}})
    # An edit after the last line: the second check reuses the preamble.
    c.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": text + "\n"}]}})
    pub = c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                     and m["params"].get("version") == 2)
    got = []
    for diag in pub["params"]["diagnostics"]:
        if "code" not in diag:
            print(f"{name}: server problem: {diag['message']}")
            continue
        start = diag["range"]["start"]
        got.append((start["line"] + 1, start["character"] + 1, diag["code"], diag["message"]))
    got.sort()
    c.send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll.mpilift"]}}})
    actions = c.wait_for(lambda m: m.get("id") == 2)["result"]
    c.send({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    c.wait_for(lambda m: m.get("id") == 3)
    c.send({"jsonrpc": "2.0", "method": "exit"})
    c.proc.wait(60)

    ok = True
    if got != expected:
        ok = False
        print(f"{name}: the server's diagnostics differ from mpilift check's:")
        print("  check:", expected)
        print("  lsp:  ", got)
    lsp_fixed = text + "\n"
    for a in actions:
        lsp_fixed = apply_edits(lsp_fixed, a["edit"]["changes"][uri])
    if lsp_fixed.rstrip("\n") != after_fix.rstrip("\n"):
        ok = False
        print(f"{name}: the fix-all action does not give what --fix writes")
    if ok:
        print(f"{name}: {len(got)} finding(s), {len(actions)} fix-all action(s): same")
    return ok


def main():
    mpilift, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    results = [check(mpilift, work, f) for f in files]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
