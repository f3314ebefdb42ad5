#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The tepd authors
#
# 10 000 routes of vrf red are added and deleted while a checked UDP flow
# to an unchanged prefix (198.18.0.0/24 via tunnel vx1) goes through tepd
# and back. Afterwards: tepd is alive, every datagram arrived intact both
# ways, nothing was dropped for want of a route or sent where it should
# not go, the route table is what it was, and every mbuf is back in the
# pool.
#
#   test_route_churn.sh wire|tepctl [ROUNDS]
#     wire:   the changes go over one control connection, pipelined
#             (ctlwire.py batch); ROUNDS passes (default 5), since one
#             takes about a second
#     tepctl: one tepctl process per change (one pass unless ROUNDS)
#
#   ten (192.0.2.10) --veth-- [tepd access, vrf red]
#                              [tepd underlay] --wire-- peer: vx0 198.18.0.2
#
# The churned routes (198.19.0.0/16 /32s and 2001:db8:ffff::/48 /64s) point
# in turn to vx1 (the flow's own tunnel: its shared, reference-counted next
# hop is taken and released thousands of times), to vx2 (VNI 43, which
# nothing should ever use) and to blackhole. A flow packet that took a
# churned prefix's next hop would show up as vx2 traffic or a blackhole
# drop.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CLIENT=${1:-wire}
if [ "$CLIENT" = wire ]; then ROUNDS=${2:-5}; else ROUNDS=${2:-1}; fi
NROUTES=10000
WINDOW=1000	# routes installed at once while the window slides
RATE=1000	# flow datagrams per second
SIZE=256

# -r 8192: vrf red's IPv6 table then has 4096 tbl8 groups, which 22.11's
# trie exhausts after 819 /64s added (it never gives a deleted route's
# back): the churn's 1000 IPv6 adds a round make tepd rebuild the table
# (fib6_rebuilds, checked in 4.) while the flow goes through it.
TEPD_ARGS="${TEPD_ARGS:-} -r 8192"
vxlan_site_setup af_packet 4
TEPD_PID=${TEPD_PIDS[-1]}
# vx2: a second tunnel to the same peer, VNI 43, which the peer does not
# carry. Only churned routes point to it: any packet it sends is misrouted.
$CTL tunnel add vx2 type vxlan local "$U_TEP" remote "$U_PEER" vni 43 vrf red \
	inner-dmac 02:00:00:00:43:02
# The tenant and peer kernels' own IPv6 chatter (router solicitations, MLD
# reports) would enter vrf red and be dropped as no_route; only the flow
# should be there.
ip netns exec "$TEN" sysctl -qw net.ipv6.conf.ten0.disable_ipv6=1
ip netns exec "$PEER" sysctl -qw net.ipv6.conf.vx0.disable_ipv6=1

# Resolve every MAC on the path before the flow starts (tunnel packets
# waiting for the underlay MAC are dropped, by design).
if ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 198.18.0.2 >"$WORK/ping" 2>&1 ||
   ip netns exec "$TEN" ping -c 3 -i 0.2 -W 2 198.18.0.2 >"$WORK/ping" 2>&1; then
	ok "path up: tenant -> tepd -> kernel vxlan and back"
else
	fail "ping before the churn"; cat "$WORK/ping"; finish
fi

# The changes: NROUTES routes, each added once and deleted once per round,
# WINDOW of them installed at a time, so FIB tbl8 groups are allocated and
# freed all along. Every 10th route is IPv6.
$PY - "$NROUTES" "$WINDOW" >"$WORK/churn.txt" <<'EOF'
import sys
n, w = int(sys.argv[1]), int(sys.argv[2])
nhs = ["tunnel vx1", "tunnel vx2", "blackhole"]
pfx, v4, v6 = [], 0, 0
for i in range(n):
    if i % 10 == 9:
        pfx.append("2001:db8:ffff:%x::/64" % v6)
        v6 += 1
    else:
        pfx.append("198.19.%d.%d/32" % (v4 // 250, v4 % 250 + 1))
        v4 += 1
for i, p in enumerate(pfx):
    print("route add %s vrf red %s" % (p, nhs[i % 3]))
    if i >= w:
        print("route del %s vrf red" % pfx[i - w])
for p in pfx[-w:]:
    print("route del %s vrf red" % p)
EOF
NCMD=$(wc -l <"$WORK/churn.txt")
say "$NCMD route changes per round, $ROUNDS round(s), client $CLIENT"

$CTL -j route show vrf red >"$WORK/routes.before"
# the route counts, not fib6_rebuilds (4.)
vrf_counts() {
	$CTL -j vrf list | $PY -c 'import json,sys
for v in json.load(sys.stdin)["vrfs"]:
    print(v["name"], v["routes4"], v["routes6"])'
}
vrf_counts >"$WORK/vrfs.before"
rebuilds_red() {
	$CTL -j vrf list | $PY -c 'import json,sys
print([v["fib6_rebuilds"] for v in json.load(sys.stdin)["vrfs"] if v["name"] == "red"][0])'
}
rb_before=$(rebuilds_red)
$CTL stats clear
pool_in_use() { $CTL -j stats | jget mempool.in_use; }
idle=$(pool_in_use)
pool_size=$($CTL -j stats | jget mempool.size)
say "mempool idle: $idle of $pool_size in use"
csum_before=$(udp_csum_errors "$PEER" | awk '{ s += $1 } END { print s + 0 }')

# The flow: tenant -> 198.18.0.2 (through vx1) and echoed back.
STOP="$WORK/stop"
ip netns exec "$PEER" $PY "$HERE/churn_flow.py" echo 5003 "$STOP" \
	>"$WORK/echo.json" &
epid=$!
sleep 0.5
ip netns exec "$TEN" $PY "$HERE/churn_flow.py" send 198.18.0.2 5003 \
	"$RATE" "$SIZE" "$STOP" >"$WORK/send.json" &
fpid=$!
sleep 1

t0=$(date +%s%N)
: >"$WORK/churn.err"
for _ in $(seq "$ROUNDS"); do
	if [ "$CLIENT" = wire ]; then
		$PY "$HERE/ctlwire.py" "$WORK/tepd.sock" batch <"$WORK/churn.txt" \
			>"$WORK/batch.json" 2>>"$WORK/churn.err" || true
	else
		while read -r line; do
			# word splitting of $line is wanted: it is the argv
			# shellcheck disable=SC2086
			$CTL $line 2>>"$WORK/churn.err" || true
		done <"$WORK/churn.txt"
	fi
	kill -0 "$TEPD_PID" 2>/dev/null || break
done
t1=$(date +%s%N)
total=$((NCMD * ROUNDS))
say "$(awk -v n="$total" -v ns="$((t1 - t0))" -v c="$CLIENT" 'BEGIN {
	printf "%d route changes in %.2f s with %s (%.0f changes/s)", n,
		ns / 1e9, c, n / (ns / 1e9) }')"

sleep 1
touch "$STOP"
wait $fpid || true
wait $epid || true
say "flow sender: $(cat "$WORK/send.json")"
say "flow receiver: $(cat "$WORK/echo.json")"

# 1. tepd survived and still answers.
if kill -0 "$TEPD_PID" 2>/dev/null && $CTL port list >/dev/null; then
	ok "tepd alive after $total route changes"
else
	fail "tepd died during the churn"
	finish
fi
# Refused changes, grouped by message with the prefixes taken out.
cfail=$(wc -l <"$WORK/churn.err")
if [ "$cfail" = 0 ]; then
	ok "all $total route changes accepted"
else
	fail "$cfail of $total route changes refused:"
	$PY - "$WORK/churn.err" <<'EOF'
import collections, re, sys
groups = collections.Counter()
first = {}
for ln in open(sys.argv[1], errors="replace"):
    ln = re.sub(r"^(line \d+: |tepctl: )", "", ln.strip())
    k = re.sub(r"[0-9a-fA-F:.]*[:.][0-9a-fA-F:.]*/\d+", "PREFIX", ln)
    groups[k] += 1
    first.setdefault(k, ln)
for k, n in groups.most_common(5):
    print("      %6d x %s   (first: %s)" % (n, k, first[k]))
EOF
fi

# 2. The flow: nothing lost, corrupted or duplicated, either way.
sent=$(jget sent <"$WORK/send.json")
late=$(jget late <"$WORK/send.json")
got=$(jget received <"$WORK/echo.json")
fbad=$(jget bad <"$WORK/echo.json")
fdup=$(jget dup <"$WORK/echo.json")
fgap=$(jget longest_gap <"$WORK/echo.json")
back=$(jget echoed <"$WORK/send.json")
bbad=$(jget echo_bad <"$WORK/send.json")
bdup=$(jget echo_dup <"$WORK/send.json")
bgap=$(jget longest_gap <"$WORK/send.json")
say "sender fell behind schedule (>50 ms) $late time(s)"
if [ "$sent" -gt $((RATE * 2)) ] && [ "$got" = "$sent" ] && [ "$fbad" = 0 ] &&
   [ "$fdup" = 0 ]; then
	ok "to 198.18.0.2: $got/$sent datagrams intact, none lost"
else
	fail "to 198.18.0.2: $got/$sent intact ($((sent - got)) lost, longest run $fgap), $fbad corrupt, $fdup duplicated"
fi
if [ "$back" = "$sent" ] && [ "$bbad" = 0 ] && [ "$bdup" = 0 ]; then
	ok "echoed back to the tenant: $back/$sent intact"
else
	fail "echoes: $back/$sent intact ($((sent - back)) lost, longest run $bgap), $bbad corrupt, $bdup duplicated"
fi

# 3. Nothing dropped for lack of a route, nothing misrouted.
$CTL -j stats >"$WORK/stats.json"
$CTL stats >"$WORK/stats.txt"
read -r nr bh red_drops <<<"$($PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["vrfs"] if x["vrf"] == "red"][0]["drops"]
print(v.get("drop_no_route", 0), v.get("drop_blackhole", 0),
      json.dumps(v, separators=(",", ":")))' "$WORK/stats.json")"
[ "$nr" = 0 ] && ok "vrf red: drop_no_route 0" ||
	fail "vrf red: drop_no_route $nr"
[ "$bh" = 0 ] && ok "vrf red: drop_blackhole 0 (no flow packet took a blackhole)" ||
	fail "vrf red: drop_blackhole $bh"
[ "$red_drops" = "{}" ] || say "vrf red drops: $red_drops"
vx1=$($CTL -j stats tunnel vx1 | jget tunnels.0.encap)
vx2=$($CTL -j stats tunnel vx2 | jget tunnels.0.encap)
[ "$vx2" = 0 ] && ok "tunnel vx2 encap 0 (no flow packet took vx2); vx1 encap $vx1" ||
	fail "tunnel vx2 encapsulated $vx2 packet(s): misrouted"

# 4. The table is back to where it started.
$CTL -j route show vrf red >"$WORK/routes.after"
vrf_counts >"$WORK/vrfs.after"
rb_after=$(rebuilds_red)
[ "$rb_after" -gt "$rb_before" ] &&
	ok "vrf red's IPv6 table rebuilt $((rb_after - rb_before)) time(s) under the flow" ||
	fail "vrf red's IPv6 table never rebuilt ($rb_before -> $rb_after): the churn did not reach the trie's limit"
if cmp -s "$WORK/routes.before" "$WORK/routes.after" &&
   cmp -s "$WORK/vrfs.before" "$WORK/vrfs.after"; then
	ok "route table of vrf red and route counts back to the start"
else
	fail "route table differs after the churn"
	diff "$WORK/routes.before" "$WORK/routes.after" | head
	diff "$WORK/vrfs.before" "$WORK/vrfs.after" | head
fi

# 5. No mbuf leaked: the pool returns to its idle count once traffic stops.
in_use=$(pool_in_use)
for _ in $(seq 30); do
	[ "$in_use" = "$idle" ] && break
	sleep 0.1
	in_use=$(pool_in_use)
done
[ "$in_use" = "$idle" ] && ok "mempool: $in_use mbufs in use, as when idle" ||
	fail "mempool: $in_use mbufs in use after the traffic, $idle when idle"

# 6. The kernel saw nothing malformed.
csum_after=$(udp_csum_errors "$PEER" | awk '{ s += $1 } END { print s + 0 }')
[ "$csum_after" = "$csum_before" ] &&
	ok "kernel UDP InCsumErrors unchanged ($csum_after)" ||
	fail "kernel UDP InCsumErrors $csum_before -> $csum_after"
finish
