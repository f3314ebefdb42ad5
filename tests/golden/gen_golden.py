#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""
Golden tunnel packets made by scapy, an implementation independent of
lib/proto, for tests/unit/test_proto_golden.c and as the seed corpus of the
fuzz targets.

    /usr/bin/python3 tests/golden/gen_golden.py

writes (deterministically, so a re-run gives no diff):
    tests/golden/golden_vectors.h     C initializers, one per packet
    tests/fuzz/corpus/outer/<name>    1 selector byte + the whole packet
                                      (fuzz_parse_outer, fuzz_rco)
    tests/fuzz/corpus/flow/<name>     1 byte (bit 0: Ethernet) + the inner
                                      packet (fuzz_flow)

Every packet is made by evaluating the scapy expression stored next to it
in the header, then dissected again by scapy and rebuilt with each checksum
cleared, which must give the same bytes: the checksums are scapy's own.
The one deliberate exception is the inner UDP checksum of the GUE remote
checksum offload vectors, which holds the pseudo-header seed; that seed is
checked here against an independent RFC 1071 sum and against scapy's
checksum of the same datagram.

scapy has no GUE layer; the small one below follows
draft-ietf-intarea-gue (variant 0) and draft-herbert-remotecsumoffload as
Linux lays them out: flags 0x0001 = private flags present, private flag
0x80000000 = remote checksum offload, then csum_start and csum_offset
(be16 each) relative to the inner packet, csum_offset counted from the
inner packet too (start + checksum field offset).
"""

import os
import struct
import sys

from scapy.compat import raw
from scapy.fields import (BitField, ByteField, ConditionalField, ShortField,
                          XIntField, XShortField)
from scapy.packet import Packet, Raw, bind_layers
from scapy.layers.l2 import Ether, Dot1Q, GRE
from scapy.layers.inet import IP, UDP, TCP, ICMP
from scapy.layers.inet6 import IPv6
from scapy.layers.vxlan import VXLAN
from scapy.contrib.geneve import GENEVE, GeneveOptions

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", ".."))
OUT_H = os.path.join(TOP, "tests", "golden", "golden_vectors.h")
CORPUS_OUTER = os.path.join(TOP, "tests", "fuzz", "corpus", "outer")
CORPUS_FLOW = os.path.join(TOP, "tests", "fuzz", "corpus", "flow")

GUE_FLAG_PRIV = 0x0001
GUE_PFLAG_REMCSUM = 0x80000000
VXLAN_RCO_FLAG = 0x200000	# bit 21 of the flags word, in scapy's reserved1


class GUE(Packet):
    """GUE variant 0 header with the optional private-flags + RCO fields."""
    name = "GUE"
    fields_desc = [
        BitField("version", 0, 2),
        BitField("control", 0, 1),
        BitField("hlen", None, 5),
        ByteField("proto", 4),
        XShortField("flags", 0),
        ConditionalField(XIntField("priv_flags", 0),
                         lambda p: p.flags & GUE_FLAG_PRIV),
        ConditionalField(ShortField("rco_start", 0),
                         lambda p: (p.flags & GUE_FLAG_PRIV) and
                         (p.priv_flags & GUE_PFLAG_REMCSUM)),
        ConditionalField(ShortField("rco_offset", 0),
                         lambda p: (p.flags & GUE_FLAG_PRIV) and
                         (p.priv_flags & GUE_PFLAG_REMCSUM)),
    ]

    def post_build(self, p, pay):
        if self.hlen is None:
            hlen = (len(p) - 4) // 4
            p = bytes([(p[0] & 0xe0) | (hlen & 0x1f)]) + p[1:]
        return p + pay


bind_layers(UDP, GUE, dport=6080)
bind_layers(GUE, IP, proto=4)
bind_layers(GUE, IPv6, proto=41)
bind_layers(UDP, IP, dport=5555)     # FOU carrying IPv4
bind_layers(UDP, GENEVE, dport=6081)
bind_layers(UDP, VXLAN, dport=4789)

SCOPE = {
    "Ether": Ether, "Dot1Q": Dot1Q, "GRE": GRE, "IP": IP, "IPv6": IPv6,
    "UDP": UDP, "TCP": TCP, "ICMP": ICMP, "Raw": Raw, "VXLAN": VXLAN,
    "GENEVE": GENEVE, "GeneveOptions": GeneveOptions, "GUE": GUE,
}

# ---- fixed values ---------------------------------------------------------

OUT_SMAC, OUT_DMAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
OUT4_SRC, OUT4_DST = "198.51.100.1", "198.51.100.2"
OUT6_SRC, OUT6_DST = "2001:db8::1", "2001:db8::2"
IN_SMAC, IN_DMAC = "02:00:00:00:01:01", "02:00:00:00:01:02"
IN4_SRC, IN4_DST = "192.0.2.1", "203.0.113.1"
TTL = 64
IP_ID = 0x1234
FLOW_LABEL = 0x12345
SPORT = 50000
VNI = 42
PAYLOAD = b"tepd golden vector, odd len"
assert len(PAYLOAD) % 2 == 1

PORTS = {"VXLAN": 4789, "GENEVE": 6081, "FOU": 5555, "GUE": 6080}
L4 = {"tcp": 6, "udp": 17, "icmp": 1}
ETH_P_TEB = 0x6558

# First byte of an outer corpus file: bits 0-1 parse flags
# (TEP_PARSE_VERIFY_CSUM = 1), bits 2-3 the UDP tunnel parser
# (0 VXLAN, 1 GENEVE, 2 FOU, 3 GUE), bit 4 FOU carries IPv6.
SEL = {"VXLAN": 0, "GENEVE": 1, "FOU": 2, "GUE": 3, "GRE": 0}


# ---- independent RFC 1071 helpers (for cross-checks only) -----------------

def sum16(b, start=0):
    """Folded ones-complement sum of b in network order, not complemented."""
    s = start
    if len(b) % 2:
        b = b + b"\0"
    for i in range(0, len(b), 2):
        s += (b[i] << 8) | b[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def ip4_addr(a):
    return bytes(int(x) for x in a.split("."))


def phdr4(src, dst, proto, length):
    return ip4_addr(src) + ip4_addr(dst) + struct.pack("!BBH", 0, proto, length)


def phdr6(src, dst, proto, length):
    import socket
    return (socket.inet_pton(socket.AF_INET6, src) +
            socket.inet_pton(socket.AF_INET6, dst) +
            struct.pack("!IxxxB", length, proto))


# ---- expressions ------------------------------------------------------------

def q(s):
    return '"%s"' % s


def inner_expr(l4, eth, tos=0, udp_chksum=None):
    e = []
    if eth:
        e.append("Ether(src=%s,dst=%s)" % (q(IN_SMAC), q(IN_DMAC)))
    e.append("IP(src=%s,dst=%s,ttl=63,id=1,flags=\"DF\",tos=0x%02x)" %
             (q(IN4_SRC), q(IN4_DST), tos))
    if l4 == "tcp":
        if udp_chksum is None:
            e.append("TCP(sport=1234,dport=80,flags=\"S\",seq=1)")
        else:
            e.append("TCP(sport=1234,dport=80,flags=\"S\",seq=1,"
                     "chksum=0x%04x)" % udp_chksum)
    elif l4 == "udp":
        if udp_chksum is None:
            e.append("UDP(sport=1234,dport=53)")
        else:
            e.append("UDP(sport=1234,dport=53,chksum=0x%04x)" % udp_chksum)
    else:
        e.append("ICMP(type=8,code=0,id=1,seq=1)")
    e.append("Raw(load=%r)" % PAYLOAD)
    return e


def outer_expr(v6, vlan, tos, proto_l4):
    e = ["Ether(src=%s,dst=%s)" % (q(OUT_SMAC), q(OUT_DMAC))]
    if vlan:
        e.append("Dot1Q(prio=%d,id=%d,vlan=%d)" %
                 (vlan >> 13, (vlan >> 12) & 1, vlan & 0xfff))
    if v6:
        e.append("IPv6(src=%s,dst=%s,hlim=%d,tc=0x%02x,fl=0x%05x)" %
                 (q(OUT6_SRC), q(OUT6_DST), TTL, tos, FLOW_LABEL))
    else:
        e.append("IP(src=%s,dst=%s,ttl=%d,id=0x%04x,flags=\"DF\",tos=0x%02x)" %
                 (q(OUT4_SRC), q(OUT4_DST), TTL, IP_ID, tos))
    return e


def geneve_opts_expr(opts):
    return "[" + ",".join(
        "GeneveOptions(classid=0x%04x,type=0x%02x,length=%d,data=%r)" %
        (c, t, len(d) // 4, d) for c, t, d in opts) + "]"


def geneve_opts_bytes(opts):
    b = b""
    for c, t, d in opts:
        assert len(d) % 4 == 0
        b += struct.pack("!HBB", c, t, len(d) // 4) + d
    return b


def rco_seed(inner_bytes_v4, proto=17):
    """Pseudo-header sum of an inner IPv4 UDP or TCP datagram (folded, not
    complemented): what the checksum field holds while pending (Linux's
    CHECKSUM_PARTIAL)."""
    ihl = (inner_bytes_v4[0] & 0x0f) * 4
    tot = struct.unpack("!H", inner_bytes_v4[2:4])[0]
    return sum16(phdr4(IN4_SRC, IN4_DST, proto, tot - ihl))


# ---- vectors ----------------------------------------------------------------

def make(encap, v6, l4, vlan=0, tos_inherit=0, dscp=0, inner_tos=0,
         geneve_opts=None, geneve_crit=False, rco=False, gre_csum=1,
         gre_key=1, name=None):
    eth_inner = encap in ("VXLAN", "GENEVE", "GRE")
    # RFC 6040 normal mode: ECN always copied; DSCP configured or inherited.
    outer_tos = inner_tos if tos_inherit else ((dscp << 2) | (inner_tos & 3))

    udp_chksum = None
    gue_fields = None
    if rco:
        assert (encap == "GUE" and l4 == "udp") or \
            (encap == "VXLAN" and l4 in ("udp", "tcp"))
        # The inner packet first with a complete checksum, just to measure it.
        probe = eval("/".join(inner_expr(l4, False, inner_tos)), SCOPE)
        pb = raw(probe)
        udp_chksum = rco_seed(pb, L4[l4])
        ihl = (pb[0] & 0x0f) * 4
        # Both relative to the inner packet: the IP header for GUE, the
        # Ethernet header for VXLAN.
        base = 14 + ihl if encap == "VXLAN" else ihl
        gue_fields = (base, base + (6 if l4 == "udp" else 16))

    inner = inner_expr(l4, eth_inner, inner_tos, udp_chksum)
    e = outer_expr(v6, vlan, outer_tos, 47 if encap == "GRE" else 17)
    if encap == "GRE":
        g = ["chksum_present=%d" % gre_csum, "key_present=%d" % gre_key,
             "proto=0x%04x" % ETH_P_TEB]
        if gre_key:
            g.append("key=%d" % VNI)
        e.append("GRE(%s)" % ",".join(g))
    else:
        e.append("UDP(sport=%d,dport=%d)" % (SPORT, PORTS[encap]))
        if encap == "VXLAN" and rco:
            # draft-herbert-vxlan-rco as Linux's vxlan_build_skb() writes
            # it: flag bit 21 of the flags word (0x20 in the second byte,
            # scapy's reserved1), and in the byte after the VNI (scapy's
            # reserved2) the start in 2-byte units, 0x80 for UDP.
            e.append("VXLAN(flags=0x08,reserved1=0x%06x,vni=%d,"
                     "reserved2=0x%02x)" %
                     (VXLAN_RCO_FLAG, VNI,
                      (gue_fields[0] >> 1) | (0x80 if l4 == "udp" else 0)))
        elif encap == "VXLAN":
            e.append("VXLAN(flags=0x08,vni=%d)" % VNI)
        elif encap == "GENEVE":
            opts = geneve_opts or []
            e.append("GENEVE(version=0,optionlen=%d,oam=0,critical=%d,"
                     "proto=0x%04x,vni=%d,options=%s)" %
                     (len(geneve_opts_bytes(opts)) // 4, int(geneve_crit),
                      ETH_P_TEB, VNI, geneve_opts_expr(opts)))
        elif encap == "GUE":
            if rco:
                e.append("GUE(version=0,control=0,hlen=2,proto=4,"
                         "flags=0x%04x,priv_flags=0x%08x,rco_start=%d,"
                         "rco_offset=%d)" % (GUE_FLAG_PRIV, GUE_PFLAG_REMCSUM,
                                             gue_fields[0], gue_fields[1]))
            else:
                e.append("GUE(version=0,control=0,hlen=0,proto=4,flags=0x0000)")
    expr = "/".join(e + inner)
    pkt = eval(expr, SCOPE)
    b = raw(pkt)
    ib = raw(eval("/".join(inner), SCOPE))
    assert b.endswith(ib)
    inner_off = len(b) - len(ib)

    if name is None:
        name = "%s%d_%s" % (encap.lower(), 6 if v6 else 4, l4)
    opts_b = geneve_opts_bytes(geneve_opts or [])
    v = dict(name=name, scapy=expr, type="TEP_TUN_" + encap, outer_v6=int(v6),
             vlan_tci=vlan, tos_inherit=tos_inherit, dscp=dscp,
             inner_tos=inner_tos, outer_tos=outer_tos, df=1, ip_id=IP_ID,
             flow_label=FLOW_LABEL, sport=SPORT,
             dst_port=PORTS.get(encap, 0), vni=VNI,
             gre_key=gre_key if encap == "GRE" else 0,
             gre_csum=gre_csum if encap == "GRE" else 0,
             gre_proto=ETH_P_TEB if encap == "GRE" else 0,
             gue_proto=4 if encap in ("FOU", "GUE") else 0,
             rco=int(rco),
             geneve_opts=opts_b, geneve_critical=int(geneve_crit),
             inner_pending=int(rco), inner_eth=int(eth_inner),
             inner_l4_proto=L4[l4], inner_off=inner_off,
             rco_start=gue_fields[0] if rco else 0,
             rco_offset=gue_fields[1] if rco else 0, pkt=b)
    verify(v)
    return v


# ---- proof by scapy ---------------------------------------------------------

def layers(p):
    out = []
    while p:
        out.append(p)
        p = p.payload
    return out


def verify(v):
    b = v["pkt"]
    p = Ether(b)
    ls = layers(p)
    names = [type(x).__name__ for x in ls]
    # scapy must have dissected all the way down to the payload.
    assert names[-1] == "Raw" and ls[-1].load == PAYLOAD, (v["name"], names)
    want_l4 = {6: "TCP", 17: "UDP", 1: "ICMP"}[v["inner_l4_proto"]]
    assert names[-2] == want_l4, (v["name"], names)

    # Rebuild with every checksum cleared: scapy recomputes them and must
    # produce the same bytes. The RCO seed stays as it is.
    r = p.copy()
    inner_udp = ls[-2] if v["inner_pending"] else None
    idx = 0
    for x in layers(r):
        keep = inner_udp is not None and idx == len(ls) - 2
        if "chksum" in x.fields and not keep:
            x.chksum = None
        idx += 1
    assert raw(r) == b, v["name"]

    # Independent cross-check of the outer L4 checksum with RFC 1071 here.
    o3 = ls[2] if v["vlan_tci"] else ls[1]
    o4 = o3.payload
    seg = raw(o4)
    if isinstance(o3, IPv6):
        assert o3.tc == v["outer_tos"] and o3.fl == FLOW_LABEL
        plen = o3.plen
        seg = seg[:plen]
        if isinstance(o4, UDP):
            assert sum16(seg, sum16(phdr6(OUT6_SRC, OUT6_DST, 17, len(seg)))) == 0xffff
    else:
        assert o3.tos == v["outer_tos"] and o3.id == IP_ID and o3.flags.DF
        assert sum16(raw(o3)[:20]) == 0xffff
        if isinstance(o4, UDP):
            assert o4.chksum != 0
            assert sum16(seg, sum16(phdr4(OUT4_SRC, OUT4_DST, 17, len(seg)))) == 0xffff
    if isinstance(o4, GRE) and o4.chksum_present:
        assert sum16(seg) == 0xffff

    if v["inner_pending"]:
        # The inner packet as sent holds the seed; check the seed is what the
        # receiver needs: filling the field in the way RCO does
        # (~sum of the region from csum_start, seed included) must give
        # scapy's own checksum of that datagram.
        ib = b[v["inner_off"]:]
        s = v["rco_start"]
        seed = struct.unpack("!H", ib[v["rco_offset"]:v["rco_offset"] + 2])[0]
        l3 = 14 if v["inner_eth"] else 0
        assert seed == rco_seed(ib[l3:], v["inner_l4_proto"])
        filled = (~sum16(ib[s:])) & 0xffff
        ip = Ether(ib) if v["inner_eth"] else IP(ib)
        l4cls = UDP if v["inner_l4_proto"] == 17 else TCP
        ip[l4cls].chksum = None
        want = raw(ip)[v["rco_offset"]:v["rco_offset"] + 2]
        assert struct.pack("!H", filled) == want, (hex(filled), want.hex())
        assert filled != seed


def build_all():
    vs = []
    for encap in ("VXLAN", "GENEVE", "FOU", "GUE", "GRE"):
        for v6 in (False, True):
            for l4 in ("tcp", "udp", "icmp"):
                vs.append(make(encap, v6, l4))
    vs.append(make("VXLAN", False, "udp", vlan=0x0064, name="vxlan4_udp_vlan100"))
    vs.append(make("VXLAN", False, "tcp", tos_inherit=1, inner_tos=0xb8,
                   name="vxlan4_tcp_tos_inherit"))
    vs.append(make("VXLAN", True, "tcp", tos_inherit=1, inner_tos=0xb8,
                   name="vxlan6_tcp_tos_inherit"))
    # Configured DSCP 10 (AF11) with the inner ECN ECT(1) copied.
    vs.append(make("GENEVE", True, "udp", dscp=10, inner_tos=0x01,
                   name="geneve6_udp_dscp10_ect1"))
    # RFC 6040 normal mode copies CE as well.
    vs.append(make("VXLAN", False, "udp", inner_tos=0x03,
                   name="vxlan4_udp_ecn_ce"))
    vs.append(make("GENEVE", False, "tcp",
                   geneve_opts=[(0x0102, 0x03, b"\xde\xad\xbe\xef")],
                   name="geneve4_tcp_opt"))
    vs.append(make("GENEVE", False, "tcp",
                   geneve_opts=[(0x0102, 0x83, b"\xde\xad\xbe\xef")],
                   geneve_crit=True, name="geneve4_tcp_critopt"))
    vs.append(make("GUE", False, "udp", rco=True, name="gue4_udp_rco"))
    vs.append(make("GUE", True, "udp", rco=True, name="gue6_udp_rco"))
    for v6 in (False, True):
        for l4 in ("tcp", "udp"):
            vs.append(make("VXLAN", v6, l4, rco=True,
                           name="vxlan%d_%s_rco" % (6 if v6 else 4, l4)))
    vs.append(make("GRE", False, "tcp", gre_csum=0, gre_key=0,
                   name="gre4_tcp_nocsum_nokey"))
    names = [v["name"] for v in vs]
    assert len(names) == len(set(names))
    return vs


# ---- output -----------------------------------------------------------------

def c_bytes(b, indent="\t"):
    lines = []
    for i in range(0, len(b), 12):
        lines.append(indent + " ".join("0x%02x," % x for x in b[i:i + 12]))
    return "\n".join(lines)


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_str_split(s, indent):
    """A long expression as adjacent literals, one scapy layer per line."""
    parts = s.split("/")
    out = []
    for i, p in enumerate(parts):
        out.append(indent + c_str(p + ("/" if i + 1 < len(parts) else "")))
    return "\n".join(out)


def write_header(vs):
    o = []
    o.append("/* SPDX-License-Identifier: BSD-3-Clause")
    o.append(" * Copyright (c) 2026 The tepd authors")
    o.append(" *")
    o.append(" * GENERATED by tests/golden/gen_golden.py -- DO NOT EDIT.")
    o.append(" * Regenerate with: /usr/bin/python3 tests/golden/gen_golden.py")
    o.append(" *")
    o.append(" * %d tunnel packets built by scapy (not by lib/proto) and checked" % len(vs))
    o.append(" * by scapy after a re-dissection: every checksum is scapy's own, except")
    o.append(" * the inner UDP checksum of the GUE RCO vectors, which holds the")
    o.append(" * pseudo-header seed the receiver completes (inner_pending).")
    o.append(" */")
    o.append("#ifndef TEP_GOLDEN_VECTORS_H")
    o.append("#define TEP_GOLDEN_VECTORS_H")
    o.append("")
    o.append("#include <stdint.h>")
    o.append("")
    o.append('#include "tep_proto.h"')
    o.append("")
    o.append("/* Fixed for every vector (gen_golden.py). */")
    o.append("#define GOLDEN_OUT_SMAC\t{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }")
    o.append("#define GOLDEN_OUT_DMAC\t{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }")
    o.append("#define GOLDEN_OUT4_SRC\t{ 198, 51, 100, 1 }")
    o.append("#define GOLDEN_OUT4_DST\t{ 198, 51, 100, 2 }")
    o.append("#define GOLDEN_OUT6_SRC\t{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }")
    o.append("#define GOLDEN_OUT6_DST\t{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 }")
    o.append("#define GOLDEN_TTL\t%d" % TTL)
    o.append("#define GOLDEN_PAYLOAD_LEN\t%d" % len(PAYLOAD))
    o.append("")
    o.append("struct golden_vec {")
    o.append("\tconst char *name;")
    o.append("\tconst char *scapy;\t\t/* the expression that made pkt */")
    o.append("\tint type;\t\t\t/* enum tep_tun_type */")
    o.append("\tint outer_v6;")
    o.append("\tuint16_t vlan_tci;\t\t/* 0 = untagged */")
    o.append("\tint tos_inherit;")
    o.append("\tuint8_t dscp;\t\t\t/* configured outer DSCP */")
    o.append("\tuint8_t inner_tos;\t\t/* inner IPv4 TOS */")
    o.append("\tuint8_t outer_tos;\t\t/* expected outer TOS / traffic class */")
    o.append("\tint df;")
    o.append("\tuint16_t ip_id;")
    o.append("\tuint32_t flow_label;")
    o.append("\tuint16_t sport;")
    o.append("\tuint16_t dst_port;\t\t/* on the wire; 0 for GRE */")
    o.append("\tuint32_t vni;\t\t\t/* VNI, or GRE key when gre_key */")
    o.append("\tint gre_key;")
    o.append("\tint gre_csum;")
    o.append("\tuint16_t gre_proto;")
    o.append("\tuint8_t gue_proto;\t\t/* FOU/GUE inner IP protocol */")
    o.append("\tint rco;")
    o.append("\tconst uint8_t *geneve_opts;")
    o.append("\tuint16_t geneve_opts_len;")
    o.append("\tint geneve_critical;\t\t/* an option with type bit 0x80 */")
    o.append("\tint inner_pending;\t\t/* inner L4 field holds the RCO seed */")
    o.append("\tint inner_eth;\t\t\t/* inner packet starts with Ethernet */")
    o.append("\tuint8_t inner_l4_proto;\t\t/* 6, 17, 1 */")
    o.append("\tuint16_t inner_off;\t\t/* first byte after the tunnel header */")
    o.append("\tuint16_t rco_start;\t\t/* GUE RCO fields, inner-relative */")
    o.append("\tuint16_t rco_offset;")
    o.append("\tuint16_t len;")
    o.append("\tconst uint8_t *pkt;")
    o.append("};")
    o.append("")
    for v in vs:
        cn = v["name"]
        if v["geneve_opts"]:
            o.append("static const uint8_t golden_opts_%s[] = {" % cn)
            o.append(c_bytes(v["geneve_opts"]))
            o.append("};")
            o.append("")
        o.append("static const uint8_t golden_pkt_%s[%d] = {" % (cn, len(v["pkt"])))
        o.append(c_bytes(v["pkt"]))
        o.append("};")
        o.append("")
    o.append("static const struct golden_vec golden_vecs[] = {")
    for v in vs:
        cn = v["name"]
        o.append("\t{")
        o.append("\t\t.name = %s," % c_str(cn))
        o.append("\t\t.scapy =")
        o.append(c_str_split(v["scapy"], "\t\t\t") + ",")
        o.append("\t\t.type = %s," % v["type"])
        o.append("\t\t.outer_v6 = %d," % v["outer_v6"])
        o.append("\t\t.vlan_tci = 0x%04x," % v["vlan_tci"])
        o.append("\t\t.tos_inherit = %d," % v["tos_inherit"])
        o.append("\t\t.dscp = %d," % v["dscp"])
        o.append("\t\t.inner_tos = 0x%02x," % v["inner_tos"])
        o.append("\t\t.outer_tos = 0x%02x," % v["outer_tos"])
        o.append("\t\t.df = %d," % v["df"])
        o.append("\t\t.ip_id = 0x%04x," % v["ip_id"])
        o.append("\t\t.flow_label = 0x%05x," % v["flow_label"])
        o.append("\t\t.sport = %d," % v["sport"])
        o.append("\t\t.dst_port = %d," % v["dst_port"])
        o.append("\t\t.vni = %d," % v["vni"])
        o.append("\t\t.gre_key = %d," % v["gre_key"])
        o.append("\t\t.gre_csum = %d," % v["gre_csum"])
        o.append("\t\t.gre_proto = 0x%04x," % v["gre_proto"])
        o.append("\t\t.gue_proto = %d," % v["gue_proto"])
        o.append("\t\t.rco = %d," % v["rco"])
        if v["geneve_opts"]:
            o.append("\t\t.geneve_opts = golden_opts_%s," % cn)
        else:
            o.append("\t\t.geneve_opts = NULL,")
        o.append("\t\t.geneve_opts_len = %d," % len(v["geneve_opts"]))
        o.append("\t\t.geneve_critical = %d," % v["geneve_critical"])
        o.append("\t\t.inner_pending = %d," % v["inner_pending"])
        o.append("\t\t.inner_eth = %d," % v["inner_eth"])
        o.append("\t\t.inner_l4_proto = %d," % v["inner_l4_proto"])
        o.append("\t\t.inner_off = %d," % v["inner_off"])
        o.append("\t\t.rco_start = %d," % v["rco_start"])
        o.append("\t\t.rco_offset = %d," % v["rco_offset"])
        o.append("\t\t.len = sizeof(golden_pkt_%s)," % cn)
        o.append("\t\t.pkt = golden_pkt_%s," % cn)
        o.append("\t},")
    o.append("};")
    o.append("")
    o.append("#define GOLDEN_NVECS (sizeof(golden_vecs) / sizeof(golden_vecs[0]))")
    o.append("")
    o.append("#endif /* TEP_GOLDEN_VECTORS_H */")
    data = "\n".join(o) + "\n"
    with open(OUT_H + ".tmp", "w") as f:
        f.write(data)
    os.replace(OUT_H + ".tmp", OUT_H)


def write_corpus(vs):
    for d in (CORPUS_OUTER, CORPUS_FLOW):
        os.makedirs(d, exist_ok=True)
        for fn in os.listdir(d):        # generated: drop stale seeds
            os.unlink(os.path.join(d, fn))
    for v in vs:
        # parse flags: VERIFY_CSUM; selector as fuzz_parse_outer.c reads it
        sel = 0x01 | (SEL[v["type"][len("TEP_TUN_"):]] << 2)
        with open(os.path.join(CORPUS_OUTER, v["name"]), "wb") as f:
            f.write(bytes([sel]) + v["pkt"])
        with open(os.path.join(CORPUS_FLOW, v["name"]), "wb") as f:
            f.write(bytes([v["inner_eth"]]) + v["pkt"][v["inner_off"]:])


def main():
    vs = build_all()
    write_header(vs)
    write_corpus(vs)
    print("%d vectors -> %s" % (len(vs), os.path.relpath(OUT_H, TOP)))
    print("corpus -> %s, %s" % (os.path.relpath(CORPUS_OUTER, TOP),
                                os.path.relpath(CORPUS_FLOW, TOP)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
