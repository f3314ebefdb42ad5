#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Byte-checked transfers for the integration tests.

  xfer.py tcp-server PORT          accept one connection, print sha256 of all
  xfer.py tcp-client HOST PORT N   send N seeded random bytes, print sha256
  xfer.py udp-server PORT COUNT    receive datagrams for a while, print
                                   how many arrived intact
  xfer.py udp-client HOST PORT COUNT SIZE [nodf]
                                   (nodf: IPv4 without DF, so routers
                                   on the way may fragment)
  xfer.py tag-server PORT SECONDS  print {tag: count} of datagrams received
  xfer.py tag-client HOST PORT TAG COUNT
Each datagram carries its own sequence number and a sha256 of its payload,
so a corrupted one is counted as bad, not as received.
"""
import hashlib
import random
import socket
import struct
import sys
import time


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def tcp_server(port):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
    s.listen(1)
    s.settimeout(30)
    c, _ = s.accept()
    c.settimeout(30)
    h = hashlib.sha256()
    n = 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        h.update(b)
        n += len(b)
    print(n, h.hexdigest())


def tcp_client(host, port, n):
    rnd = random.Random(1234)
    data = bytes(rnd.getrandbits(8) for _ in range(n))
    s = socket.create_connection((host, port), timeout=30)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    s.close()
    print(n, hashlib.sha256(data).hexdigest())


def udp_server(port, count):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    # Room for every datagram: a receiver starved of CPU on a busy 2-core
    # machine must not lose what tepd delivered (rmem_max caps it; root
    # may exceed that with SO_RCVBUFFORCE).
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)	# SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("::", port))
    # The client may start late (after a TCP transfer, on a loaded
    # machine): wait long for the first datagram, 5 s between the others.
    s.settimeout(60)
    good, bad, seen = 0, 0, set()
    try:
        while len(seen) < count:
            b, _ = s.recvfrom(65536)
            s.settimeout(5)
            seq, digest, payload = struct.unpack("!I", b[:4])[0], b[4:36], b[36:]
            if hashlib.sha256(payload).digest() != digest:
                bad += 1
                continue
            if seq not in seen:
                seen.add(seq)
                good += 1
    except socket.timeout:
        pass
    print(good, bad)


def udp_client(host, port, count, size, nodf=False):
    rnd = random.Random(99)
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    if nodf:
        # IP_MTU_DISCOVER = IP_PMTUDISC_DONT: DF clear
        s.setsockopt(socket.IPPROTO_IP, 10, 0)
    for seq in range(count):
        payload = bytes(rnd.getrandbits(8) for _ in range(size))
        s.sendto(struct.pack("!I", seq) + hashlib.sha256(payload).digest()
                 + payload, (host, port))
        # Paced: a burst of UDP overruns socket buffers on a busy 2-core
        # machine, which says nothing about tepd.
        time.sleep(0.001)
    print(count)


def tag_server(port, seconds):
    import json
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    end = time.time() + seconds
    tags = {}
    while time.time() < end:
        s.settimeout(max(0.01, end - time.time()))
        try:
            b, _ = s.recvfrom(2048)
        except socket.timeout:
            break
        t = b.decode(errors="replace")
        tags[t] = tags.get(t, 0) + 1
    print(json.dumps(tags, sort_keys=True))


def tag_client(host, port, tag, count):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    for _ in range(count):
        s.sendto(tag.encode(), (host, port))
        time.sleep(0.002)


if __name__ == "__main__":
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == "tcp-server":
        tcp_server(int(a[0]))
    elif cmd == "tcp-client":
        tcp_client(a[0], int(a[1]), int(a[2]))
    elif cmd == "udp-server":
        udp_server(int(a[0]), int(a[1]))
    elif cmd == "udp-client":
        udp_client(a[0], int(a[1]), int(a[2]), int(a[3]),
                   len(a) > 4 and a[4] == "nodf")
    elif cmd == "tag-server":
        tag_server(int(a[0]), float(a[1]))
    elif cmd == "tag-client":
        tag_client(a[0], int(a[1]), a[2], int(a[3]))
    else:
        sys.exit("unknown command " + cmd)
