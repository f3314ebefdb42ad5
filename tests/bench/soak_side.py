#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""The soak's control-plane load on tepd's control socket (soak.sh), until
STOPFILE exists:

  soak_side.py clients SOCK RATE STOPFILE
        RATE short-lived clients a second: each connects, asks one
        command (vrf list, route show vrf green, stats), reads the reply,
        closes. Prints {"ok", "failed"} at the end.
  soak_side.py hang SOCK STOPFILE
        One client that connects, sends half a request and then nothing.
  soak_side.py churn SOCK RATE STOPFILE
        Route changes in vrf green at RATE a second over one connection
        (pipelined): IPv4 /24s under the covering 10.0.0.0/8 and beside it
        in 11.0.0.0/8, IPv6 /64s under 2001:db8:a::/48 and beside it; each
        added then deleted, 256 installed at a time. Prints {"changes",
        "failed", "seconds"}.
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "integration"))
import ctlwire  # noqa: E402


def clients(path, rate, stop):
    ok = failed = 0
    cmds = [["vrf", "list"], ["route", "show", "vrf", "green"], ["stats"]]
    gap = 1.0 / rate
    nxt = time.monotonic()
    i = 0
    while not os.path.exists(stop):
        try:
            c = ctlwire.Conn(path, timeout=5)
            c.call(cmds[i % len(cmds)])
            c.close()
            ok += 1
        except Exception:
            failed += 1
        i += 1
        nxt += gap
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
        elif d < -1:
            nxt = time.monotonic()
    print(json.dumps({"ok": ok, "failed": failed}))


def hang(path, stop):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.send(ctlwire.encode(["vrf", "list"])[:5])
    while not os.path.exists(stop):
        time.sleep(0.5)
    s.close()


def prefixes():
    out = []
    for i in range(4096):
        a, b = (i >> 8) & 0xff, i & 0xff
        if i % 4 == 0:
            out.append("2001:db8:a:%x::/64" % i if i % 8 == 0
                       else "2001:db8:b:%x::/64" % i)
        else:
            out.append("%d.%d.%d.0/24" % (10 if i % 2 else 11, a, b))
    return out


def churn(path, rate, stop):
    c = ctlwire.Conn(path, timeout=10)
    pf = prefixes()
    window, changes, failed, k = 256, 0, 0, 0
    t0 = time.monotonic()
    while not os.path.exists(stop):
        start = time.monotonic()
        # a tick of 0.1 s: each step adds one route and, once the window
        # is full, deletes the one added `window` steps before
        inflight = 0
        for _ in range(max(1, int(rate / 20))):
            if k >= window:
                d = pf[(k - window) % len(pf)]
                c.send(ctlwire.encode(["route", "del", d, "vrf", "green"]))
                inflight += 1
            c.send(ctlwire.encode(["route", "add", pf[k % len(pf)], "vrf",
                                   "green", "blackhole"]))
            inflight += 1
            k += 1
        for _ in range(inflight):
            r = c.reply()
            if r is None:
                raise SystemExit("control socket closed")
            if r[1] == 0:
                changes += 1
            else:
                failed += 1
        d = start + 0.1 - time.monotonic()
        if d > 0:
            time.sleep(d)
    print(json.dumps({"changes": changes, "failed": failed,
                      "seconds": round(time.monotonic() - t0, 1)}))


if __name__ == "__main__":
    c, a = sys.argv[1], sys.argv[2:]
    if c == "clients":
        clients(a[0], float(a[1]), a[2])
    elif c == "hang":
        hang(a[0], a[1])
    elif c == "churn":
        churn(a[0], float(a[1]), a[2])
    else:
        sys.exit(__doc__)
