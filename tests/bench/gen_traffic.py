#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""gen_traffic.py [--vxlan [--remotes K]] SIZE OUT.pcap [FLOWS [DST_MAC]]: tenant frames
for the pipeline benchmark: FLOWS UDP flows (default 512) from
192.0.2.0/24 to addresses in 198.18.0.0/15, each frame SIZE bytes on the
wire (without FCS), with valid checksums (scapy computes them), addressed
to DST_MAC: by default the MAC net_pcap gives its first port,
02:70:63:61:70:00 (tepd drops frames for other MACs: drop_not_for_us).

--vxlan: the same flows inside VXLAN, as the far VTEP 198.51.100.2 sends
them to 198.51.100.1 (VNI 42, inner
MAC 02:74:65:70:00:00: tepd's first tunnel), SIZE bytes outer; the outer
UDP checksum is 0, as Linux's VXLAN sends over IPv4 by default.
--remotes K: flow i comes from the far VTEP 198.51.100.(2 + i % K), to
the inner MAC of tepd's tunnel number i % K (02:74:65:70:00:xx), so that
consecutive packets belong to different tunnels.

--dst-file FILE: flow i goes to the address on line i of FILE (one IPv4
address a line, e.g. gen_routes.py's lookups: destinations spread over an
Internet-like table) instead of 198.18.x.y.
SIZE "imix": frames of 64, 570 and 1500 bytes in the proportions 7:4:1
(the simple IMIX), in that repeating order over the flows."""
import sys

from scapy.all import Ether, IP, UDP, Raw, wrpcap

vxlan = len(sys.argv) > 1 and sys.argv[1] == "--vxlan"
remotes = 1
dsts = None
if vxlan:
    del sys.argv[1]
    if sys.argv[1] == "--remotes":
        remotes = int(sys.argv[2])
        del sys.argv[1:3]
if sys.argv[1] == "--dst-file":
    with open(sys.argv[2]) as f:
        dsts = f.read().split()
    del sys.argv[1:3]
IMIX = [64] * 7 + [570] * 4 + [1500]
sizes = IMIX if sys.argv[1] == "imix" else [int(sys.argv[1])]
out = sys.argv[2]
flows = int(sys.argv[3]) if len(sys.argv) > 3 else 512
dst = sys.argv[4] if len(sys.argv) > 4 else "02:70:63:61:70:00"


def pad(i, hdrs):
    """Payload bytes of flow i's frame: its size less FCS and hdrs."""
    return b"\x5a" * max(0, sizes[i % len(sizes)] - 4 - hdrs)


def dst_ip(i):
    if dsts is not None:
        return dsts[i % len(dsts)]
    j = i // 250 % 512
    return "198.%d.%d.%d" % (18 + j // 256, j % 256, i % 250 + 1)


pkts = []
if vxlan:
    # RFC 7348's header, written out: scapy's VXLAN layer sets the GPE
    # next-protocol bits when an Ethernet frame follows it
    vxlan_hdr = bytes([0x08, 0, 0, 0]) + (42 << 8).to_bytes(4, "big")
    for i in range(flows):
        k = i % remotes
        inner = (Ether(dst="02:74:65:70:00:%02x" % k, src="02:00:00:00:00:42") /
                 IP(src="192.0.2.%d" % (i % 250 + 1), dst=dst_ip(i), ttl=64) /
                 UDP(sport=10000 + i % 50000, dport=4000) /
                 Raw(pad(i, 14 + 20 + 8 + 8 + 14 + 20 + 8)))
        pkts.append(Ether(dst=dst, src="02:00:00:00:00:99") /
                    IP(src="198.51.100.%d" % (2 + k), dst="198.51.100.1", ttl=64) /
                    UDP(sport=49152 + i % 16384, dport=4789, chksum=0) /
                    Raw(vxlan_hdr) / inner)
    wrpcap(out, pkts)
    sys.exit(0)
for i in range(flows):
    pkts.append(Ether(dst=dst, src="02:00:00:00:00:02") /
                IP(src="192.0.2.%d" % (i % 250 + 1), dst=dst_ip(i), ttl=64) /
                UDP(sport=10000 + i % 50000, dport=4000) /
                Raw(pad(i, 14 + 20 + 8)))
wrpcap(out, pkts)
