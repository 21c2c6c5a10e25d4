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
import threading
import time

TIMEOUT = 120


def message(send, msg):
    body = json.dumps(msg).encode()
    send(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def main():
    split = sys.argv.index("--")
    script, server = sys.argv[1], sys.argv[split + 1:]
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    received = []
    cond = threading.Condition()

    def reader():
        out = proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with cond:
                        cond.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = out.read(length)
            msg = json.loads(body)
            with cond:
                received.append(msg)
                print("<<< " + json.dumps(msg, sort_keys=True), flush=True)
                cond.notify_all()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()

    def send(data):
        proc.stdin.write(data)
        proc.stdin.flush()

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
                message(send, json.loads(line))
            elif word == "body":
                body = rest.encode()
                send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            elif word == "open":
                with open(rest) as doc:
                    text = doc.read()
                message(send, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                               "params": {"textDocument": {
                                   "uri": "file://" + rest, "languageId": "c",
                                   "version": 1, "text": text}}})
            elif word == "change":
                path, version, source = rest.split()
                with open(source) as doc:
                    text = doc.read()
                message(send, {"jsonrpc": "2.0", "method": "textDocument/didChange",
                               "params": {"textDocument": {
                                   "uri": "file://" + path, "version": int(version)},
                                   "contentChanges": [{"text": text}]}})
            elif word == "raw":
                send(rest.encode().decode("unicode_escape").encode())
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
                deadline = time.time() + TIMEOUT
                with cond:
                    while count(parts[0]) < want:
                        left = deadline - time.time()
                        if left <= 0 or proc.poll() is not None and not thread.is_alive():
                            print("lsp-client: timed out waiting for %s" % rest, flush=True)
                            proc.kill()
                            sys.exit(1)
                        cond.wait(min(left, 1.0))
            else:
                sys.exit("lsp-client: bad script line: " + line)
    try:
        status = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        print("lsp-client: the server did not exit", flush=True)
        sys.exit(1)
    thread.join(5)
    print("exit status %d" % status, flush=True)


if __name__ == "__main__":
    main()
