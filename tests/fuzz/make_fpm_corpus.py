#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Seed corpus for fuzz_fpm from the zebra captures.

    make_fpm_corpus.py [GOLDEN_DIR [CORPUS_DIR]]

Each frame of tests/golden/fpm/NAME.hex becomes tests/fuzz/corpus/fpm/NAME_N
(binary, FPM header included); all frames of a file together become
NAME_stream, so the framing loop of the target starts from real streams.
"""

import os
import sys

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, 'tests/golden/fpm')
dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(top, 'tests/fuzz/corpus/fpm')
os.makedirs(dst, exist_ok=True)
for name in sorted(os.listdir(src)):
    if not name.endswith('.hex'):
        continue
    frames = [bytes.fromhex(l.strip()) for l in open(os.path.join(src, name))
              if l.strip() and not l.startswith('#')]
    base = name[:-4]
    for i, f in enumerate(frames):
        with open(os.path.join(dst, f'{base}_{i}'), 'wb') as out:
            out.write(f)
    if len(frames) > 1:
        with open(os.path.join(dst, f'{base}_stream'), 'wb') as out:
            out.write(b''.join(frames))

# Frames the captures lack, built here (netlink in this host's byte
# order, as zebra on the same host writes it): multipath at the limit of
# 64 next hops kept, past it (65 and 256: the first 64 kept) and past the
# 256 a message may have (257, 1000), an EVPN prefix behind two VTEPs;
# zebra's next-hop objects (`fpm use-next-hop-groups`): a gateway, a
# group, a route by object id, and the hostile ones (a group naming
# itself, 65, 257 and 1000 members).
import socket
import struct


def attr(t, payload):
    a = struct.pack('=HH', 4 + len(payload), t) + payload
    return a + b'\0' * (-len(a) % 4)


def frame(nl_type, flags, body):
    nl = struct.pack('=IHHII', 16 + len(body), nl_type, flags, 0, 0) + body
    return struct.pack('!BBH', 1, 1, 4 + len(nl)) + nl


def route4(attrs):
    rtm = struct.pack('=BBBBBBBBI', socket.AF_INET, 24, 0, 0, 254, 186, 0,
                      1, 0)
    return frame(24, 0x0501, rtm + attrs)


def multipath(n, vni=None):
    mp = b''
    for i in range(n):
        gw = attr(5, socket.inet_aton('192.0.2.%d' % (i % 250 + 1)))
        if vni is not None:
            gw += attr(21, struct.pack('=H', 100)) + \
                attr(22 | 0x8000, attr(0, struct.pack('=I', vni)))
        mp += struct.pack('=HBBi', 8 + len(gw), 0, i % 4, i + 1) + gw
    return attr(9 | 0x8000, mp)


def nhobj(nh_type, family, attrs):
    return frame(nh_type, 0x0501 if nh_type == 104 else 0,
                 struct.pack('=BBBBI', family, 0, 11, 0, 0) + attrs)


def group(ids):
    return attr(2, b''.join(struct.pack('=IBBH', i, i % 3, 0, 0)
                            for i in ids))


dst4 = attr(1, socket.inet_aton('203.0.113.0'))
synth = {
    'mp64': route4(dst4 + multipath(64)),
    'mp65': route4(dst4 + multipath(65)),
    'mp256': route4(dst4 + multipath(256)),
    'mp257': route4(dst4 + multipath(257)),
    'mp1000': route4(dst4 + multipath(1000)),
    'mp_evpn': route4(dst4 + multipath(2, vni=100)),
    'nh_gw': nhobj(104, socket.AF_INET, attr(1, struct.pack('=I', 5)) +
                   attr(6, socket.inet_aton('192.0.2.2')) +
                   attr(5, struct.pack('=I', 3))),
    'nh_group': nhobj(104, 0, attr(1, struct.pack('=I', 10)) +
                      group([5, 6]) + attr(3, struct.pack('=H', 0))),
    'nh_self': nhobj(104, 0, attr(1, struct.pack('=I', 10)) +
                     group([5, 10])),
    'nh_65': nhobj(104, 0, attr(1, struct.pack('=I', 1000)) +
                   group(range(1, 66))),
    'nh_257': nhobj(104, 0, attr(1, struct.pack('=I', 1500)) +
                    group(range(1, 258))),
    'nh_1000': nhobj(104, 0, attr(1, struct.pack('=I', 2000)) +
                     group(range(1, 1001))),
    'nh_del': nhobj(105, 0, attr(1, struct.pack('=I', 10))),
    'route_nhid': route4(dst4 + attr(30, struct.pack('=I', 10))),
}
synth['nh_stream'] = (synth['nh_gw'] + synth['nh_group'] +
                      synth['route_nhid'] + synth['nh_del'])
for name, data in synth.items():
    with open(os.path.join(dst, 'synth_' + name), 'wb') as out:
        out.write(data)
