#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Play zebra's part of FPM (docs/evpn.md) against tepd -P: connect, send
frames, optionally stay connected, close.

  fpm_feed.py [--addr A] [--port P] [--linger S] [--expect-close S] CMD...

Each CMD is one frame (arguments separated by spaces inside one word or
several words up to the next ';'):
  add PREFIX via GW[,GW...] [weights W[,W...]] [table N] [vni N] [proto N]
                              unicast (multipath if several GWs, with
                              these weights: rtnh_hops W - 1);
                              rtm_protocol 196 (zebra's static) unless
                              given (186: bgp)
  add PREFIX nhid ID [table N] [proto N]
                              unicast by zebra's next-hop object only
                              (RTA_NH_ID, `fpm use-next-hop-groups`)
  paths PREFIX N BASE4        a multipath route of N paths, gateways
                              from BASE4 upwards
  nh ID via GW [vni N]        RTM_NEWNEXTHOP: a gateway on ifindex 3
                              (with a VXLAN encap if vni is given)
  nhg ID ID2[:W][,ID3[:W]...] RTM_NEWNEXTHOP: a group (weights W, 1-256)
  nhdel ID                    RTM_DELNEXTHOP
  add PREFIX blackhole|unreachable [table N]
  evpn PREFIX VTEP [table N]  what zebra 8.4.4 sent for a type-5 route:
                              proto bgp, ONLINK, RTA_OIF, no VNI; the VTEP
                              as ::ffff:a.b.c.d for IPv6 prefixes
  del PREFIX [table N]
  change N PREFIX via GW|evpn VTEP [table N]
                              N frames, each RTM_DELROUTE + RTM_NEWROUTE
                              of PREFIX (via GW, or as `evpn` makes it):
                              what zebra 8.4.4's FPM sends for a route
                              that changes
  mac MAC VTEP / macdel MAC VTEP [vni N] [ifindex N]
                                     router MAC (AF_BRIDGE neighbour) on
                                     device N (default 3), with NDA_VNI
                                     if vni is given
  macbulk N BASE4                    N router MACs, VTEPs from BASE4
                                     upwards, MACs 02:00:00:VV:VV:VV
  bulk N BASE4 via GW [table N] [per-frame M]
                                     N /32 routes from BASE4 upwards, M
                                     netlink messages per FPM frame
                                     (default 1)
  hex FILE                           every frame of a golden .hex file
  bad short|nlmsg-len|attr-trunc|nested-past-end|rtnh-past-end|
      version
                                     one malformed frame
  partial                            half a frame, then the end of stream
add, evpn, del and bulk take `pid X` too: the nlmsg_pid of their
messages (zebra's netlink port id in the VRF's namespace, what tepd -N
maps to a VRF). X: a number, `random` (a random id per message), or `nl`:
the port id of a NETLINK_ROUTE socket this script opens in the namespace
it starts in and keeps open until it exits.
--connect-netns PATH: connect from that network namespace (after the
netlink socket of `pid nl` was opened where the script started).
--stamp FILE: the time sending began (benchmarks).
--linger S: stay connected S seconds after the last frame (a replay that
tepd should see complete). --expect-close S: wait up to S seconds for tepd
to close the connection; exit 0 if it did, 3 if not. Otherwise the script
ends its side (shutdown) and waits up to 10 s for tepd to close the
connection, which it does once it has read everything: the socket stays
open until then, so that tepd can tell its owner (a socket closed before
tepd accepted it has none, and is refused: docs/security.md).
--close-at-once: close right after sending instead.
"""
import argparse
import ctypes
import ipaddress
import os
import random
import socket
import struct
import sys
import time

RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWNEIGH, RTM_DELNEIGH = 24, 25, 28, 29
RTM_NEWNEXTHOP, RTM_DELNEXTHOP = 104, 105
RTA_NH_ID = 30
NHA_ID, NHA_GROUP, NHA_OIF, NHA_GATEWAY = 1, 2, 5, 6
NHA_ENCAP_TYPE, NHA_ENCAP = 7, 8
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY = 1, 4, 5, 6
RTA_MULTIPATH, RTA_TABLE, RTA_ENCAP_TYPE, RTA_ENCAP = 9, 15, 21, 22
NDA_DST, NDA_LLADDR, NDA_VNI, NDA_MASTER = 1, 2, 7, 9
AF_BRIDGE = 7
PID = 0x8084c54d	# what zebra put there in one capture: any value
CLONE_NEWNET = 0x40000000
NL_SOCK = None		# the socket behind `pid nl`, kept open


def nl_port():
    global NL_SOCK
    if NL_SOCK is None:
        NL_SOCK = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
        NL_SOCK.bind((0, 0))
    return NL_SOCK.getsockname()[0]


def pid_of(o):
    """The nlmsg_pid a command's `pid X` asks for (a function: random
    draws one per message)."""
    x = o.get("pid")
    if x is None:
        return lambda: PID
    if x == "random":
        return lambda: random.randrange(1, 1 << 32)
    if x == "nl":
        p = nl_port()
        return lambda: p
    return lambda: int(x, 0)


def attr(t, data):
    a = struct.pack("=HH", 4 + len(data), t) + data
    return a + b"\0" * (-len(a) % 4)


def u32(v):
    return struct.pack("=I", v)


def nlmsg(nl_type, flags, body, pid=PID, fix_nlmsg_len=None):
    nlen = 16 + len(body)
    return struct.pack("=IHHII", nlen if fix_nlmsg_len is None else
                       fix_nlmsg_len, nl_type, flags, 0, pid) + body


def frame(nl_type, flags, body, fix_nlmsg_len=None, fix_fpm_len=None,
          pid=PID):
    nl = nlmsg(nl_type, flags, body, pid, fix_nlmsg_len)
    flen = 4 + len(nl) if fix_fpm_len is None else fix_fpm_len
    return struct.pack("!BBH", 1, 1, flen) + nl


def fpm_frame(msgs):
    nl = b"".join(msgs)
    return struct.pack("!BBH", 1, 1, 4 + len(nl)) + nl


def route(add, prefix, table=254, rtype=1, proto=196, gws=(), vni=None,
          oif=None, rtm_flags=0, extra=b"", weights=None):
    net = ipaddress.ip_network(prefix)
    fam = 2 if net.version == 4 else 10
    rtm_table = table if table < 256 else 252
    body = struct.pack("=BBBBBBBBI", fam, net.prefixlen, 0, 0, rtm_table,
                       proto, 0, rtype if add else 0, rtm_flags)
    if net.prefixlen:
        body += attr(RTA_DST, net.network_address.packed)
    if table >= 256:
        body += attr(RTA_TABLE, u32(table))
    body += attr(RTA_PRIORITY, u32(20))
    encap = b""
    if vni is not None:
        encap = (attr(RTA_ENCAP_TYPE, struct.pack("=H", 100)) +
                 attr(RTA_ENCAP | 0x8000, attr(0, u32(vni))))
    if add and len(gws) == 1:
        body += attr(RTA_GATEWAY, gws[0]) + encap
        if oif is not None:
            body += attr(RTA_OIF, u32(oif))
    elif add and len(gws) > 1:
        mp = b""
        for i, g in enumerate(gws):
            inner = attr(RTA_GATEWAY, g) + encap
            hops = weights[i] - 1 if weights else 0
            mp += struct.pack("=HBBi", 8 + len(inner), 0, hops, 3) + inner
        body += attr(RTA_MULTIPATH | 0x8000, mp)
    body += extra
    return net, body


def gw_bytes(net, gw):
    a = ipaddress.ip_address(gw)
    if net.version == 6 and a.version == 4:
        return b"\0" * 10 + b"\xff\xff" + a.packed	# a VTEP, as zebra
    return a.packed


def neigh(add, mac, vtep, o):
    """A router MAC: an AF_BRIDGE neighbour with NDA_DST, as zebra sends
    it on the L3VNI's VXLAN device."""
    body = struct.pack("=BxxxiHBB", AF_BRIDGE, int(o.get("ifindex", 3)), 2,
                       0x16, 0)
    body += attr(NDA_LLADDR, mac) + attr(NDA_DST, vtep) + \
        attr(NDA_MASTER, u32(2))
    if "vni" in o:
        body += attr(NDA_VNI, u32(int(o["vni"])))
    return frame(RTM_NEWNEIGH if add else RTM_DELNEIGH,
                 0x0501 if add else 0x0001, body)


def nhobj(add, nid, attrs, family=0):
    body = struct.pack("=BBBBI", family, 0, 11, 0, 0) + \
        attr(NHA_ID, u32(nid)) + attrs
    return frame(RTM_NEWNEXTHOP if add else RTM_DELNEXTHOP,
                 0x0501 if add else 0x0001, body)


def opts(words):
    o = {}
    i = 0
    while i < len(words):
        o[words[i]] = words[i + 1] if i + 1 < len(words) else None
        i += 2
    return o


def cmd_frames(w):
    c = w[0]
    if c == "add":
        net = ipaddress.ip_network(w[1])
        o = opts(w[2:]) if w[2] == "via" else opts(w[3:])
        table = int(o.get("table", 254))
        if w[2] == "nhid":
            o = opts(w[4:])
            _, body = route(True, w[1], int(o.get("table", 254)), 1,
                            proto=int(o.get("proto", 196)),
                            extra=attr(RTA_NH_ID, u32(int(w[3]))))
        elif w[2] in ("blackhole", "unreachable"):
            _, body = route(True, w[1], table,
                            6 if w[2] == "blackhole" else 7)
        else:
            gws = [gw_bytes(net, g) for g in o["via"].split(",")]
            vni = int(o["vni"]) if "vni" in o else None
            wts = [int(x) for x in o["weights"].split(",")] \
                if "weights" in o else None
            _, body = route(True, w[1], table, 1, gws=gws, vni=vni,
                            oif=3, proto=int(o.get("proto", 196)),
                            weights=wts)
        return [frame(RTM_NEWROUTE, 0x0501, body, pid=pid_of(o)())]
    if c == "paths":
        n, base = int(w[2]), int(ipaddress.ip_address(w[3]))
        gws = [ipaddress.ip_address(base + i).packed for i in range(n)]
        _, body = route(True, w[1], 254, 1, gws=gws)
        return [frame(RTM_NEWROUTE, 0x0501, body)]
    if c == "nh":
        o = opts(w[2:])
        gw = ipaddress.ip_address(o["via"])
        a = attr(NHA_GATEWAY, gw.packed) + attr(NHA_OIF, u32(3))
        if "vni" in o:
            a += attr(NHA_ENCAP_TYPE, struct.pack("=H", 100)) + \
                attr(NHA_ENCAP | 0x8000, attr(0, u32(int(o["vni"]))))
        return [nhobj(True, int(w[1]), a, 2 if gw.version == 4 else 10)]
    if c == "nhg":
        g = b""
        for m in w[2].split(","):
            mid, _, wt = m.partition(":")
            g += struct.pack("=IBBH", int(mid), int(wt or 1) - 1, 0, 0)
        return [nhobj(True, int(w[1]), attr(NHA_GROUP, g))]
    if c == "nhdel":
        return [nhobj(False, int(w[1]), b"")]
    if c == "evpn":
        net = ipaddress.ip_network(w[1])
        o = opts(w[3:])
        _, body = route(True, w[1], int(o.get("table", 254)), 1, proto=186,
                        gws=[gw_bytes(net, w[2])], oif=2, rtm_flags=4)
        return [frame(RTM_NEWROUTE, 0x0501, body, pid=pid_of(o)())]
    if c == "del":
        o = opts(w[2:])
        _, body = route(False, w[1], int(o.get("table", 254)))
        return [frame(RTM_DELROUTE, 0x0401, body, pid=pid_of(o)())]
    if c == "change":
        n, net = int(w[1]), ipaddress.ip_network(w[2])
        o = opts(w[3:])
        table = int(o.get("table", 254))
        _, dbody = route(False, w[2], table)
        if "evpn" in o:
            _, abody = route(True, w[2], table, 1, proto=186,
                             gws=[gw_bytes(net, o["evpn"])], oif=2,
                             rtm_flags=4)
        else:
            _, abody = route(True, w[2], table, 1,
                             gws=[gw_bytes(net, o["via"])], oif=3)
        f = fpm_frame([nlmsg(RTM_DELROUTE, 0x0401, dbody),
                       nlmsg(RTM_NEWROUTE, 0x0501, abody)])
        return [f] * n
    if c in ("mac", "macdel"):
        mac = bytes(int(x, 16) for x in w[1].split(":"))
        vtep = ipaddress.ip_address(w[2]).packed
        return [neigh(c == "mac", mac, vtep, opts(w[3:]))]
    if c == "macbulk":
        n, base = int(w[1]), int(ipaddress.ip_address(w[2]))
        return [neigh(True, b"\x02\x00\x00" + struct.pack("!I", i)[1:],
                      ipaddress.ip_address(base + i).packed, {})
                for i in range(n)]
    if c == "bulk":
        n, base, o = int(w[1]), int(ipaddress.ip_address(w[2])), opts(w[3:])
        gw = ipaddress.ip_address(o["via"]).packed
        table = int(o.get("table", 254))
        per_frame = int(o.get("per-frame", 1))
        pid = pid_of(o)
        out, msgs = [], []
        for i in range(n):
            p = ipaddress.ip_address(base + i)
            _, body = route(True, "%s/32" % p, table, 1, gws=[gw], oif=3)
            msgs.append(nlmsg(RTM_NEWROUTE, 0x0501, body, pid()))
            if len(msgs) == per_frame or i == n - 1:
                out.append(fpm_frame(msgs))
                msgs = []
        return out
    if c == "hex":
        with open(w[1]) as f:
            return [bytes.fromhex(l.strip()) for l in f
                    if l.strip() and not l.startswith("#")]
    if c == "bad":
        _, body = route(True, "203.0.113.99/32", 254, 1,
                        gws=[ipaddress.ip_address("198.51.100.2").packed])
        kind = w[1]
        if kind == "short":		# FPM length below one nlmsghdr
            return [struct.pack("!BBH", 1, 1, 12) + b"\0" * 8]
        if kind == "version":
            return [b"\x02" + frame(RTM_NEWROUTE, 0x0501, body)[1:]]
        if kind == "nlmsg-len":	# netlink says 8 bytes more than FPM
            return [frame(RTM_NEWROUTE, 0x0501, body,
                          fix_nlmsg_len=16 + len(body) + 8)]
        if kind == "attr-trunc":	# 2 bytes of an attribute header
            return [frame(RTM_NEWROUTE, 0x0501, body + b"\x08\x00")]
        if kind == "nested-past-end":
            # RTA_ENCAP whose VNI attribute claims 16 bytes, 8 there
            enc = struct.pack("=HH", 16, 0) + u32(100)
            _, b2 = route(True, "203.0.113.98/32", 254, 1, gws=[
                ipaddress.ip_address("198.51.100.2").packed],
                extra=attr(RTA_ENCAP_TYPE, struct.pack("=H", 100)) +
                attr(RTA_ENCAP | 0x8000, enc))
            return [frame(RTM_NEWROUTE, 0x0501, b2)]
        if kind == "rtnh-past-end":
            # RTA_MULTIPATH whose one next hop claims 64 bytes
            mp = struct.pack("=HBBi", 64, 0, 0, 3) + \
                attr(RTA_GATEWAY, ipaddress.ip_address("198.51.100.2").packed)
            _, b2 = route(True, "203.0.113.98/32", 254, 1,
                          extra=attr(RTA_MULTIPATH | 0x8000, mp))
            return [frame(RTM_NEWROUTE, 0x0501, b2)]
        raise SystemExit("unknown bad kind " + kind)
    if c == "partial":
        _, body = route(True, "203.0.113.97/32", 254, 1,
                        gws=[ipaddress.ip_address("198.51.100.2").packed])
        f = frame(RTM_NEWROUTE, 0x0501, body)
        return [f[:len(f) // 2]]
    raise SystemExit("unknown command " + c)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=2620)
    ap.add_argument("--linger", type=float, default=0)
    ap.add_argument("--expect-close", type=float, default=0)
    ap.add_argument("--close-at-once", action="store_true")
    ap.add_argument("--connect-netns", help="connect from this network "
                    "namespace (a path such as /run/netns/NAME)")
    ap.add_argument("--stamp", help="write the time (epoch s) sending "
                    "began to this file")
    ap.add_argument("cmds", nargs="*")
    a = ap.parse_args()
    words = " ".join(a.cmds).split()
    cmds, cur = [], []
    for x in words:
        if x == ";":
            if cur:
                cmds.append(cur)
            cur = []
        else:
            cur.append(x)
    if cur:
        cmds.append(cur)
    frames = []
    for c in cmds:
        frames += cmd_frames(c)
    if a.connect_netns:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(a.connect_netns, os.O_RDONLY)
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise SystemExit("setns %s: %s" % (
                a.connect_netns, os.strerror(ctypes.get_errno())))
        os.close(fd)
    s = socket.create_connection((a.addr, a.port), timeout=10)
    data = b"".join(frames)
    if a.stamp:
        with open(a.stamp, "w") as f:
            f.write("%.6f\n" % time.time())
    t0 = time.monotonic()
    s.sendall(data)
    print("sent %d frame(s) in %.3f s" % (len(frames), time.monotonic() - t0),
          file=sys.stderr)
    rc = 0
    if a.expect_close:
        s.settimeout(a.expect_close)
        try:
            closed = s.recv(1) == b""
        except socket.timeout:
            closed = False
        except ConnectionResetError:
            closed = True
        print("closed by tepd" if closed else "still open", file=sys.stderr)
        rc = 0 if closed else 3
    elif a.linger:
        time.sleep(a.linger)
    elif not a.close_at_once:
        s.shutdown(socket.SHUT_WR)
        s.settimeout(10)
        try:
            while s.recv(4096):
                pass
        except (socket.timeout, ConnectionResetError):
            pass
    s.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
