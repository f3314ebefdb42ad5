#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""burst_equiv.py: traffic and checks for test_burst_equiv.sh.

  burst_equiv.py gen DIR
      DIR/in0.pcap (access port, vrf red), in1.pcap (access, vrf blue),
      in2.pcap (underlay) and DIR/expect.json: what tepd must make of
      each packet (the config is the one test_burst_equiv.sh writes).
  burst_equiv.py check DIR RUN...
      RUN: a directory with out0-2.pcap, stats.json and tunnels.json of
      one tepd run over the same input. Every output frame is decoded
      and checked against expect.json with scapy (addresses, VNI,
      checksums recomputed by scapy, inner packet = input with TTL - 1),
      then every run is compared with the first (the per-packet one):
      datapath frames in order per stream, byte for byte; control
      frames as a multiset; counters equal.

Each tenant packet carries its number in the IPv4 ID or the IPv6 flow
label, which is how an output frame (or a fragment) is traced back to it.
A stream is what tepd keeps in order: packets from one input port in one
(VRF, family); decapsulated ones also of one underlay family. dp_route()
handles a burst one (VRF, family) group at a time, and what it
decapsulated after the rest, again by (VRF, family): frames of different
streams (never of one flow) may interleave differently with another
burst size; within a stream the order is the arrival order.
"""
import collections
import json
import sys

from scapy.all import (ARP, Ether, ICMP, IP, IPv6, ICMPv6EchoRequest,
                       checksum, in4_chksum, in6_chksum,
                       ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6PacketTooBig,
                       ICMPv6TimeExceeded, ICMPv6NDOptSrcLLAddr,
                       IPv6ExtHdrDestOpt, Raw, TCP,
                       UDP, rdpcap, wrpcap, in6_getnsma, in6_getnsmac,
                       inet_pton)
import socket

PORT_MAC = ["02:70:63:61:70:00", "02:70:63:61:70:01", "02:70:63:61:70:02"]
VRF_OF_PORT = {0: "red", 1: "blue"}
U4, U6 = "198.51.100.1", "2001:db8:1::1"
TEN4, TEN6 = "192.0.2.10", "2001:db8:10::10"
GW4, GW6 = "192.0.2.1", "2001:db8:10::1"
# tenant hosts and gateways on the access ports (static neighbours)
HOST_MAC = {0: "02:00:00:00:0a:0a", 1: "02:00:00:00:0b:0a"}
FWD_MAC = {0: "02:00:00:00:0a:14", 1: "02:00:00:00:0b:14"}
TEN_SRC_MAC = {0: "02:00:00:00:0a:0a", 1: "02:00:00:00:0b:0a"}
REMOTE_MAC = {"198.51.100.2": "02:00:00:00:00:02",
              "198.51.100.3": "02:00:00:00:00:03",
              "2001:db8:1::2": "02:00:00:00:00:12",
              "2001:db8:1::3": "02:00:00:00:00:13"}
# name: (id, type, remote, vni, vrf, inner dmac, dport, csum)
TUNNELS = {
    "vxr": (0, "vxlan", "198.51.100.2", 100, "red", "02:00:00:00:01:00",
            4789, "lco"),
    "gnr": (1, "geneve", "2001:db8:1::2", 101, "red", "02:00:00:00:01:01",
            6081, "full"),
    "vxb": (2, "vxlan", "2001:db8:1::3", 200, "blue", "02:00:00:00:02:00",
            4789, "lco"),
    "fob": (3, "fou", "198.51.100.3", None, "blue", None, 5555, "off"),
    "gub": (4, "gue", "2001:db8:1::3", None, "blue", None, 6080, "lco"),
}
MTU = 1500


def overlay_mac(tid):
    return "02:74:65:70:00:%02x" % tid


def tun_config():
    """The tunnel lines of the config (test_burst_equiv.sh pastes them)."""
    out = []
    for name, (tid, typ, rem, vni, vrf, dmac, _, csum) in sorted(
            TUNNELS.items(), key=lambda kv: kv[1][0]):
        loc = U6 if ":" in rem else U4
        s = "tunnel add %s type %s local %s remote %s" % (name, typ, loc, rem)
        if vni is not None:
            s += " vni %d" % vni
        if dmac is not None:
            s += " inner-dmac %s" % dmac
        if typ in ("fou", "gue"):
            s += " inner %s" % ("ipv6" if name == "gub" else "ipv4")
        out.append(s + " vrf %s csum %s" % (vrf, csum))
    return "\n".join(out)


class Gen:
    def __init__(self):
        self.pkts = {0: [], 1: [], 2: []}
        self.exp = []
        self.seq = 0

    def add(self, port, frame, **e):
        """Queue frame on input port; e describes the outcome."""
        self.pkts[port].append(frame)
        e["port"] = port
        self.exp.append(e)

    def nseq(self):
        self.seq += 1
        return self.seq

    def tenant(self, fam, src, dst, seq, size=100, ttl=64, df=False,
               l4="udp", mf=False, ext=False):
        """A tenant IP packet of size bytes carrying seq; mf: a first
        fragment (IPv4), ext: a destination options header (IPv6)."""
        if fam == 4:
            ip = IP(src=src, dst=dst, ttl=ttl, id=seq,
                    flags="DF" if df else "MF" if mf else 0)
            hdr = 20
        else:
            ip = IPv6(src=src, dst=dst, hlim=ttl, fl=seq)
            hdr = 40
            if ext:
                ip = ip / IPv6ExtHdrDestOpt()
                hdr += 8
        if l4 == "tcp":
            l4p = TCP(sport=1000 + seq, dport=80, flags="PA", seq=seq)
            hl = 20
        elif l4 == "icmp":
            l4p = (ICMP(id=seq, seq=1) if fam == 4 else
                   ICMPv6EchoRequest(id=seq, seq=1))
            hl = 8
        else:
            l4p = UDP(sport=1000 + seq, dport=4000)
            hl = 8
        body = (b"seq=%05d;" % seq) * 200
        return ip / l4p / Raw(body[:max(0, size - hdr - hl)])

    def from_ten(self, port, ipkt, dmac=None):
        return Ether(dst=dmac or PORT_MAC[port], src=TEN_SRC_MAC[port]) / ipkt

    # -- outcomes ---------------------------------------------------------
    def to_tunnel(self, port, tun, fam, dst, frag=False, **kw):
        seq = self.nseq()
        p = self.tenant(fam, TEN4 if fam == 4 else TEN6, dst, seq, **kw)
        self.add(port, self.from_ten(port, p), seq=seq, kind="encap",
                 tunnel=tun, frag=frag, inner=bytes(p),
                 stream=[port, VRF_OF_PORT[port], fam, 0])

    def too_big(self, port, tun, fam, dst, size):
        """A packet with DF (IPv6: any) too big for tunnel tun: an ICMP
        error from the control thread, counted as drop too_big."""
        seq = self.nseq()
        p = self.tenant(fam, TEN4 if fam == 4 else TEN6, dst, seq,
                        size=size, df=True)
        self.add(port, self.from_ten(port, p), seq=seq, kind="punt",
                 tunnel=tun, reason="too_big",
                 ctl="icmp4-ptb" if fam == 4 else "icmp6-ptb")

    def forward(self, port, fam, dst, frag=False, **kw):
        seq = self.nseq()
        p = self.tenant(fam, TEN4 if fam == 4 else TEN6, dst, seq, **kw)
        self.add(port, self.from_ten(port, p), seq=seq, kind="fwd",
                 out=port, dmac=FWD_MAC[port], inner=bytes(p), frag=frag,
                 stream=[port, VRF_OF_PORT[port], fam, 0])

    def drop(self, port, frame, reason, ctl=None):
        self.add(port, frame, seq=None, kind="drop", reason=reason, ctl=ctl)

    def punt(self, port, frame, ctl, reason=None):
        self.add(port, frame, seq=None, kind="punt", ctl=ctl, reason=reason)

    def from_tunnel(self, tun, ipkt, outer_csum_bad=False, vni=None,
                    inner_dmac=None):
        """ipkt (IP, or an Ethernet frame for Ethernet tunnels) as tunnel
        tun's remote sends it to us on the underlay."""
        tid, typ, rem, tvni, _, _, dport, _ = TUNNELS[tun]
        v6 = ":" in rem
        if typ in ("vxlan", "geneve"):
            if not isinstance(ipkt, Ether):
                ipkt = Ether(dst=inner_dmac or overlay_mac(tid),
                             src="02:00:00:00:99:%02x" % tid) / ipkt
            vni = tvni if vni is None else vni
            if typ == "vxlan":
                th = bytes([0x08, 0, 0, 0]) + (vni << 8).to_bytes(4, "big")
            else:
                th = bytes([0, 0, 0x65, 0x58]) + (vni << 8).to_bytes(4, "big")
            pay = th + bytes(ipkt)
        elif typ == "gue":
            pay = bytes([0, 41 if isinstance(ipkt, IPv6) else 4, 0, 0]) + \
                bytes(ipkt)
        else:
            pay = bytes(ipkt)
        outer = (IPv6(src=rem, dst=U6, hlim=64) if v6 else
                 IP(src=rem, dst=U4, ttl=64, flags="DF"))
        u = UDP(sport=50000 + tid, dport=dport)
        if typ == "vxlan" and not v6:
            u.chksum = 0
        f = Ether(dst=PORT_MAC[2], src=REMOTE_MAC[rem]) / outer / u / Raw(pay)
        f = Ether(bytes(f))
        if outer_csum_bad:
            b = bytearray(bytes(f))
            off = 14 + (40 if v6 else 20) + 6
            b[off] ^= 0x55
            f = Ether(bytes(b))
        return f

    def decap(self, tun, fam, dst, out=None, next_tun=None, **kw):
        seq = self.nseq()
        vrf = TUNNELS[tun][4]
        src = "198.18.0.2" if fam == 4 else "2001:db8:18::2"
        p = self.tenant(fam, src, dst, seq, **kw)
        # decapsulated: grouped by the outer family first (the
        # underlay's VRF and family), then by the inner ones
        ufam = 6 if ":" in TUNNELS[tun][2] else 4
        e = dict(seq=seq, inner=bytes(p), stream=[2, vrf, fam, ufam])
        if next_tun is not None:
            e.update(kind="encap", tunnel=next_tun, frag=False)
        else:
            e.update(kind="fwd", out=out, dmac=HOST_MAC[out])
        self.add(2, self.from_tunnel(tun, p), **e)


def gen(d):
    g = Gen()
    t4, t6 = TEN4, TEN6
    # ---- port 0: access, vrf red --------------------------------------
    # a run into vxr with several sizes, a too-big packet with DF (ICMP),
    # a TTL expiry and a too-big one without DF (fragmented) inside it
    for size in (60, 300, 1000, 90, 1400):
        g.to_tunnel(0, "vxr", 4, "198.18.0.5", size=size)
    g.too_big(0, "vxr", 4, "198.18.0.6", 1470)
    g.to_tunnel(0, "vxr", 4, "198.18.0.6", size=120, l4="tcp")
    g.punt(0, g.from_ten(0, g.tenant(4, t4, "198.18.0.7", 0, ttl=1)),
           ctl="icmp4-ttl", reason="ttl_exceeded")
    g.to_tunnel(0, "vxr", 4, "198.18.0.7", size=200)
    g.to_tunnel(0, "vxr", 4, "198.18.0.8", size=1480, frag=True)
    g.to_tunnel(0, "vxr", 4, "198.18.0.8", size=64)
    # alternating tunnels: runs of one
    for i in range(3):
        g.to_tunnel(0, "gnr", 4, "198.18.1.%d" % (i + 1), size=150 + i)
        g.to_tunnel(0, "vxr", 4, "198.18.0.%d" % (i + 1), size=170 + i)
    g.to_tunnel(0, "gnr", 4, "198.18.1.9", size=80, l4="icmp")
    # IPv6 in the same burst: its own group
    g.to_tunnel(0, "vxr", 6, "2001:db8:18::5", size=500)
    g.too_big(0, "vxr", 6, "2001:db8:18::5", 1490)
    g.to_tunnel(0, "vxr", 6, "2001:db8:18::6", size=100, l4="tcp")
    g.to_tunnel(0, "gnr", 6, "2001:db8:19::1", size=700)
    g.to_tunnel(0, "gnr", 6, "2001:db8:19::1", size=1200)
    g.punt(0, g.from_ten(0, g.tenant(6, t6, "2001:db8:19::2", 0, ttl=1)),
           ctl="icmp6-ttl", reason="ttl_exceeded")
    g.to_tunnel(0, "gnr", 6, "2001:db8:19::3", size=64)
    # the classifier's description (parse once) does not serve these:
    # a tenant's own first fragment (its UDP checksum is the whole
    # datagram's, so no LCO) and IPv6 with an extension header (the full
    # inner parse), each between packets it does serve
    g.to_tunnel(0, "vxr", 4, "198.18.0.9", size=300, mf=True)
    g.to_tunnel(0, "vxr", 4, "198.18.0.9", size=310)
    g.to_tunnel(0, "vxr", 6, "2001:db8:18::7", size=320, ext=True)
    g.to_tunnel(0, "vxr", 6, "2001:db8:18::7", size=330)
    # local forwarding
    g.forward(0, 4, "203.0.113.5", size=400)
    g.forward(0, 6, "2001:db8:30::5", size=400)
    g.forward(0, 4, "203.0.113.6", size=1500, df=True)   # fits: no tunnel
    # named drops
    g.drop(0, g.from_ten(0, g.tenant(4, t4, "198.19.5.5", 0)), "no_route")
    g.drop(0, g.from_ten(0, g.tenant(6, t6, "2001:db8:99::5", 0)),
           "no_route")
    g.drop(0, g.from_ten(0, g.tenant(4, t4, "198.18.9.1", 0)), "blackhole")
    bad = bytearray(bytes(g.from_ten(0, g.tenant(4, t4, "198.18.0.5", 0))))
    bad[14 + 10] ^= 0xff
    g.drop(0, Ether(bytes(bad)), "bad_ip_csum")
    g.drop(0, g.from_ten(0, g.tenant(4, t4, "224.0.0.5", 0)), "multicast")
    g.drop(0, g.from_ten(0, g.tenant(4, "169.254.1.1", "198.18.0.5", 0)),
           "link_local")
    g.drop(0, g.from_ten(0, g.tenant(4, t4, "198.18.0.5", 0),
                         dmac="02:00:00:00:77:77"), "not_for_us")
    trunc = bytes(g.from_ten(0, g.tenant(4, t4, "198.18.0.5", 0, size=200)))
    g.drop(0, Ether(trunc[:120]), "truncated")
    g.drop(0, Ether(dst=PORT_MAC[0], src=TEN_SRC_MAC[0], type=0x88b5) /
           Raw(b"\0" * 46), "not_routable")
    # more after the drops: the run logic again past a burst boundary
    for i in range(4):
        g.to_tunnel(0, "vxr", 4, "198.18.0.20", size=100 + 300 * i)
    # punts: ARP and ND for the gateway, echo requests to it
    g.punt(0, Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:0a:32") /
           ARP(op=1, hwsrc="02:00:00:00:0a:32", psrc="192.0.2.50",
               pdst=GW4), ctl="arp-reply")
    ns_dst = socket.inet_ntop(socket.AF_INET6,
                              in6_getnsma(inet_pton(socket.AF_INET6, GW6)))
    g.punt(0, Ether(dst=in6_getnsmac(inet_pton(socket.AF_INET6, GW6)),
                    src="02:00:00:00:0a:33") /
           IPv6(src="2001:db8:10::51", dst=ns_dst, hlim=255) /
           ICMPv6ND_NS(tgt=GW6) / ICMPv6NDOptSrcLLAddr(
               lladdr="02:00:00:00:0a:33"), ctl="na")
    g.punt(0, g.from_ten(0, g.tenant(4, t4, GW4, 0, size=84, l4="icmp")),
           ctl="echo4")
    g.to_tunnel(0, "gnr", 4, "198.18.1.30", size=333)

    # ---- port 1: access, vrf blue (same addresses as red) -------------
    for size in (64, 800, 1200):
        g.to_tunnel(1, "fob", 4, "198.18.0.5", size=size)
    g.to_tunnel(1, "fob", 4, "198.18.0.5", size=1490, frag=True)
    g.to_tunnel(1, "fob", 4, "198.18.0.5", size=70, l4="tcp")
    g.to_tunnel(1, "vxb", 4, "198.18.1.5", size=400)
    g.too_big(1, "vxb", 4, "198.18.1.5", 1450)
    g.to_tunnel(1, "vxb", 4, "198.18.1.6", size=90)
    g.to_tunnel(1, "gub", 6, "2001:db8:18::7", size=200)
    g.to_tunnel(1, "gub", 6, "2001:db8:18::7", size=1000, l4="tcp")
    g.to_tunnel(1, "vxb", 6, "2001:db8:19::8", size=300)
    g.to_tunnel(1, "gub", 6, "2001:db8:18::9", size=120)
    g.forward(1, 4, "203.0.113.5", size=100)
    # a run to one gateway with one too big for the port (no DF; RX takes
    # it, the way out does not): its fragments between the packets
    # around it
    g.forward(1, 4, "203.0.113.5", size=1600, frag=True)
    g.forward(1, 4, "203.0.113.5", size=120)
    g.forward(1, 6, "2001:db8:30::5", size=100)
    g.drop(1, g.from_ten(1, g.tenant(4, t4, "198.19.0.1", 0)), "no_route")
    g.drop(1, g.from_ten(1, g.tenant(6, t6, "ff02::16", 0)), "multicast")
    g.drop(1, g.from_ten(1, g.tenant(6, "fe80::1", "2001:db8:18::1", 0)),
           "link_local")
    bv = bytearray(bytes(g.from_ten(1, g.tenant(4, t4, "198.18.0.5", 0))))
    bv[14] = 0x55
    g.drop(1, Ether(bytes(bv)), "bad_version")
    g.punt(1, g.from_ten(1, g.tenant(4, t4, "198.18.1.7", 0, ttl=1)),
           ctl="icmp4-ttl", reason="ttl_exceeded")
    g.punt(1, g.from_ten(1, g.tenant(6, t6, GW6, 0, size=64, l4="icmp")),
           ctl="echo6")
    g.too_big(1, "gub", 6, "2001:db8:18::7", 1480)
    for i in range(3):
        g.to_tunnel(1, "vxb", 4, "198.18.1.%d" % (10 + i), size=64 + 10 * i)

    # ---- port 2: underlay ---------------------------------------------
    for size in (100, 1000, 60, 1400):
        g.decap("vxr", 4, t4, out=0, size=size)
    g.decap("gnr", 6, t6, out=0, size=500)
    g.decap("gnr", 4, t4, out=0, size=90, l4="tcp")
    g.decap("vxb", 4, t4, out=1, size=300)
    g.decap("vxb", 6, t6, out=1, size=300)
    g.decap("fob", 4, t4, out=1, size=700)
    g.decap("gub", 6, t6, out=1, size=200)
    g.decap("gub", 6, t6, out=1, size=210)
    # out of one tunnel into another (same VRF)
    g.decap("vxr", 4, "198.18.1.40", next_tun="gnr", size=150)
    # underlay-level drops between the tunnel packets
    g.drop(2, g.from_tunnel("gnr", g.tenant(4, "198.18.0.2", t4, 0),
                            outer_csum_bad=True), "bad_outer_csum")
    g.drop(2, g.from_tunnel("vxr", g.tenant(4, "198.18.0.2", t4, 0),
                            vni=999), "no_tunnel")
    g.drop(2, g.from_tunnel("vxr", g.tenant(4, "198.18.0.2", t4, 0),
                            inner_dmac="02:00:00:00:55:55"), "not_for_us")
    g.drop(2, Ether(dst=PORT_MAC[2], src=REMOTE_MAC["198.51.100.2"]) /
           IP(src="198.51.100.2", dst="198.18.200.1") / UDP() / Raw(b"x" * 20),
           "no_route")
    g.decap("vxr", 4, t4, out=0, size=222)
    g.decap("vxr", 4, t4, out=0, size=333)
    # proxy ARP and ND for the gateway through the tunnel (worker-made
    # answers), a TTL expiring behind a tunnel (ICMP back into it)
    g.punt(2, g.from_tunnel("vxr", Ether(dst="ff:ff:ff:ff:ff:ff",
                                         src="02:00:00:00:99:00") /
                            ARP(op=1, hwsrc="02:00:00:00:99:00",
                                psrc="198.18.0.2", pdst="198.18.0.1")),
           ctl="proxy-arp")
    g.punt(2, g.from_tunnel("vxr", g.tenant(4, "198.18.0.2", t4, 0, ttl=1)),
           ctl="icmp4-ttl-tun", reason="ttl_exceeded")
    g.decap("vxr", 6, t6, out=0, size=400)
    g.decap("vxr", 6, t6, out=0, size=1300)

    for p in range(3):
        wrpcap("%s/in%d.pcap" % (d, p), g.pkts[p])
    with open(d + "/expect.json", "w") as f:
        json.dump([{k: (v.hex() if isinstance(v, bytes) else v)
                    for k, v in e.items()} for e in g.exp], f)
    print("in0 %d in1 %d in2 %d packets, %d tenant ones traced" %
          (len(g.pkts[0]), len(g.pkts[1]), len(g.pkts[2]),
           sum(1 for e in g.exp if e["seq"] is not None)))


# ---- checking ------------------------------------------------------------

class Fail(Exception):
    pass


def want(cond, what):
    if not cond:
        raise Fail(what)


def l4_csum_ok(raw):
    """raw: an IP packet. Its IPv4 header checksum and its TCP, UDP, ICMP
    or ICMPv6 checksum are what scapy's checksum functions compute (only
    the header for a fragment past the first)."""
    v4 = raw[0] >> 4 == 4
    if v4:
        ip = IP(raw)
        ihl = ip.ihl * 4
        if checksum(raw[:10] + b"\0\0" + raw[12:ihl]) != ip.chksum:
            return False
        if ip.flags.MF or ip.frag:
            return True
        proto, l4 = ip.proto, raw[ihl:ip.len]
    else:
        ip = IPv6(raw)
        proto, l4 = ip.nh, raw[40:40 + ip.plen]
    off = {6: 16, 17: 6, 1: 2, 58: 2}.get(proto)
    if off is None:
        return True
    got = int.from_bytes(l4[off:off + 2], "big")
    if proto == 17 and v4 and got == 0:
        return True     # no UDP checksum (IPv4 only)
    z = l4[:off] + b"\0\0" + l4[off + 2:]
    if proto == 1:
        exp = checksum(z)
    elif v4:
        exp = in4_chksum(proto, ip, z)
    else:
        exp = in6_chksum(proto, ip, z)
    if proto == 17 and exp == 0:
        exp = 0xffff
    return got == exp


def ttl_minus_one(raw):
    p = IP(raw) if raw[0] >> 4 == 4 else IPv6(raw)
    if isinstance(p, IP):
        p.ttl -= 1
        del p.chksum
    else:
        p.hlim -= 1
    return bytes(p.__class__(bytes(p)))


def seq_of(ip):
    return ip.id if isinstance(ip, IP) else ip.fl


def parse_inner_ip(raw):
    return IP(raw) if raw[0] >> 4 == 4 else IPv6(raw)


def untunnel(f, tunnels):
    """(tunnel name, inner packet bytes, inner Ethernet header or None) of
    a frame tepd encapsulated, its outer headers checked; None if f is
    not UDP from our underlay address."""
    frame = bytes(f)
    o = f.payload
    if not isinstance(o, (IP, IPv6)) or o.src not in (U4, U6):
        return None
    v6 = isinstance(o, IPv6)
    if (o.nh if v6 else o.proto) != 17:
        return None
    ol4 = 14 + (40 if v6 else o.ihl * 4)
    want(len(frame) - 14 == (40 + o.plen if v6 else o.len),
         "outer IP length")
    u = UDP(frame[ol4:ol4 + 8])
    byport = [n for n, t in TUNNELS.items()
              if t[6] == u.dport and (":" in t[2]) == v6]
    want(byport, "UDP port %d from us, no tunnel" % u.dport)
    want(u.len == len(frame) - ol4, "outer UDP length")
    raw = frame[ol4 + 8:]
    typ = TUNNELS[byport[0]][1]
    vni = None
    if typ == "vxlan":
        want(raw[0] == 0x08 and raw[1:4] == b"\0\0\0" and raw[7] == 0,
             "VXLAN header %s" % raw[:8].hex())
        vni = int.from_bytes(raw[4:7], "big")
        inner, ieth = raw[22:], Ether(raw[8:22])
    elif typ == "geneve":
        want(raw[0] == 0 and raw[1] == 0 and raw[2:4] == b"\x65\x58" and
             raw[7] == 0, "GENEVE header %s" % raw[:8].hex())
        vni = int.from_bytes(raw[4:7], "big")
        inner, ieth = raw[22:], Ether(raw[8:22])
    elif typ == "gue":
        want(raw[0] == 0 and raw[2:4] == b"\0\0" and
             raw[1] == (41 if raw[4] >> 4 == 6 else 4),
             "GUE header %s" % raw[:4].hex())
        inner, ieth = raw[4:], None
    else:
        inner, ieth = raw, None
    name = [n for n in byport if TUNNELS[n][2] == o.dst and
            TUNNELS[n][3] == vni]
    want(len(name) == 1, "no tunnel to %s vni %s" % (o.dst, vni))
    name = name[0]
    rem, csum = TUNNELS[name][2], TUNNELS[name][7]
    want(f.dst == REMOTE_MAC[rem] and f.src == PORT_MAC[2],
         "outer MACs %s > %s" % (f.src, f.dst))
    if v6:
        want(o.hlim == 64, "outer hop limit %d" % o.hlim)
    else:
        want(o.ttl == 64 and o.flags.DF, "outer IPv4 TTL or DF")
    lo, hi = tunnels[name]["srcport_lo"], tunnels[name]["srcport_hi"]
    want(lo <= u.sport <= hi, "source port %d" % u.sport)
    if csum == "off":
        want(u.chksum == 0, "outer UDP checksum %#x, csum off" % u.chksum)
    else:
        want(u.chksum != 0, "outer UDP checksum 0 (csum %s)" % csum)
    want(l4_csum_ok(frame[14:]), "outer checksum wrong (%s)" % name)
    return name, inner, ieth


def normalize(raw):
    """A frame as compared between runs: tepd's outer IPv4 ID is a
    per-worker counter started at a random value, and ARP/ND/ICMP from the
    control thread take IDs from it in between, so ID and header checksum
    of an outer header from our underlay address are zeroed (the checks
    above verified the checksum)."""
    b = bytearray(raw)
    if len(b) >= 34 and b[12:14] == b"\x08\x00" and \
            bytes(b[26:30]) == socket.inet_aton(U4):
        b[18:20] = b"\0\0"
        b[24:26] = b"\0\0"
    return bytes(b)


def check_run(d, run, exp, tunnels):
    """Check every frame of one run; returns (streams, ctl multiset)."""
    byseq = {e["seq"]: e for e in exp if e["seq"] is not None}
    streams = collections.defaultdict(list)
    ctl = collections.Counter()
    got_frags = collections.defaultdict(list)
    seen = collections.Counter()
    errors = []
    for port in range(3):
        for n, f in enumerate(rdpcap("%s/out%d.pcap" % (run, port))):
            raw = bytes(f)
            where = "%s out%d #%d" % (run, port, n)
            try:
                kind = check_frame(f, port, byseq, tunnels, got_frags)
            except Exception as x:  # noqa: B902 (a frame nothing expects)
                errors.append("%s: %s (%s)" % (where, x if isinstance(
                    x, Fail) else repr(x), raw[:64].hex()))
                continue
            if kind[0] == "ctl":
                ctl[(port, kind[1], normalize(raw))] += 1
            else:
                seq = kind[1]
                e = byseq[seq]
                seen[seq] += 1
                streams[(port,) + tuple(e["stream"])].append(
                    (seq, normalize(raw)))
    # fragments: reassembled and compared with the input
    for seq, frs in got_frags.items():
        e = byseq[seq]
        ref = IP(ttl_minus_one(bytes.fromhex(e["inner"])))
        data = bytearray()
        for fr in sorted(frs, key=lambda x: x.frag):
            want_off = len(data)
            if fr.frag * 8 != want_off:
                errors.append("%s: seq %d fragment at %d, want %d" %
                              (run, seq, fr.frag * 8, want_off))
            data += bytes(fr.payload)
        if len(frs) < 2 or sorted(frs, key=lambda x: x.frag)[-1].flags.MF \
                or bytes(data) != bytes(ref.payload):
            errors.append("%s: seq %d: %d fragments do not make the packet"
                          % (run, seq, len(frs)))
        for fr in frs:
            if fr.ttl != ref.ttl or fr.src != ref.src or fr.dst != ref.dst:
                errors.append("%s: seq %d: fragment header" % (run, seq))
    for e in exp:
        s = e["seq"]
        if s is None or e["kind"] == "punt":
            continue
        n = seen[s]
        if e.get("frag"):
            ok = n >= 2
        else:
            ok = n == 1
        if not ok:
            errors.append("%s: seq %d (%s, input port %d) came out %d times"
                          % (run, s, e["kind"], e["port"], n))
    # control answers: one of each expected, on the right port
    want_ctl = collections.Counter()
    for e in exp:
        if e.get("ctl"):
            want_ctl[(e["port"] if e["ctl"] not in ("proxy-arp",
                                                    "icmp4-ttl-tun")
                      else 2, e["ctl"])] += 1
    got_ctl = collections.Counter((p, k) for (p, k, _), c in ctl.items()
                                  for _ in range(c))
    if got_ctl != want_ctl:
        errors.append("%s: control frames %s, want %s" %
                      (run, sorted(got_ctl.items()),
                       sorted(want_ctl.items())))
    return streams, ctl, errors


def check_frame(f, port, byseq, tunnels, frags):
    """What frame f out of port is: ("dp", seq) or ("ctl", kind); checks
    it against its input. Fragments are kept in frags for later."""
    if isinstance(f.payload, ARP):
        a = f[ARP]
        want(port in (0, 1) and a.op == 2 and a.psrc == GW4 and
             a.hwsrc == PORT_MAC[port] and a.pdst == "192.0.2.50",
             "ARP reply %r" % a)
        return ("ctl", "arp-reply")
    t = untunnel(f, tunnels) if port == 2 else None
    if t is not None:
        name, inner, ieth = t
        tid = TUNNELS[name][0]
        if ieth is not None and ieth.type == 0x0806:
            a = ARP(inner)
            want(name == "vxr" and a.op == 2 and a.psrc == "198.18.0.1" and
                 a.pdst == "198.18.0.2" and a.hwsrc == overlay_mac(tid) and
                 ieth.src == overlay_mac(tid) and
                 ieth.dst == "02:00:00:00:99:00", "proxy ARP answer %r" % a)
            return ("ctl", "proxy-arp")
        ip = parse_inner_ip(inner)
        if isinstance(ip, IP) and ip.src == GW4 and ICMP in ip:
            want(name == "vxr" and ip[ICMP].type == 11 and
                 ip.dst == "198.18.0.2" and l4_csum_ok(bytes(ip)),
                 "ICMP error into a tunnel %r" % ip)
            return ("ctl", "icmp4-ttl-tun")
        if ieth is not None:
            want(ieth.dst == TUNNELS[name][5] and
                 ieth.src == overlay_mac(tid) and
                 ieth.type == (0x0800 if isinstance(ip, IP) else 0x86dd),
                 "inner Ethernet %s > %s" % (ieth.src, ieth.dst))
        seq = seq_of(ip)
        e = byseq.get(seq)
        want(e is not None and e["kind"] == "encap",
             "tunnel %s carries seq %d, not an encap" % (name, seq))
        want(e["tunnel"] == name, "seq %d in %s, want %s" %
             (seq, name, e["tunnel"]))
        if e.get("frag"):
            want(isinstance(ip, IP) and l4_csum_ok(bytes(ip)) and
                 (ip.flags.MF or ip.frag) and not ip.flags.DF,
                 "seq %d: not a fragment" % seq)
            want(len(inner) <= MTU - tunnels[name]["overhead"],
                 "seq %d: fragment of %d bytes" % (seq, len(inner)))
            frags[seq].append(ip)
            return ("dp", seq)
        want(inner == ttl_minus_one(bytes.fromhex(e["inner"])),
             "seq %d: inner packet differs from the input (TTL - 1)" % seq)
        want(l4_csum_ok(bytes(ip)), "seq %d: inner checksum" % seq)
        return ("dp", seq)
    # plain frames on an access port
    want(port in (0, 1), "frame on the underlay that is no tunnel's: %r" % f)
    want(f.src == PORT_MAC[port], "source MAC %s" % f.src)
    ip = f.payload
    if isinstance(ip, IPv6) and ICMPv6ND_NA in ip:
        na = ip[ICMPv6ND_NA]
        want(na.tgt == GW6 and ip.dst == "2001:db8:10::51" and
             l4_csum_ok(bytes(ip)) and f.dst == "02:00:00:00:0a:33",
             "NA %r" % ip)
        return ("ctl", "na")
    want(isinstance(ip, (IP, IPv6)), "not IP: %r" % f)
    src = ip.src
    if src in (GW4, GW6):
        want(l4_csum_ok(bytes(ip)) and f.dst == TEN_SRC_MAC[port],
             "answer %r" % ip)
        if isinstance(ip, IP):
            ic = ip[ICMP]
            if ic.type == 0:
                return ("ctl", "echo4")
            want(ic.type in (3, 11), "ICMP type %d" % ic.type)
            if ic.type == 3:
                want(ic.code == 4, "ICMP unreachable code %d" % ic.code)
                q = IP(bytes(ic.payload))
                tun = byseq[q.id]["tunnel"]
                want(ic.nexthopmtu == MTU - tunnels[tun]["overhead"],
                     "frag needed MTU %d" % ic.nexthopmtu)
                return ("ctl", "icmp4-ptb")
            return ("ctl", "icmp4-ttl")
        pl = ip.payload
        if isinstance(pl, ICMPv6PacketTooBig):
            tun = byseq[IPv6(bytes(pl.payload)).fl]["tunnel"]
            want(pl.mtu == MTU - tunnels[tun]["overhead"], "PTB MTU %d" %
                 pl.mtu)
            return ("ctl", "icmp6-ptb")
        if isinstance(pl, ICMPv6TimeExceeded):
            return ("ctl", "icmp6-ttl")
        want(pl.type == 129, "ICMPv6 type %d" % pl.type)
        return ("ctl", "echo6")
    seq = seq_of(ip)
    e = byseq.get(seq)
    want(e is not None and e["kind"] == "fwd" and e["out"] == port,
         "seq %d out of port %d" % (seq, port))
    want(f.dst == e["dmac"], "seq %d: destination MAC %s, want %s" %
         (seq, f.dst, e["dmac"]))
    if e.get("frag"):
        want(isinstance(ip, IP) and l4_csum_ok(bytes(ip)) and
             (ip.flags.MF or ip.frag) and not ip.flags.DF and
             ip.len <= MTU, "seq %d: not a fragment" % seq)
        frags[seq].append(ip)
        return ("dp", seq)
    want(bytes(ip) == ttl_minus_one(bytes.fromhex(e["inner"])),
         "seq %d: packet differs from the input (TTL - 1)" % seq)
    want(l4_csum_ok(bytes(ip)), "seq %d: checksum" % seq)
    return ("dp", seq)


def drops_of(stats):
    """Drop reasons summed over ports and the control thread."""
    c = collections.Counter()
    for p in stats["ports"]:
        for k, v in p["drops"].items():
            c[k] += v
    for k, v in stats.get("control", {}).get("drops", {}).items():
        c[k] += v
    return c


def check(d, runs):
    exp = json.load(open(d + "/expect.json"))
    errors = []
    results = []
    for run in runs:
        tunnels = {t["name"]: t for t in
                   json.load(open(run + "/tunnels.json"))["tunnels"]}
        streams, ctl, errs = check_run(d, run, exp, tunnels)
        errors += errs
        stats = json.load(open(run + "/stats.json"))
        stats.pop("mempool", None)
        results.append((run, streams, ctl, stats))
        want_drops = collections.Counter("drop_" + e["reason"] for e in exp
                                         if e.get("reason"))
        got = drops_of(stats)
        if got != want_drops:
            errors.append("%s: drops %s, want %s" %
                          (run, dict(got), dict(want_drops)))
        print("%s: %d datapath frames in %d streams, %d control frames, "
              "drops %s" % (run, sum(len(s) for s in streams.values()),
                            len(streams), sum(ctl.values()),
                            " ".join("%s=%d" % kv for kv in
                                     sorted(got.items()))))
    ref_run, ref_streams, ref_ctl, ref_stats = results[0]
    for run, streams, ctl, stats in results[1:]:
        for k in sorted(set(ref_streams) | set(streams)):
            a, b = ref_streams.get(k, []), streams.get(k, [])
            if a == b:
                continue
            sa, sb = [s for s, _ in a], [s for s, _ in b]
            if sa != sb:
                errors.append("%s vs %s: stream %s order %s vs %s" %
                              (run, ref_run, k, sb, sa))
                continue
            for (s, x), (_, y) in zip(a, b):
                if x != y:
                    errors.append("%s vs %s: seq %d differs:\n  %s\n  %s" %
                                  (run, ref_run, s, y.hex(), x.hex()))
        if ctl != ref_ctl:
            errors.append("%s vs %s: control frames differ" % (run, ref_run))
        if stats != ref_stats:
            errors.append("%s vs %s: counters differ:\n  %s\n  %s" %
                          (run, ref_run, json.dumps(stats),
                           json.dumps(ref_stats)))
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("every frame as expected; %d runs identical per stream, "
              "control frames and counters" % len(runs))
    return 1 if errors else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "tunnels":
        print(tun_config())
    else:
        sys.exit(check(sys.argv[2], sys.argv[3:]))
