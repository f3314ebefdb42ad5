#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Frames a hostile or careless neighbour sends, for test_hardening.sh.
Each command sends, and where it says so sniffs what comes back; it
prints one JSON object.

  foreign IFACE FAM N           tenant frames to a MAC that is not tepd's
  vx_foreign IFACE FAM UTEP UPEER TEPMAC N outer|inner
                                VXLAN (VNI 42) to tepd's underlay address
                                with a foreign outer or inner destination MAC
  na IFACE TARGET LLADDR        an unsolicited NA for TARGET (from behind
                                a tunnel when IFACE is the kernel's VXLAN)
  icmp_rules IFACE TEPMAC       packets with TTL 1 of each kind: which get
                                an ICMP error back
  via6 IFACE TEPMAC             UDP to 203.0.113.5 (routed back to us via
                                our IPv6 address): did it come back?
"""
import json
import sys
import time

from scapy.all import (ICMP, IP, UDP, IPerror, AsyncSniffer, Ether,
                       ICMPv6DestUnreach, ICMPv6EchoRequest, ICMPv6ND_NA,
                       ICMPv6NDOptDstLLAddr, ICMPv6TimeExceeded, IPv6,
                       IPv6ExtHdrFragment, Raw, conf, sendp)

conf.verb = 0
OVERLAY_MAC = "02:74:65:70:00:00"	# tunnel vx1's (id 0) overlay MAC


def inner_udp(tag):
    return (Ether(dst=OVERLAY_MAC, src="02:00:00:00:42:02") /
            IP(src="198.18.0.2", dst="192.0.2.10") / UDP(sport=5555, dport=5556) /
            Raw(tag))


def foreign(iface, fam, n):
    if fam == "4":
        p = IP(src="192.0.2.10", dst="198.18.0.2")
    else:
        p = IPv6(src="2001:db8:10::10", dst="2001:db8:20::2")
    f = Ether(dst="02:00:00:00:00:99") / p / UDP(sport=5555, dport=5556) / Raw(b"x" * 32)
    sendp([f] * int(n), iface=iface)
    return {"sent": int(n)}


def vx_foreign(iface, fam, utep, upeer, tepmac, n, which):
    inner = inner_udp(b"foreign")
    outer_mac = "02:00:00:00:00:99" if which == "outer" else tepmac
    if which == "inner":
        inner[Ether].dst = "02:00:00:00:00:98"
    ip = IP(src=upeer, dst=utep) if fam == "4" else IPv6(src=upeer, dst=utep)
    # The VXLAN header by hand (RFC 7348: I flag, VNI, reserved zero):
    # scapy's layer fills fields VXLAN-GPE uses.
    vx = Raw(b"\x08\x00\x00\x00" + (42 << 8).to_bytes(4, "big"))
    f = Ether(dst=outer_mac) / ip / UDP(sport=40000, dport=4789) / vx / inner
    sendp([f] * int(n), iface=iface)
    return {"sent": int(n)}


def na(iface, target, lladdr):
    f = (Ether(dst="33:33:00:00:00:01") /
         IPv6(src="2001:db8:20::2", dst="ff02::1", hlim=255) /
         ICMPv6ND_NA(tgt=target, R=0, S=0, O=1) /
         ICMPv6NDOptDstLLAddr(lladdr=lladdr))
    sendp([f] * 3, iface=iface)
    return {"sent": 3}


def icmp_rules(iface, tepmac):
    """Each kind with a tag in its payload; an ICMP error quotes it."""
    src4, dst4 = "192.0.2.10", "198.18.0.2"
    src6, dst6 = "2001:db8:10::10", "2001:db8:20::2"
    kinds = {
        "udp4": Ether(dst=tepmac) / IP(src=src4, dst=dst4, ttl=1) /
        UDP(sport=7001, dport=7002) / Raw(b"udp4"),
        "icmp4_error": Ether(dst=tepmac) / IP(src=src4, dst=dst4, ttl=1) /
        ICMP(type=3, code=3) / Raw(b"icmp4_error"),
        "fragment4": Ether(dst=tepmac) / IP(src=src4, dst=dst4, ttl=1, frag=100) /
        Raw(b"fragment4" * 2),
        "mcast_src4": Ether(dst=tepmac) / IP(src="224.0.0.9", dst=dst4, ttl=1) /
        UDP(sport=7003, dport=7004) / Raw(b"mcast_src4"),
        "l2_bcast4": Ether(dst="ff:ff:ff:ff:ff:ff") / IP(src=src4, dst=dst4, ttl=1) /
        UDP(sport=7005, dport=7006) / Raw(b"l2_bcast4"),
        "udp6": Ether(dst=tepmac) / IPv6(src=src6, dst=dst6, hlim=1) /
        UDP(sport=7007, dport=7008) / Raw(b"udp6"),
        "icmp6_error": Ether(dst=tepmac) / IPv6(src=src6, dst=dst6, hlim=1) /
        ICMPv6DestUnreach(code=4) / Raw(b"icmp6_error"),
        "fragment6": Ether(dst=tepmac) / IPv6(src=src6, dst=dst6, hlim=1) /
        IPv6ExtHdrFragment(nh=17, offset=100, m=0) / Raw(b"fragment6" * 2),
    }
    got = {k: 0 for k in kinds}
    # An ICMPv4 error quotes only the IP header and 8 bytes: the IP ID
    # tells the kinds apart.
    ids = {}
    for i, (k, f) in enumerate(kinds.items()):
        if f.haslayer(IP):
            f[IP].id = 0x7700 + i
            ids[0x7700 + i] = k

    def seen(p):
        raw = bytes(p)
        if p[Ether].src != tepmac:	# what we sent ourselves
            return
        if p.haslayer(ICMP) and p[ICMP].type in (3, 11):
            if p.haslayer(IPerror) and p[IPerror].id in ids:
                got[ids[p[IPerror].id]] += 1
            return
        if not p.haslayer(ICMPv6TimeExceeded):
            return
        for k in kinds:
            if k.encode() in raw:
                got[k] += 1

    sn = AsyncSniffer(iface=iface, prn=seen, store=False)
    sn.start()
    time.sleep(0.5)
    for k, f in kinds.items():
        sendp(f, iface=iface)
        time.sleep(0.05)
    time.sleep(1.0)
    sn.stop()
    return got


def via6(iface, tepmac):
    n = {"back": 0}

    def seen(p):
        if p.haslayer(IP) and p[IP].dst == "203.0.113.5" and \
           p[Ether].src == tepmac and bytes(p).find(b"via6") >= 0:
            n["back"] += 1

    sn = AsyncSniffer(iface=iface, prn=seen, store=False)
    sn.start()
    time.sleep(0.5)
    f = (Ether(dst=tepmac) / IP(src="192.0.2.10", dst="203.0.113.5", ttl=64) /
         UDP(sport=7011, dport=7012) / Raw(b"via6"))
    for _ in range(3):
        sendp(f, iface=iface)
        time.sleep(0.3)
    time.sleep(0.5)
    sn.stop()
    return n


def main():
    cmd = sys.argv[1]
    # tepctl prints MACs in capitals, scapy in small letters
    args = [a.lower() if a.count(":") == 5 and len(a) == 17 else a
            for a in sys.argv[2:]]
    fn = {"foreign": foreign, "vx_foreign": vx_foreign, "na": na,
          "icmp_rules": icmp_rules, "via6": via6}[cmd]
    print(json.dumps(fn(*args)))


if __name__ == "__main__":
    main()
