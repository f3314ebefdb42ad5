#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Send prebuilt frames out of an interface as fast as one core allows,
for a bounded time (raw AF_PACKET socket, no scapy in the loop).

  flood.py scan IFACE DSTMAC SRC NET SECONDS
      UDP to every address of NET (a /16 given as A.B), one after another
  flood.py ttl IFACE DSTMAC SRC DST SECONDS
      UDP with TTL 1 to DST (each one expires at the router)

Prints "frames seconds" sent.
"""
import socket
import struct
import sys
import time


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def frame(dmac, smac, src, dst, ttl):
    payload = b"flood" * 4
    udp = struct.pack("!HHHH", 40000, 9, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, ttl, 17,
                     0, socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dmac + smac + b"\x08\x00" + ip + udp


def main():
    mode, iface, dmac_s = sys.argv[1], sys.argv[2], sys.argv[3]
    src, arg, secs = sys.argv[4], sys.argv[5], float(sys.argv[6])
    dmac = bytes.fromhex(dmac_s.replace(":", ""))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    smac = s.getsockname()[4]
    if mode == "scan":
        frames = [frame(dmac, smac, src, "%s.%d.%d" % (arg, i >> 8, i & 255),
                        64) for i in range(1, 65535)]
    else:
        frames = [frame(dmac, smac, src, arg, 1)]
    n = 0
    t0 = time.monotonic()
    end = t0 + secs
    while time.monotonic() < end:
        for f in frames[n % len(frames):n % len(frames) + 256] or frames[:1]:
            try:
                s.send(f)
            except OSError:
                pass
            n += 1
    print(n, round(time.monotonic() - t0, 3))


if __name__ == "__main__":
    main()
