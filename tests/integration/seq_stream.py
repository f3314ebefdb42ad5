#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Paced UDP streams with sequence numbers, and a paced TCP sender, for
the failover tests (test_ecmp_frr.sh).

  seq_stream.py send HOST PORT FLOWS PPS COUNT
      COUNT datagrams at PPS, datagram n from source port 20000 + n % FLOWS
      (so FLOWS flows, each with its own 5-tuple); prints how many went
  seq_stream.py recv PORT SECONDS OUT
      receive for SECONDS, then write {"seqs": [...], "dups": N} to OUT
  seq_stream.py loss IN SENT FLOWS PPS
      from recv's OUT: print "missing N lossy_flows F gap_ms G", G the
      longest run of one flow's datagrams missing, in time (its
      datagrams are FLOWS/PPS s apart)
  seq_stream.py tcp-client HOST PORT SECONDS RATE
      send seeded random bytes at RATE bytes/s for SECONDS over one TCP
      connection; print "N SHA256" (as xfer.py tcp-server does)
"""
import hashlib
import json
import random
import socket
import struct
import sys
import time

MAGIC = 0x5E05


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def send(host, port, flows, pps, count):
    socks = []
    for i in range(flows):
        s = socket.socket(family(host), socket.SOCK_DGRAM)
        s.bind(("", 20000 + i))
        socks.append(s)
    t0 = time.monotonic()
    sent = 0
    for n in range(count):
        delay = t0 + n / pps - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        try:
            socks[n % flows].sendto(struct.pack("!HI", MAGIC, n) + bytes(58),
                                    (host, port))
            sent += 1
        except OSError:
            pass		# e.g. no neighbour yet: counted as not sent
    print(sent)


def recv(port, seconds, out):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    s.settimeout(0.2)
    seen = set()
    dups = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            b = s.recv(2048)
        except socket.timeout:
            continue
        if len(b) < 6:
            continue
        magic, n = struct.unpack("!HI", b[:6])
        if magic != MAGIC:
            continue
        if n in seen:
            dups += 1
        seen.add(n)
    with open(out, "w") as f:
        json.dump({"seqs": sorted(seen), "dups": dups}, f)


def loss(path, sent, flows, pps):
    got = set(json.load(open(path))["seqs"])
    missing = [n for n in range(sent) if n not in got]
    lossy = {n % flows for n in missing}
    worst = 0
    for fl in lossy:
        run = 0
        for n in range(fl, sent, flows):
            run = run + 1 if n not in got else 0
            worst = max(worst, run)
    print("missing %d lossy_flows %d gap_ms %d" %
          (len(missing), len(lossy), round(worst * flows * 1000 / pps)))


def tcp_client(host, port, seconds, rate):
    rnd = random.Random(1234)
    h = hashlib.sha256()
    s = socket.create_connection((host, port), timeout=30)
    t0 = time.monotonic()
    n = 0
    chunk = 16384
    while time.monotonic() - t0 < seconds:
        delay = t0 + n / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        b = rnd.randbytes(chunk)
        s.sendall(b)
        h.update(b)
        n += chunk
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    s.close()
    print(n, h.hexdigest())


def main(a):
    if a[0] == "send":
        send(a[1], int(a[2]), int(a[3]), float(a[4]), int(a[5]))
    elif a[0] == "recv":
        recv(int(a[1]), float(a[2]), a[3])
    elif a[0] == "loss":
        loss(a[1], int(a[2]), int(a[3]), float(a[4]))
    elif a[0] == "tcp-client":
        tcp_client(a[1], int(a[2]), float(a[3]), float(a[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
