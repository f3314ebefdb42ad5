#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Tagged UDP streams for the soak (soak.sh): every payload says which VRF
and flow it belongs to and its sequence number, so a receiver sees
misdelivery (another VRF's datagram), duplicates and loss per stream.

  soak_flow.py send HOST PORT VRF FLOWS RATE STOPFILE OUT
        FLOWS streams (UDP source ports 20000+i), RATE datagrams a second
        in all, round robin, until STOPFILE exists. Writes OUT:
        {"vrf", "sent": {flow: count}}.
  soak_flow.py recv PORT VRF STOPFILE OUT
        Receives until STOPFILE exists and nothing came for 2 s. Writes
        OUT: {"vrf", "got": {flow: distinct}, "dup", "misdelivered",
        "bad", "max": {flow: highest seq}}.

Payload: b"SOAK <vrf> <flow> <seq> " then padding to 200 bytes.
"""
import json
import os
import socket
import sys
import time


def send(host, port, vrf, flows, rate, stop, out):
    socks = []
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    for i in range(flows):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind(("", 20000 + i))
        socks.append(s)
    sent = [0] * flows
    gap = 1.0 / rate
    nxt = time.monotonic()
    n = 0
    while not os.path.exists(stop):
        f = n % flows
        msg = ("SOAK %s %d %d " % (vrf, f, sent[f])).encode().ljust(200, b".")
        try:
            socks[f].sendto(msg, (host, port))
            sent[f] += 1
        except OSError:
            pass
        n += 1
        nxt += gap
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
        elif d < -1:
            nxt = time.monotonic()
    with open(out, "w") as fo:
        json.dump({"vrf": vrf, "sent": {str(i): c for i, c in enumerate(sent)}}, fo)


def recv(port, vrf, stop, out):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("::", port))
    s.settimeout(0.5)
    seen = {}
    dup = mis = bad = 0
    last = time.monotonic()
    while True:
        try:
            b = s.recv(2048)
        except socket.timeout:
            if os.path.exists(stop) and time.monotonic() - last > 2:
                break
            continue
        last = time.monotonic()
        w = b.split(b" ")
        if len(w) < 5 or w[0] != b"SOAK":
            bad += 1
            continue
        if w[1].decode() != vrf:
            mis += 1
            continue
        key = (w[2].decode(), int(w[3]))
        st = seen.setdefault(key[0], set())
        if key[1] in st:
            dup += 1
        st.add(key[1])
    with open(out, "w") as fo:
        json.dump({"vrf": vrf, "got": {k: len(v) for k, v in seen.items()},
                   "max": {k: max(v) for k, v in seen.items()},
                   "dup": dup, "misdelivered": mis, "bad": bad}, fo)


if __name__ == "__main__":
    c, a = sys.argv[1], sys.argv[2:]
    if c == "send":
        send(a[0], int(a[1]), a[2], int(a[3]), float(a[4]), a[5], a[6])
    elif c == "recv":
        recv(int(a[0]), a[1], a[2], a[3])
    else:
        sys.exit(__doc__)
