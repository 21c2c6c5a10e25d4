"""A language server started as a child process, spoken to over its
standard input and output with LSP's framing (Content-Length headers).
Shared by the test drivers (lsp-client.py, lsp-vs-check.py) and
bench/lsp/lsp_latency.py.
"""
import json
import subprocess
import threading
import time


class Connection:
    """Starts CMD; a reader thread keeps every message the server sends, in
    order, with the time it arrived, and calls on_message(msg, time) for
    each (under the connection's lock)."""

    def __init__(self, cmd, on_message=None, stderr=None):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr)
        self.cond = threading.Condition()
        self.messages = []
        self.on_message = on_message
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self.cond:
                        self.cond.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            msg = json.loads(out.read(length))
            now = time.perf_counter()
            with self.cond:
                self.messages.append(msg)
                if self.on_message:
                    self.on_message(msg, now)
                self.cond.notify_all()

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_body(self, body):
        """BODY (bytes) framed as a message, whatever it holds."""
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, msg):
        self.send_body(json.dumps(msg).encode())

    def wait_until(self, done, timeout):
        """Waits until done() holds (called under the lock); False if the
        time ran out or the server's output ended first."""
        deadline = time.time() + timeout
        with self.cond:
            while not done():
                left = deadline - time.time()
                if left <= 0 or not self.thread.is_alive():
                    return False
                self.cond.wait(min(left, 1.0))
        return True

    def wait_for(self, pred, timeout):
        """The last message for which pred holds, once one has come; None if
        none came in time."""
        if not self.wait_until(lambda: any(map(pred, self.messages)), timeout):
            return None
        with self.cond:
            return [m for m in self.messages if pred(m)][-1]
