#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""A BGP speaker standing in for an EVPN fabric's remote VTEPs.

It connects to one iBGP peer (the bgpd of a tepd node), negotiates the
l2vpn evpn family and announces EVPN type-5 (IP prefix) routes as the
other VTEPs of a fabric would (RFC 9136): route distinguisher
VTEP-address:VNI, the VNI in the label field (RFC 8365), next hop the
VTEP, extended communities route target ASN:VNI, encapsulation VXLAN and
the VTEP's router MAC. It writes everything it sends itself (RFC 4271
framing), so that one process can be fifty VTEPs; bgpd and zebra on the
other side are the real thing under test.

    evpn_speaker.py --peer ADDR [--route PREFIX/LEN,VNI,VTEP,RMAC]...
                    [--bulk N --vteps K --vni VNI --base ADDR
                     --vtep-base ADDR --rmac-base MAC] [--stamp FILE]

--route routes are announced once the session is up. The bulk set (N /32
prefixes from --base upwards; prefix i from VTEP vtep-base + (i/100 mod
K), router MAC rmac-base + that VTEP's index) is announced on SIGUSR1 and
withdrawn on SIGUSR2; each time the wall clock of the first byte goes to
FILE and of the last to FILE.done. It runs until SIGTERM, keeping the
session alive and discarding what the peer sends.
"""
import argparse
import ipaddress
import select
import signal
import socket
import struct
import sys
import time

AFI_L2VPN, SAFI_EVPN = 25, 70
OPEN, UPDATE, NOTIFICATION, KEEPALIVE = 1, 2, 3, 4
PER_UPDATE = 100        # type-5 IPv4 NLRI are 36 bytes: 100 fit in 4096
HOLD = 90


def message(kind, body):
    return b"\xff" * 16 + struct.pack("!HB", 19 + len(body), kind) + body


def attribute(flags, code, data):
    if len(data) > 255:
        return struct.pack("!BBH", flags | 0x10, code, len(data)) + data
    return struct.pack("!BBB", flags, code, len(data)) + data


def open_message(asn, router_id):
    caps = struct.pack("!BBHBB", 1, 4, AFI_L2VPN, 0, SAFI_EVPN)  # multiprotocol
    caps += struct.pack("!BBI", 65, 4, asn)                     # 4-octet AS
    params = struct.pack("!BB", 2, len(caps)) + caps
    return message(OPEN, struct.pack("!BHH4sB", 4, asn if asn < 65536 else 23456,
                                     HOLD, socket.inet_aton(router_id),
                                     len(params)) + params)


def type5_nlri(vtep, vni, prefix):
    rd = struct.pack("!H4sH", 1, socket.inet_aton(vtep), vni)
    body = (rd + bytes(10) + bytes(4)                 # RD, ESI, Ethernet tag
            + bytes([prefix.prefixlen]) + prefix.network_address.packed
            + bytes(4) + vni.to_bytes(3, "big"))       # gateway IP, label
    return bytes([5, len(body)]) + body


def announce(asn, vtep, vni, rmac, nlris):
    ext = (struct.pack("!BBHI", 0x00, 0x02, asn, vni)  # route target ASN:VNI
           + struct.pack("!BBIH", 0x03, 0x0C, 0, 8)   # encapsulation: VXLAN
           + bytes([0x06, 0x03]) + rmac)               # router's MAC
    reach = (struct.pack("!HBB", AFI_L2VPN, SAFI_EVPN, 4)
             + socket.inet_aton(vtep) + b"\x00" + b"".join(nlris))
    attrs = (attribute(0x40, 1, b"\x00")                # ORIGIN IGP
             + attribute(0x40, 2, b"")                  # AS_PATH (iBGP)
             + attribute(0x40, 5, struct.pack("!I", 100))
             + attribute(0xC0, 16, ext)
             + attribute(0x80, 14, reach))
    return message(UPDATE, struct.pack("!HH", 0, len(attrs)) + attrs)


def withdraw(nlris):
    unreach = struct.pack("!HB", AFI_L2VPN, SAFI_EVPN) + b"".join(nlris)
    attrs = attribute(0x80, 15, unreach)
    return message(UPDATE, struct.pack("!HH", 0, len(attrs)) + attrs)


def mac_bytes(text):
    return bytes(int(x, 16) for x in text.split(":"))


class Bulk:
    """The bulk set, as (vtep, rmac, [nlri, ...]) groups of PER_UPDATE."""

    def __init__(self, a):
        base = int(ipaddress.IPv4Address(a.base))
        vtep0 = int(ipaddress.IPv4Address(a.vtep_base))
        mac0 = int.from_bytes(mac_bytes(a.rmac_base), "big")
        self.groups = []
        for start in range(0, a.bulk, PER_UPDATE):
            k = (start // PER_UPDATE) % a.vteps
            vtep = str(ipaddress.IPv4Address(vtep0 + k))
            nlris = [type5_nlri(vtep, a.vni, ipaddress.IPv4Network(
                         (base + i, 32)))
                     for i in range(start, min(start + PER_UPDATE, a.bulk))]
            self.groups.append((vtep, (mac0 + k).to_bytes(6, "big"), nlris))

    def announcements(self, asn, vni):
        return b"".join(announce(asn, v, vni, m, n) for v, m, n in self.groups)

    def withdrawals(self):
        return b"".join(withdraw(n) for _, _, n in self.groups)


def connect(peer, deadline):
    while True:
        try:
            return socket.create_connection((peer, 179), timeout=2)
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--peer", required=True)
    p.add_argument("--asn", type=int, default=65000)
    p.add_argument("--id", default="203.0.113.2")
    p.add_argument("--route", action="append", default=[])
    p.add_argument("--bulk", type=int, default=0)
    p.add_argument("--vteps", type=int, default=50)
    p.add_argument("--vni", type=int, default=100)
    p.add_argument("--base", default="198.18.16.0")
    p.add_argument("--vtep-base", default="192.0.2.101")
    p.add_argument("--rmac-base", default="02:00:00:01:00:00")
    p.add_argument("--stamp")
    p.add_argument("--connect-timeout", type=float, default=60)
    a = p.parse_args()

    pending = []
    signal.signal(signal.SIGUSR1, lambda *_: pending.append("announce"))
    signal.signal(signal.SIGUSR2, lambda *_: pending.append("withdraw"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # built before the clock starts: the speaker's Python is not under test
    bulk = Bulk(a) if a.bulk else None
    bulk_up = bulk.announcements(a.asn, a.vni) if bulk else b""
    bulk_down = bulk.withdrawals() if bulk else b""

    s = connect(a.peer, time.time() + a.connect_timeout)
    s.settimeout(None)
    s.sendall(open_message(a.asn, a.id))
    buf = b""
    established = False
    last_ka = time.time()
    received = 0
    while True:
        r, _, _ = select.select([s], [], [], 1.0)
        if r:
            data = s.recv(65536)
            if not data:
                print("evpn_speaker: peer closed the session", file=sys.stderr)
                return 1
            buf += data
        while len(buf) >= 19:
            length, kind = struct.unpack("!HB", buf[16:19])
            if length < 19 or length > 4096:
                print("evpn_speaker: bad message length %d" % length,
                      file=sys.stderr)
                return 1
            if len(buf) < length:
                break
            body, buf = buf[19:length], buf[length:]
            if kind == OPEN:
                s.sendall(message(KEEPALIVE, b""))
            elif kind == KEEPALIVE and not established:
                established = True
                print("evpn_speaker: session up", file=sys.stderr, flush=True)
                for spec in a.route:
                    pfx, vni, vtep, rmac = spec.split(",")
                    s.sendall(announce(a.asn, vtep, int(vni), mac_bytes(rmac),
                                       [type5_nlri(vtep, int(vni),
                                        ipaddress.IPv4Network(pfx))]))
            elif kind == NOTIFICATION:
                print("evpn_speaker: notification %s" % body[:2].hex(),
                      file=sys.stderr)
                return 1
            elif kind == UPDATE:
                received += 1
        if established and pending:
            what = pending.pop(0)
            wire = bulk_up if what == "announce" else bulk_down
            if a.stamp:
                with open(a.stamp, "w") as f:
                    f.write("%.6f\n" % time.time())
            s.sendall(wire)
            if a.stamp:
                with open(a.stamp + ".done", "w") as f:
                    f.write("%.6f\n" % time.time())
            print("evpn_speaker: %s %d routes in %d updates (%d bytes)"
                  % (what, a.bulk, len(bulk.groups), len(wire)),
                  file=sys.stderr, flush=True)
        if time.time() - last_ka > HOLD / 3:
            s.sendall(message(KEEPALIVE, b""))
            last_ka = time.time()


if __name__ == "__main__":
    sys.exit(main())
