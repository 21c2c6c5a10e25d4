#!/usr/bin/env python3
"""The language server and `mpilift check` must agree: for each program,
the diagnostics `mpilift lsp` publishes for the open file (with its
precompiled preamble, after an edit so that the preamble is reused) are
the findings `mpilift check` prints, and the text after the server's
fix-all action is the file `mpilift check --fix` writes.

  lsp-vs-check.py MPILIFT WORKDIR FILES...
"""
import os
import subprocess
import sys

from checkreference import project, reference
from lspconnection import Connection

TIMEOUT = 300


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
    expected, after_fix = reference(mpilift, work, source)
    _, path = project(work, source, "lsp")
    with open(path) as f:
        text = f.read()

    c = Connection([mpilift, "lsp", "--debounce-ms", "0"],
                   stderr=subprocess.DEVNULL)

    def wait_for(pred):
        msg = c.wait_for(pred, TIMEOUT)
        if msg is None:
            sys.exit("lsp-vs-check: timed out")
        return msg

    uri = "file://" + path
    c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    wait_for(lambda m: m.get("id") == 1)
    c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    c.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}})
    # An edit after the last line: the second check reuses the preamble.
    c.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": text + "\n"}]}})
    pub = wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
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
    actions = wait_for(lambda m: m.get("id") == 2)["result"]
    c.send({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    wait_for(lambda m: m.get("id") == 3)
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
