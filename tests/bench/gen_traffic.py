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
consecutive packets belong to different tunnels."""
import sys

from scapy.all import Ether, IP, UDP, Raw, wrpcap

vxlan = len(sys.argv) > 1 and sys.argv[1] == "--vxlan"
remotes = 1
if vxlan:
    del sys.argv[1]
    if sys.argv[1] == "--remotes":
        remotes = int(sys.argv[2])
        del sys.argv[1:3]
size, out = int(sys.argv[1]), sys.argv[2]
flows = int(sys.argv[3]) if len(sys.argv) > 3 else 512
dst = sys.argv[4] if len(sys.argv) > 4 else "02:70:63:61:70:00"
pad = max(0, size - 4 - 14 - 20 - 8)   # 64-byte frame = 60 + 4 FCS
pkts = []
if vxlan:
    # RFC 7348's header, written out: scapy's VXLAN layer sets the GPE
    # next-protocol bits when an Ethernet frame follows it
    vxlan_hdr = bytes([0x08, 0, 0, 0]) + (42 << 8).to_bytes(4, "big")
    pad = max(0, pad - 8 - 14 - 20 - 8)
    for i in range(flows):
        k = i % remotes
        inner = (Ether(dst="02:74:65:70:00:%02x" % k, src="02:00:00:00:00:42") /
                 IP(src="192.0.2.%d" % (i % 250 + 1),
                    dst="198.18.%d.%d" % (i // 250, i % 250 + 1), ttl=64) /
                 UDP(sport=10000 + i, dport=4000) / Raw(b"\x5a" * pad))
        pkts.append(Ether(dst=dst, src="02:00:00:00:00:99") /
                    IP(src="198.51.100.%d" % (2 + k), dst="198.51.100.1", ttl=64) /
                    UDP(sport=49152 + i, dport=4789, chksum=0) /
                    Raw(vxlan_hdr) / inner)
    wrpcap(out, pkts)
    sys.exit(0)
for i in range(flows):
    pkts.append(Ether(dst=dst, src="02:00:00:00:00:02") /
                IP(src="192.0.2.%d" % (i % 250 + 1),
                   dst="198.18.%d.%d" % (i // 250, i % 250 + 1), ttl=64) /
                UDP(sport=10000 + i, dport=4000) / Raw(b"\x5a" * pad))
wrpcap(out, pkts)
