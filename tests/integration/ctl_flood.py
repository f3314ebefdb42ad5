#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Hostile clients for tepd's control socket (test_ctl_limits.sh).

  ctl_flood.py SOCK IDLE SLOW SECONDS [--as-uid UID] [--ready FILE]

IDLE connections that never send a byte, and SLOW connections that send
one byte every 200 ms of a request that announces 8000 bytes, so it never
completes. Whatever is closed or refused (tepd's "too many clients", its
idle timeout, an eviction) is opened again 20 ms later, for SECONDS. With
--as-uid the process becomes UID (and its group) first: its connections
are that uid's. FILE (made before --as-uid takes effect, then written)
says when every connection has been tried once.
Prints one JSON line: {"connects", "closed", "backlog_full"}: connections
made, closed by tepd (refused, timed out, evicted: tepd answers these
clients only to say which), and connect()s that found the backlog full.
"""
import json
import os
import selectors
import socket
import struct
import sys
import time

RETRY_S = 0.02
SLOW_S = 0.2


class Client:
    def __init__(self, slow):
        self.slow = slow
        self.s = None
        self.since = 0.0       # connected at
        self.next_at = 0.0     # next action (connect or byte)
        self.sent = 0


def main():
    args = sys.argv[1:]
    as_uid = None
    ready = None
    if "--as-uid" in args:
        i = args.index("--as-uid")
        as_uid = int(args[i + 1])
        del args[i:i + 2]
    if "--ready" in args:
        i = args.index("--ready")
        ready = args[i + 1]
        del args[i:i + 2]
    path, n_idle, n_slow, seconds = args[0], int(args[1]), int(args[2]), \
        float(args[3])
    ready_f = open(ready, "w") if ready else None
    if as_uid is not None:
        os.setgroups([])
        os.setgid(as_uid)
        os.setuid(as_uid)
    # a request frame that announces 8000 bytes: it never completes
    frame = struct.pack("!I", 8000) + bytes([1, 0]) + b"x" * 8000
    sel = selectors.DefaultSelector()
    clients = [Client(False) for _ in range(n_idle)] + \
        [Client(True) for _ in range(n_slow)]
    st = {"connects": 0, "closed": 0, "backlog_full": 0}
    end = time.monotonic() + seconds
    tried = False

    def close(c, now):
        sel.unregister(c.s)
        c.s.close()
        c.s = None
        c.next_at = now + RETRY_S
        st["closed"] += 1

    while time.monotonic() < end:
        now = time.monotonic()
        for c in clients:
            if c.s is None and now >= c.next_at:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.setblocking(False)
                try:
                    s.connect(path)
                except (BlockingIOError, InterruptedError):
                    s.close()              # backlog full: later
                    st["backlog_full"] += 1
                    c.next_at = now + RETRY_S
                    continue
                except OSError:
                    s.close()
                    c.next_at = now + RETRY_S
                    continue
                c.s, c.since, c.sent = s, now, 0
                c.next_at = now + SLOW_S
                sel.register(s, selectors.EVENT_READ, c)
                st["connects"] += 1
            elif c.s is not None and c.slow and now >= c.next_at:
                try:
                    c.s.send(frame[c.sent % len(frame):][:1])
                    c.sent += 1
                except OSError:
                    pass
                c.next_at = now + SLOW_S
        if not tried:
            tried = True
            if ready_f:
                ready_f.write("ready\n")
                ready_f.close()
        for key, _ in sel.select(timeout=0.01):
            c = key.data
            try:
                data = c.s.recv(4096)
            except OSError:
                data = b""
            del data
            close(c, time.monotonic())
    print(json.dumps(st))


if __name__ == "__main__":
    main()
