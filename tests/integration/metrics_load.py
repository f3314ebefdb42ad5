#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Load and probes for test_metrics.sh (tepd -M).

  metrics_load.py send HOST PORT PPS SECONDS [FILE]
                                               paced UDP, 64-byte datagrams;
                                               how many so far kept in FILE
  metrics_load.py sink PORT                    receive and discard UDP
  metrics_load.py get URL [om]                 print a GET's body (om: ask
                                               for OpenMetrics), fail on
                                               anything but 200
  metrics_load.py value URL NAME LABELS        one sample's value from
                                               /metrics, e.g. tunnel="vx1"
  metrics_load.py status URL METHOD            print the HTTP status
  metrics_load.py promq PROM QUERY [TIME]      value of a one-series
                                               instant query (nan: none)
  metrics_load.py ctlprobe SECONDS SOCK CMD... run CMD over and over, and
                                               /bin/true, and "vrf list" on
                                               the control socket SOCK; print
                                               "runs" and median and max ms
                                               of each
  metrics_load.py fwdrate SECONDS URL FILE CTL...
                                               per second: packets sent by
                                               `send` (FILE), encapsulated
                                               into tunnel vx1 (CTL -j
                                               stats), worker poll loops
                                               (URL)
  metrics_load.py dashcheck PROM DASHBOARD     run every query of a Grafana
                                               dashboard; print "queries
                                               with_data", or the errors
  metrics_load.py storm HOST PORT SECONDS      hostile clients (below);
                                               print a JSON summary

The storm, all at once: 100 scrapers looping GET /metrics (from 127.0.0.2
to 127.0.0.5, 25 each), 30 slow-loris clients trickling a header a byte a
second (127.0.0.6), 5 silent connections timing how long until the server
closes them, and a loop of garbage: random bytes, a 64 KiB header, POST,
an unknown path, a request line without HTTP version (127.0.0.7).
"""
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request


def send(host, port, pps, seconds, path=None):
    """Datagrams at a steady rate: batches every 10 ms against an absolute
    schedule, so a late wake-up is caught up and the long-run rate is exact."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644) if path else None
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = b"m" * 64
    per_tick = max(1, pps // 100)
    t0 = time.monotonic()
    sent = 0
    while True:
        now = time.monotonic()
        if now - t0 >= seconds:
            break
        due = int((now - t0) * 100 + 1) * per_tick
        while sent < due:
            try:
                s.sendto(payload, (host, port))
            except OSError:
                pass
            sent += 1
        if fd is not None:
            os.pwrite(fd, b"%20d\n" % sent, 0)
        time.sleep(max(0.0, t0 + (sent // per_tick) / 100 - time.monotonic()))
    print(sent)


def sink(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    while True:
        s.recv(2048)


def http_get(url, om=False, timeout=5):
    req = urllib.request.Request(url)
    if om:
        req.add_header("Accept", "application/openmetrics-text;"
                       "version=1.0.0,text/plain;version=0.0.4;q=0.5")
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read()


def value(url, name, labels):
    _, _, body = http_get(url)
    want = name + ("{" + labels + "}" if labels else "")
    for line in body.decode().splitlines():
        if line.startswith(want + " "):
            return line.split()[-1]
    return "nan"


def status(url, method):
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def promq(prom, query, at=None):
    q = {"query": query}
    if at is not None:
        q["time"] = at
    url = prom + "/api/v1/query?" + urllib.parse.urlencode(q)
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    res = d["data"]["result"]
    if d["status"] != "success" or len(res) != 1:
        return "nan"
    return res[0]["value"][1]


def dashcheck(prom, path):
    """Every panel query of the dashboard, variables filled in, must be
    valid PromQL to this Prometheus; most should find data."""
    d = json.load(open(path))
    exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    errors, with_data = [], 0
    for e in exprs:
        q = (e.replace("$__rate_interval", "5s").replace("$port", ".*")
             .replace("$tunnel", ".*"))
        url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                res = json.load(r)
            with_data += len(res["data"]["result"]) > 0
        except urllib.error.HTTPError as err:
            errors.append(f"{q}: {err.read().decode()}")
    print(len(exprs), with_data)
    for e in errors:
        print(e)
    return 1 if errors else 0


def fwdrate(seconds, url, path, ctl):
    """Each reading is timed at the middle of what made it: the daemon
    read its counters somewhere within the call."""
    def timed(f):
        t = time.monotonic()
        v = f()
        return v, (t + time.monotonic()) / 2

    def encap():
        r = subprocess.run(ctl + ["-j", "stats", "tunnel", "vx1"],
                           stdout=subprocess.PIPE, check=True)
        return json.loads(r.stdout)["tunnels"][0]["encap"]

    def polls():
        _, _, body = http_get(url)
        return sum(int(line.split()[-1])
                   for line in body.decode().splitlines()
                   if line.startswith("tepd_worker_polls_total"))

    def sent():
        with open(path) as f:
            return int(f.read().split()[0])

    (a, ta), (p, tp), (x, tx) = timed(encap), timed(polls), timed(sent)
    time.sleep(seconds)
    (y, ty), (q, tq), (b, tb) = timed(sent), timed(polls), timed(encap)
    sys.stderr.write(f"fwdrate: encap {a} -> {b} in {tb - ta:.3f} s, "
                     f"sent {x} -> {y} in {ty - tx:.3f} s, "
                     f"polls {p} -> {q} in {tq - tp:.3f} s\n")
    print(round((b - a) / (tb - ta)), round((y - x) / (ty - tx)),
          round((q - p) / (tq - tp)))


def ctlprobe(seconds, sock, cmd):
    """How long tepctl takes (a new process and a connection each time),
    how long starting any process takes (/bin/true: the machine's share of
    that), and a request's round trip on one open connection (the
    control thread's share)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ctlwire
    ctl, spawn, rtt = [], [], []
    conn = ctlwire.Conn(sock)
    last = time.monotonic()     # the last reply on conn (or connecting)

    def call():
        """vrf list on the open connection. tepd closes a connection
        that sends no request for its idle timeout (5 s, -T): if this
        machine stalled the probe that long, say so and reconnect, as
        tepctl -b does. Any other closing is a failure."""
        nonlocal conn, last
        gap = (time.monotonic() - last) * 1000
        try:
            r = conn.call(["vrf", "list"])
        except (BrokenPipeError, ConnectionResetError):
            r = None
        if r is None or r[1] != 0:
            try:
                parting = conn.reply() if r is None else r
            except OSError:
                parting = None
            sys.stderr.write(f"ctlprobe: connection closed after "
                             f"{gap:.0f} ms without a request: {parting}\n")
            if parting is None or parting[1] != 110 or gap < 4000:
                raise SystemExit("ctlprobe: control connection lost")
            conn.close()
            conn = ctlwire.Conn(sock)
            r = conn.call(["vrf", "list"])
            assert r is not None and r[1] == 0, r
        last = time.monotonic()

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for lst, f in ((ctl, lambda: subprocess.run(
                            cmd, stdout=subprocess.DEVNULL, check=True)),
                       (spawn, lambda: subprocess.run(["/bin/true"])),
                       (rtt, call)):
            t = time.monotonic()
            f()
            lst.append((time.monotonic() - t) * 1000)
        time.sleep(0.05)
    conn.close()
    print(len(ctl), *(f"{statistics.median(v):.1f} {max(v):.1f}"
                      for v in (ctl, spawn, rtt)))


# ---- the storm -------------------------------------------------------------

def connect(src, host, port, timeout=5):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(timeout)
    c.bind((src, 0))
    c.connect((host, port))
    return c


def read_all(c):
    data = b""
    while True:
        b = c.recv(65536)
        if not b:
            return data
        data += b


def storm(host, port, seconds):
    end = time.monotonic() + seconds
    lock = threading.Lock()
    out = {"scrapes_ok": 0, "scrapes_failed": 0, "scrape_max_ms": 0,
           "slowloris_closed_by_server": 0, "idle_close_s": [],
           "garbage": {}}

    def add(key, n=1):
        with lock:
            out[key] += n

    def scraper(src):
        req = (f"GET /metrics HTTP/1.1\r\nHost: {host}:{port}\r\n"
               "Connection: close\r\n\r\n").encode()
        while time.monotonic() < end:
            t = time.monotonic()
            try:
                c = connect(src, host, port)
                c.sendall(req)
                r = read_all(c)
                c.close()
                ok = (r.startswith(b"HTTP/1.1 200") and
                      b"tepd_tunnel_encap_packets_total" in r)
            except OSError:
                ok = False
            ms = (time.monotonic() - t) * 1000
            with lock:
                out["scrapes_ok" if ok else "scrapes_failed"] += 1
                out["scrape_max_ms"] = max(out["scrape_max_ms"], round(ms))

    def slowloris():
        try:
            c = connect("127.0.0.6", host, port)
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            while time.monotonic() < end:
                c.sendall(b"a")
                time.sleep(1)
            c.close()
        except OSError:
            add("slowloris_closed_by_server")

    def idle():
        t = time.monotonic()
        try:
            c = connect("127.0.0.7", host, port, timeout=seconds + 10)
            c.recv(1)		# returns b"" when the server closes
            c.close()
        except OSError:
            pass
        with lock:
            out["idle_close_s"].append(round(time.monotonic() - t, 1))

    def garbage_one(kind):
        if kind == "random":
            msg = os.urandom(1024)
        elif kind == "huge_header":
            msg = (b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " +
                   b"b" * 65536 + b"\r\n\r\n")
        elif kind == "post":
            msg = b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        elif kind == "not_found":
            msg = b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
        else:  # "http09"
            msg = b"GET /metrics\r\n\r\n"
        try:
            c = connect("127.0.0.7", host, port)
            try:
                c.sendall(msg)
            except OSError:
                pass  # the server may close before reading it all
            r = read_all(c)
            c.close()
            st = r[9:12].decode(errors="replace") if r.startswith(b"HTTP/") \
                else ("closed" if not r else "junk")
        except socket.timeout:
            st = "timeout"
        except OSError:
            st = "reset"
        with lock:
            g = out["garbage"].setdefault(kind, {})
            g[st] = g.get(st, 0) + 1

    def garbage():
        kinds = ["random", "huge_header", "post", "not_found", "http09"]
        while time.monotonic() < end:
            garbage_one(random.choice(kinds))

    threads = [threading.Thread(target=scraper, args=(f"127.0.0.{2 + i % 4}",))
               for i in range(100)]
    threads += [threading.Thread(target=slowloris) for _ in range(30)]
    threads += [threading.Thread(target=idle) for _ in range(5)]
    threads += [threading.Thread(target=garbage) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(out))


def main():
    a = sys.argv[1:]
    if a[0] == "send":
        send(a[1], int(a[2]), int(a[3]), float(a[4]),
             a[5] if len(a) > 5 else None)
    elif a[0] == "sink":
        sink(int(a[1]))
    elif a[0] == "get":
        st, ct, body = http_get(a[1], om=len(a) > 2 and a[2] == "om")
        sys.stderr.write(ct + "\n")
        sys.stdout.buffer.write(body)
    elif a[0] == "value":
        print(value(a[1], a[2], a[3] if len(a) > 3 else ""))
    elif a[0] == "status":
        print(status(a[1], a[2]))
    elif a[0] == "promq":
        print(promq(a[1], a[2], a[3] if len(a) > 3 else None))
    elif a[0] == "ctlprobe":
        ctlprobe(float(a[1]), a[2], a[3:])
    elif a[0] == "fwdrate":
        fwdrate(float(a[1]), a[2], a[3], a[4:])
    elif a[0] == "dashcheck":
        sys.exit(dashcheck(a[1], a[2]))
    elif a[0] == "storm":
        storm(a[1], int(a[2]), float(a[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
