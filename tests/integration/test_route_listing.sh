#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# `route show` of a table past one reply (docs/commands.md): 30 000 IPv4
# and 600 IPv6 routes in vrf red come in pieces of at most 8192 routes,
# each a complete reply. Checked: every route exactly once, in text and
# in JSON (one document per piece), also for a reader that reads slowly
# (the pieces wait for it: it is not dropped), within a prefix, inside a
# tepctl -b batch (the next command's answer comes after the whole
# listing), a short listing still one document, and a VRF deleted in the
# middle of a listing ends it with an error.
#
#   tepd in namespace dp, ports net_null0/1
set -euo pipefail
. "$(dirname "$0")/lib.sh"

N4=30000
N6=600
DP=$(ns_add dp)
{
	echo "vrf add red"
	echo "vrf add blue"
	echo "route add 198.18.0.0/15 vrf blue blackhole"
	$PY - "$N4" "$N6" <<-'PY'
	import sys
	n4, n6 = int(sys.argv[1]), int(sys.argv[2])
	for i in range(n4):
	    # spread over 198.18.0.0/15: a quarter of them in 198.19.0.0/16
	    a = 18 + (i % 4 == 3)
	    print("route add 198.%d.%d.%d/32 vrf red blackhole"
	          % (a, (i >> 8) & 255, i & 255))
	for i in range(n6):
	    print("route add 2001:db8:18:%x::/64 vrf red blackhole" % (i + 1))
	PY
} >"$WORK/tepd.conf"
SOCK=$WORK/tepd.sock
TEPD_ARGS="-r 40000" tepd_start "$DP" "$SOCK" "$WORK/tepd.conf" \
	--vdev=net_null0 --vdev=net_null1
CTL="$TEPCTL -s $SOCK"

# check_text FILE WANT [PREFIX]: FILE holds route show's text lines;
# every route of vrf red (within PREFIX) exactly once.
check_text() {
	$PY - "$1" "$N4" "$N6" "${3:-}" <<-'PY'
	import ipaddress, sys
	f, n4, n6, within = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
	want = ["198.%d.%d.%d/32" % (18 + (i % 4 == 3), (i >> 8) & 255, i & 255)
	        for i in range(n4)] + ["2001:db8:18:%x::/64" % (i + 1)
	                               for i in range(n6)]
	if within:
	    net = ipaddress.ip_network(within)
	    want = [p for p in want if ipaddress.ip_network(p).version ==
	            net.version and ipaddress.ip_network(p).subnet_of(net)]
	got = [ln.split()[0] for ln in open(f) if ln.strip()]
	dup = len(got) - len(set(got))
	if dup or set(got) != set(want):
	    print("%d lines, %d duplicates, %d missing, %d unexpected" %
	          (len(got), dup, len(set(want) - set(got)),
	           len(set(got) - set(want))))
	    sys.exit(1)
	print(len(got))
	PY
}

# text, read at once
if n=$(set -o pipefail; $CTL route show vrf red >"$WORK/t1" && check_text "$WORK/t1"); then
	ok "route show vrf red: all $n routes once (text)"
else
	fail "route show vrf red (text): $n"
fi

# JSON: one document per piece, each with the VRF and at most 8192 routes
if out=$($CTL -j route show vrf red | $PY -c '
import json, sys
docs = [json.loads(ln) for ln in sys.stdin if ln.strip()]
sizes = [len(d["routes"]) for d in docs]
pfx = [r["prefix"] for d in docs for r in d["routes"]]
assert all(d["vrf"] == "red" for d in docs), "vrf"
assert max(sizes) <= 8192, sizes
for p in pfx:
    print(p)
print("%d documents, sizes %s" % (len(docs), sizes), file=sys.stderr)
' 2>"$WORK/jdocs" >"$WORK/j1") && n=$(check_text "$WORK/j1") &&
   grep -q "^4 documents" "$WORK/jdocs"; then
	ok "route show vrf red -j: all $n routes once, $(cat "$WORK/jdocs")"
else
	fail "route show vrf red -j: ${n:-} $(cat "$WORK/jdocs")"
fi

# a slow reader: a client that reads nothing for 2 s after asking. The
# pieces wait for it; were they sent on a clock, its queue would pass the
# server's 1 MiB cap (the socket buffer holds a fraction of one piece) and
# it would be dropped with part of the table.
if n=$(set -o pipefail; $PY - "$SOCK" "$HERE" <<-'PY' >"$WORK/j2" && check_text "$WORK/j2"
	import json, sys, time
	sys.path.insert(0, sys.argv[2])
	from ctlwire import Conn, encode
	c = Conn(sys.argv[1], timeout=20)
	c.send(encode(["route", "show", "vrf", "red"], True))
	time.sleep(2)
	while True:
	    r = c.reply()
	    assert r is not None, "dropped before the end of the listing"
	    assert r[1] == 0, r[:2]
	    for rt in json.loads(r[2])["routes"]:
	        print(rt["prefix"])
	    if r[0] == 0:
	        break
	PY
); then
	ok "a reader that waits 2 s still gets all $n routes"
else
	fail "slow reader: ${n:-dropped}"
fi

# within a prefix: only that family's walk, filtered
if n=$($CTL route show vrf red 198.19.0.0/16 >"$WORK/t3" &&
       check_text "$WORK/t3" x 198.19.0.0/16) && [ "$n" = $((N4 / 4)) ]; then
	ok "route show vrf red 198.19.0.0/16: its $n routes"
else
	fail "route show within 198.19.0.0/16: $n"
fi

# a short listing: one document, as before
if $CTL -j route show vrf blue | $PY -c '
import json, sys
docs = [json.loads(ln) for ln in sys.stdin if ln.strip()]
assert len(docs) == 1 and [r["prefix"] for r in docs[0]["routes"]] == \
    ["198.18.0.0/15"], docs'; then
	ok "route show vrf blue: one document"
else
	fail "route show vrf blue is not one document"
fi

# in a batch: the listing, then the next command's answer after all of it
printf 'route show vrf red\nvrf list\n' >"$WORK/batch"
if $CTL -b "$WORK/batch" >"$WORK/b1" 2>"$WORK/b1.err" &&
   head -n $((N4 + N6)) "$WORK/b1" >"$WORK/b1.routes" &&
   n=$(check_text "$WORK/b1.routes") &&
   tail -n +$((N4 + N6 + 1)) "$WORK/b1" | grep -qw red; then
	ok "tepctl -b: $n routes, then vrf list"
else
	fail "tepctl -b route show + vrf list: $(wc -l <"$WORK/b1") lines, $(cat "$WORK/b1.err")"
fi

# the VRF goes while its listing waits for the reader: an error, not a
# listing of whatever took its place
if out=$($PY - "$SOCK" "$HERE" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[2])
	from ctlwire import Conn, encode
	c = Conn(sys.argv[1], timeout=20)
	c.send(encode(["route", "show", "vrf", "red"], True))
	first = c.reply()
	assert first[0] == 1 and first[1] == 0, first[:2]
	d = Conn(sys.argv[1])
	r = d.call(["vrf", "del", "red"])
	assert r[1] == 0, r
	items, last = 1, None
	while True:
	    r = c.reply()
	    if r is None or r[0] == 0:
	        last = r
	        break
	    items += 1
	print(items, last[1] if last else None, last[2] if last else None)
	PY
) && set -- $out && [ "$2" = 2 ] && [ "$1" -lt 3 ] &&
   echo "$out" | grep -q 'vrf "red" was deleted during the listing'; then
	ok "vrf deleted during the listing: error after $1 piece(s)"
else
	fail "vrf deleted during the listing: ${out:-no answer}"
fi

finish
