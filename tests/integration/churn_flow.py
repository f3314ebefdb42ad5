#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""A steady, checked UDP flow for tests that change tepd while it forwards.

  churn_flow.py echo PORT STOPFILE
        Receive datagrams, check each, send each intact one back to its
        sender. Ends once STOPFILE exists and nothing arrived for 1 s
        (or after 600 s). Prints a JSON line: received (distinct intact
        sequence numbers), bad (corrupt), dup, max_seq, missing (sequence
        numbers below max_seq never seen), longest_gap (longest run of
        consecutive missing ones).
  churn_flow.py send HOST PORT RATE SIZE STOPFILE
        Send datagrams of SIZE payload bytes at RATE per second until
        STOPFILE exists, then wait 1 s for the last echoes. Prints a JSON
        line: sent, echoed (distinct intact echoes), echo_bad, echo_dup,
        missing, longest_gap, late (sends more than 50 ms behind schedule:
        the sender itself was starved, not the network).

Datagram: 4-byte sequence number, sha256 of the payload, payload.
"""
import hashlib
import json
import os
import select
import socket
import struct
import sys
import time


def make(seq, size):
    payload = os.urandom(size)
    return struct.pack("!I", seq) + hashlib.sha256(payload).digest() + payload


def check(b):
    """Sequence number of an intact datagram, else None."""
    if len(b) < 36:
        return None
    seq, digest, payload = struct.unpack("!I", b[:4])[0], b[4:36], b[36:]
    return seq if hashlib.sha256(payload).digest() == digest else None


class Tally:
    def __init__(self):
        self.seen = set()
        self.bad = 0
        self.dup = 0

    def add(self, b):
        seq = check(b)
        if seq is None:
            self.bad += 1
            return False
        if seq in self.seen:
            self.dup += 1
            return False
        self.seen.add(seq)
        return True

    def gaps(self, upto):
        """(missing, longest run) among sequence numbers 0..upto-1."""
        missing = longest = run = 0
        for s in range(upto):
            if s in self.seen:
                run = 0
            else:
                missing += 1
                run += 1
                longest = max(longest, run)
        return missing, longest


def echo(port, stopfile):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("::", port))
    t = Tally()
    start = last = time.monotonic()
    while time.monotonic() - start < 600:
        r, _, _ = select.select([s], [], [], 0.2)
        if r:
            b, peer = s.recvfrom(65536)
            last = time.monotonic()
            if t.add(b):
                s.sendto(b, peer)
        elif os.path.exists(stopfile) and time.monotonic() - last > 1.0:
            break
    top = max(t.seen) + 1 if t.seen else 0
    missing, longest = t.gaps(top)
    print(json.dumps({"received": len(t.seen), "bad": t.bad, "dup": t.dup,
                      "max_seq": top - 1, "missing": missing,
                      "longest_gap": longest}))


def send(host, port, rate, size, stopfile):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect((host, port))
    s.setblocking(False)
    t = Tally()
    period = 1.0 / rate
    seq = late = 0
    start = time.monotonic()
    stop_at = None

    def drain():
        while True:
            try:
                t.add(s.recv(65536))
            except BlockingIOError:
                return
            except ConnectionRefusedError:
                continue    # an ICMP error for an earlier datagram

    while True:
        now = time.monotonic()
        if stop_at is None:
            due = start + seq * period
            if now >= due:
                if now - due > 0.05:
                    late += 1
                try:
                    s.send(make(seq, size))
                except (BlockingIOError, ConnectionRefusedError):
                    pass    # counted as lost by the receiver
                seq += 1
                if seq % 100 == 0 and os.path.exists(stopfile):
                    stop_at = time.monotonic() + 1.0
                continue
            timeout = due - now
        else:
            if now >= stop_at:
                break
            timeout = stop_at - now
        select.select([s], [], [], max(0.0, min(timeout, 0.1)))
        drain()
    drain()
    missing, longest = t.gaps(seq)
    print(json.dumps({"sent": seq, "echoed": len(t.seen),
                      "echo_bad": t.bad, "echo_dup": t.dup,
                      "missing": missing, "longest_gap": longest,
                      "late": late}))


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "echo":
        echo(int(a[0]), a[1])
    elif cmd == "send":
        send(a[0], int(a[1]), float(a[2]), int(a[3]), a[4])
    else:
        sys.exit(__doc__)
