#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""gen_routes.py N ROUTES_OUT IPS_OUT [LOOKUPS]

N unique IPv4 prefixes with an Internet-like length mix (mostly /24, some
shorter, a few longer ones packed into a limited number of /24s so that a
DIR24_8 FIB with 2-byte entries, at most 32767 tbl8 groups, holds them), in
dpdk-test-fib's file format ("a.b.c.d/len nexthop"), and LOOKUPS addresses
(default 2 000 000) inside them, one per line, for both dpdk-test-fib and
tepd's bench_fib. Deterministic (seeded)."""
import random
import sys

n, rout, iout = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lookups = int(sys.argv[4]) if len(sys.argv) > 4 else 2000000
rnd = random.Random(7)
seen = set()
routes = []
mix = [(24, 0.62), (23, 0.08), (22, 0.10), (21, 0.04), (20, 0.05),
       (19, 0.02), (18, 0.02), (16, 0.03), (28, 0.02), (32, 0.02)]
long_bases = [rnd.randrange(1 << 24) for _ in range(20000)]
for depth, share in mix:
    want = int(n * share)
    while want > 0:
        if depth > 24:
            base = rnd.choice(long_bases) << 8 | rnd.randrange(256)
            a = base << 0
            a &= ~((1 << (32 - depth)) - 1) & 0xffffffff
        else:
            a = rnd.randrange(1 << 32) & ~((1 << (32 - depth)) - 1) & 0xffffffff
        if (a, depth) in seen or a >> 24 in (0, 127) or a >> 28 >= 14:
            continue
        seen.add((a, depth))
        routes.append((a, depth))
        want -= 1
while len(routes) < n:
    a = rnd.randrange(1 << 32) & 0xffffff00
    if (a, 24) not in seen and a >> 24 not in (0, 127) and a >> 28 < 14:
        seen.add((a, 24))
        routes.append((a, 24))


def dotted(a):
    return "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)


with open(rout, "w") as f:
    for a, d in routes:
        f.write("%s/%d %d\n" % (dotted(a), d, rnd.randrange(1, 32000)))
with open(iout, "w") as f:
    for _ in range(lookups):
        a, d = routes[rnd.randrange(len(routes))]
        f.write(dotted(a | rnd.randrange(1 << (32 - d))) + "\n")
