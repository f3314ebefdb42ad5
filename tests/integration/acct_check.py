#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
"""Per-port packet accounting from `tepctl -j stats` (on stdin):

    rx + (ipv4_frags - ipv4_frag_pkts) + (gso_segs - gso_pkts)
        == fwd + encap + decap + punt + (sum of drops - tx_dropped)

Prints one line per port (name, rx, each fate, drops, gap) and exits 1 if a
port's gap is not within --slack of 0, or if tepd's own accounting_gap
disagrees with the one computed here. --expect REASON=PORT makes a drop
reason required (non-zero) on that port.
"""
import argparse
import json
import sys


def gap(p):
    drops = sum(p.get("drops", {}).values())
    made = (p["ipv4_frags"] - p["ipv4_frag_pkts"]) + (p["gso_segs"] - p["gso_pkts"])
    return (p["rx"] + made) - (p["fwd"] + p["encap"] + p["decap"] + p["punt"]
                               + drops - p["tx_dropped"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slack", type=int, default=0)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    d = json.load(sys.stdin)
    bad = 0
    for p in d["ports"]:
        g = gap(p)
        drops = sum(p.get("drops", {}).values())
        if not a.quiet:
            print(f"    {p['port']}: rx {p['rx']} fwd {p['fwd']} encap {p['encap']} "
                  f"decap {p['decap']} punt {p['punt']} drops {drops} "
                  f"(tx {p['tx_dropped']}) gap {g}")
        if abs(g) > a.slack or g != p["accounting_gap"]:
            print(f"FAIL: {p['port']} gap {g} (tepd says {p['accounting_gap']}):"
                  f" {json.dumps(p)}")
            bad += 1
    for e in a.expect:
        reason, port = e.split("=")
        hit = [p for p in d["ports"] if p["port"] == port]
        if not hit or hit[0].get("drops", {}).get("drop_" + reason, 0) == 0:
            print(f"FAIL: no drop_{reason} on {port}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
