#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Capture an underlay link and check every packet on it, independently of
tepd: scapy dissects the headers, checksums are recomputed here with a
plain RFC 1071 sum over the bytes as captured.

  check_underlay.py capture IFACE OUTFILE [--ready FILE] [--in-only]
      Record every frame on IFACE into a pcap until SIGINT/SIGTERM; then
      print how many were captured and how many the kernel dropped; exit 2
      if it dropped any. FILE is created once the socket is bound.
      --in-only: only frames IFACE received. (A DPDK af_packet port sends
      with PACKET_QDISC_BYPASS by default, which skips the kernel's packet
      taps: what it sends is not seen on its own interface, only on the
      peer's. So the underlay is captured as received on both ends.)

  check_underlay.py merge OUT IN...
      Merge pcaps into one, in timestamp order.

  check_underlay.py check PCAP TYPE [options]
      TYPE: vxlan, geneve, fou, gue or gre. Decode every frame and verify:
        outer IPv4 header checksum; outer UDP checksum (present and
        right) or the GRE checksum; the tunnel header fields (version,
        flags, protocol, VNI/key, reserved bits); the inner IPv4 header
        checksum and the inner TCP/UDP/ICMP(v6) checksums. GUE remote
        checksum offload is resolved as a receiver would (the seed in the
        inner field must be the inner pseudo-header sum).
      ARP and neighbour discovery are counted and ignored; anything else
      is a bad packet. Exit 1 if any packet is bad, or if fewer than --min
      tunnel packets (or fewer than --min-dir in either direction) were
      seen.
      --vni N        expected VXLAN/GENEVE VNI / GRE key (GRE: key required)
      --gre-csum on|off   whether GRE packets must carry a checksum
      --rco off|on|required   GUE remote checksum offload: refused (off),
                     allowed (on), or needed on at least one packet
      --min N, --min-dir N
      --dport N      the tunnel's UDP port (default: the type's)
      --jumbo N      want N inner TCP segments of 8900-8960 payload bytes
                     (a 9000-byte MTU's) in each direction
      --sport-range LO-HI   allowed outer UDP source ports (default
                     49152-65535, tepd's; a kernel peer uses its own)

  check_underlay.py corrupt IN OUT payload|header
      Copy IN to OUT with one byte flipped in the largest tunnel packet:
      the last byte of the frame (payload), or a tunnel identity byte
      (header: GENEVE VNI, GRE key, GUE protocol, FOU inner IPv4 TTL).
      Used to show the checker catches a corruption.
"""
import argparse
import array
import collections
import os
import signal
import socket
import struct
import sys
import time

from scapy.config import conf
from scapy.fields import (BitField, ByteEnumField, ConditionalField,
                          ShortField, XIntField, XShortField, StrLenField)
from scapy.layers.inet import IP, UDP, TCP, ICMP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether, GRE
from scapy.packet import Packet
from scapy.utils import RawPcapReader, RawPcapWriter
from scapy.contrib.geneve import GENEVE

conf.verb = 0

DEFAULT_PORT = {"vxlan": 4789, "geneve": 6081, "fou": 5555, "gue": 6080}
ETH_P_TEB, ETH_P_IP, ETH_P_IPV6, ETH_P_ARP = 0x6558, 0x0800, 0x86DD, 0x0806

GUE_F_PRIV = 0x0001
GUE_PF_REMCSUM = 0x80000000


class GUE(Packet):
    """GUE variant 0 (draft-ietf-intarea-gue), with the Linux private
    flags field and its remote checksum offload field
    (draft-herbert-remotecsumoffload): start, offset, both relative to
    the inner packet. Bytes beyond the flag fields within hlen are
    private data."""
    name = "GUE"
    fields_desc = [
        BitField("ver", 0, 2),
        BitField("C", 0, 1),
        BitField("hlen", 0, 5),
        ByteEnumField("proto", 4, {4: "IPv4", 41: "IPv6"}),
        XShortField("flags", 0),
        ConditionalField(XIntField("privflags", 0),
                         lambda p: p.flags & GUE_F_PRIV),
        ConditionalField(ShortField("rco_start", 0),
                         lambda p: p.flags & GUE_F_PRIV and
                         p.privflags & GUE_PF_REMCSUM),
        ConditionalField(ShortField("rco_offset", 0),
                         lambda p: p.flags & GUE_F_PRIV and
                         p.privflags & GUE_PF_REMCSUM),
        StrLenField("private", b"", length_from=lambda p: max(
            0, p.hlen * 4 - (4 if p.flags & GUE_F_PRIV else 0) -
            (4 if p.flags & GUE_F_PRIV and p.privflags & GUE_PF_REMCSUM
             else 0))),
    ]

    def flag_fields_len(self):
        n = 0
        if self.flags & GUE_F_PRIV:
            n += 4
            if self.privflags & GUE_PF_REMCSUM:
                n += 4
        return n


# ---- RFC 1071 ---------------------------------------------------------------

def ones_sum(data, s=0):
    """Ones-complement sum of data (16-bit big-endian words), folded."""
    if len(data) % 2:
        data = bytes(data) + b"\0"
    a = array.array("H", bytes(data))
    if sys.byteorder == "little":
        a.byteswap()
    s += sum(a)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def phdr4(src, dst, proto, length):
    return src + dst + struct.pack("!BBH", 0, proto, length)


def phdr6(src, dst, proto, length):
    return src + dst + struct.pack("!I3xB", length, proto)


# ---- capture ----------------------------------------------------------------

SOL_PACKET = 263
PACKET_STATISTICS = 6
PACKET_OUTGOING = 4
ETH_P_ALL = 0x0003


def capture(iface, out, ready, in_only):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)   # SO_RCVBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
    s.bind((iface, ETH_P_ALL))
    w = RawPcapWriter(out, linktype=1, snaplen=65535)
    w.write_header(None)
    w.flush()
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    if ready:
        open(ready, "w").close()
    n = {"in": 0, "out": 0}
    s.settimeout(0.2)
    while True:
        try:
            b, addr = s.recvfrom(65535)
        except socket.timeout:
            if stop:
                break
            continue
        except InterruptedError:
            continue
        t = time.time()
        if in_only and addr[2] == PACKET_OUTGOING:
            continue
        w.write_packet(b, sec=int(t), usec=int((t % 1) * 1e6),
                       caplen=len(b), wirelen=len(b))
        n["out" if addr[2] == PACKET_OUTGOING else "in"] += 1
        if stop:
            # Drain what is queued, then leave.
            s.settimeout(0.05)
    st = s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
    packets, drops = struct.unpack("II", st)
    w.close()
    print("capture %s: %d frames (%d in, %d out), kernel drops %d"
          % (iface, n["in"] + n["out"], n["in"], n["out"], drops))
    return 0 if drops == 0 else 2


# ---- check ------------------------------------------------------------------

class Bad(Exception):
    pass


class Checker:
    def __init__(self, a):
        self.a = a
        self.type = a.type
        self.dport = a.dport or DEFAULT_PORT.get(a.type)
        lo, _, hi = (a.sport_range or "49152-65535").partition("-")
        self.sport_lo, self.sport_hi = int(lo), int(hi)
        self.cnt = collections.Counter()
        self.bad = []           # (index, summary, [problems])
        self.dirs = collections.Counter()
        # per direction: largest inner TCP payload, and how many >= 8900
        self.tcp_max = collections.Counter()
        self.tcp_big = collections.Counter()
        self.cur_dir = None

    # One packet; problems are collected, not raised, so that every
    # problem of a packet is listed.
    def packet(self, idx, raw):
        probs = []
        try:
            self.decode(raw, probs)
        except Bad as e:
            probs.append(str(e))
        except Exception as e:      # a dissector choked: that is bad too
            probs.append("undecodable: %r" % e)
        if probs:
            try:
                summ = Ether(raw).summary()
            except Exception:
                summ = raw[:32].hex()
            self.bad.append((idx, summ, probs))

    def ok(self, what):
        self.cnt[what] += 1

    def decode(self, raw, probs):
        eth = Ether(raw)
        off = 14
        et = eth.type
        if et == 0x8100:
            et = eth[Dot1Q].type
            off += 4
        if et == ETH_P_ARP:
            self.ok("arp (ignored)")
            return
        if et == ETH_P_IP:
            ip = IP(raw[off:])
            src, dst = ip.src, ip.dst
            l4, l4end, proto, ph = self.outer4(raw, off, ip, probs)
        elif et == ETH_P_IPV6:
            ip = IPv6(raw[off:])
            src, dst = ip.src, ip.dst
            if ip.nh == 58 and len(raw) > off + 40 and \
                    raw[off + 40] in (133, 134, 135, 136, 137, 143):
                self.ok("nd/mld (ignored)")
                return
            # MLD reports (a hop-by-hop header, then ICMPv6 143) from the
            # capturing host's own stack
            if ip.nh == 0 and ip.dst.startswith("ff02:") and \
                    len(raw) > off + 48 and raw[off + 40] == 58 and \
                    raw[off + 48] in (130, 131, 132, 143):
                self.ok("nd/mld (ignored)")
                return
            l4, l4end, proto, ph = self.outer6(raw, off, ip, probs)
        else:
            raise Bad("not IP/ARP: ethertype 0x%04x" % et)
        self.cur_dir = "%s > %s" % (src, dst)
        self.dirs[self.cur_dir] += 1
        if proto == 17:
            self.udp(raw, l4, l4end, ph, probs)
        elif proto == 47:
            self.gre(raw, l4, l4end, probs)
        else:
            raise Bad("outer protocol %d is not UDP or GRE" % proto)

    # -- outer --

    def outer4(self, raw, off, ip, probs):
        hb = raw[off:off + ip.ihl * 4]
        if ip.version != 4 or ip.ihl != 5:
            raise Bad("outer IPv4 version %d ihl %d" % (ip.version, ip.ihl))
        if ones_sum(hb) != 0xFFFF:
            probs.append("outer IPv4 header checksum 0x%04x wrong" %
                         ip.chksum)
        else:
            self.ok("outer ipv4 hdr csum ok")
        if ip.flags.MF or ip.frag:
            probs.append("outer IPv4 fragment")
        if ip.len > len(raw) - off or ip.len < 20:
            raise Bad("outer IPv4 length %d, frame has %d"
                      % (ip.len, len(raw) - off))
        if len(raw) - off > ip.len and len(raw) > 60:
            probs.append("%d bytes after the outer IPv4 datagram"
                         % (len(raw) - off - ip.len))
        s, d = raw[off + 12:off + 16], raw[off + 16:off + 20]
        return (off + 20, off + ip.len, ip.proto,
                lambda proto, n: phdr4(s, d, proto, n))

    def outer6(self, raw, off, ip, probs):
        if ip.version != 6:
            raise Bad("outer IPv6 version %d" % ip.version)
        if off + 40 + ip.plen > len(raw):
            raise Bad("outer IPv6 payload length %d, frame has %d"
                      % (ip.plen, len(raw) - off - 40))
        if len(raw) > off + 40 + ip.plen and len(raw) > 60:
            probs.append("%d bytes after the outer IPv6 datagram"
                         % (len(raw) - off - 40 - ip.plen))
        s, d = raw[off + 8:off + 24], raw[off + 24:off + 40]
        return (off + 40, off + 40 + ip.plen, ip.nh,
                lambda proto, n: phdr6(s, d, proto, n))

    def udp(self, raw, l4, l4end, ph, probs):
        u = UDP(raw[l4:l4 + 8])
        if u.len != l4end - l4:
            raise Bad("outer UDP length %d, IP says %d" % (u.len, l4end - l4))
        if u.chksum == 0:
            probs.append("outer UDP checksum absent (0)")
        elif ones_sum(ph(17, u.len) + raw[l4:l4end]) != 0xFFFF:
            probs.append("outer UDP checksum 0x%04x wrong" % u.chksum)
        else:
            self.ok("outer udp csum ok")
        if not self.sport_lo <= u.sport <= self.sport_hi:
            probs.append("outer UDP source port %d outside %d-%d"
                         % (u.sport, self.sport_lo, self.sport_hi))
        if u.dport != self.dport:
            raise Bad("UDP to port %d: not the %s port %d"
                      % (u.dport, self.type, self.dport))
        pay = l4 + 8
        if self.type == "vxlan":
            self.vxlan(raw, pay, l4end, probs)
        elif self.type == "geneve":
            self.geneve(raw, pay, l4end, probs)
        elif self.type == "fou":
            self.ok("fou")
            self.inner_ip(raw, pay, l4end, probs, exact=True)
        elif self.type == "gue":
            self.gue(raw, pay, l4end, probs)
        else:
            raise Bad("UDP packet on a %s underlay" % self.type)

    # -- tunnels --

    def vxlan(self, raw, off, end, probs):
        # RFC 7348: flags 0x08 (I), reserved bytes zero, VNI, reserved
        if end - off < 8:
            raise Bad("VXLAN header truncated")
        h = raw[off:off + 8]
        if h[0] != 0x08 or h[1:4] != b"\0\0\0" or h[7] != 0:
            probs.append("VXLAN flags/reserved %s" % h.hex())
        vni = int.from_bytes(h[4:7], "big")
        if self.a.vni is not None and vni != self.a.vni:
            probs.append("VXLAN VNI %d, expected %d" % (vni, self.a.vni))
        self.ok("vxlan")
        self.inner_eth(raw, off + 8, end, probs)

    def geneve(self, raw, off, end, probs):
        if end - off < 8:
            raise Bad("GENEVE header truncated")
        g = GENEVE(raw[off:end])
        hl = 8 + g.optionlen * 4
        if g.version != 0:
            probs.append("GENEVE version %d" % g.version)
        if g.oam or g.critical or g.reserved or g.reserved2:
            probs.append("GENEVE O=%d C=%d reserved %d/%d" %
                         (g.oam, g.critical, g.reserved, g.reserved2))
        if g.optionlen:
            probs.append("GENEVE options (%d bytes) not configured"
                         % (g.optionlen * 4))
        if g.proto != ETH_P_TEB:
            probs.append("GENEVE protocol 0x%04x, not 0x6558" % g.proto)
        if self.a.vni is not None and g.vni != self.a.vni:
            probs.append("GENEVE VNI %d, expected %d" % (g.vni, self.a.vni))
        self.ok("geneve")
        self.inner_eth(raw, off + hl, end, probs)

    def gue(self, raw, off, end, probs):
        if end - off < 1:
            raise Bad("GUE: empty")
        if raw[off] >> 6 == 1:
            # Variant 1: the IP header directly.
            self.ok("gue variant 1")
            self.inner_ip(raw, off, end, probs, exact=True)
            return
        if end - off < 4:
            raise Bad("GUE header truncated")
        g = GUE(raw[off:end])
        hl = 4 + g.hlen * 4
        if off + hl > end:
            raise Bad("GUE hlen %d overruns the datagram" % g.hlen)
        if g.ver != 0:
            raise Bad("GUE version %d" % g.ver)
        if g.C:
            probs.append("GUE control message")
        if g.flags & ~GUE_F_PRIV:
            probs.append("GUE unknown flags 0x%04x" % g.flags)
        if g.flag_fields_len() > g.hlen * 4:
            raise Bad("GUE flags need %d bytes, hlen gives %d"
                      % (g.flag_fields_len(), g.hlen * 4))
        if g.flags & GUE_F_PRIV and g.privflags & ~GUE_PF_REMCSUM:
            probs.append("GUE unknown private flags 0x%08x" % g.privflags)
        if g.flags & GUE_F_PRIV:
            self.ok("gue private flags field")
        if g.hlen * 4 > g.flag_fields_len():
            self.ok("gue private data (after the flag fields)")
        inner = off + hl
        ver = raw[inner] >> 4 if inner < end else 0
        want = {4: 4, 6: 41}.get(ver)
        if g.proto != want:
            probs.append("GUE protocol %d for an inner IPv%d packet"
                         % (g.proto, ver))
        rco = bool(g.flags & GUE_F_PRIV and g.privflags & GUE_PF_REMCSUM)
        self.ok("gue")
        if rco:
            self.ok("gue rco")
            if self.a.rco == "off":
                probs.append("GUE RCO used on a tunnel without it")
            buf = bytearray(raw[:end])
            self.rco_apply(buf, inner, end, g.rco_start, g.rco_offset, probs)
            raw = bytes(buf)
        self.inner_ip(raw, inner, end, probs, exact=True)

    def rco_apply(self, buf, inner, end, start, offset, probs):
        """Remote checksum offload as the receiver does it: the field
        holds the inner pseudo-header sum; the checksum is the complement
        of the sum from start to the end of the packet."""
        ver = buf[inner] >> 4
        hlen = (buf[inner] & 0xF) * 4 if ver == 4 else 40
        proto = buf[inner + 9] if ver == 4 else buf[inner + 6]
        fo = {6: 16, 17: 6}.get(proto)
        if start != hlen or fo is None or offset != start + fo:
            probs.append("GUE RCO start %d offset %d for inner proto %d "
                         "(L4 at %d)" % (start, offset, proto, hlen))
            return
        a, f = inner + start, inner + offset
        if f + 2 > end:
            probs.append("GUE RCO field beyond the packet")
            return
        n = end - a
        if ver == 4:
            ph = phdr4(bytes(buf[inner + 12:inner + 16]),
                       bytes(buf[inner + 16:inner + 20]), proto, n)
        else:
            ph = phdr6(bytes(buf[inner + 8:inner + 24]),
                       bytes(buf[inner + 24:inner + 40]), proto, n)
        seed = struct.unpack("!H", buf[f:f + 2])[0]
        if seed != ones_sum(ph):
            probs.append("GUE RCO seed 0x%04x is not the inner pseudo-header "
                         "sum 0x%04x" % (seed, ones_sum(ph)))
        ck = ~ones_sum(buf[a:end]) & 0xFFFF
        if proto == 17 and ck == 0:
            ck = 0xFFFF
        buf[f:f + 2] = struct.pack("!H", ck)

    def gre(self, raw, off, end, probs):
        if self.type != "gre":
            raise Bad("GRE packet on a %s underlay" % self.type)
        g = GRE(raw[off:end])
        hl = 4 + 4 * (bool(g.chksum_present or g.routing_present) +
                       bool(g.key_present) + bool(g.seqnum_present))
        if g.version != 0 or g.routing_present or g.strict_route_source or \
                g.recursion_control or g.flags:
            probs.append("GRE version %d R=%d s=%d recur %d flags %d" %
                         (g.version, g.routing_present, g.strict_route_source,
                          g.recursion_control, g.flags))
        if g.seqnum_present:
            probs.append("GRE sequence number not configured")
        if g.chksum_present:
            if g.offset:
                probs.append("GRE reserved1 0x%04x" % g.offset)
            if ones_sum(raw[off:end]) != 0xFFFF:
                probs.append("GRE checksum 0x%04x wrong" % g.chksum)
            else:
                self.ok("gre csum ok")
        if self.a.gre_csum == "on" and not g.chksum_present:
            probs.append("GRE checksum missing")
        if self.a.gre_csum == "off" and g.chksum_present:
            probs.append("GRE checksum present, not configured")
        if self.a.vni is not None:
            if not g.key_present:
                probs.append("GRE key missing")
            elif g.key != self.a.vni:
                probs.append("GRE key %d, expected %d" % (g.key, self.a.vni))
        elif g.key_present:
            probs.append("GRE key %d not configured" % g.key)
        self.ok("gre")
        if g.proto == ETH_P_TEB:
            self.inner_eth(raw, off + hl, end, probs)
        elif g.proto in (ETH_P_IP, ETH_P_IPV6):
            self.inner_ip(raw, off + hl, end, probs, exact=True)
        else:
            probs.append("GRE protocol 0x%04x" % g.proto)

    # -- inner --

    def inner_eth(self, raw, off, end, probs):
        if end - off < 14:
            raise Bad("inner Ethernet truncated")
        e = Ether(raw[off:end])
        et, o = e.type, off + 14
        if et == 0x8100:
            et, o = e[Dot1Q].type, o + 4
        if et == ETH_P_ARP:
            # resolution of the overlay gateways through the tunnel
            # (tepd's proxy answers them)
            self.ok("inner arp (not checked)")
            return
        if et not in (ETH_P_IP, ETH_P_IPV6):
            probs.append("inner ethertype 0x%04x is not IP" % et)
            return
        self.inner_ip(raw, o, end, probs, exact=False)

    def inner_ip(self, raw, off, end, probs, exact):
        if off >= end:
            raise Bad("no inner packet")
        ver = raw[off] >> 4
        if ver == 4:
            ip = IP(raw[off:end])
            if ip.ihl < 5 or off + ip.ihl * 4 > end:
                raise Bad("inner IPv4 ihl %d" % ip.ihl)
            if ones_sum(raw[off:off + ip.ihl * 4]) != 0xFFFF:
                probs.append("inner IPv4 header checksum 0x%04x wrong"
                             % ip.chksum)
            else:
                self.ok("inner ipv4 hdr csum ok")
            tot, l4 = ip.len, off + ip.ihl * 4
            proto = ip.proto
            ph = lambda p, n: phdr4(raw[off + 12:off + 16],
                                    raw[off + 16:off + 20], p, n)
            frag = ip.flags.MF or ip.frag
        elif ver == 6:
            ip = IPv6(raw[off:end])
            tot, l4, proto = 40 + ip.plen, off + 40, ip.nh
            ph = lambda p, n: phdr6(raw[off + 8:off + 24],
                                    raw[off + 24:off + 40], p, n)
            frag = False
        else:
            raise Bad("inner packet is IPv%d" % ver)
        if off + tot > end:
            raise Bad("inner IPv%d length %d, %d bytes there"
                      % (ver, tot, end - off))
        if off + tot < end:
            if exact:
                probs.append("%d bytes after the inner IP datagram"
                             % (end - off - tot))
            else:
                self.ok("inner ethernet padding")
        l4end = off + tot
        if frag:
            self.ok("inner fragment (L4 not checked)")
            return
        seg = raw[l4:l4end]
        n = len(seg)
        if proto == 6:
            self.l4sum("tcp", n >= 20, ph(6, n) + seg, probs,
                       seg[16:18] if n >= 18 else b"")
            if n >= 20:
                pay = n - (seg[12] >> 4) * 4
                self.tcp_max[self.cur_dir] = max(self.tcp_max[self.cur_dir],
                                                 pay)
                self.tcp_big[self.cur_dir] += pay >= 8900
        elif proto == 17:
            if n >= 8 and seg[6:8] == b"\0\0" and ver == 4:
                self.ok("inner udp no csum")
            else:
                self.l4sum("udp", n >= 8, ph(17, n) + seg, probs,
                           seg[6:8] if n >= 8 else b"")
        elif proto == 1 and ver == 4:
            self.l4sum("icmp", n >= 8, seg, probs, seg[2:4])
        elif proto == 58 and ver == 6:
            self.l4sum("icmp6", n >= 8, ph(58, n) + seg, probs, seg[2:4])
        else:
            self.ok("inner other L4 (not checked)")

    def l4sum(self, name, long_enough, data, probs, field):
        if not long_enough:
            probs.append("inner %s header truncated" % name)
        elif ones_sum(data) != 0xFFFF:
            probs.append("inner %s checksum 0x%s wrong" % (name, field.hex()))
        else:
            self.ok("inner %s csum ok" % name)

    # -- report --

    def report(self, total):
        tun = self.cnt[self.type] + self.cnt["gue variant 1"]
        print("frames: %d, %s packets: %d, bad: %d"
              % (total, self.type, tun, len(self.bad)))
        for k in sorted(self.dirs):
            print("  direction %s: %d" % (k, self.dirs[k]))
        for k in sorted(self.cnt):
            print("  %-34s %d" % (k, self.cnt[k]))
        for idx, summ, probs in self.bad[:200]:
            print("BAD #%d %s" % (idx, summ))
            for p in probs:
                print("      " + p)
        if len(self.bad) > 200:
            print("... and %d more bad packets" % (len(self.bad) - 200))
        for k in sorted(self.tcp_max):
            print("  inner tcp payload %s: largest %d, %d of >= 8900 bytes"
                  % (k, self.tcp_max[k], self.tcp_big[k]))
        rc = 0
        if self.bad:
            rc = 1
        if self.a.jumbo:
            small = [k for k in self.dirs
                     if self.tcp_big[k] < self.a.jumbo or
                     self.tcp_max[k] > 8960]
            if small or len(self.dirs) < 2:
                print("jumbo: want >= %d inner TCP segments of 8900-8960 "
                      "bytes each way; short in: %s"
                      % (self.a.jumbo, ", ".join(small) or "-"))
                rc = 1
        if tun < self.a.min:
            print("too few %s packets: %d < %d" % (self.type, tun, self.a.min))
            rc = 1
        if self.a.rco == "required" and self.cnt["gue rco"] == 0:
            print("no packet used GUE remote checksum offload")
            rc = 1
        if self.a.min_dir:
            ds = [v for v in self.dirs.values()]
            if len(ds) < 2 or min(ds) < self.a.min_dir:
                print("too few packets in a direction (want %d each way)"
                      % self.a.min_dir)
                rc = 1
        return rc


def check(a):
    c = Checker(a)
    total = 0
    for idx, (raw, _meta) in enumerate(RawPcapReader(a.pcap), 1):
        total += 1
        c.packet(idx, bytes(raw))
    return c.report(total)


def merge(out, inputs):
    frames = []
    for f in inputs:
        frames += [(m.sec, m.usec, bytes(r)) for r, m in RawPcapReader(f)]
    frames.sort(key=lambda x: (x[0], x[1]))
    w = RawPcapWriter(out, linktype=1, snaplen=65535)
    w.write_header(None)
    for sec, usec, b in frames:
        w.write_packet(b, sec=sec, usec=usec, caplen=len(b), wirelen=len(b))
    w.close()
    print("merged %d frames from %d files" % (len(frames), len(inputs)))
    return 0


# ---- corrupt ----------------------------------------------------------------

def corrupt(src, dst, where):
    frames = [(bytes(r), m) for r, m in RawPcapReader(src)]
    best = None
    def outer(raw):     # (L4 offset, protocol) of an untagged frame
        et = struct.unpack("!H", raw[12:14])[0]
        if et == ETH_P_IP:
            return 14 + (raw[14] & 0xF) * 4, raw[23]
        if et == ETH_P_IPV6:
            return 54, raw[20]
        return None, None

    for i, (raw, _m) in enumerate(frames):
        if outer(raw)[1] in (17, 47):
            if best is None or len(raw) > len(frames[best][0]):
                best = i
    if best is None:
        sys.exit("corrupt: no tunnel packet in " + src)
    raw = bytearray(frames[best][0])
    if where == "payload":
        pos = len(raw) - 1
    else:
        l4, proto = outer(raw)
        if proto == 47:
            g = GRE(bytes(raw[l4:]))
            # the key's last byte, else the protocol's
            pos = l4 + (4 + 4 * bool(g.chksum_present) + 3
                        if g.key_present else 3)
        else:
            dport = struct.unpack("!H", raw[l4 + 2:l4 + 4])[0]
            t = l4 + 8
            if dport == DEFAULT_PORT["geneve"]:
                pos = t + 6                 # VNI, low byte
            elif dport == DEFAULT_PORT["gue"]:
                pos = t + 1                 # GUE proto
            else:
                pos = t + 8                 # FOU: inner IPv4 TTL
    raw[pos] ^= 0x01
    w = RawPcapWriter(dst, linktype=1, snaplen=65535)
    w.write_header(None)
    for i, (r, m) in enumerate(frames):
        b = bytes(raw) if i == best else r
        w.write_packet(b, sec=m.sec, usec=m.usec, caplen=len(b),
                       wirelen=len(b))
    w.close()
    print("corrupted frame #%d (%d bytes) at byte %d" % (best + 1, len(raw),
                                                        pos))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("capture")
    p.add_argument("iface")
    p.add_argument("out")
    p.add_argument("--ready")
    p.add_argument("--in-only", action="store_true")
    p = sub.add_parser("merge")
    p.add_argument("out")
    p.add_argument("inputs", nargs="+")
    p = sub.add_parser("check")
    p.add_argument("pcap")
    p.add_argument("type", choices=["vxlan", "geneve", "fou", "gue", "gre"])
    p.add_argument("--vni", type=int)
    p.add_argument("--gre-csum", choices=["on", "off"])
    p.add_argument("--rco", choices=["off", "on", "required"], default="off")
    p.add_argument("--min", type=int, default=1)
    p.add_argument("--min-dir", type=int, default=0)
    p.add_argument("--dport", type=int)
    p.add_argument("--jumbo", type=int, default=0, metavar="N",
                   help="want N inner TCP segments of 8900-8960 payload "
                   "bytes in each direction")
    p.add_argument("--sport-range", help="LO-HI (default 49152-65535; "
                   "the Linux kernel picks from its own range)")
    p = sub.add_parser("corrupt")
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("where", choices=["payload", "header"])
    a = ap.parse_args()
    if a.cmd == "capture":
        return capture(a.iface, a.out, a.ready, a.in_only)
    if a.cmd == "merge":
        return merge(a.out, a.inputs)
    if a.cmd == "check":
        return check(a)
    corrupt(a.src, a.dst, a.where)
    return 0


if __name__ == "__main__":
    sys.exit(main())
