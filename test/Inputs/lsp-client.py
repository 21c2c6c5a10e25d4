#!/usr/bin/env python3
"""Drives a language server over stdio from a script, for FileCheck.

usage: lsp-client.py SCRIPT -- SERVER ARGS...

Each line of SCRIPT is one of:
  {json}               a message, framed with Content-Length
  wait METHOD [N]      wait until N (default 1) messages with this method, or
                       responses when METHOD is 'response', have arrived
                       from the server in all
  body TEXT            a framed message whose body is TEXT as it is
  raw TEXT             TEXT as it is, with \\r\\n for escapes, no framing
  open PATH            didOpen of PATH (version 1) with the file's text
  change PATH V FILE   didChange of PATH to version V with FILE's text
  shell CMD            run CMD with the shell (fails the script if it fails)
  close                close the server's input
  sleep SECONDS
Blank lines and lines starting with '#' are skipped. Every message from the
server is printed on one line with sorted keys, after '<<< '; at the end
'exit status N'.
"""
import json
import subprocess
import sys
import time

from lspconnection import Connection

TIMEOUT = 120


def main():
    split = sys.argv.index("--")
    script, server = sys.argv[1], sys.argv[split + 1:]

    def show(msg, _):
        print("<<< " + json.dumps(msg, sort_keys=True), flush=True)
    conn = Connection(server, on_message=show)
    proc, received = conn.proc, conn.messages

    def count(method):
        if method == "response":
            return sum(1 for m in received if "method" not in m)
        return sum(1 for m in received if m.get("method") == method)

    with open(script) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            if line.startswith("{"):
                conn.send(json.loads(line))
            elif word == "body":
                conn.send_body(rest.encode())
            elif word == "open":
                with open(rest) as doc:
                    text = doc.read()
                conn.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                               "params": {"textDocument": {
                                   "uri": "file://" + rest, "languageId": "c",
                                   "version": 1, "text": text}}})
            elif word == "change":
                path, version, source = rest.split()
                with open(source) as doc:
                    text = doc.read()
                conn.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                               "params": {"textDocument": {
                                   "uri": "file://" + path, "version": int(version)},
                                   "contentChanges": [{"text": text}]}})
            elif word == "raw":
                conn.send_raw(rest.encode().decode("unicode_escape").encode())
            elif word == "shell":
                if subprocess.call(rest, shell=True) != 0:
                    sys.exit("lsp-client: failed: " + rest)
            elif word == "close":
                proc.stdin.close()
            elif word == "sleep":
                time.sleep(float(rest))
            elif word == "wait":
                parts = rest.split()
                want = int(parts[1]) if len(parts) > 1 else 1
                if not conn.wait_until(lambda: count(parts[0]) >= want, TIMEOUT):
                    print("lsp-client: timed out waiting for %s" % rest, flush=True)
                    proc.kill()
                    sys.exit(1)
            else:
                sys.exit("lsp-client: bad script line: " + line)
    try:
        status = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        print("lsp-client: the server did not exit", flush=True)
        sys.exit(1)
    conn.thread.join(5)
    print("exit status %d" % status, flush=True)


if __name__ == "__main__":
    main()
