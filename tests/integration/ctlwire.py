#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""A small client for tepd's control socket (docs/control-protocol.md),
for what tepctl cannot do: many commands on one connection, exact timing
of a stream, and bytes that are not a valid request.

  ctlwire.py SOCK batch [--window N] [--json]
        Commands on stdin, one per line (split like a shell would, with
        shlex), sent on one connection with up to N requests in flight
        (default 32). Prints one JSON summary line:
        {"sent", "ok", "failed", "seconds"}; each failed command goes to
        stderr as "line L: status S: MESSAGE". Exit 1 if any failed.
  ctlwire.py SOCK watch INTERVAL_MS SECONDS
        "stats watch interval INTERVAL_MS" in JSON mode, read for SECONDS,
        then close. Prints {"items", "gaps_ms", "bad"}: bad lists items
        that were not a JSON object or had a wrong kind/status.
  ctlwire.py SOCK raw HEX|@FILE [--shut] [--timeout S]
        A bystander connection is opened and served first; then HEX (the
        bytes to send, as hex) goes out on a second connection, which is
        read until the server closes it or S seconds (default 3) pass;
        then, before that connection is closed, the bystander sends one
        more request. Prints
        {"replies": [{"kind", "status", "body"}], "closed", "bystander"}.
        --shut half-closes the second connection after sending.
"""
import json
import shlex
import socket
import struct
import sys
import time

VERSION = 1
F_JSON = 1


def encode(words, json_mode=False, version=VERSION, flags=None):
    """One request frame; words are str or bytes."""
    if flags is None:
        flags = F_JSON if json_mode else 0
    payload = bytes([version, flags]) + b"".join(
        (w.encode("utf-8", "surrogateescape") if isinstance(w, str) else w)
        + b"\0" for w in words)
    return struct.pack("!I", len(payload)) + payload


class Conn:
    def __init__(self, path, timeout=10.0):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""
        self.eof = False

    def send(self, data):
        self.s.sendall(data)

    def _fill(self):
        b = self.s.recv(1 << 20)
        if not b:
            self.eof = True
            return False
        self.buf += b
        return True

    def reply(self):
        """(kind, status, body) of the next reply, or None at EOF."""
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack("!I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    frame, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
                    if n < 6 or frame[0] != VERSION:
                        raise ValueError("bad reply frame %r" % frame[:16])
                    kind = frame[1]
                    status = struct.unpack("!I", frame[2:6])[0]
                    return kind, status, frame[6:].decode("utf-8", "replace")
            if self.eof or not self._fill():
                return None

    def call(self, words, json_mode=False):
        self.send(encode(words, json_mode))
        return self.reply()

    def close(self):
        self.s.close()


def batch(path, window, json_mode):
    lines = [ln for ln in sys.stdin.read().splitlines()]
    reqs = []
    for i, ln in enumerate(lines, 1):
        words = shlex.split(ln, comments=True)
        if words:
            reqs.append((i, words))
    c = Conn(path, timeout=60)
    sent = done = ok = failed = 0
    t0 = time.monotonic()
    while done < len(reqs):
        # keep up to `window` requests in flight; the server serves them
        # one at a time and we read as we go, so its queue never grows
        out = b""
        while sent < len(reqs) and sent - done < window:
            out += encode(reqs[sent][1], json_mode)
            sent += 1
        if out:
            c.send(out)
        r = c.reply()
        if r is None:
            sys.stderr.write("server closed the connection after %d "
                             "replies\n" % done)
            failed += len(reqs) - done
            break
        kind, status, body = r
        if kind != 0:
            continue        # no streaming command is expected here
        lineno = reqs[done][0]
        done += 1
        if status == 0:
            ok += 1
        else:
            failed += 1
            sys.stderr.write("line %d: status %d: %s\n" % (lineno, status,
                                                           body))
    secs = time.monotonic() - t0
    c.close()
    print(json.dumps({"sent": sent, "ok": ok, "failed": failed,
                      "seconds": round(secs, 3)}))
    return 1 if failed else 0


def watch(path, interval, seconds):
    c = Conn(path, timeout=seconds + 5)
    c.send(encode(["stats", "watch", "interval", str(interval)], True))
    t0 = time.monotonic()
    times, bad = [], []
    c.s.settimeout(0.05)
    while time.monotonic() - t0 < seconds:
        try:
            r = c.reply()
        except socket.timeout:
            continue
        if r is None:
            bad.append("server closed the stream")
            break
        kind, status, body = r
        times.append(time.monotonic())
        try:
            ok = isinstance(json.loads(body), dict)
        except ValueError:
            ok = False
        if kind != 1 or status != 0 or not ok:
            bad.append({"kind": kind, "status": status, "body": body[:200]})
    c.close()
    gaps = [round((b - a) * 1000, 1) for a, b in zip(times, times[1:])]
    print(json.dumps({"items": len(times), "gaps_ms": gaps, "bad": bad}))
    return 0


def raw(path, data, shut, timeout):
    by = Conn(path)
    first = by.call(["port", "list"])
    c = Conn(path, timeout=timeout)
    try:
        c.send(data)
        if shut:
            c.s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass        # refused early: the error reply is still to be read
    replies, closed = [], False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            r = c.reply()
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if r is None:
            closed = True
            break
        kind, status, body = r
        replies.append({"kind": kind, "status": status, "body": body})
    # the bystander asks again while the second connection is still open
    # (it may hold half a request): the server must not wait for it
    second = by.call(["vrf", "list"], True)
    c.close()
    by.close()
    bystander = (first is not None and first[1] == 0 and
                 second is not None and second[1] == 0)
    print(json.dumps({"replies": replies, "closed": closed,
                      "bystander": bystander}))
    return 0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    path, cmd, a = argv[1], argv[2], argv[3:]
    if cmd == "batch":
        window, json_mode = 32, False
        while a:
            if a[0] == "--window":
                window = int(a[1])
                a = a[2:]
            elif a[0] == "--json":
                json_mode = True
                a = a[1:]
            else:
                sys.exit("batch: unknown option " + a[0])
        return batch(path, window, json_mode)
    if cmd == "watch":
        return watch(path, int(a[0]), float(a[1]))
    if cmd == "raw":
        if a[0].startswith("@"):
            with open(a[0][1:], "rb") as f:
                data = f.read()
        else:
            data = bytes.fromhex(a[0])
        shut, timeout = "--shut" in a, 3.0
        if "--timeout" in a:
            timeout = float(a[a.index("--timeout") + 1])
        return raw(path, data, shut, timeout)
    sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
