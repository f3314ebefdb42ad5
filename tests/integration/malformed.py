#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Send malformed frames at tepd's underlay port, built with scapy.

  malformed.py IFACE DST_MAC COUNT
Prints, as JSON, how many frames were sent for each drop reason tepd must
count them under (the suffix of its drop_* counters).
"""
import json
import sys

from scapy.all import Ether, IP, UDP, Raw, sendp
from scapy.layers.vxlan import VXLAN
from scapy.contrib.geneve import GENEVE

iface, dmac, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
SRC, DST = "198.51.100.2", "198.51.100.1"
eth = Ether(dst=dmac, src="02:00:00:00:99:99")
inner = (Ether(dst="02:00:00:00:00:aa", src="02:00:00:00:00:bb") /
         IP(src="198.18.0.2", dst="192.0.2.10") / UDP(sport=1, dport=9) /
         Raw(b"x" * 20))


def vx(vni=42, flags=0x08, payload=inner, chksum=None, ulen=None):
    return eth / IP(src=SRC, dst=DST) / UDP(
        sport=40000, dport=4789, chksum=chksum, len=ulen) / VXLAN(
        vni=vni, flags=flags) / payload


cases = {
    # reason: frames
    "truncated": [Ether(dst=dmac, type=0x0800) / Raw(b"\x45\x00\x00"),
                  vx(payload=Raw(b"\x02\x00\x00\x00"))],  # inner < 14
    "bad_version": [Ether(dst=dmac, type=0x0800) /
                    Raw(b"\x55" + bytes(IP(src=SRC, dst=DST) / UDP())[1:])],
    "bad_ip_csum": [eth / IP(src=SRC, dst=DST, chksum=0x1234) / UDP(dport=4789)],
    "bad_length": [vx(ulen=1400)],                        # UDP length lies
    "bad_flags": [vx(flags=0x00)],                        # VXLAN I flag clear
    "reserved_set": [vx(flags=0x0c)],
    "no_tunnel": [vx(vni=999)],
    "bad_outer_csum": [vx(chksum=0x1234)],
    # No "fragment" case: net_af_packet joins a PACKET_FANOUT group with
    # the kernel's defrag flag, so fragments never reach tepd through it
    # (the parser's FRAGMENT verdict is covered by tests/unit/test_proto).
    "not_routable": [Ether(dst=dmac, type=0x88b5) / Raw(b"\x00" * 46)],
    # UDP to us on a port no tunnel uses: for tepd itself, unanswered
    "local": [eth / IP(src=SRC, dst=DST) / UDP(dport=6081) / GENEVE(vni=5)
              / inner],
}

frames, sent = [], {}
for reason, fs in cases.items():
    for f in fs:
        frames += [f] * count
    sent[reason] = len(fs) * count
sendp(frames, iface=iface, verbose=False, inter=0.0005)
print(json.dumps(sent))
