#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Seeds for fuzz_walk: a flags byte (TEP_WALK_*), two bytes of readable
room, then a packet. Written by hand, byte by byte, so that no generator
library is needed: run from the tree to rewrite tests/fuzz/corpus/walk."""
import os
import struct

ETH, VLAN, EXT, SPLIT_EARLY, NO_SPLIT = 1, 2, 4, 8, 16


def eth(etype, tag=False):
    h = b"\x02" * 6 + b"\x04" * 6
    if tag:
        return h + struct.pack("!HHH", 0x8100, 100, etype)
    return h + struct.pack("!H", etype)


def ip4(proto, payload, opts=b"", frag=0):
    ihl = 20 + len(opts)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl // 4, 0, ihl + len(payload),
                    1, frag, 64, proto, 0, bytes([10, 0, 0, 1]),
                    bytes([10, 0, 0, 2]))
    return h + opts + payload


def ip6(chain, proto, payload):
    """chain: list of (type, body) with body padded to a multiple of 8."""
    exts = b""
    for i, (t, body) in enumerate(chain):
        nxt = chain[i + 1][0] if i + 1 < len(chain) else proto
        if t == 44:
            exts += struct.pack("!BBHI", nxt, 0, body, 7)
        else:
            raw = bytes([nxt, 0]) + body
            raw += b"\x00" * (-len(raw) % 8)
            exts += bytes([nxt, len(raw) // 8 - 1]) + raw[2:]
    first = chain[0][0] if chain else proto
    h = struct.pack("!IHBB16s16s", 0x60000000, len(exts) + len(payload),
                    first, 64, b"\x20" + b"\x00" * 15, b"\x20" + b"\x01" * 15)
    return h + exts + payload


TCP = struct.pack("!HHIIBBHHH", 1000, 80, 1, 0, 0x50, 0x10, 100, 0, 0)
UDP = struct.pack("!HHHH", 1000, 4789, 12, 0) + b"abcd"

seeds = {
    "eth_ip4_tcp": (ETH, eth(0x0800) + ip4(6, TCP)),
    "eth_ip4_opts_udp": (ETH, eth(0x0800) + ip4(17, UDP, b"\x01" * 12)),
    "vlan_ip4_frag": (ETH | VLAN, eth(0x0800, True) + ip4(17, UDP, frag=0x2000)),
    "eth_ip6_tcp": (ETH | SPLIT_EARLY, eth(0x86dd) + ip6([], 6, TCP)),
    "eth_ip6_hbh_rt_udp": (ETH | EXT,
                           eth(0x86dd) + ip6([(0, b"\x01\x04\x00\x00\x00\x00"),
                                              (43, b"\x00\x01" + b"\x00" * 20)],
                                             17, UDP)),
    "vlan_ip6_frag_tcp": (ETH | VLAN | EXT,
                          eth(0x86dd, True) + ip6([(60, b""), (44, 0)], 6, TCP)),
    "ip4_tcp": (0, ip4(6, TCP)),
    "ip6_dst_udp": (EXT, ip6([(60, b"\x00" * 14)], 17, UDP)),
    "eth_arp": (ETH | NO_SPLIT, eth(0x0806) + b"\x00\x01\x08\x00\x06\x04" + b"\x00" * 22),
    "eth_ip4_short": (ETH | NO_SPLIT, (eth(0x0800) + ip4(6, TCP))[:30]),
}

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "walk")
os.makedirs(here, exist_ok=True)
for name, (flags, pkt) in seeds.items():
    room = len(pkt) if "split" not in name else 40
    with open(os.path.join(here, name), "wb") as f:
        f.write(bytes([flags]) + struct.pack("!H", room) + pkt)
